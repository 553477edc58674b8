// Package view holds what every page of the clerk's office shares: the
// layout (the frame, the navigation, the CSRF field, the error page), the
// office's own pages (sign-in and password, the start page, the cluster
// page) and the shared view models they and the capabilities' pages
// render (Page, Option, Alert). Each capability's pages are templ
// components in its own package, beside its handlers. Handlers map domain
// records to these models, already formatted; components only lay them
// out. Every element a test needs carries a data-testid attribute.
package view

// Page is what every staff page shares.
type Page struct {
	Title  string
	Today  string
	User   string // "" when signed out
	Name   string
	Role   string
	CSRF   string
	Nav    []NavGroup
	Banner string // the records may not be current; "" when they are
}

// NavGroup is the links of one office in the navigation.
type NavGroup struct {
	Name  string
	Links []NavLink
}

// NavLink is one link of the navigation.
type NavLink struct {
	Label   string
	URL     string
	Current bool
}

// LoginForm is the sign-in form.
type LoginForm struct {
	Username string
	Next     string
	Error    string
}

// PasswordForm is the change-of-password form; Forced at first sign-in
// and after a reset.
type PasswordForm struct {
	Forced bool
	Error  string
}

// Problem is an error page.
type Problem struct {
	Status  int
	Message string
	Section string
}

// Option is one choice of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// Dashboard is the start page.
type Dashboard struct {
	Changed    bool
	Alerts     []Alert
	OpenDrawer string
}

// Alert is something that needs attention.
type Alert struct {
	TestID, Text, URL string
}

// Cluster is the cluster page.
type Cluster struct {
	Leader  string
	Members []Member
}

// Member is one member of the cluster.
type Member struct {
	ID, Address, Suffrage, State, LastContact string
	AppliedIndex, Lag                         uint64
	Error                                     string
	Leader                                    bool
}
