package store

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// ProbeSize is how much Probe writes: a block, so that the file system must find room for
// it (a file of a few bytes can live in its inode, with no block at all).
const ProbeSize = 4096

// Probe writes a file of ProbeSize bytes in the existing directory dir the way the store
// writes its own files, and removes it: created 0600 and never through a symlink
// (openPrivate, O_EXCL), written, synced to disk, closed, removed. It tells whether a state
// file can be saved there now: on a full disk or over a quota, creating an empty file may
// still work while the write or the sync fails, and the watcher refuses to send a key it
// cannot record. The error names the step and the file.
func Probe(dir string) error {
	var suffix [6]byte
	rand.Read(suffix[:]) // never fails (crypto/rand)
	name := filepath.Join(dir, ".cac-tmux-probe-"+hex.EncodeToString(suffix[:]))
	f, err := openPrivate(name, os.O_WRONLY|os.O_EXCL, true)
	if err != nil {
		return fmt.Errorf("store: probe %s: %w", dir, err)
	}
	err = probeWrite(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if rerr := os.Remove(name); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("store: probe %s: %w", dir, err)
	}
	return nil
}

// probeWrite writes ProbeSize bytes to f and syncs it to disk.
func probeWrite(f *os.File) error {
	if _, err := f.Write(make([]byte, ProbeSize)); err != nil {
		return err
	}
	return f.Sync()
}
