package accounts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errConflict is a copy refused because the target account already holds a different file of
// the session: it is left as it is, and nothing is copied.
var errConflict = errors.New("a different file of this session is already there")

// errLink is a copy refused because a path it would write under the target account is a
// symbolic link (or not a directory where one is needed): a switch never writes through one,
// and nothing is copied.
var errLink = errors.New("a switch never writes through a symbolic link, nor over another kind of file")

// transfer is one file of a copy.
type transfer struct {
	// from is the file's path; to is its place relative to the target config directory.
	from, to string
	// keep: the target holds the same bytes already; nothing to write.
	keep bool
}

// copySession copies the transcript at src (<config dir>/projects/<project>/<session>.jsonl)
// and the directory beside it of the same name, if any (its tool-results/), into config
// directory dst under the same project name, which Claude Code derives from the working
// directory, so a Claude Code resumed there finds it; it returns the new transcript's path.
// Every file is checked first: one already in dst with other bytes is errConflict (but an
// earlier copy of the transcript that src continues is brought up to date), a symbolic link on
// the way under dst is errLink, and every path is reached through an os.Root of dst, which a
// directory swapped for a link cannot leave. Each file is written beside its place, synced and
// renamed, tool results before the transcript: Claude Code never reads half a copy.
func copySession(src, dst string) (string, error) {
	session, ok := strings.CutSuffix(filepath.Base(src), ".jsonl")
	if !ok || session == "" {
		return "", fmt.Errorf("accounts: copy %s: not a transcript (<session>.jsonl)", src)
	}
	if err := os.MkdirAll(dst, 0o700); err != nil { // the account as configured: the user's path
		return "", fmt.Errorf("accounts: copy to %s: %w", dst, err)
	}
	root, err := os.OpenRoot(dst)
	if err != nil {
		return "", fmt.Errorf("accounts: copy to %s: %w", dst, err)
	}
	defer root.Close()
	c := copier{root: root, dst: dst}
	toDir := filepath.Join("projects", filepath.Base(filepath.Dir(src)))
	plan, err := c.planTree(filepath.Join(filepath.Dir(src), session), filepath.Join(toDir, session))
	if err != nil {
		return "", err
	}
	main := transfer{from: src, to: filepath.Join(toDir, session+".jsonl")}
	if main.keep, err = c.sameOrPrefix(main, true); err != nil {
		return "", err
	}
	for _, t := range append(plan, main) {
		if err := c.write(t); err != nil {
			return "", err
		}
	}
	return filepath.Join(dst, main.to), nil
}

// copier writes under the target config directory dst, only through root.
type copier struct {
	root *os.Root
	dst  string
}

// planTree lists the regular files under the directory from as copies into to (relative to
// dst), each checked against what is there. No directory from is no file.
func (c copier) planTree(from, to string) ([]transfer, error) {
	var plan []transfer
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == from:
			return fs.SkipAll
		case err != nil:
			return fmt.Errorf("accounts: copy %s: %w", from, err)
		case !d.Type().IsRegular():
			return nil // directories are made on the way; links and devices are not copied
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return fmt.Errorf("accounts: copy %s: %w", from, err)
		}
		t := transfer{from: p, to: filepath.Join(to, rel)}
		if t.keep, err = c.sameOrPrefix(t, false); err != nil {
			return err
		}
		plan = append(plan, t)
		return nil
	})
	return plan, err
}

// sameOrPrefix compares the file t.from with the file at t.to: keep is true when t.to holds
// the same bytes, false when there is no file at t.to, or (with prefix) when it holds a
// beginning of t.from (an earlier copy, which t.from continues). Anything else is
// errConflict; a link on the way to t.to is errLink.
func (c copier) sameOrPrefix(t transfer, prefix bool) (keep bool, err error) {
	exists, err := c.check(t.to)
	if err != nil || !exists {
		return false, err
	}
	old, err := c.root.ReadFile(t.to)
	if err != nil {
		return false, fmt.Errorf("accounts: copy to %s: %w", c.path(t.to), err)
	}
	b, err := os.ReadFile(t.from)
	if err != nil {
		return false, fmt.Errorf("accounts: copy %s: %w", t.from, err)
	}
	switch {
	case bytes.Equal(b, old):
		return true, nil
	case prefix && bytes.HasPrefix(b, old):
		return false, nil
	}
	return false, fmt.Errorf("accounts: copy to %s: %w (move it away to switch)", c.path(t.to), errConflict)
}

// check looks at every component of rel under dst without following a link: each directory
// on the way is a directory or not there yet, and rel itself a regular file or not there
// (exists false). A link, or another kind of file, is errLink.
func (c copier) check(rel string) (exists bool, err error) {
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := c.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("accounts: copy to %s: %w", c.path(p), err)
		}
		if want := i < len(parts)-1; fi.Mode()&fs.ModeSymlink != 0 || want != fi.IsDir() || !want && !fi.Mode().IsRegular() {
			return false, c.refuse(p, fi)
		}
	}
	return true, nil
}

// refuse is errLink for the path p under dst, which is fi.
func (c copier) refuse(p string, fi fs.FileInfo) error {
	what := "not a directory"
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case fi.IsDir():
		what = "a directory, not a file"
	case !fi.Mode().IsRegular():
		what = "a special file"
	}
	return fmt.Errorf("accounts: copy to %s: %w (it is %s): remove it, or switch to another account", c.path(p), errLink, what)
}

// path is rel under dst, for people.
func (c copier) path(rel string) string { return filepath.Join(c.dst, rel) }

// mkdirs makes the directories of rel under dst that are not there yet (0700, as Claude Code
// makes them), refusing a link or a file on the way.
func (c copier) mkdirs(rel string) error {
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		err := c.root.Mkdir(p, 0o700)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("accounts: copy to %s: %w", c.path(p), err)
		}
		fi, err := c.root.Lstat(p)
		if err != nil {
			return fmt.Errorf("accounts: copy to %s: %w", c.path(p), err)
		}
		if !fi.IsDir() {
			return c.refuse(p, fi)
		}
	}
	return nil
}

// write copies t.from to t.to through a temporary file in t.to's directory (0600, as Claude
// Code makes them), created there (O_EXCL: never an existing file or link) and renamed over
// t.to (rename replaces a link rather than follow it).
func (c copier) write(t transfer) (err error) {
	if t.keep {
		return nil
	}
	dir := filepath.Dir(t.to)
	if err := c.mkdirs(dir); err != nil {
		return err
	}
	in, err := os.Open(t.from)
	if err != nil {
		return fmt.Errorf("accounts: copy %s: %w", t.from, err)
	}
	defer in.Close()
	tmp := filepath.Join(dir, "."+filepath.Base(t.to)+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
	out, err := c.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", c.path(dir), err)
	}
	defer func() {
		if err != nil {
			out.Close()
			c.root.Remove(tmp)
		}
	}()
	if _, err := io.Copy(out, in); err != nil {
		return fmt.Errorf("accounts: copy %s: %w", t.from, err)
	}
	if err := out.Sync(); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", c.path(tmp), err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", c.path(tmp), err)
	}
	if err := c.root.Rename(tmp, t.to); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", c.path(t.to), err)
	}
	return nil
}
