// Package fees is the back office's fee schedule (Chapter 5's
// parameters): what is in force today by ordinance section, the rows a
// later date replaces them with, the village holidays, and the Village
// Board's resolutions that set them, recorded with a preview of what each
// changes. It is a staff.Module; the parameters and their history are the
// domain's (domain/params.go).
package fees

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the fee schedule's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the fee schedule's routes, links and alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/fees", staff.CapReadFees, m.showFeesPage)
	o.Page("GET /staff/resolutions/new", staff.CapResolutions, m.showNewResolutionPage)
	o.Page("POST /staff/resolutions", staff.CapResolutions, m.submitResolution)
	o.Nav(staff.CapReadFees, "Fees", "/staff/fees")
	return nil
}

// The fee schedule and the resolutions that set it: the
// parameters every node computes with are the rows of the board's
// resolutions held in the ledger (domain/resolution.go). The fee page
// shows them as they are in force today and how they came to be; the
// resolution form previews and records a new one. The domain decides
// what a resolution may change (no row before the day it is recorded, a
// vote that passes, a number not used before); this file only reads the
// form strictly and shows what the domain answered.

// feeSections groups the parameters by ordinance section, in the order
// and with the headings of params.txt. A parameter the domain adds later
// and this list does not name is shown under "Other parameters", never
// hidden.
var feeSections = []struct {
	id, title string
	names     []string
}{
	{"5-10", "§5.10 Accounts receivable", []string{"receivable_due_days", "receivable_interest", "receivable_penalty"}},
	{"5-11", "§5.11 Statement of real property status; §5.20 returned checks (fee schedule)", []string{"status_letter", "returned_check", "office_closes", "status_letter_business_days"}},
	{"5-07", "§5.07(1) Refund of excess escrow", []string{"refund_business_days"}},
	{"5-22", "§5.22 Room tax", []string{"room_tax_rate", "room_tax_interest_monthly", "room_tax_late_filing_fee", "room_tax_extension_months", "room_tax_delinquent_days"}},
	{"5-22-annual", "§5.22 Room tax: the annual return, records and the share for tourism (Wis. Stat. 66.0615)", []string{"room_tax_annual_days", "room_tax_records_years", "room_tax_tourism_share", "room_tax_retained_amount"}},
	{"5-12", "§5.12 / §5.13 Purchasing", []string{"board_approval_threshold", "emergency_limit_purchasing_agent", "emergency_limit_department_head", "class1_notice_threshold", "class2_notice_threshold"}},
	{"5-03", "§5.03 / §5.04 Budget votes", []string{"board_size"}},
	{"5-14", "§5.14 Special assessments", []string{"hearing_min_days", "hearing_max_days", "repair_publish_days", "repair_mail_days", "assessment_appeal_days", "notice_posting_places"}},
	{"5-08", "§5.08 Claims against the village (Wis. Stat. 893.80)", []string{"claim_disallowance_days", "claim_suit_months"}},
	{"ch74", "Ch. 74 Property tax installments", []string{"installment_threshold"}},
	{"payments", "Payments on every channel (kiosk, clerk's window, API)", []string{"payment_limit"}},
}

// formRows is how many parameter rows the resolution form offers.
const formRows = 8

// seedHeading is how the history names the seeding of the ledger.
const seedHeading = "Chapter 5 as adopted (seed)"

// ownSettings is who set a parameter the ledger's resolutions do not
// hold: the node's own (the build's parameters and its --params file),
// which it computes with until the ledger is seeded.
const ownSettings = "This node's settings"

// showFeesPage serves GET /staff/fees: the parameters in force today, the
// village holidays of this year and next, and every resolution, newest
// first.
func (m *Module) showFeesPage(w http.ResponseWriter, r *http.Request) {
	rs, err := m.o.Reads().Resolutions()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	params, today := m.o.Ledger().Params(), m.o.Today()
	who := m.o.Who(r)
	v := Fees{Today: today.String(), Seeded: len(rs) > 0, CanAdopt: staff.Allowed(who.Role, staff.CapResolutions)}
	if n := r.URL.Query().Get("adopted"); n != "" && slices.ContainsFunc(rs, func(x domain.Resolution) bool { return !x.Seed && x.Number == n }) {
		v.Adopted = n
	}
	v.Sections = feeSectionsOf(params.Rows(), rs, today)
	v.Years = fmt.Sprintf("%d and %d", today.Year(), today.Year()+1)
	for _, d := range params.Holidays() {
		if y := d.Year(); y == today.Year() || y == today.Year()+1 {
			v.Holidays = append(v.Holidays, FeeHoliday{Date: d.String(), Weekday: d.Weekday().String(), SetBy: holidaySetBy(rs, d)})
		}
	}
	for _, x := range slices.Backward(rs) {
		v.Resolutions = append(v.Resolutions, resolutionView(x))
	}
	m.o.Render(w, r, http.StatusOK, FeesPage(m.o.Frame(r, "Fee schedule and parameters"), v))
}

// feeSectionsOf groups rows (every row of the parameters in force) by
// section: for each parameter its row in force today and the rows dated
// after it.
func feeSectionsOf(rows []domain.ParamRow, rs []domain.Resolution, today domain.Date) []FeeSection {
	byName := map[string][]domain.ParamRow{}
	var names []string // in the domain's order, for the parameters no section names
	for _, row := range rows {
		if _, ok := byName[row.Name]; !ok {
			names = append(names, row.Name)
		}
		byName[row.Name] = append(byName[row.Name], row)
	}
	param := func(name string) FeeParam {
		p := FeeParam{Name: name}
		for _, row := range byName[name] { // ascending by effective date
			if row.Effective.After(today) {
				p.Scheduled = append(p.Scheduled, ScheduledValue{Value: row.Value, From: row.Effective.String(), SetBy: rowSetBy(rs, row)})
				continue
			}
			p.Value, p.Since, p.Note, p.SetBy = row.Value, row.Effective.String(), row.Note, rowSetBy(rs, row)
		}
		if p.Since == "" {
			p.Value = "none in force yet"
		}
		return p
	}
	listed := map[string]bool{}
	var out []FeeSection
	for _, sec := range feeSections {
		fs := FeeSection{ID: sec.id, Title: sec.title}
		for _, n := range sec.names {
			listed[n] = true
			if len(byName[n]) > 0 {
				fs.Params = append(fs.Params, param(n))
			}
		}
		if len(fs.Params) > 0 {
			out = append(out, fs)
		}
	}
	other := FeeSection{ID: "other", Title: "Other parameters"}
	for _, n := range names {
		if !listed[n] {
			other.Params = append(other.Params, param(n))
		}
	}
	if len(other.Params) > 0 {
		out = append(out, other)
	}
	return out
}

// rowSetBy names the resolution that set row: the latest holding a row
// of the same parameter and date, since a later one replaces it
// (domain.ParamsOf).
func rowSetBy(rs []domain.Resolution, row domain.ParamRow) string {
	for _, x := range slices.Backward(rs) {
		if slices.ContainsFunc(x.Rows, func(y domain.ParamRow) bool { return y.Name == row.Name && y.Effective == row.Effective }) {
			return resolutionName(x)
		}
	}
	return ownSettings
}

// holidaySetBy names the first resolution that added holiday d.
func holidaySetBy(rs []domain.Resolution, d domain.Date) string {
	for _, x := range rs {
		if slices.Contains(x.Holidays, d) {
			return resolutionName(x)
		}
	}
	return ownSettings
}

func resolutionName(x domain.Resolution) string {
	if x.Seed {
		return seedHeading
	}
	return "Resolution " + x.Number
}

func resolutionView(x domain.Resolution) Resolution {
	v := Resolution{Number: x.Number, Heading: resolutionName(x), Title: x.Title, AdoptedOn: x.AdoptedOn.String(), Seed: x.Seed,
		Recorded: x.Recorded.String(), By: x.By}
	if !x.Seed {
		v.Vote = fmt.Sprintf("%s, %s, %d present", plural(x.Ayes, "aye"), plural(x.Nays, "nay"), x.Present)
	}
	for _, row := range x.Rows {
		v.Rows = append(v.Rows, ResolutionRow{Name: row.Name, Effective: row.Effective.String(), Value: row.Value, Note: row.Note})
	}
	for _, d := range x.Holidays {
		v.Holidays = append(v.Holidays, d.String())
	}
	return v
}

// plural writes n of a noun: "1 aye", "5 ayes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// showNewResolutionPage serves GET /staff/resolutions/new.
func (m *Module) showNewResolutionPage(w http.ResponseWriter, r *http.Request) {
	m.resolutionPage(w, r, http.StatusOK, ResolutionForm{AdoptedOn: m.o.Today().String(), Rows: make([]ResolutionFormRow, formRows)})
}

func (m *Module) resolutionPage(w http.ResponseWriter, r *http.Request, status int, f ResolutionForm) {
	names := paramNames(m.o.Ledger().Params())
	for i := range f.Rows {
		f.Rows[i].Names = []staffview.Option{{Value: "", Label: "(no row)", Selected: f.Rows[i].Name == ""}}
		for _, n := range names {
			f.Rows[i].Names = append(f.Rows[i].Names, staffview.Option{Value: n, Label: n, Selected: n == f.Rows[i].Name})
		}
	}
	m.o.Render(w, r, status, NewResolutionPage(m.o.Frame(r, "Record a resolution"), f))
}

// paramNames returns the names of the parameters p holds rows of, in the
// domain's order.
func paramNames(p *domain.Params) []string {
	var names []string
	for _, row := range p.Rows() {
		if !slices.Contains(names, row.Name) {
			names = append(names, row.Name)
		}
	}
	return names
}

// submitResolution serves POST /staff/resolutions: action=preview shows
// what the resolution would change against the parameters in force;
// action=adopt records it and shows the fee page.
func (m *Module) submitResolution(w http.ResponseWriter, r *http.Request) {
	f := ResolutionForm{Number: m.o.Form(r, "number"), Title: m.o.Form(r, "title"), AdoptedOn: m.o.Form(r, "adopted_on"),
		Ayes: m.o.Form(r, "ayes"), Nays: m.o.Form(r, "nays"), Present: m.o.Form(r, "present"), Holidays: strings.TrimSpace(r.PostForm.Get("holidays"))}
	for i := 1; i <= formRows; i++ {
		f.Rows = append(f.Rows, ResolutionFormRow{Name: m.o.Form(r, fmt.Sprintf("name%d", i)), Effective: m.o.Form(r, fmt.Sprintf("effective%d", i)),
			Value: m.o.Form(r, fmt.Sprintf("value%d", i)), Note: m.o.Form(r, fmt.Sprintf("note%d", i))})
	}
	params := m.o.Ledger().Params()
	res, err := parseResolution(f, paramNames(params))
	if err == nil {
		switch m.o.Form(r, "action") {
		case "preview":
			var changes []domain.ParamChange
			if changes, err = res.Changes(params); err == nil {
				f.Previewed = true
				for _, c := range changes {
					f.Preview = append(f.Preview, changeView(c))
				}
				m.resolutionPage(w, r, http.StatusOK, f)
				return
			}
		case "adopt":
			_, err = m.o.SubmitWith(r, domain.KindResolution, func(c *domain.Command) { c.Payload = &res })
		default:
			err = domain.Errorf(domain.EINVALID, "", "Choose Preview or Record the resolution.")
		}
	}
	if err != nil {
		if st := httperr.Status(err); st < 500 || st == http.StatusServiceUnavailable {
			f.Error = domain.ErrorMessage(err)
			m.resolutionPage(w, r, st, f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/fees?adopted="+url.QueryEscape(res.Number))
}

func changeView(c domain.ParamChange) ResolutionChange {
	v := ResolutionChange{Name: c.Name, Effective: c.Effective.String(), Old: c.Old, New: c.New, Note: c.Note, Same: c.Old == c.New}
	if c.Name == "holiday" {
		v.Name, v.Old, v.New = "Village holiday", "open", "offices closed"
	}
	if v.Old == "" {
		v.Old = "none in force"
	}
	return v
}

// parseResolution reads the form strictly: every field a resolution
// needs, dates as YYYY-MM-DD, whole numbers for the vote, a known
// parameter and a well-formed value on every row that is not left blank.
// What the ledger decides (the vote passes, no row before today, a
// number not used before) is the domain's.
func parseResolution(f ResolutionForm, names []string) (domain.Resolution, error) {
	bad := func(format string, args ...any) (domain.Resolution, error) {
		return domain.Resolution{}, domain.Errorf(domain.EINVALID, "", format, args...)
	}
	res := domain.Resolution{Number: f.Number, Title: f.Title}
	switch {
	case f.Number == "":
		return bad("A resolution needs its number, as the board numbered it (like 2026-14).")
	case strings.ContainsAny(f.Number, " \t"):
		return bad("The resolution number %q has a space in it; write it like 2026-14.", f.Number)
	case f.Title == "":
		return bad("A resolution needs its title.")
	}
	var err error
	if res.AdoptedOn, err = staff.ParseDate("The adoption date", f.AdoptedOn); err != nil {
		return domain.Resolution{}, err
	}
	for _, v := range []struct {
		what, s string
		n       *int
	}{{"ayes", f.Ayes, &res.Ayes}, {"nays", f.Nays, &res.Nays}, {"members present", f.Present, &res.Present}} {
		n, err := strconv.Atoi(v.s)
		if err != nil || n < 0 {
			return bad("The number of %s must be a whole number, 0 or more; got %q.", v.what, v.s)
		}
		*v.n = n
	}
	for i, row := range f.Rows {
		if row.Name == "" && row.Effective == "" && row.Value == "" && row.Note == "" {
			continue
		}
		n := i + 1
		if row.Name == "" {
			return bad("Row %d: choose the parameter it sets.", n)
		}
		if !slices.Contains(names, row.Name) {
			return bad("Row %d: there is no parameter %q.", n, row.Name)
		}
		eff, err := staff.ParseDate(fmt.Sprintf("Row %d: the effective date", n), row.Effective)
		if err != nil {
			return domain.Resolution{}, err
		}
		switch {
		case row.Value == "":
			return bad("Row %d: %s needs its value.", n, row.Name)
		case strings.ContainsAny(row.Value, " \t"):
			return bad("Row %d: the value %q has a space in it; write it as one word, like 45.00.", n, row.Value)
		case strings.ContainsAny(row.Note, "\r\n"):
			return bad("Row %d: the note must be one line.", n)
		}
		// The domain's own reading of a value, for a message that names
		// the row ("want an amount like 35.00, got …").
		if _, err := domain.ParseParams("", []byte(eff.String()+" "+row.Name+" "+row.Value+"\n")); err != nil {
			return bad("Row %d: %s.", n, strings.TrimPrefix(domain.ErrorMessage(err), ":1: "))
		}
		res.Rows = append(res.Rows, domain.ParamRow{Effective: eff, Name: row.Name, Value: row.Value, Note: row.Note})
	}
	for i, line := range strings.Split(f.Holidays, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		d, err := staff.ParseDate(fmt.Sprintf("Holidays, line %d: the date", i+1), line)
		if err != nil {
			return domain.Resolution{}, err
		}
		if slices.Contains(res.Holidays, d) {
			return bad("Holidays, line %d: %s is listed twice.", i+1, d)
		}
		res.Holidays = append(res.Holidays, d)
	}
	if len(res.Rows) == 0 && len(res.Holidays) == 0 {
		return bad("Resolution %s sets no parameter and adds no holiday: fill in a row or a holiday.", res.Number)
	}
	return res, nil
}
