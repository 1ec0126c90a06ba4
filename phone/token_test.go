package phone_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/phone"
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

// claim is a token's claim on pane %3 of server sid, valid for an hour from start.
func claim(a phone.Action) phone.Claim {
	return phone.Claim{Server: sid, Pane: "%3", Binding: bound, Action: a, Event: "held", Expires: start.Add(time.Hour)}
}

// targetOf is the target a request for c names.
func targetOf(c phone.Claim) phone.Target {
	return phone.Target{ServerID: c.Server, Pane: c.Pane, Action: c.Action}
}

// TestRedeemOnce: a token is checked any number of times, redeemed once, then refused as
// used, by Check too; the claim comes back whole, with its nonce.
func TestRedeemOnce(t *testing.T) {
	clk := clocktest.New(start)
	s := phone.NewSigner(clk.Now)
	c := claim(phone.Resume)
	tok := s.Mint(c)
	for range 2 {
		got, err := s.Check(tok, targetOf(c))
		if err != nil || got.Server != sid || got.Pane != "%3" || got.Binding != bound || got.Action != phone.Resume || got.Event != "held" ||
			!got.Expires.Equal(c.Expires) || len(got.Nonce) != 26 {
			t.Fatalf("Check = %+v, %v", got, err)
		}
	}
	if _, err := s.Redeem(tok, targetOf(c)); err != nil {
		t.Fatalf("Redeem = %v", err)
	}
	if _, err := s.Redeem(tok, targetOf(c)); !errors.Is(err, phone.ErrUsed) {
		t.Errorf("Redeem again = %v, want ErrUsed", err)
	}
	if _, err := s.Check(tok, targetOf(c)); !errors.Is(err, phone.ErrUsed) {
		t.Errorf("Check after Redeem = %v, want ErrUsed", err)
	}
	if other := s.Mint(c); other == tok {
		t.Error("two tokens of the same claim are alike: the nonce is not fresh")
	}
}

// TestRefusals: each way a token is refused, with its reason.
func TestRefusals(t *testing.T) {
	clk := clocktest.New(start)
	s := phone.NewSigner(clk.Now)
	c := claim(phone.Skip)
	tok := s.Mint(c)
	want := targetOf(c)
	other := func(edit func(w *phone.Target)) phone.Target { w := want; edit(&w); return w }
	for _, tc := range []struct {
		name  string
		token string
		want  phone.Target
		err   error
	}{
		{"other pane", tok, other(func(w *phone.Target) { w.Pane = "%4" }), phone.ErrOtherTarget},
		{"other action", tok, other(func(w *phone.Target) { w.Action = phone.Resume }), phone.ErrOtherTarget},
		{"other server", tok, other(func(w *phone.Target) { w.ServerID = "fedcba9876543210" }), phone.ErrOtherTarget},
		{"another watcher's key", phone.NewSigner(clk.Now).Mint(c), want, phone.ErrForged},
		{"signature of another token", swapSignature(tok, s.Mint(c)), want, phone.ErrForged},
		{"empty", "", want, phone.ErrMalformed},
		{"no dot", strings.Replace(tok, ".", "", 1), want, phone.ErrMalformed},
		{"two dots", tok + ".", want, phone.ErrMalformed},
		{"padding", tok + "=", want, phone.ErrMalformed},
		{"newline inside", tok[:10] + "\n" + tok[10:], want, phone.ErrMalformed},
		{"short signature", tok[:len(tok)-2], want, phone.ErrMalformed},
		{"3-byte signature", tok[:strings.IndexByte(tok, '.')] + ".AAAA", want, phone.ErrMalformed},
		{"too long", strings.Repeat("A", 4000) + "." + strings.Repeat("A", 43), want, phone.ErrMalformed},
		{"not base64", "a*b.c", want, phone.ErrMalformed},
	} {
		if _, err := s.Check(tc.token, tc.want); !errors.Is(err, tc.err) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.err)
		}
		if _, err := s.Redeem(tc.token, tc.want); !errors.Is(err, tc.err) {
			t.Errorf("%s: Redeem = %v, want %v", tc.name, err, tc.err)
		}
	}
	// Expiry: accepted until its last second, refused from Expires on.
	clk.Set(c.Expires.Add(-time.Second))
	if _, err := s.Check(tok, want); err != nil {
		t.Errorf("a second before it expires: Check = %v", err)
	}
	clk.Set(c.Expires)
	if _, err := s.Redeem(tok, want); !errors.Is(err, phone.ErrExpired) {
		t.Errorf("at Expires: Redeem = %v, want ErrExpired", err)
	}
}

// TestUsedPruned: a redeemed nonce is kept until its token expires, then forgotten (the
// token is refused as expired anyway).
func TestUsedPruned(t *testing.T) {
	clk := clocktest.New(start)
	s := phone.NewSigner(clk.Now)
	for _, ttl := range []time.Duration{2 * time.Minute, time.Minute, time.Hour} {
		c := claim(phone.Resume)
		c.Expires = start.Add(ttl)
		if _, err := s.Redeem(s.Mint(c), targetOf(c)); err != nil {
			t.Fatal(err)
		}
	}
	probe := claim(phone.Resume)
	probe.Expires = start.Add(2 * time.Hour)
	probeToken := s.Mint(probe)
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
	phone.SetMaxUsed(t, 2)
	clk := clocktest.New(start)
	s := phone.NewSigner(clk.Now)
	for i := range 3 {
		c := claim(phone.Resume)
		c.Expires = start.Add(time.Duration(i+1) * time.Minute)
		_, err := s.Redeem(s.Mint(c), targetOf(c))
		if i < 2 && err != nil || i == 2 && !errors.Is(err, phone.ErrFull) {
			t.Fatalf("Redeem #%d = %v", i+1, err)
		}
	}
	clk.Add(time.Minute)
	c := claim(phone.Resume)
	if _, err := s.Redeem(s.Mint(c), targetOf(c)); err != nil {
		t.Errorf("once one expired: Redeem = %v", err)
	}
}

// TestRedeemRace: of many requests with one token at once, one is accepted.
func TestRedeemRace(t *testing.T) {
	s := phone.NewSigner(clocktest.New(start).Now)
	c := claim(phone.Resume)
	tok := s.Mint(c)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 16 {
		wg.Go(func() {
			if _, err := s.Redeem(tok, targetOf(c)); err == nil {
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
	s := phone.NewSigner(clocktest.New(start).Now)
	c := claim(phone.Screen)
	tok := s.Mint(c)
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
	s := phone.NewSigner(clocktest.New(start).Now)
	a, b := s.ServerID(sock), s.ServerID("/tmp/tmux-1000/work")
	if a != s.ServerID(sock) || a == b || len(a) != 16 || strings.Trim(a, "0123456789abcdef") != "" || strings.Contains(a, "tmux") {
		t.Errorf("ServerID = %q and %q", a, b)
	}
	if other := phone.NewSigner(clocktest.New(start).Now).ServerID(sock); other == a {
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
