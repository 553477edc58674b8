package kiosk

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

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
	// Payment forms are signed for one session since v2 (a form signed for
	// any session could be replayed from another visit), so a
	// v1 signature must not verify.
	return keys{csrf: derive("csrf v1"), form: derive("payment form v2"), receipt: derive("receipt v1")}
}

// mac returns the HMAC of parts under key. Each part is preceded by its
// length, so no two lists of parts are signed alike: a NUL or any other
// byte inside a resident's name cannot move a boundary between fields.
func mac(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		m.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		m.Write([]byte(p))
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

// checkoutForm is what a confirmation page's form carries (checkout.go):
// what is paid, in the fields its checkout names, the command id fixed
// when the page was made, and the session the page was made for. Its
// signature (signForm) is an HMAC over the checkout's command kind and all
// of these, so a changed form is refused before anything is charged, a
// form of one checkout never passes for another's, and neither does a page
// of an earlier visit (the Back button after the idle reset): it would
// lead to that visit's receipt.
type checkoutForm struct {
	checkout  *checkout
	values    map[string]string // by field name
	commandID string
	session   string
	// lang is the language of the request that brought the form: what
	// the confirmation is shown in. It is not signed; it changes no
	// payment.
	lang i18n.Lang
}

// get returns the value of a field of the form.
func (f checkoutForm) get(name string) string { return f.values[name] }

// with returns f with one field changed; the caller signs it anew.
func (f checkoutForm) with(name, value string) checkoutForm {
	v := maps.Clone(f.values)
	v[name] = value
	f.values = v
	return f
}

// newForm returns a form of checkout k with a new command id, for this
// request's session; values are k's fields, in order.
func (s *Server) newForm(r *http.Request, k *checkout, values ...string) (checkoutForm, error) {
	if len(values) != len(k.fields) {
		return checkoutForm{}, fmt.Errorf("a %s form has %d fields, not %d", k.kind, len(k.fields), len(values))
	}
	id, err := uuid.NewV7()
	if err != nil {
		return checkoutForm{}, fmt.Errorf("new command id: %w", err)
	}
	f := checkoutForm{checkout: k, values: make(map[string]string, len(values)), commandID: id.String(), session: sessionFrom(r.Context()), lang: langFrom(r.Context())}
	for i, name := range k.fields {
		f.values[name] = values[i]
	}
	return f, nil
}

// signForm returns the signature of f: the HMAC, under the form key, of the
// command kind, the fields in the checkout's order, the command id and the
// session.
func (s *Server) signForm(f checkoutForm) string {
	parts := make([]string, 0, len(f.checkout.fields)+3)
	parts = append(parts, string(f.checkout.kind))
	for _, name := range f.checkout.fields {
		parts = append(parts, f.values[name])
	}
	return mac(s.keys.form, append(parts, f.commandID, f.session)...)
}

// verifyForm reads the form of checkout k a request carries and checks it
// was signed for the request's session: src is the confirmation URL's query
// (the command id in "cmd") or the posted form ("command_id"); the field
// k.path comes from the route instead, so a form posted to another bill's
// address is a changed form. It reports false for any change: another
// bill, amount, option, fee or requester, another command id, another
// session, a missing or altered signature. Values are compared as signed,
// so a re-spelled amount ("12.5" for "12.50") is a changed form too. The
// form is returned either way, for the refusal's "back" link.
func (s *Server) verifyForm(r *http.Request, k *checkout, src url.Values, cmdField string) (checkoutForm, bool) {
	f := checkoutForm{checkout: k, values: make(map[string]string, len(k.fields)), commandID: src.Get(cmdField), session: sessionFrom(r.Context()), lang: langFrom(r.Context())}
	ok := f.commandID != "" && len(f.commandID) <= 64 && f.session != ""
	for _, name := range k.fields {
		v := src.Get(name)
		if name == k.path {
			v = r.PathValue(name)
		}
		f.values[name] = v
		ok = ok && v != ""
	}
	sig := src.Get("sig")
	return f, ok && sig != "" && equal(s.signForm(f), sig)
}
