package kiosk

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
)

// Cookies the kiosk sets. Both are SameSite=Strict and HttpOnly.
const (
	sessionCookie = "kiosk_session"
	langCookie    = "kiosk_lang"
)

// keys are derived from Config.Secret, one per purpose, so that a CSRF token
// can never pass as a form signature or a receipt token, or the other way
// round.
type keys struct {
	csrf    []byte
	form    []byte
	receipt []byte
}

func deriveKeys(secret []byte) keys {
	derive := func(purpose string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte("belleville kiosk " + purpose))
		return m.Sum(nil)
	}
	// Payment forms are signed for one session since v2 (issue #11), so a
	// v1 signature must not verify.
	return keys{csrf: derive("csrf v1"), form: derive("payment form v2"), receipt: derive("receipt v1")}
}

func mac(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// equal compares two tokens in constant time.
func equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

type ctxKey int

const (
	ctxSession ctxKey = iota
	ctxLang
)

// secure sets the headers every response carries: no framing, no inline
// script or style, nothing from another origin, no referrer.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
		next.ServeHTTP(w, r)
	})
}

// session gives every browser a random session id in a cookie, kept in
// s.sessions (bounded; see sessions). The CSRF token, the signatures of the
// payment forms and the receipt links are bound to it. A cookie naming no
// live session (expired, dropped, ended by GET /reset, or from before a
// restart) counts as none: a GET starts a new session, a POST is refused by
// csrf. The assets need no session and make none.
func (s *Server) session(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ""
		if c, err := r.Cookie(sessionCookie); err == nil && validSessionID(c.Value) && s.sessions.touch(c.Value) {
			id = c.Value
		}
		if id == "" && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/assets/") {
			id = s.sessions.start()
			setCookie(w, r, sessionCookie, id)
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxSession, id)))
	})
}

func newSessionID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

func validSessionID(v string) bool {
	b, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil && len(b) == 32
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string) {
	http.SetCookie(w, &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     "/",
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
}

func sessionFrom(ctx context.Context) string {
	id, _ := ctx.Value(ctxSession).(string)
	return id
}

// language picks the page's language: a ?lang= parameter (which the
// language switch sets, and which is then remembered in a cookie), else
// the cookie, else English.
func (s *Server) language(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lang := i18n.Default
		if c, err := r.Cookie(langCookie); err == nil {
			if l, ok := i18n.Parse(c.Value); ok {
				lang = l
			}
		}
		if q := r.URL.Query().Get("lang"); q != "" && r.Method == http.MethodGet {
			if l, ok := i18n.Parse(q); ok {
				lang = l
				setCookie(w, r, langCookie, string(l))
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxLang, lang)))
	})
}

func langFrom(ctx context.Context) i18n.Lang {
	if l, ok := ctx.Value(ctxLang).(i18n.Lang); ok {
		return l
	}
	return i18n.Default
}

// csrfToken returns the token the forms of this session carry: an HMAC of
// the session id, so it dies with the session.
func (s *Server) csrfToken(r *http.Request) string {
	id := sessionFrom(r.Context())
	if id == "" {
		return ""
	}
	return mac(s.keys.csrf, id)
}

// csrf refuses every POST whose form does not carry this session's token,
// with 403 and nothing changed. The session cookie is SameSite=Strict as a
// second line.
func (s *Server) csrf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			s.fail(w, r, domain.Errorf(domain.EINVALID, "", "unreadable form: %v", err))
			return
		}
		want := s.csrfToken(r)
		got := r.PostForm.Get("csrf")
		if want == "" || got == "" || !equal(got, want) {
			s.log.Warn("refused a form without a valid CSRF token", "path", r.URL.Path)
			s.showProblem(w, r, http.StatusForbidden, "error.csrf", "error.csrf_hint", "/", "layout.start_over")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// paymentForm is what the confirmation page's form carries: the bill, the
// amount and the command id fixed when the page was made, and an HMAC over
// the three and the session the page was made for, so a changed form is
// refused before anything is charged, and so is one page of an earlier
// visit (the Back button after the idle reset): it would lead to that
// visit's receipt.
type paymentForm struct {
	BillID    string
	Amount    domain.Money
	CommandID string
	Session   string
}

func (s *Server) sign(f paymentForm) string {
	return mac(s.keys.form, "pay_bill", f.BillID, f.Amount.String(), f.CommandID, f.Session)
}

// verify parses and checks a payment form signed for the request's
// session. It reports false for any change: another bill, another amount,
// another command id, another session, a missing or altered signature.
func (s *Server) verify(r *http.Request, billID, amount, commandID, sig string) (paymentForm, bool) {
	m, err := domain.ParseMoney(amount)
	session := sessionFrom(r.Context())
	if err != nil || billID == "" || commandID == "" || len(commandID) > 64 || sig == "" || session == "" {
		return paymentForm{}, false
	}
	f := paymentForm{BillID: billID, Amount: m, CommandID: commandID, Session: session}
	// The amount is signed in its canonical form; a re-spelled amount
	// ("12.5" for "12.50") is a changed form.
	if m.String() != amount || !equal(s.sign(f), sig) {
		return paymentForm{}, false
	}
	return f, true
}
