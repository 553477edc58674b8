package staff

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/villagehall/appliance/domain"
)

// Hasher makes and checks argon2id password hashes in the PHC string
// format ("$argon2id$v=19$m=19456,t=2,p=1$salt$hash"). The defaults are
// OWASP's minimum for argon2id, sized for a Raspberry Pi.
type Hasher struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// DefaultHasher is the cost new hashes are made with.
var DefaultHasher = Hasher{Memory: 19 * 1024, Time: 2, Threads: 1}

// The most an argon2id hash may ask of CheckPassword. A stored hash is
// read from the replicated ledger, and its parameters say how much memory
// and time checking a password against it takes: unbounded, one crafted
// record ("m=1048576", a GiB a try) would let anyone who types its
// username exhaust a Pi. The bounds are RFC 9106's second recommended
// option (64 MiB, the one for memory-constrained machines) and room
// above it: 3.4 times the default's memory, 4 times its passes, and the
// Pi's 4 cores as lanes, so that the default can be raised a good deal
// before a hash it makes is refused here. New refuses a Hasher beyond
// them, so a node never writes a hash it would not check.
const (
	maxHashMemory  = 64 * 1024 // KiB
	maxHashTime    = 8
	maxHashThreads = 4
	minSaltBytes   = 8 // RFC 9106 section 3.1
	maxSaltBytes   = 64
	minKeyBytes    = 16
	maxKeyBytes    = 64
)

// check says whether hashes made with h would be checked by
// CheckPassword.
func (h Hasher) check() error {
	if h.Threads == 0 || h.Threads > maxHashThreads || h.Time == 0 || h.Time > maxHashTime || h.Memory < 8*uint32(h.Threads) || h.Memory > maxHashMemory {
		return fmt.Errorf("argon2id cost m=%d,t=%d,p=%d is outside what sign-in checks (m ≤ %d KiB, t ≤ %d, p ≤ %d)", h.Memory, h.Time, h.Threads, maxHashMemory, maxHashTime, maxHashThreads)
	}
	return nil
}

// hashSlots bounds how many argon2id computations run at once in the
// process, sign-ins and password changes together. Each holds its whole
// memory cost (19 MiB by default, up to maxHashMemory) while it runs, and
// the limiter bounds attempts per address, not in all: sign-ins sent at
// once from many addresses would otherwise stack that memory up past
// what a Pi has. Two at once keep at most 128 MiB of it at the bounds
// (38 MiB at the default cost); a third waits its turn, which on a Pi is
// about a tenth of a second per hash ahead of it.
var hashSlots = newGate(2)

// gate is a counting semaphore that records the most holders it has had
// at once (for its test).
type gate struct {
	slots chan struct{}
	mu    sync.Mutex
	n     int
	peak  int
}

func newGate(n int) *gate { return &gate{slots: make(chan struct{}, n)} }

// do runs f holding one of the gate's slots.
func (g *gate) do(f func()) {
	g.slots <- struct{}{}
	g.mu.Lock()
	g.n++
	g.peak = max(g.peak, g.n)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.n--
		g.mu.Unlock()
		<-g.slots
	}()
	f()
}

// idKey is argon2.IDKey run under hashSlots.
func idKey(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
	var key []byte
	hashSlots.do(func() { key = argon2.IDKey(password, salt, time, memory, threads, keyLen) })
	return key
}

// Hash returns the encoded argon2id hash of password with a fresh salt.
func (h Hasher) Hash(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := idKey([]byte(password), salt, h.Time, h.Memory, h.Threads, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.Memory, h.Time, h.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// CheckPassword reports whether password matches an encoded hash, with
// the cost the hash was made with. A hash that is malformed, of another
// argon2 version, or asks for more than the bounds above (memory, passes,
// lanes, salt and key lengths) is refused before any hashing.
func CheckPassword(encoded, password string) bool {
	h, salt, want, ok := parseHash(encoded)
	if !ok {
		return false
	}
	got := idKey([]byte(password), salt, h.Time, h.Memory, h.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// parseHash reads "$argon2id$v=19$m=…,t=…,p=…$salt$key" strictly.
func parseHash(encoded string) (h Hasher, salt, key []byte, ok bool) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return h, nil, nil, false
	}
	params := strings.Split(parts[3], ",")
	if len(params) != 3 {
		return h, nil, nil, false
	}
	var vals [3]uint64
	for i, name := range []string{"m=", "t=", "p="} {
		v, found := strings.CutPrefix(params[i], name)
		n, err := strconv.ParseUint(v, 10, 32)
		if !found || err != nil {
			return h, nil, nil, false
		}
		vals[i] = n
	}
	if vals[2] > maxHashThreads {
		return h, nil, nil, false
	}
	h = Hasher{Memory: uint32(vals[0]), Time: uint32(vals[1]), Threads: uint8(vals[2])}
	if h.check() != nil {
		return h, nil, nil, false
	}
	// Check the encoded lengths before decoding, so a huge field costs
	// nothing either.
	enc := base64.RawStdEncoding
	if len(parts[4]) > enc.EncodedLen(maxSaltBytes) || len(parts[5]) > enc.EncodedLen(maxKeyBytes) {
		return h, nil, nil, false
	}
	salt, err1 := enc.DecodeString(parts[4])
	key, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) < minSaltBytes || len(key) < minKeyBytes {
		return h, nil, nil, false
	}
	return h, salt, key, true
}

// RandomPassword returns a temporary password: 16 characters from an
// alphabet without look-alikes, about 90 bits.
func RandomPassword() string {
	const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewAPIToken returns a new token's id, the secret to hand out (once) and
// the hash to store. The token a client sends is "vbt_<id>_<secret>".
func NewAPIToken() (id, token, secretHash string) {
	idb := make([]byte, 6)
	_, _ = rand.Read(idb)
	id = hex.EncodeToString(idb)
	secret := randomID(32)
	return id, "vbt_" + id + "_" + secret, hashSecret(secret)
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// parseAPIToken splits "vbt_<id>_<secret>".
func parseAPIToken(tok string) (id, secret string, ok bool) {
	rest, ok := strings.CutPrefix(tok, "vbt_")
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, "_")
	return id, secret, ok && id != "" && secret != ""
}

// session is a signed-in (or about to sign in) browser. Sessions live in
// the node's memory: a restart signs everyone out, which is acceptable for
// an office of a few people and keeps secrets out of the replicated log.
// A session remembers its account's session epoch (domain.StaffUser.Epoch)
// as it was at sign-in, so that a password change, a reset or disabling
// the account at any node ends it here too.
type session struct {
	id       string
	csrf     string
	username string // "" before sign-in
	epoch    uint64
	created  time.Time
	seen     time.Time
}

// Session lifetimes.
const (
	sessionIdle     = 30 * time.Minute
	sessionLifetime = 12 * time.Hour
	sessionCookie   = "staff_session"
)

type sessions struct {
	mu    sync.Mutex
	now   func() time.Time
	m     map[string]*session
	anon  int       // sessions in m not signed in (a sign-in form shown)
	swept time.Time // when expired sessions were last swept
}

// maxAnonymous bounds the sessions of sign-in forms not (yet) used: each
// visit to the sign-in page makes one, and a probe that made 90,000 slowed
// the node to a third. Past the bound the least recently seen anonymous
// session is dropped (its form asks to sign in again); signed-in sessions
// are never dropped for it.
const maxAnonymous = 1024

func (ss *sessions) get(id string) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[id]
	if !ok {
		return session{}, false
	}
	now := ss.now()
	if now.Sub(s.seen) > sessionIdle || now.Sub(s.created) > sessionLifetime {
		ss.drop(id)
		return session{}, false
	}
	s.seen = now
	return *s, true
}

// drop forgets session id; the caller holds mu.
func (ss *sessions) drop(id string) {
	if s, ok := ss.m[id]; ok {
		if s.username == "" {
			ss.anon--
		}
		delete(ss.m, id)
	}
}

// start makes a new session (a new id: no session fixation across
// sign-in) for username, signed in at the account's epoch.
func (ss *sessions) start(username string, epoch uint64) session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	if now.Sub(ss.swept) > time.Minute { // sweep the expired, at most once a minute
		ss.swept = now
		for id, s := range ss.m {
			if now.Sub(s.seen) > sessionIdle || now.Sub(s.created) > sessionLifetime {
				ss.drop(id)
			}
		}
	}
	if username == "" {
		if ss.anon >= maxAnonymous {
			var oldest *session
			for _, s := range ss.m {
				if s.username == "" && (oldest == nil || s.seen.Before(oldest.seen)) {
					oldest = s
				}
			}
			if oldest != nil {
				ss.drop(oldest.id)
			}
		}
		ss.anon++
	}
	s := &session{id: randomID(32), csrf: randomID(32), username: username, epoch: epoch, created: now, seen: now}
	ss.m[s.id] = s
	return *s
}

func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.drop(id)
}

// endUser ends every session of a user on this node at once (disabled,
// password reset); the epoch ends them on the other nodes at their next
// request.
func (ss *sessions) endUser(username string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for id, s := range ss.m {
		if s.username == username {
			ss.drop(id)
		}
	}
}

// limiter slows password guessing without locking the owner out. It
// keeps strikes (failed sign-ins) per client address and per account
// name, in the node's memory.
//
// An address with addrFree strikes is refused for addrBase after its
// latest failure, the wait doubling with each further strike up to
// addrMax, whatever the account and even with the right password (an
// answer that depended on the password would tell the guesser which guess
// was right). That holds a guesser at one computer to a few guesses an
// hour.
//
// An account with acctFree strikes, from anywhere, is held much more
// gently: for acctBase after its latest failure, doubling up to acctMax,
// and only for addresses that have strikes of their own. The owner
// signing in from a computer that has not failed lately is never held,
// so a guesser elsewhere cannot lock them out; a guesser spread over many
// addresses gets one guess from each fresh one and then the account's
// pace.
//
// Strikes are forgotten forgetAfter after their latest failure. An
// attempt counts as a strike as it starts (take) and is taken back when
// the password was right (succeed), so that guesses sent in parallel are
// counted before any of them is checked, and at most addrFree argon2
// checks per address run at once. Memory is bounded: at most max keys are
// kept (makeRoom).
type limiter struct {
	mu  sync.Mutex
	now func() time.Time
	max int
	m   map[string]*strikes
}

// strikes are the failed sign-ins of one key.
type strikes struct {
	n    int
	last time.Time
}

const (
	addrFree    = 5
	addrBase    = time.Minute
	addrMax     = 30 * time.Minute
	acctFree    = 10
	acctBase    = 2 * time.Second
	acctMax     = time.Minute
	forgetAfter = time.Hour
	// maxTracked bounds the limiter's memory: a key and its strikes take
	// well under 200 bytes (addressKey, accountKey), so about 2 MB.
	maxTracked = 10000
)

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, max: maxTracked, m: map[string]*strikes{}}
}

// hold is a refused sign-in: how long to wait, and whether the account
// (rather than the address) is held.
type hold struct {
	wait    time.Duration
	account bool
}

// message says so to the person at the sign-in form.
func (h hold) message() string {
	if h.account {
		return fmt.Sprintf("Too many failed sign-ins for this account. Wait %s and try again, or ask the administrator.", waitText(h.wait))
	}
	return fmt.Sprintf("Too many failed sign-ins from this computer. Wait %s and try again.", waitText(h.wait))
}

func waitText(d time.Duration) string {
	if d <= time.Minute {
		s := int((d + time.Second - 1) / time.Second)
		if s == 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", s)
	}
	return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}

// addressKey is the key of a request's client address. IPv6 addresses
// count by their /64, the block one machine can pick addresses from at
// will.
func addressKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "a:" + host
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.WithZone("").Prefix(64)
		return "a:" + p.String()
	}
	return "a:" + ip.String()
}

// accountKey is the key of an account name. Names longer than any
// username can be (domain.ValidUsername: 32) are cut, so that a key stays
// small whatever is typed.
func accountKey(username string) string {
	if len(username) > 33 {
		username = username[:33]
	}
	return "u:" + strings.ToLower(username)
}

// get returns a key's strikes, forgetting them if they are old.
func (l *limiter) get(k string, now time.Time) *strikes {
	st := l.m[k]
	if st != nil && now.Sub(st.last) > forgetAfter {
		delete(l.m, k)
		return nil
	}
	return st
}

// backoff is how long after its latest failure a key with st is held:
// none before free strikes, then base doubling up to most.
func backoff(st *strikes, free int, base, most time.Duration) time.Duration {
	if st == nil || st.n < free {
		return 0
	}
	d := most
	if shift := st.n - free; shift < 30 {
		d = min(base<<shift, most)
	}
	return d
}

// take decides whether a sign-in to username from r may try a password
// now. If it may, the attempt is counted as a failure until succeed takes
// it back; if not, the hold says how long to wait, and nothing is
// counted.
func (l *limiter) take(username string, r *http.Request) (hold, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ak, uk := addressKey(r), accountKey(username)
	addr, acct := l.get(ak, now), l.get(uk, now)
	if d := backoff(addr, addrFree, addrBase, addrMax); d > 0 && now.Before(addr.last.Add(d)) {
		return hold{wait: addr.last.Add(d).Sub(now)}, false
	}
	if d := backoff(acct, acctFree, acctBase, acctMax); addr != nil && d > 0 && now.Before(acct.last.Add(d)) {
		return hold{wait: acct.last.Add(d).Sub(now), account: true}, false
	}
	if addr == nil || acct == nil {
		l.makeRoom(now, ak, uk)
	}
	for _, k := range []string{ak, uk} {
		st := l.m[k]
		if st == nil {
			st = &strikes{}
			l.m[k] = st
		}
		st.n++
		st.last = now
	}
	return hold{}, true
}

// succeed takes back the strike of a sign-in whose password was right,
// and forgets the account's strikes: its owner is in. The address keeps
// its other strikes, so an insider cannot clear a guessing run against
// another account by signing in to their own between guesses.
func (l *limiter) succeed(username string, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, accountKey(username))
	ak := addressKey(r)
	if st := l.m[ak]; st != nil {
		if st.n--; st.n <= 0 {
			delete(l.m, ak)
		}
	}
}

// makeRoom keeps the map under its bound before keys are added: first
// the forgotten are swept, then, if it is still nearly full, a quarter of
// the keys are evicted (so the sweep runs once per many additions, not on
// each): those with the fewest strikes first, the longest quiet among
// them, so that a flood of fresh addresses evicts its own kind and not
// the addresses being held. The keys of the attempt at hand are kept.
func (l *limiter) makeRoom(now time.Time, keep ...string) {
	if len(l.m)+len(keep) <= l.max {
		return
	}
	for k, st := range l.m {
		if now.Sub(st.last) > forgetAfter {
			delete(l.m, k)
		}
	}
	if len(l.m)+len(keep) <= l.max {
		return
	}
	keys := make([]string, 0, len(l.m))
	for k := range l.m {
		if !slices.Contains(keep, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(l.m[a].n, l.m[b].n); c != 0 {
			return c
		}
		return l.m[a].last.Compare(l.m[b].last)
	})
	evict := max(len(l.m)+len(keep)-l.max*3/4, 0)
	for _, k := range keys[:min(evict, len(keys))] {
		delete(l.m, k)
	}
}

// principal is who a request acts for.
type principal struct {
	user    domain.StaffUser
	session session // zero for API tokens
	api     bool
}

type ctxKey int

const ctxPrincipal ctxKey = iota

func principalFrom(ctx context.Context) (principal, bool) {
	p, ok := ctx.Value(ctxPrincipal).(principal)
	return p, ok
}
