package phone

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

// signed is a token of payload signed with s's key: what only a holder of the key could
// make, to test the strict reading of the payload behind a valid signature.
func signed(s *Signer, payload string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(s.mac([]byte(payload)))
}

// TestPayloadStrict: behind a valid signature, only the payload encodeClaim writes is read;
// any other spelling of the same claim, another version, a missing or extra field, an
// unknown action or a nonce rand.Text would not make is malformed.
func TestPayloadStrict(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := NewSigner(func() time.Time { return now })
	id := s.serverID("/tmp/tmux-1000/default")
	good := "c2|" + id + "|%253|0123456789abcdef01234567|resume|held|1800003600|ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	want := target{ServerID: id, Pane: "%3", Action: resume}
	c, err := s.Check(signed(s, good), want)
	if err != nil || c.Server != id || c.Pane != "%3" || c.Binding != "0123456789abcdef01234567" || c.Event != "held" || !c.Expires.Equal(now.Add(time.Hour)) {
		t.Fatalf("Check(good) = %+v, %v", c, err)
	}
	if encodeClaim(c) != good {
		t.Fatalf("encodeClaim = %q, want %q", encodeClaim(c), good)
	}
	for _, bad := range []string{
		strings.Replace(good, "c2|", "c1|", 1),
		strings.Replace(good, "789abcdef", "789%61bcdef", 1), // another spelling of "a"
		strings.Replace(good, "|held|", "|he%20ld|", 1),      // encodeClaim writes a space "+"
		strings.Replace(good, "1800003600", "+1800003600", 1),
		strings.Replace(good, "1800003600", "01800003600", 1),
		strings.Replace(good, "|resume|", "|Resume|", 1),
		strings.Replace(good, "|resume|", "|type|", 1),
		strings.Replace(good, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXY1", 1),
		strings.Replace(good, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJKLMNOPQRSTUVWXYZA", 1),
		good + "|",
		strings.Replace(good, "|held", "", 1),
		strings.Replace(good, "%253", "%3", 1) + "x", // an unescaped "%" and a longer nonce
	} {
		_, err := s.Check(signed(s, bad), want)
		if !errors.Is(err, errMalformed) {
			t.Errorf("Check(signed %q) = %v, want ErrMalformed", bad, err)
		}
	}
}
