package accounts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrConflict is a copy refused because the target account already holds a different file of
// the session: it is left as it is, and nothing is copied.
var ErrConflict = errors.New("a different file of this session is already there")

// transfer is one file of a copy.
type transfer struct {
	from, to string
	// keep: the target holds the same bytes already; nothing to write.
	keep bool
}

// CopySession copies the transcript at src (<config dir>/projects/<project>/<session>.jsonl)
// and the directory of the same name beside it, if any (<session>/, which holds the
// session's tool-results/), into the config directory dst under the same project name, and
// returns the transcript's new path. The project name is kept as Claude Code wrote it for the
// session's working directory (every character but letters and digits as "-", and its own
// way for unusual names), so the Claude Code that resumes the session in dst, started in that
// directory, looks for it there.
//
// Every file is checked before anything is written: a file of the session already in dst
// with other bytes is ErrConflict (the transcript is the one exception: an earlier copy of
// it, of which src is a continuation, is brought up to date). Each file is written under a
// temporary name beside its place, synced and renamed into it, the tool results before the
// transcript, so Claude Code never reads half a file, nor a transcript whose tool results
// are missing.
func CopySession(src, dst string) (string, error) {
	session, ok := strings.CutSuffix(filepath.Base(src), ".jsonl")
	if !ok || session == "" {
		return "", fmt.Errorf("accounts: copy %s: not a transcript (<session>.jsonl)", src)
	}
	toDir := filepath.Join(dst, "projects", filepath.Base(filepath.Dir(src)))
	plan, err := planTree(filepath.Join(filepath.Dir(src), session), filepath.Join(toDir, session))
	if err != nil {
		return "", err
	}
	main := transfer{from: src, to: filepath.Join(toDir, session+".jsonl")}
	if main.keep, err = sameOrPrefix(main.from, main.to, true); err != nil {
		return "", err
	}
	for _, t := range append(plan, main) {
		if err := t.write(); err != nil {
			return "", err
		}
	}
	return main.to, nil
}

// planTree lists the regular files under the directory from as copies into to, each checked
// against what is there. No directory from is no file.
func planTree(from, to string) ([]transfer, error) {
	var plan []transfer
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == from:
			return fs.SkipAll
		case err != nil:
			return err
		case !d.Type().IsRegular():
			return nil // directories are made on the way; links and devices are not copied
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		t := transfer{from: p, to: filepath.Join(to, rel)}
		if t.keep, err = sameOrPrefix(t.from, t.to, false); err != nil {
			return err
		}
		plan = append(plan, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("accounts: copy %s: %w", from, err)
	}
	return plan, nil
}

// sameOrPrefix compares the file from with the file at to: keep is true when to holds the
// same bytes, false when there is no file at to, or (with prefix) when to holds a beginning
// of from (an earlier copy, which from continues). Anything else is ErrConflict.
func sameOrPrefix(from, to string, prefix bool) (keep bool, err error) {
	old, err := os.ReadFile(to)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("accounts: copy to %s: %w", to, err)
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return false, fmt.Errorf("accounts: copy %s: %w", from, err)
	}
	switch {
	case bytes.Equal(b, old):
		return true, nil
	case prefix && bytes.HasPrefix(b, old):
		return false, nil
	}
	return false, fmt.Errorf("accounts: copy to %s: %w (move it away to switch)", to, ErrConflict)
}

// write copies t.from to t.to through a temporary file in t.to's directory (0700
// directories, 0600 files, as Claude Code makes them).
func (t transfer) write() (err error) {
	if t.keep {
		return nil
	}
	dir := filepath.Dir(t.to)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", dir, err)
	}
	in, err := os.Open(t.from)
	if err != nil {
		return fmt.Errorf("accounts: copy %s: %w", t.from, err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(t.to)+".tmp-*")
	if err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := io.Copy(tmp, in); err != nil {
		return fmt.Errorf("accounts: copy %s: %w", t.from, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), t.to); err != nil {
		return fmt.Errorf("accounts: copy to %s: %w", t.to, err)
	}
	return nil
}
