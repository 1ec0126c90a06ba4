package phone

import (
	"testing"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
)

// FuzzCheck feeds Check and redeem arbitrary tokens, seeded with a valid one and hostile
// shapes: they must never panic, and never accept anything but the token minted (for any
// target). A single-byte change of the valid token, at any place to any value, is refused.
func FuzzCheck(f *testing.F) {
	clk := clocktest.New(start)
	s := NewSigner(clk.Now)
	c := claimOn(resume)
	tok := s.mint(c)
	f.Add(tok, uint(0), byte('A'))
	f.Add(tok+"=", uint(10), byte('.'))
	f.Add("", uint(1), byte(0))
	f.Add(".", uint(2), byte('\n'))
	f.Add("YzF8eHx5.AAAA", uint(3), byte(0xff))
	f.Add("c1|%2Ftmp|%253|resume|held|1|AAAAAAAAAAAAAAAAAAAAAAAAAA", uint(40), byte('-'))
	f.Add("c2|0123456789abcdef|%253|00112233445566778899aabb|resume|held|1|AAAAAAAAAAAAAAAAAAAAAAAAAA", uint(50), byte('0'))
	wants := []target{targetOf(c), {}, {ServerID: "0000000000000000", Pane: "%3", Action: resume}}
	f.Fuzz(func(t *testing.T, token string, pos uint, b byte) {
		if token != tok {
			for _, w := range wants {
				if got, err := s.Check(token, w); err == nil {
					t.Fatalf("Check(%q, %+v) accepted: %+v", token, w, got)
				}
				if got, err := s.redeem(token, w); err == nil {
					t.Fatalf("Redeem(%q, %+v) accepted: %+v", token, w, got)
				}
			}
		}
		m := []byte(tok)
		if i := int(pos % uint(len(m))); m[i] != b {
			m[i] = b
			if got, err := s.Check(string(m), targetOf(c)); err == nil {
				t.Fatalf("the token with byte %d changed to %#x was accepted: %+v", i, b, got)
			}
		}
	})
}
