package phone

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
)

// start is the manual clock's first instant.
var start = time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)

// sock is the socket of the tmux server the links name; sid an ID of a server as the tokens
// carry it (Signer.ServerID); bound the binding of a Claude Code session (watcher.BindingOf).
const (
	sock  = "/tmp/tmux-1000/default"
	sid   = "0123456789abcdef"
	bound = "00112233445566778899aabb"
)

// claimOn is a token's claim on pane %3 of server sid, valid for an hour from start.
func claimOn(a action) claim {
	return claim{Server: sid, Pane: "%3", Binding: bound, Action: a, Event: "held", Expires: start.Add(time.Hour)}
}

// targetOf is the target a request for c names.
func targetOf(c claim) target {
	return target{ServerID: c.Server, Pane: c.Pane, Action: c.Action}
}

// TestRedeemOnce: a token is checked any number of times, redeemed once, then refused as
// used, by Check too; the claim comes back whole, with its nonce.
func TestRedeemOnce(t *testing.T) {
	clk := clocktest.New(start)
	s := NewSigner(clk.Now)
	c := claimOn(resume)
	tok := s.mint(c)
	for range 2 {
		got, err := s.Check(tok, targetOf(c))
		if err != nil || got.Server != sid || got.Pane != "%3" || got.Binding != bound || got.Action != resume || got.Event != "held" ||
			!got.Expires.Equal(c.Expires) || len(got.Nonce) != 26 {
			t.Fatalf("Check = %+v, %v", got, err)
		}
	}
	if _, err := s.redeem(tok, targetOf(c)); err != nil {
		t.Fatalf("Redeem = %v", err)
	}
	if _, err := s.redeem(tok, targetOf(c)); !errors.Is(err, errUsed) {
		t.Errorf("Redeem again = %v, want ErrUsed", err)
	}
	if _, err := s.Check(tok, targetOf(c)); !errors.Is(err, errUsed) {
		t.Errorf("Check after Redeem = %v, want ErrUsed", err)
	}
	if other := s.mint(c); other == tok {
		t.Error("two tokens of the same claim are alike: the nonce is not fresh")
	}
}

// TestRefusals: each way a token is refused, with its reason.
func TestRefusals(t *testing.T) {
	clk := clocktest.New(start)
	s := NewSigner(clk.Now)
	c := claimOn(skip)
	tok := s.mint(c)
	want := targetOf(c)
	other := func(edit func(w *target)) target { w := want; edit(&w); return w }
	for _, tc := range []struct {
		name  string
		token string
		want  target
		err   error
	}{
		{"other pane", tok, other(func(w *target) { w.Pane = "%4" }), errOtherTarget},
		{"other action", tok, other(func(w *target) { w.Action = resume }), errOtherTarget},
		{"other server", tok, other(func(w *target) { w.ServerID = "fedcba9876543210" }), errOtherTarget},
		{"another watcher's key", NewSigner(clk.Now).mint(c), want, errForged},
		{"signature of another token", swapSignature(tok, s.mint(c)), want, errForged},
		{"empty", "", want, errMalformed},
		{"no dot", strings.Replace(tok, ".", "", 1), want, errMalformed},
		{"two dots", tok + ".", want, errMalformed},
		{"padding", tok + "=", want, errMalformed},
		{"newline inside", tok[:10] + "\n" + tok[10:], want, errMalformed},
		{"short signature", tok[:len(tok)-2], want, errMalformed},
		{"3-byte signature", tok[:strings.IndexByte(tok, '.')] + ".AAAA", want, errMalformed},
		{"too long", strings.Repeat("A", 4000) + "." + strings.Repeat("A", 43), want, errMalformed},
		{"not base64", "a*b.c", want, errMalformed},
	} {
		if _, err := s.Check(tc.token, tc.want); !errors.Is(err, tc.err) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.err)
		}
		if _, err := s.redeem(tc.token, tc.want); !errors.Is(err, tc.err) {
			t.Errorf("%s: Redeem = %v, want %v", tc.name, err, tc.err)
		}
	}
	// Expiry: accepted until its last second, refused from Expires on.
	clk.Set(c.Expires.Add(-time.Second))
	if _, err := s.Check(tok, want); err != nil {
		t.Errorf("a second before it expires: Check = %v", err)
	}
	clk.Set(c.Expires)
	if _, err := s.redeem(tok, want); !errors.Is(err, errExpired) {
		t.Errorf("at Expires: Redeem = %v, want ErrExpired", err)
	}
}

// TestUsedPruned: a redeemed nonce is kept until its token expires, then forgotten (the
// token is refused as expired anyway).
func TestUsedPruned(t *testing.T) {
	clk := clocktest.New(start)
	s := NewSigner(clk.Now)
	for _, ttl := range []time.Duration{2 * time.Minute, time.Minute, time.Hour} {
		c := claimOn(resume)
		c.Expires = start.Add(ttl)
		if _, err := s.redeem(s.mint(c), targetOf(c)); err != nil {
			t.Fatal(err)
		}
	}
	probe := claimOn(resume)
	probe.Expires = start.Add(2 * time.Hour)
	probeToken := s.mint(probe)
	for _, step := range []struct {
		at   time.Duration
		used int
	}{{0, 3}, {59 * time.Second, 3}, {time.Minute, 2}, {2 * time.Minute, 1}, {time.Hour, 0}} {
		clk.Set(start.Add(step.at))
		if _, err := s.Check(probeToken, targetOf(probe)); err != nil { // a check prunes too
			t.Fatal(err)
		}
		if got := s.Used(); got != step.used {
			t.Errorf("after %v: %d nonces kept, want %d", step.at, got, step.used)
		}
	}
}

// TestUsedBound: beyond the bound of redeemed tokens alive, Redeem refuses (forgetting one
// would let it be replayed) until one expires.
func TestUsedBound(t *testing.T) {
	SetMaxUsed(t, 2)
	clk := clocktest.New(start)
	s := NewSigner(clk.Now)
	for i := range 3 {
		c := claimOn(resume)
		c.Expires = start.Add(time.Duration(i+1) * time.Minute)
		_, err := s.redeem(s.mint(c), targetOf(c))
		if i < 2 && err != nil || i == 2 && !errors.Is(err, errFull) {
			t.Fatalf("Redeem #%d = %v", i+1, err)
		}
	}
	clk.Add(time.Minute)
	c := claimOn(resume)
	if _, err := s.redeem(s.mint(c), targetOf(c)); err != nil {
		t.Errorf("once one expired: Redeem = %v", err)
	}
}

// TestRedeemRace: of many requests with one token at once, one is accepted.
func TestRedeemRace(t *testing.T) {
	s := NewSigner(clocktest.New(start).Now)
	c := claimOn(resume)
	tok := s.mint(c)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 16 {
		wg.Go(func() {
			if _, err := s.redeem(tok, targetOf(c)); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != 1 {
		t.Errorf("%d redemptions of one token succeeded, want 1", ok)
	}
}

// TestEveryMutationRefused: every single-byte change of a valid token, at every place and
// to every byte value, is refused; and so is every cut of it.
func TestEveryMutationRefused(t *testing.T) {
	s := NewSigner(clocktest.New(start).Now)
	c := claimOn(screen)
	tok := s.mint(c)
	for i := range len(tok) {
		b := []byte(tok)
		for v := range 256 {
			if byte(v) == tok[i] {
				continue
			}
			b[i] = byte(v)
			if _, err := s.Check(string(b), targetOf(c)); err == nil {
				t.Fatalf("byte %d changed to %#x: accepted", i, v)
			}
		}
		if _, err := s.Check(tok[:i], targetOf(c)); err == nil {
			t.Fatalf("cut to %d bytes: accepted", i)
		}
	}
}

// TestServerID: an ID is 16 hex digits, the same for the same socket, different for
// another, and does not show the path; it is keyed (another watcher's differs, so a guessed
// path cannot be checked against it), and the Signer maps it back to the socket.
func TestServerID(t *testing.T) {
	s := NewSigner(clocktest.New(start).Now)
	a, b := s.serverID(sock), s.serverID("/tmp/tmux-1000/work")
	if a != s.serverID(sock) || a == b || len(a) != 16 || strings.Trim(a, "0123456789abcdef") != "" || strings.Contains(a, "tmux") {
		t.Errorf("ServerID = %q and %q", a, b)
	}
	if other := NewSigner(clocktest.New(start).Now).serverID(sock); other == a {
		t.Errorf("two signers give %s the same ID %q: not keyed", sock, a)
	}
	if got, ok := s.Socket(a); !ok || got != sock {
		t.Errorf("Socket(%q) = %q, %v; want %s", a, got, ok, sock)
	}
	if got, ok := s.Socket(sid); ok {
		t.Errorf("Socket of an ID never made = %q, want none", got)
	}
}

// swapSignature is a's payload with b's signature.
func swapSignature(a, b string) string {
	return a[:strings.IndexByte(a, '.')] + b[strings.IndexByte(b, '.'):]
}
