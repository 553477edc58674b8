package users

import staffview "github.com/villagehall/appliance/kiosk/staff/view"

// The view models of the staff accounts page: handlers fill them with
// text already formatted; the templ components only lay them out.

// UsersForm is the new-account form and what the last action revealed.
type UsersForm struct {
	Username, Name, Role string
	Unit                 string // a department head's unit
	Error                string
	Secret               Secret
}

// Secret is a password or token shown once.
type Secret struct {
	What  string
	Value string
}

// Users is the staff accounts page.
type Users struct {
	Form   UsersForm
	Users  []User
	Tokens []Token
	Roles  []staffview.Option
}

// User is one staff account.
type User struct {
	Username, Name, Role string
	MustChange, Disabled bool
	Changed, ChangedBy   string
}

// Token is one API token (never its secret). Ended means the token no
// longer works because its account's password was changed or reset or the
// account disabled after it was issued.
type Token struct {
	ID, Username, Label, Created string
	Revoked, Ended               bool
}
