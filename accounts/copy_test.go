package accounts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/records"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCopySession(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	const cwd, session = "/tmp/rec/h/work.dir", "5e551011-0001-4000-8000-000000000001"
	// Where Claude Code keeps it (records finds it at the encoded cwd, not by its fallback).
	enc := "-tmp-rec-h-work-dir"
	src := filepath.Join(a, "projects", enc, session+".jsonl")
	write(t, src, row("user", session, now, now)+row("limit", session, now, now))
	write(t, filepath.Join(a, "projects", enc, session, "tool-results", "t1.txt"), "output one")
	write(t, filepath.Join(a, "projects", enc, "other.jsonl"), "another session's")
	if p, err := (records.Env{ConfigDir: a}).Transcript(records.Entry{SessionID: session, Cwd: cwd}); err != nil || p != src {
		t.Fatalf("the source transcript is at %s, %v; want %s", p, err, src)
	}

	got, err := copySession(src, b)
	want := filepath.Join(b, "projects", enc, session+".jsonl")
	if err != nil || got != want {
		t.Fatalf("copySession = %s, %v; want %s", got, err, want)
	}
	if read(t, want) != read(t, src) || read(t, filepath.Join(b, "projects", enc, session, "tool-results", "t1.txt")) != "output one" {
		t.Errorf("the copy in b differs from the session in a")
	}
	if _, err := os.Stat(filepath.Join(b, "projects", enc, "other.jsonl")); !os.IsNotExist(err) {
		t.Errorf("another session's transcript was copied too (%v)", err)
	}
	// The Claude Code that resumes the session in b, started in cwd, finds it there.
	if p, err := (records.Env{ConfigDir: b}).Transcript(records.Entry{SessionID: session, Cwd: cwd}); err != nil || p != want {
		t.Errorf("in b the transcript is found at %s, %v; want %s", p, err, want)
	}
	if entries, _ := os.ReadDir(filepath.Join(b, "projects", enc)); len(entries) != 2 {
		t.Errorf("b's project directory holds %d entries, want the transcript and its directory (no temporary file left)", len(entries))
	}

	// Again: the same bytes are there; an earlier copy that the source continues is updated.
	if _, err := copySession(src, b); err != nil {
		t.Errorf("copying the same session again: %v", err)
	}
	write(t, src, read(t, src)+row("user", session, now, now))
	if _, err := copySession(src, b); err != nil || read(t, want) != read(t, src) {
		t.Errorf("copying a continued session over its earlier copy: %v (copy up to date: %v)", err, read(t, want) == read(t, src))
	}
}

func TestCopySessionRefusesAnotherFile(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	const session = "s1"
	src := filepath.Join(a, "projects", "-w", session+".jsonl")
	write(t, src, row("limit", session, now, now))
	write(t, filepath.Join(a, "projects", "-w", session, "tool-results", "new.txt"), "new")
	theirs := filepath.Join(b, "projects", "-w", session+".jsonl")
	write(t, theirs, row("user", session, now, now)) // not a beginning of src
	if _, err := copySession(src, b); !errors.Is(err, errConflict) {
		t.Fatalf("copySession over a different transcript = %v, want errConflict", err)
	}
	if read(t, theirs) != row("user", session, now, now) {
		t.Errorf("the different transcript in b was changed")
	}
	if _, err := os.Stat(filepath.Join(b, "projects", "-w", session, "tool-results", "new.txt")); !os.IsNotExist(err) {
		t.Errorf("a tool result was copied although the copy was refused (%v)", err)
	}

	// A different tool result is refused too, before the transcript is written.
	os.Remove(theirs)
	write(t, filepath.Join(b, "projects", "-w", session, "tool-results", "new.txt"), "not the same")
	if _, err := copySession(src, b); !errors.Is(err, errConflict) {
		t.Fatalf("copySession over a different tool result = %v, want errConflict", err)
	}
	if _, err := os.Stat(theirs); !os.IsNotExist(err) {
		t.Errorf("the transcript was copied although the copy was refused (%v)", err)
	}
}

// TestCopySessionRefusesLinks: a symbolic link planted under the target account, on the way to
// any file the copy writes (projects/, the project, the session's directory or one below it,
// the transcript itself), is refused before anything is written, and what it points to is
// left as it is, whether it leads out of the account or within it.
func TestCopySessionRefusesLinks(t *testing.T) {
	const session = "s1"
	for _, tc := range []struct {
		name, link string // the link planted, under b
		inside     bool   // it points to a directory within b
	}{
		{name: "projects", link: "projects"},
		{name: "the project", link: "projects/-w"},
		{name: "the project, within the account", link: "projects/-w", inside: true},
		{name: "the session's directory", link: "projects/-w/" + session},
		{name: "its tool results", link: "projects/-w/" + session + "/tool-results"},
		{name: "the transcript", link: "projects/-w/" + session + ".jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			a, b, elsewhere := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "elsewhere")
			src := filepath.Join(a, "projects", "-w", session+".jsonl")
			write(t, src, row("limit", session, now, now))
			write(t, filepath.Join(a, "projects", "-w", session, "tool-results", "t1.txt"), "output one")
			if tc.inside {
				elsewhere = filepath.Join(b, "other")
			}
			target := elsewhere
			if strings.HasSuffix(tc.link, ".jsonl") {
				write(t, filepath.Join(elsewhere, "x"), "")
				target = filepath.Join(elsewhere, "x")
			} else if err := os.MkdirAll(elsewhere, 0o700); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(b, tc.link)
			if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			_, err := copySession(src, b)
			if !errors.Is(err, errLink) || !strings.Contains(err.Error(), link) {
				t.Errorf("copySession through the link %s = %v, want errLink naming it", tc.link, err)
			}
			var written []string
			filepath.WalkDir(elsewhere, func(p string, d fs.DirEntry, err error) error {
				if err == nil && p != target && p != elsewhere {
					written = append(written, p)
				}
				return nil
			})
			if len(written) > 0 {
				t.Errorf("written through the link: %q", written)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link was replaced (%v)", err)
			}
			if fi, err := os.Stat(target); err != nil || fi.Mode().IsRegular() && fi.Size() != 0 {
				t.Errorf("what the link points to was changed (%v)", err)
			}
		})
	}
}
