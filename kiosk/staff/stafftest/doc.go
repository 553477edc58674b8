// Package stafftest starts the clerk's office for handler tests: a
// staff.Server, with the front desk's modules and those a test names, over an in-memory ledger
// that applies commands with the real domain rules, on an httptest
// server with a pinned clock; and browsers (Client) that sign in, keep
// their session and CSRF token, and parse the pages they get (Page). The
// staff package's tests and every module's tests use it; the replicated
// ledger is sync/replica, which the appliance's tests drive.
package stafftest
