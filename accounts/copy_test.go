package accounts

import (
	"errors"
	"os"
	"path/filepath"
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

	got, err := CopySession(src, b)
	want := filepath.Join(b, "projects", enc, session+".jsonl")
	if err != nil || got != want {
		t.Fatalf("CopySession = %s, %v; want %s", got, err, want)
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
	if _, err := CopySession(src, b); err != nil {
		t.Errorf("copying the same session again: %v", err)
	}
	write(t, src, read(t, src)+row("user", session, now, now))
	if _, err := CopySession(src, b); err != nil || read(t, want) != read(t, src) {
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
	if _, err := CopySession(src, b); !errors.Is(err, ErrConflict) {
		t.Fatalf("CopySession over a different transcript = %v, want ErrConflict", err)
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
	if _, err := CopySession(src, b); !errors.Is(err, ErrConflict) {
		t.Fatalf("CopySession over a different tool result = %v, want ErrConflict", err)
	}
	if _, err := os.Stat(theirs); !os.IsNotExist(err) {
		t.Errorf("the transcript was copied although the copy was refused (%v)", err)
	}
}
