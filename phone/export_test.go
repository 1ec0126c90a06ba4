package phone

import "testing"

// SetMaxUsed lowers the bound on redeemed tokens (maxUsed) until t ends.
func SetMaxUsed(t testing.TB, n int) {
	old := maxUsed
	maxUsed = n
	t.Cleanup(func() { maxUsed = old })
}

// Used is how many redeemed nonces s keeps; -1 when its map and its heap disagree.
func (s *Signer) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.used.at) != s.used.Len() {
		return -1
	}
	return s.used.Len()
}

// Tail is the end of a screen as a report carries it (tail).
func Tail(text string, n int) string { return tail(text, n) }
