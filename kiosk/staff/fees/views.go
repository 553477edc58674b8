package fees

import staffview "github.com/villagehall/appliance/kiosk/staff/view"

// The view models of the fee schedule's pages: handlers fill them with text already
// formatted; the templ components only lay them out.

// Fees is the fee schedule page: the parameters in force today by
// ordinance section, the village holidays of this year and next, and the
// resolutions that set them, newest first.
type Fees struct {
	Today       string
	Seeded      bool   // false: the ledger holds no resolution yet
	Adopted     string // the resolution just recorded, "" otherwise
	CanAdopt    bool
	Sections    []FeeSection
	Years       string // "2026 and 2027"
	Holidays    []FeeHoliday
	Resolutions []Resolution
}

// FeeSection is one ordinance section's parameters.
type FeeSection struct {
	ID, Title string
	Params    []FeeParam
}

// FeeParam is one parameter in force, and the rows that will replace it.
type FeeParam struct {
	Name, Value, Since, SetBy, Note string
	Scheduled                       []ScheduledValue
}

// ScheduledValue is a parameter's value from a later date.
type ScheduledValue struct {
	Value, From, SetBy string
}

// FeeHoliday is one village holiday.
type FeeHoliday struct {
	Date, Weekday, SetBy string
}

// Resolution is one resolution of the history.
type Resolution struct {
	Number, Heading, Title, AdoptedOn string
	Vote, Recorded, By                string
	Seed                              bool
	Rows                              []ResolutionRow
	Holidays                          []string
}

// ResolutionRow is one parameter row of a resolution.
type ResolutionRow struct {
	Name, Effective, Value, Note string
}

// ResolutionForm is the form that records a resolution, and its preview.
type ResolutionForm struct {
	Number, Title, AdoptedOn string
	Ayes, Nays, Present      string
	Rows                     []ResolutionFormRow
	Holidays                 string // one date a line
	Error                    string
	Previewed                bool
	Preview                  []ResolutionChange
}

// ResolutionFormRow is one row of the form, with the parameters to choose
// from.
type ResolutionFormRow struct {
	Name, Effective, Value, Note string
	Names                        []staffview.Option
}

// ResolutionChange is one line of the preview: what a parameter was on a
// date and what the resolution makes it.
type ResolutionChange struct {
	Name, Effective, Old, New, Note string
	Same                            bool
}
