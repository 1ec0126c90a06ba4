package watcher_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// claimServer is a server's @cac_watcher, with tmux's compare-and-set (ClaimGlobal).
type claimServer struct {
	held   string
	noneUp bool // no server on the socket
	sets   int
}

func (s *claimServer) GlobalOption(context.Context, string) (string, error) {
	if s.noneUp {
		return "", tmuxctl.ErrNoServer
	}
	return s.held, nil
}

func (s *claimServer) ClaimGlobal(_ context.Context, _, old, value string) (string, error) {
	if s.held == old {
		s.held = value
		s.sets++
	}
	return s.held, nil
}

func TestClaim(t *testing.T) {
	const me = 4242424 // no such process: only compared
	live := os.Getpid()
	for _, tc := range []struct {
		name     string
		server   claimServer
		wantHeld string
		wantBy   int // the live holder refused, 0 for none
	}{
		{"unset", claimServer{}, strconv.Itoa(me), 0},
		{"a dead holder replaced", claimServer{held: "999999999"}, strconv.Itoa(me), 0},
		{"garbage replaced", claimServer{held: "x"}, strconv.Itoa(me), 0},
		{"already ours", claimServer{held: strconv.Itoa(me)}, strconv.Itoa(me), 0},
		{"a live holder kept", claimServer{held: strconv.Itoa(live)}, strconv.Itoa(live), live},
		{"no server yet", claimServer{noneUp: true}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.server
			err := watcher.Claim(context.Background(), &s, me)
			var claimed *watcher.ClaimedError
			switch {
			case tc.wantBy != 0 && (!errors.As(err, &claimed) || claimed.PID != tc.wantBy):
				t.Errorf("Claim = %v, want a *ClaimedError naming pid %d", err, tc.wantBy)
			case tc.wantBy == 0 && err != nil:
				t.Errorf("Claim = %v, want nil", err)
			}
			if s.held != tc.wantHeld {
				t.Errorf("@cac_watcher = %q, want %q", s.held, tc.wantHeld)
			}
		})
	}
}
