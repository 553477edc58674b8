package mailing

import staffview "github.com/villagehall/appliance/kiosk/staff/view"

// The view model of the mailing page: the handler fills it with text
// already formatted; the templ component only lays it out.

// Mailing is the mailing page: the forms that make a batch of bills or
// of notices, with their defaults.
type Mailing struct {
	Today, Year string
	Kinds       []staffview.Option
	Notices     []staffview.Option
}
