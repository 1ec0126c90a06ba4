package phone

import (
	"container/heap"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// action is what a link asks of a pane.
type action string

// The actions a link can carry. resume, skip and unskip are watcher.Action's own names (the
// same gates as `cac-tmux resume`, `skip`, `unskip`); screen sends the pane's text back as a
// notification; reply types a prompt into an idle Claude Code.
const (
	resume action = "resume"
	skip   action = "skip"
	unskip action = "unskip"
	screen action = "screen"
	reply  action = "reply"
)

// actions are the known actions, for the strict parse of a token and of a request.
var actions = []action{resume, skip, unskip, screen, reply}

// known reports whether a is one of actions.
func (a action) known() bool {
	for _, k := range actions {
		if a == k {
			return true
		}
	}
	return false
}

// claim is what a token grants: one action on one Claude Code session in one pane of one tmux
// server, until Expires.
type claim struct {
	// Server is the tmux server's ID (Signer.ServerID of its socket): the token never holds
	// the socket's path, which names the user and the server.
	Server string
	// Pane is tmux's pane id, "%3".
	Pane string
	// Binding is the Claude Code session the notification was about (watcher.BindingOf: its
	// process and conversation): the action is refused in any other (watcher.Bound).
	Binding string
	Action  action
	// Event is the notification the link came with ("held"), for the log.
	Event string
	// Expires is when the token stops being accepted (to the second).
	Expires time.Time
	// Nonce makes each token single-use: Mint fills it with rand.Text (130 random bits).
	Nonce string
}

// target is what a request names: the server (by its ID, ServerID), the pane and the action.
// A token is accepted only for the target it was minted for.
type target struct {
	ServerID string
	Pane     string
	Action   action
}

// The reasons a token is refused. A handler logs the reason and answers with a short text;
// the token itself is never echoed or logged.
var (
	// errMalformed: not a token at all (wrong shape, alphabet, length or encoding).
	errMalformed = errors.New("phone: malformed token")
	// errForged: well formed, but its signature is not this watcher's. A token minted by a
	// watcher that has since restarted ends here too: the key lives in memory only.
	errForged = errors.New("phone: token not signed by this watcher (forged, or from before a restart)")
	// errExpired: its Expires has passed.
	errExpired = errors.New("phone: token expired")
	// errUsed: it was redeemed already.
	errUsed = errors.New("phone: token already used")
	// errOtherTarget: it was minted for another server, pane or action than the request names.
	errOtherTarget = errors.New("phone: token for another server, pane or action")
	// errFull: maxUsed tokens are redeemed and not yet expired; nothing more is redeemed
	// until some expire (forgetting one would let it be replayed).
	errFull = errors.New("phone: too many tokens redeemed within their lifetime")
)

const (
	// keySize is the HMAC-SHA256 key's size.
	keySize = 32
	// macSize is the size of an HMAC-SHA256.
	macSize = sha256.Size
	// maxToken bounds a token's length before any decoding: a real token is under 300
	// characters.
	maxToken = 2048
	// version starts every payload: a later encoding gets another, and this one is refused.
	version = "c2"
)

// maxUsed bounds the redeemed nonces kept until their expiry. Minting keeps no state (a
// token carries its claim), so only redemptions grow the set, and each needs a token this
// watcher signed: a person's tap on a button. 10,000 within one link_ttl (at most a day) is
// far beyond that, and about 1 MB. A variable so that the tests can lower it.
var maxUsed = 10_000

// Signer mints and checks the signed, single-use tokens of the phone's links. Its key is
// made from crypto/rand when the Signer is made and lives in memory only, never written
// anywhere: a watcher that restarts has a new key, and every link it sent before is void
// (ErrForged). Safe for concurrent use.
type Signer struct {
	key []byte
	now func() time.Time

	mu      sync.Mutex
	used    usedSet
	sockets map[string]string // by ServerID: the servers whose links were made
}

// NewSigner returns a Signer with a fresh random key; now is the clock (the watcher's, a
// manual one in tests).
func NewSigner(now func() time.Time) *Signer {
	key := make([]byte, keySize)
	rand.Read(key) // never fails (crypto/rand: it crashes the program rather than return short)
	return &Signer{key: key, now: now, used: usedSet{at: map[string]time.Time{}}, sockets: map[string]string{}}
}

// mint returns the token of c with a fresh random Nonce: the payload (encodeClaim) and its
// HMAC-SHA256 under the Signer's key, each base64url without padding, joined by ".". Expires
// is cut to the second.
func (s *Signer) mint(c claim) string {
	c.Nonce = rand.Text()
	payload := []byte(encodeClaim(c))
	return b64.EncodeToString(payload) + "." + b64.EncodeToString(s.mac(payload))
}

// Check verifies token for want without consuming it (to show a form): its signature, its
// target, its expiry and that it was not used.
func (s *Signer) Check(token string, want target) (claim, error) {
	c, err := s.verify(token, want)
	if err != nil {
		return claim{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used.prune(s.now())
	if s.used.has(c.Nonce) {
		return claim{}, errUsed
	}
	return c, nil
}

// redeem verifies token for want as Check does and consumes it: a token is redeemed once.
// Its nonce is kept until it expires (then a replay is refused as expired anyway).
func (s *Signer) redeem(token string, want target) (claim, error) {
	c, err := s.verify(token, want)
	if err != nil {
		return claim{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used.prune(s.now())
	switch {
	case s.used.has(c.Nonce):
		return claim{}, errUsed
	case s.used.Len() >= maxUsed:
		return claim{}, errFull
	}
	s.used.add(c.Nonce, c.Expires)
	return c, nil
}

// verify checks everything but the use: the shape, the signature (compared in constant
// time), the payload's strict form, the target and the expiry.
func (s *Signer) verify(token string, want target) (claim, error) {
	payload, mac, err := split(token)
	if err != nil {
		return claim{}, err
	}
	if !hmac.Equal(mac, s.mac(payload)) {
		return claim{}, errForged
	}
	c, err := decodeClaim(string(payload))
	if err != nil {
		return claim{}, err
	}
	if c.Server != want.ServerID || c.Pane != want.Pane || c.Action != want.Action {
		return claim{}, errOtherTarget
	}
	if !s.now().Before(c.Expires) {
		return claim{}, errExpired
	}
	return c, nil
}

func (s *Signer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

// b64 is base64url without padding, strict: the last character's unused bits must be zero,
// so each byte string has exactly one encoding and no two tokens decode alike.
var b64 = base64.RawURLEncoding.Strict()

// split decodes token's two parts. Only base64url characters and one "." are accepted before
// decoding (the decoder would skip newlines).
func split(token string) (payload, mac []byte, err error) {
	if len(token) == 0 || len(token) > maxToken || strings.ContainsFunc(token, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) {
		return nil, nil, errMalformed
	}
	p, m, ok := strings.Cut(token, ".")
	if !ok || strings.Contains(m, ".") {
		return nil, nil, errMalformed
	}
	payload, err1 := b64.DecodeString(p)
	mac, err2 := b64.DecodeString(m)
	if err1 != nil || err2 != nil || len(payload) == 0 || len(mac) != macSize {
		return nil, nil, errMalformed
	}
	return payload, mac, nil
}

// encodeClaim is the payload of c: "c2|SERVER|PANE|BINDING|ACTION|EVENT|EXPIRES|NONCE", the
// strings query-escaped (so "|" never appears in a field), Expires in Unix seconds.
func encodeClaim(c claim) string {
	return strings.Join([]string{version, url.QueryEscape(c.Server), url.QueryEscape(c.Pane), url.QueryEscape(c.Binding),
		string(c.Action), url.QueryEscape(c.Event), strconv.FormatInt(c.Expires.Unix(), 10), c.Nonce}, "|")
}

// decodeClaim reads a payload strictly: the version, eight fields, a known action, a nonce
// as rand.Text makes it, and nothing that encodeClaim would have written otherwise.
func decodeClaim(p string) (claim, error) {
	f := strings.Split(p, "|")
	if len(f) != 8 || f[0] != version {
		return claim{}, errMalformed
	}
	server, err1 := url.QueryUnescape(f[1])
	pane, err2 := url.QueryUnescape(f[2])
	binding, err3 := url.QueryUnescape(f[3])
	event, err4 := url.QueryUnescape(f[5])
	exp, err5 := strconv.ParseInt(f[6], 10, 64)
	c := claim{Server: server, Pane: pane, Binding: binding, Action: action(f[4]), Event: event, Expires: time.Unix(exp, 0), Nonce: f[7]}
	if errors.Join(err1, err2, err3, err4, err5) != nil || !c.Action.known() || !nonceForm(c.Nonce) || encodeClaim(c) != p {
		return claim{}, errMalformed
	}
	return c, nil
}

// nonceForm reports whether n looks like rand.Text's output: 26 characters of base32.
func nonceForm(n string) bool {
	return len(n) == 26 && !strings.ContainsFunc(n, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') })
}

// serverID names the tmux server on socket in the links' URLs and tokens: the first 16 hex
// digits of an HMAC-SHA256 of the path under the Signer's key. It is the same for the same
// socket while the watcher runs, and it does not show the path, nor can the path be guessed
// back from it ("/tmp/tmux-1000/default" would be, from a plain digest): the URLs pass
// through the ntfy server and the tunnel's logs. The Signer remembers it, so that a request
// is mapped back to the socket (Socket).
func (s *Signer) serverID(socket string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("cac-tmux phone server\x00" + socket))
	id := hex.EncodeToString(m.Sum(nil)[:8])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sockets[id] = socket
	return id
}

// Socket is the socket path of the server named id (ServerID); ok is false for a server whose
// links this Signer never made.
func (s *Signer) Socket(id string) (socket string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	socket, ok = s.sockets[id]
	return socket, ok
}

// usedSet is the nonces redeemed and not yet expired, with a min-heap of their expiries so
// that pruning costs only what it removes.
type usedSet struct {
	at    map[string]time.Time
	order []usedNonce
}

type usedNonce struct {
	nonce   string
	expires time.Time
}

func (u *usedSet) has(n string) bool { _, ok := u.at[n]; return ok }

func (u *usedSet) add(n string, expires time.Time) {
	u.at[n] = expires
	heap.Push(u, usedNonce{n, expires})
}

// prune forgets the nonces whose token has expired by now: such a token is refused as
// expired whatever the set says.
func (u *usedSet) prune(now time.Time) {
	for len(u.order) > 0 && !now.Before(u.order[0].expires) {
		delete(u.at, heap.Pop(u).(usedNonce).nonce)
	}
}

// heap.Interface over order, soonest expiry first.
func (u *usedSet) Len() int           { return len(u.order) }
func (u *usedSet) Less(i, j int) bool { return u.order[i].expires.Before(u.order[j].expires) }
func (u *usedSet) Swap(i, j int)      { u.order[i], u.order[j] = u.order[j], u.order[i] }
func (u *usedSet) Push(x any)         { u.order = append(u.order, x.(usedNonce)) }
func (u *usedSet) Pop() any {
	last := u.order[len(u.order)-1]
	u.order = u.order[:len(u.order)-1]
	return last
}
