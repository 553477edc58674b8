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

// Dashboard is the start page: the person's work queue.
type Dashboard struct {
	Changed    bool
	Alerts     []Alert // every alert, in the order the modules raised them
	Queue      []QueueSection
	OpenDrawer string
}

// QueueSection is one part of the work queue: what is overdue, what needs
// doing today, this week, later; Count is how many things it holds (an
// alert that counts several letters or returns counts them all).
type QueueSection struct {
	Name, TestID string
	Count        int
	Alerts       []Alert
}

// Alert is something that needs attention.
type Alert struct {
	TestID, Text, URL string
	// Due is the day it is due by (YYYY-MM-DD): before today it is
	// overdue; "" is something to attend to now.
	Due string
	// Count is how many things the alert stands for (letters, returns,
	// refunds); zero counts as one.
	Count int
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
