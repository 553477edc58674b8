package kiosk

// Sessions returns how many anonymous sessions s keeps in memory.
func (s *Server) Sessions() int { return s.sessions.len() }

// Bounds of the anonymous sessions, for the tests that check them.
const (
	MaxSessions        = maxSessions
	SessionIdle        = sessionIdle
	MaxSessionReceipts = maxSessionReceipts
)

// CSRFToken returns the token of session id, as a page of that session
// would carry it: for posting to a kiosk whose pages carry no form.
func (s *Server) CSRFToken(id string) string { return mac(s.keys.csrf, id) }
