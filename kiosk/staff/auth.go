package staff

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
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

// Hash returns the encoded argon2id hash of password with a fresh salt.
func (h Hasher) Hash(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, h.Time, h.Memory, h.Threads, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.Memory, h.Time, h.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// CheckPassword reports whether password matches an encoded hash, with
// the cost the hash was made with.
func CheckPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || m > 1<<20 || t == 0 || t > 16 || p == 0 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// CheckNewPassword says what is wrong with a new password, or nil.
func CheckNewPassword(username, password string) error {
	switch {
	case len(password) < 12:
		return domain.Errorf(domain.EINVALID, "", "A password needs at least 12 characters.")
	case len(password) > 200:
		return domain.Errorf(domain.EINVALID, "", "A password can have at most 200 characters.")
	case strings.Contains(strings.ToLower(password), strings.ToLower(username)):
		return domain.Errorf(domain.EINVALID, "", "A password must not contain the username.")
	}
	return nil
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
type session struct {
	id       string
	csrf     string
	username string // "" before sign-in
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
	mu  sync.Mutex
	now func() time.Time
	m   map[string]*session
}

func (ss *sessions) get(id string) (session, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.m[id]
	if !ok {
		return session{}, false
	}
	now := ss.now()
	if now.Sub(s.seen) > sessionIdle || now.Sub(s.created) > sessionLifetime {
		delete(ss.m, id)
		return session{}, false
	}
	s.seen = now
	return *s, true
}

// start makes a new session (a new id: no session fixation across sign-in).
func (ss *sessions) start(username string) session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	now := ss.now()
	for id, s := range ss.m { // sweep the expired
		if now.Sub(s.seen) > sessionIdle || now.Sub(s.created) > sessionLifetime {
			delete(ss.m, id)
		}
	}
	s := &session{id: randomID(32), csrf: randomID(32), username: username, created: now, seen: now}
	ss.m[s.id] = s
	return *s
}

func (ss *sessions) end(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.m, id)
}

// endUser ends every session of a user (disabled, password reset).
func (ss *sessions) endUser(username string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for id, s := range ss.m {
		if s.username == username {
			delete(ss.m, id)
		}
	}
}

// limiter counts failed sign-ins by username and by client address: after
// maxFailures within lockWindow, sign-in is refused for lockWindow, even
// with the right password, so guessing is slow from any one address and
// against any one account.
type limiter struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string][]time.Time
}

const (
	maxFailures = 5
	lockWindow  = 15 * time.Minute
)

func (l *limiter) keys(username string, r *http.Request) []string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return []string{"u:" + strings.ToLower(username), "a:" + host}
}

func (l *limiter) recent(k string) []time.Time {
	cut := l.now().Add(-lockWindow)
	ts := l.m[k]
	i := 0
	for i < len(ts) && ts[i].Before(cut) {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.m, k)
	} else {
		l.m[k] = ts
	}
	return ts
}

// blocked reports whether sign-in is refused for now.
func (l *limiter) blocked(username string, r *http.Request) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range l.keys(username, r) {
		if len(l.recent(k)) >= maxFailures {
			return true
		}
	}
	return false
}

// maxTracked bounds the limiter's memory: past it, entries whose
// failures are all older than the window are swept.
const maxTracked = 10000

func (l *limiter) fail(username string, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.m) > maxTracked {
		for k := range l.m {
			l.recent(k)
		}
	}
	for _, k := range l.keys(username, r) {
		l.m[k] = append(l.recent(k), l.now())
	}
}

func (l *limiter) succeed(username string, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, "u:"+strings.ToLower(username))
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
