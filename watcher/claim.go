package watcher

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The watcher's claim on its server: @cac_watcher (tmuxctl.WatcherOption) holds the pid of
// the one watcher that supervises it. The lock file guards one path to the server, but
// another XDG_RUNTIME_DIR, a runtime directory removed at logout or another spelling of the
// socket reach it by another path, so the server itself is claimed. Every write goes through
// tmuxctl.Client.ClaimGlobal, which sets the option only while it holds an expected value:
// two claims cannot both win, and a watcher withdraws only its own pid.

// ErrAnotherWatcher means that another watcher claimed the server first (its pid is in
// @cac_watcher): Run ends, since two watchers would double every key.
var ErrAnotherWatcher = errors.New("another watcher supervises the server")

// ClaimedError is the refusal of Claim: a live watcher other than the claimant holds
// @cac_watcher.
type ClaimedError struct {
	PID int // the holder
}

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("watcher: claim server: pid %d holds %s", e.PID, tmuxctl.WatcherOption)
}

// Claimer is what a claim needs of a tmux server (tmuxctl.Client implements it).
type Claimer interface {
	GlobalOption(ctx context.Context, name string) (string, error)
	ClaimGlobal(ctx context.Context, name, old, value string) (string, error)
}

// Claim makes the watcher pid the server's one at the start of `watch`: @cac_watcher is set
// to pid while it is unset or names a process that no longer runs (a dead holder is
// replaced). A live holder is a *ClaimedError. With no server on the socket yet there is
// nothing to claim: the lock file guards it until the watcher announces itself on the server
// that appears.
func Claim(ctx context.Context, c Claimer, pid int) error {
	// Finished even when watch is told to stop meanwhile: the claim then is withdrawn as the
	// watcher stops, rather than left half made.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	own := strconv.Itoa(pid)
	held, err := c.GlobalOption(ctx, tmuxctl.WatcherOption)
	if errors.Is(err, tmuxctl.ErrNoServer) {
		return nil
	}
	for range 2 { // a stale holder replaced, then at most one other claimant won meanwhile
		if err != nil {
			return err
		}
		if other, alive := Alive(held); alive && other != pid {
			return &ClaimedError{PID: other}
		}
		if strings.TrimSpace(held) == own {
			return nil
		}
		held, err = c.ClaimGlobal(ctx, tmuxctl.WatcherOption, held, own)
	}
	if err != nil {
		return err
	}
	if strings.TrimSpace(held) != own {
		return fmt.Errorf("%s reads %q", tmuxctl.WatcherOption, held)
	}
	return nil
}

// Holding is who holds a server (Hold) and how.
type Holding struct {
	Getenv   func(string) string // finds the state, lock and socket directories
	UID, PID int                 // the user and the watcher's process
	Name     string              // the server as people name it, for a HeldError
	// ReadOnly (a dry run, --once) reads the state but takes no lock, claims nothing and
	// writes nothing.
	ReadOnly bool
	// Fleet is true for a watch --all-servers, which goes on with the other servers when one
	// is held (HeldError says so).
	Fleet bool
}

// Hold locks the server of c for the watcher h.PID, opens its state file (store.Open, which
// checks the directories) and claims the server (Claim). Another watcher holding the lock or
// the claim is a *HeldError (docs/how-it-works.md, Restarts, crashes and a changing server).
func Hold(ctx context.Context, c *tmuxctl.Client, h Holding) (*store.Store, *store.Lock, error) {
	server, err := c.SocketFile(h.Getenv, h.UID)
	if err != nil {
		return nil, nil, err
	}
	st, lock, err := store.Open(h.Getenv, server, h.ReadOnly)
	if locked := (*store.LockedError)(nil); errors.As(err, &locked) {
		by := "its lock"
		if dir, err := store.LockDir(h.Getenv); err == nil {
			by += " " + store.LockPath(dir, server)
		}
		return nil, nil, h.heldBy(locked.PID, by)
	}
	if err != nil || h.ReadOnly {
		return st, lock, err
	}
	err = Claim(ctx, c, h.PID)
	if claimed := (*ClaimedError)(nil); errors.As(err, &claimed) {
		err = h.heldBy(claimed.PID, "its @cac_watcher; its lock is under another runtime directory, or reached the server by another path")
	} else if err != nil {
		err = fmt.Errorf("watcher: claim %s: %w", c.Name(), err)
	}
	if err != nil {
		lock.Release()
		return nil, nil, err
	}
	return st, lock, nil
}

// HeldError says that another watcher supervises a server, who, and what to do, in words
// for the person who started the refused watcher.
type HeldError struct {
	PID    int    // 0 when the holder has not written its pid yet
	Server string // the server as people name it
	By     string // how it holds the server: its lock, its @cac_watcher
	All    bool   // the holder is a watch --all-servers
	Fleet  bool   // the one told is a watch --all-servers, which goes on with the other servers
}

func (e *HeldError) Error() string {
	who, fix := "another watcher", "stop it first, or watch another server with -L/-S"
	if e.All {
		who, fix = "cac-tmux watch --all-servers", "stop it first, or leave this server to it"
	}
	if e.Fleet {
		fix = "--all-servers supervises the other servers, and this one once that watcher stops"
	}
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s already supervises %s (%s); %s", who, e.Server, e.By, fix)
}

// heldBy is the error of a watcher that finds its server held by the watcher pid, by (how):
// a watch --all-servers is named as one when it holds the lock of the servers of the user's
// socket directory (store.AllServersHolder) and pid is its.
func (h Holding) heldBy(pid int, by string) *HeldError {
	e := &HeldError{PID: pid, Server: h.Name, By: by, Fleet: h.Fleet}
	all, running, err := store.AllServersHolder(h.Getenv, tmuxctl.SocketDir(h.Getenv, h.UID))
	e.All = err == nil && running && pid > 0 && all == pid
	return e
}

// announce claims the server for this watcher: its @cac_watcher is set to the watcher's pid
// only while it is unset. Claim, at the start of `watch`, replaces the claim of a watcher that
// no longer runs; this claims a server that started later on the socket, or again after a
// restart.
func (w *Watcher) announce(ctx context.Context) error {
	pid := strconv.Itoa(w.cfg.PID)
	held, err := w.tmux.ClaimGlobal(ctx, tmuxctl.WatcherOption, "", pid)
	switch {
	case err != nil:
		return err
	case held != pid:
		return fmt.Errorf("watcher: claim server %s: %w (pid %s in %s)", w.cfg.Server, ErrAnotherWatcher, held, tmuxctl.WatcherOption)
	}
	w.announced = true
	return nil
}

// withdraw unsets @cac_watcher when it still holds this watcher's pid.
func (w *Watcher) withdraw() {
	if !w.announced {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := w.tmux.ClaimGlobal(ctx, tmuxctl.WatcherOption, strconv.Itoa(w.cfg.PID), ""); err != nil { // only its own
		w.cfg.Log.Debug().Err(err).Msg("could not withdraw " + tmuxctl.WatcherOption)
	}
	w.announced = false
}

// Watching says whether a watcher supervises the server of c, and its pid (0 when its lock
// file names none): the one holding the server's lock here (getenv finds the lock directory,
// store.LockDir), or the live pid published on the server as @cac_watcher — a watcher
// started with another XDG_RUNTIME_DIR locks elsewhere.
func Watching(ctx context.Context, c *tmuxctl.Client, getenv func(string) string) (pid int, running bool) {
	if pid, running := heldLock(c, getenv); running {
		return pid, true
	}
	v, err := c.GlobalOption(ctx, tmuxctl.WatcherOption)
	if err != nil {
		return 0, false
	}
	return Alive(v)
}

// heldLock says whether a watcher holds the server's lock here, and its pid.
func heldLock(c *tmuxctl.Client, getenv func(string) string) (pid int, running bool) {
	server, err := c.SocketFileHere()
	if err != nil {
		return 0, false
	}
	dir, err := store.LockDir(getenv)
	if err != nil {
		return 0, false
	}
	pid, running, err = store.Holder(dir, server)
	return pid, err == nil && running
}

// Alive reads a value of @cac_watcher, the pid a watcher published on its server, and says
// whether that process runs (one of another user's counts).
func Alive(published string) (pid int, alive bool) {
	pid, err := strconv.Atoi(strings.TrimSpace(published))
	if err != nil || pid <= 0 {
		return 0, false
	}
	err = syscall.Kill(pid, 0)
	return pid, err == nil || errors.Is(err, syscall.EPERM)
}
