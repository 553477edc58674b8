package staff

import (
	"context"
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// dummyHash is checked when a username is unknown, so that a failed
// sign-in takes as long whether or not the account exists.
var dummyHash = sync.OnceValue(func() string { return DefaultHasher.Hash("no such account") })

func setSessionCookie(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    value,
		Path:     "/staff/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   r.TLS != nil,
		SameSite: http.SameSiteStrictMode,
	})
}

// currentSession returns the browser's session, if it has a live one.
func (s *Server) currentSession(r *http.Request) (session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return session{}, false
	}
	return s.sessions.get(c.Value)
}

// checkCSRF parses a POST form and checks its token against the session's.
func (s *Server) checkCSRF(w http.ResponseWriter, r *http.Request, sess session) bool {
	if r.PostForm == nil {
		var err error
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			r.Body = http.MaxBytesReader(w, r.Body, maxCSVBytes+maxFormBytes)
			err = r.ParseMultipartForm(maxCSVBytes)
		} else {
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			err = r.ParseForm()
		}
		if err != nil {
			s.fail(w, r, domain.Errorf(domain.EINVALID, "", "The form could not be read."))
			return false
		}
	}
	got := r.PostForm.Get("csrf")
	if sess.csrf == "" || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) != 1 {
		s.log.Warn("staff form refused without a valid CSRF token", "path", r.URL.Path)
		s.fail(w, r, domain.Errorf(domain.EFORBIDDEN, "", "This form has expired or did not come from this site. Go back, reload the page and try again."))
		return false
	}
	return true
}

// signedIn admits a browser with a signed-in session of an active account,
// checking the CSRF token of every POST. Others go to the sign-in page.
// The account is read from the ledger on every request, and a session
// from before the account's latest password change, reset or disabling
// (an older epoch) ends, whichever node the change was made at.
func (s *Server) signedIn(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok := s.currentSession(r)
		if !ok || sess.username == "" {
			if r.Method == http.MethodGet {
				redirect(w, r, "/staff/login?next="+url.QueryEscape(r.URL.RequestURI()))
				return
			}
			s.fail(w, r, domain.Errorf(domain.EFORBIDDEN, "", "Your session has ended. Sign in again."))
			return
		}
		u, err := s.reads.StaffUser(sess.username)
		if err != nil || u.Disabled || sess.epoch < u.Epoch {
			if err == nil && !u.Disabled {
				s.log.Info("staff session ended: the account's password was changed or reset, or the account disabled, since sign-in", "user", u.Username)
			}
			s.sessions.end(sess.id)
			setSessionCookie(w, r, "", -1)
			redirect(w, r, "/staff/login")
			return
		}
		ctx := context.WithValue(r.Context(), ctxPrincipal, principal{user: u, session: sess})
		r = r.WithContext(ctx)
		if r.Method == http.MethodPost && !s.checkCSRF(w, r, sess) {
			return
		}
		next(w, r)
	}
}

// require admits a signed-in person whose role has capability c and who
// has no password change pending.
func (s *Server) require(c Capability, next http.HandlerFunc) http.HandlerFunc {
	return s.signedIn(func(w http.ResponseWriter, r *http.Request) {
		pr, _ := principalFrom(r.Context())
		if pr.user.MustChange {
			redirect(w, r, "/staff/password")
			return
		}
		if !Allowed(pr.user.Role, c) {
			s.log.Warn("staff route refused for role", "user", pr.user.Username, "role", pr.user.Role, "path", r.URL.Path)
			s.fail(w, r, domain.Errorf(domain.EFORBIDDEN, "", "Your role (%s) does not allow this page.", pr.user.Role.Title()))
			return
		}
		next(w, r)
	})
}

func (s *Server) showLoginPage(w http.ResponseWriter, r *http.Request) {
	s.loginForm(w, r, http.StatusOK, view.LoginForm{Next: safeNext(r.URL.Query().Get("next"))})
}

// loginForm shows the sign-in form with a fresh anonymous session, whose
// CSRF token the form carries.
func (s *Server) loginForm(w http.ResponseWriter, r *http.Request, status int, f view.LoginForm) {
	sess, ok := s.currentSession(r)
	if !ok || sess.username != "" {
		sess = s.sessions.start("", 0)
		setSessionCookie(w, r, sess.id, 0)
	}
	p := s.page(r, "Sign in")
	p.CSRF = sess.csrf
	s.render(w, r, status, view.LoginPage(p, f))
}

// safeNext keeps a post-sign-in destination only if it is a staff page.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/staff/") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return "/staff/"
}

func (s *Server) submitLogin(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.currentSession(r)
	if !ok {
		s.loginForm(w, r, http.StatusForbidden, view.LoginForm{Error: "Your sign-in page expired. Please try again."})
		return
	}
	if !s.checkCSRF(w, r, sess) {
		return
	}
	username := strings.ToLower(formValue(r, "username"))
	password := r.PostForm.Get("password")
	f := view.LoginForm{Username: username, Next: safeNext(r.PostForm.Get("next"))}
	// From here the attempt counts as a failure until the password is
	// found right (limiter).
	if h, ok := s.limiter.take(username, r); !ok {
		s.log.Warn("staff sign-in refused: too many failures", "user", username, "remote", r.RemoteAddr, "account", h.account, "wait", h.wait)
		w.Header().Set("Retry-After", strconv.Itoa(int((h.wait+time.Second-1)/time.Second)))
		f.Error = h.message()
		s.loginForm(w, r, http.StatusTooManyRequests, f)
		return
	}
	u, err := s.reads.StaffUser(username)
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		s.fail(w, r, err)
		return
	}
	hash := u.PasswordHash
	if err != nil || hash == "" {
		hash = dummyHash()
	}
	if !CheckPassword(hash, password) || err != nil || u.Disabled {
		s.log.Info("staff sign-in failed", "user", username, "remote", r.RemoteAddr)
		f.Error = "The username or password is wrong, or the account is disabled."
		s.loginForm(w, r, http.StatusUnauthorized, f)
		return
	}
	s.limiter.succeed(username, r)
	s.sessions.end(sess.id)
	ns := s.sessions.start(u.Username, u.Epoch)
	setSessionCookie(w, r, ns.id, 0)
	s.log.Info("staff signed in", "user", u.Username, "role", u.Role)
	if u.MustChange {
		redirect(w, r, "/staff/password")
		return
	}
	if home, ok := s.homes[u.Role]; ok && f.Next == "/staff/" {
		f.Next = home
	}
	redirect(w, r, f.Next)
}

func (s *Server) submitLogout(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	s.sessions.end(pr.session.id)
	setSessionCookie(w, r, "", -1)
	redirect(w, r, "/staff/login")
}

func (s *Server) showPasswordPage(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	s.render(w, r, http.StatusOK, view.PasswordPage(s.page(r, "Change your password"), view.PasswordForm{Forced: pr.user.MustChange}))
}

func (s *Server) submitPassword(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	f := view.PasswordForm{Forced: pr.user.MustChange}
	current, next, again := r.PostForm.Get("current"), r.PostForm.Get("new"), r.PostForm.Get("again")
	show := func(status int, msg string) {
		f.Error = msg
		s.render(w, r, status, view.PasswordPage(s.page(r, "Change your password"), f))
	}
	if !CheckPassword(pr.user.PasswordHash, current) {
		show(http.StatusUnprocessableEntity, "The current password is wrong.")
		return
	}
	if next != again {
		show(http.StatusUnprocessableEntity, "The two new passwords differ.")
		return
	}
	if next == current {
		show(http.StatusUnprocessableEntity, "Choose a password different from the current one.")
		return
	}
	if err := CheckNewPassword(pr.user.Username, next); err != nil {
		show(http.StatusUnprocessableEntity, domain.ErrorMessage(err))
		return
	}
	hash := s.hasher.Hash(next)
	_, err := s.submit(r, domain.KindStaffUser, func(c *domain.Command) {
		c.Payload = &domain.StaffUserChange{Op: domain.StaffPassword, Username: pr.user.Username, PasswordHash: hash}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// Other sessions of this account end (here at once, elsewhere by the
	// epoch the change raised); this one starts afresh in the new epoch.
	// The change raised the epoch by one. If this node's replica has not
	// applied it yet, the record still shows the old hash and epoch, and
	// a session ahead of the record is not ended (only one behind it is);
	// if the record shows another hash, someone changed or reset the
	// password at the same moment, and this session ends too.
	s.sessions.endUser(pr.user.Username)
	epoch := pr.user.Epoch + 1
	if u, err := s.reads.StaffUser(pr.user.Username); err == nil && u.PasswordHash != pr.user.PasswordHash {
		if u.PasswordHash != hash {
			setSessionCookie(w, r, "", -1)
			redirect(w, r, "/staff/login")
			return
		}
		epoch = u.Epoch
	}
	ns := s.sessions.start(pr.user.Username, epoch)
	setSessionCookie(w, r, ns.id, 0)
	home := "/staff/"
	if h, ok := s.homes[pr.user.Role]; ok {
		home = h
	}
	redirect(w, r, home+"?changed=password")
}
