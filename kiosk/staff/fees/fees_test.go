package fees_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// resolutions returns the resolutions h's ledger holds.
func resolutions(h *stafftest.Harness) []domain.Resolution {
	h.T.Helper()
	rs, err := domain.ReadsOf(h.Ledger).Resolutions()
	if err != nil {
		h.T.Fatal(err)
	}
	return rs
}

// feeForm is a resolution that raises the status letter fee from 2027.
func feeForm(number, action string) url.Values {
	return url.Values{"action": {action}, "number": {number}, "title": {"Fee schedule 2027"}, "adopted_on": {"2026-11-02"},
		"ayes": {"5"}, "nays": {"1"}, "present": {"6"},
		"name1": {"status_letter"}, "effective1": {"2027-01-01"}, "value1": {"50.00"}, "note1": {"Village fee schedule 2027"}}
}

// TestFeesPage: before the ledger is seeded the page says so and shows
// the node's own settings; after the seed and a later resolution it shows
// each parameter in force with the resolution that set it, the rows to
// come, the holidays of this year and next, and the history newest first.
// Every role may read it.
func TestFeesPage(t *testing.T) {
	h := stafftest.New(t)
	hotel := h.SignedIn("inn", domain.RoleHotelOperator)
	p := hotel.Get("/staff/fees")
	if p.Status != http.StatusOK || !p.Has("fees-unseeded") || !p.Has("fees-no-resolutions") {
		t.Fatalf("unseeded: %d, unseeded notice %v", p.Status, p.Has("fees-unseeded"))
	}
	if p.Text("fee-value-status_letter") != "45.00" || p.Text("fee-setby-status_letter") != "This node's settings" {
		t.Fatalf("unseeded status_letter %q set by %q", p.Text("fee-value-status_letter"), p.Text("fee-setby-status_letter"))
	}
	if p.Has("fees-new-resolution") {
		t.Fatal("a hotel operator is offered the resolution form")
	}

	h.Seed()
	c, _ := h.Ledger.NewCommand(domain.KindResolution, "trustee")
	c.Payload = &domain.Resolution{Number: "2026-14", Title: "Fee schedule 2027", AdoptedOn: domain.MustDate("2026-11-02"), Ayes: 6, Present: 7,
		Rows:     []domain.ParamRow{{Effective: domain.MustDate("2027-01-01"), Name: "returned_check", Value: "35.00", Note: "fee schedule 2027"}},
		Holidays: []domain.Date{domain.MustDate("2027-03-01")}}
	if _, err := h.Ledger.Submit(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	p = hotel.Get("/staff/fees")
	if p.Has("fees-unseeded") {
		t.Fatal("a seeded ledger is said to be unseeded")
	}
	for _, x := range []struct{ id, want string }{
		{"fee-value-status_letter", "45.00"},
		{"fee-since-status_letter", "2026-07-01"},
		{"fee-setby-status_letter", "Chapter 5 as adopted (seed)"},
		{"fee-value-returned_check", "30.00"},
		{"fee-value-receivable_interest", "0.015"},
		{"fee-since-receivable_interest", "1900-01-01"},
		{"fee-value-office_closes", "16:30"},
	} {
		if got := p.Text(x.id); got != x.want {
			t.Errorf("%s = %q, want %q", x.id, got, x.want)
		}
	}
	if got := p.Text("fee-scheduled-returned_check"); !strings.Contains(got, "35.00 from 2027-01-01") || !strings.Contains(got, "Resolution 2026-14") {
		t.Errorf("returned_check later rows %q", got)
	}
	if !p.Has("fees-section-5-11") || !p.Has("fees-section-5-22") || p.Has("fees-section-other") {
		t.Error("the parameters are not all grouped by their ordinance section")
	}
	if p.Doc.Find(`[data-testid="fees-section-5-11"] caption`).Length() != 1 || p.Doc.Find(`[data-testid="fees-section-5-11"] [data-param="status_letter"]`).Length() != 1 {
		t.Error("the status letter fee is not in its section's table, or the table has no caption")
	}
	holidays := p.Doc.Find(`[data-testid="holidays"] [data-holiday]`)
	if holidays.Length() != 17 || p.Doc.Find(`[data-holiday="2027-03-01"]`).Text() == "" || !strings.Contains(p.Doc.Find(`[data-holiday="2027-03-01"]`).Text(), "Resolution 2026-14") {
		t.Errorf("%d holidays of 2026 and 2027, want 16 of the seed and 1 of 2026-14", holidays.Length())
	}
	arts := p.Doc.Find(`[data-testid="resolution"]`)
	if arts.Length() != 2 || arts.First().AttrOr("data-number", "") != "2026-14" || arts.Last().AttrOr("data-number", "") != "seed" {
		t.Fatalf("history: %d resolutions, first %q", arts.Length(), arts.First().AttrOr("data-number", ""))
	}
	if got := p.Text("resolution-heading-seed"); got != "Chapter 5 as adopted (seed)" {
		t.Errorf("seed heading %q", got)
	}
	if got := p.Text("resolution-vote-2026-14"); got != "6 ayes, 0 nays, 7 present" {
		t.Errorf("vote %q", got)
	}
	if got := p.Text("resolution-recorded-2026-14"); got != "2026-11-02T09:00:00 by trustee" {
		t.Errorf("recorded %q", got)
	}
	if got := p.Text("resolution-rows-2026-14"); !strings.Contains(got, "returned_check") || !strings.Contains(got, "35.00") {
		t.Errorf("rows of 2026-14: %q", got)
	}
	if p.Doc.Find(`[data-testid="resolution-rows-seed"] tbody tr`).Length() != len(domain.DefaultParams().Rows()) {
		t.Error("the seed's rows are not all listed")
	}
	if got := p.Text("resolution-holidays-2026-14"); !strings.Contains(got, "2027-03-01") {
		t.Errorf("holidays of 2026-14: %q", got)
	}
}

// TestResolutionRoles: a board member and an administrator record
// resolutions; a clerk may read the fee page but gets 403 on the form and
// on a submission, which changes nothing.
func TestResolutionRoles(t *testing.T) {
	h := stafftest.New(t)
	h.Seed()
	for i, role := range []domain.Role{domain.RoleBoard, domain.RoleAdministrator} {
		c := h.SignedIn("adopter"+string(rune('a'+i)), role)
		if p := c.Get("/staff/fees"); !p.Has("fees-new-resolution") {
			t.Fatalf("%s: no link to the resolution form", role)
		}
		c.Get("/staff/resolutions/new")
		number := []string{"2026-20", "2026-21"}[i]
		p := c.Post("/staff/resolutions", feeForm(number, "adopt"))
		if p.Status != http.StatusSeeOther || p.Location != "/staff/fees?adopted="+number {
			t.Fatalf("%s adopts: %d %q %s", role, p.Status, p.Location, p.Text("resolution-error"))
		}
		if p := c.Get(p.Location); p.Text("fees-adopted") == "" || !strings.Contains(p.Text("fees-adopted"), number) {
			t.Fatalf("%s: no confirmation", role)
		}
		// The second replaces the first's row of the same date.
		if got := h.Ledger.Params().At(domain.MustDate("2027-01-01")).StatusLetterFee.String(); got != "50.00" {
			t.Fatalf("the fee from 2027 is %s", got)
		}
	}
	clerk := h.SignedIn("clerk", domain.RoleClerk)
	if p := clerk.Get("/staff/fees"); p.Status != http.StatusOK || p.Has("fees-new-resolution") {
		t.Fatalf("clerk's fee page: %d, offered the form %v", p.Status, p.Has("fees-new-resolution"))
	}
	if p := clerk.Get("/staff/resolutions/new"); p.Status != http.StatusForbidden {
		t.Fatalf("clerk opens the form: %d", p.Status)
	}
	before, n := h.Ledger.JournalLen(), len(resolutions(h))
	if p := clerk.Post("/staff/resolutions", feeForm("2026-22", "adopt")); p.Status != http.StatusForbidden || !strings.Contains(p.Text("error"), "Your role") {
		t.Fatalf("clerk adopts: %d", p.Status)
	}
	if h.Ledger.JournalLen() != before || len(resolutions(h)) != n {
		t.Fatal("a clerk's refused resolution changed the ledger")
	}
	// A forged "adopted" confirmation names no resolution.
	if p := clerk.Get("/staff/fees?adopted=2099-1"); p.Has("fees-adopted") {
		t.Fatal("a confirmation for a resolution that is not recorded")
	}
}

// TestResolutionPreviewAndAdopt: the preview shows the status letter fee
// before and after its date and records nothing; recording it adds it to
// the history and the fee page shows the new value from its date on.
func TestResolutionPreviewAndAdopt(t *testing.T) {
	h := stafftest.New(t)
	h.Seed()
	board := h.SignedIn("trustee", domain.RoleBoard)
	p := board.Get("/staff/resolutions/new")
	if p.Status != http.StatusOK || p.Doc.Find(`select[name="name8"] option[value="status_letter"]`).Length() != 1 || p.Has("resolution-preview") {
		t.Fatalf("the form: %d, 8 rows offering status_letter?", p.Status)
	}
	// Every input of the form is labelled.
	p.Doc.Find(`[data-testid="resolution-form"] input:not([type=hidden]), [data-testid="resolution-form"] select, [data-testid="resolution-form"] textarea`).Each(func(_ int, s *goquery.Selection) {
		if s.ParentsFiltered("label").Length() == 0 {
			t.Errorf("input %q has no label", s.AttrOr("name", ""))
		}
	})
	before, n := h.Ledger.JournalLen(), len(resolutions(h))
	form := feeForm("2026-14", "preview")
	form.Set("holidays", "2027-03-01\n")
	p = board.Post("/staff/resolutions", form)
	if p.Status != http.StatusOK || !p.Has("resolution-preview") {
		t.Fatalf("preview: %d %s", p.Status, p.Text("resolution-error"))
	}
	for _, x := range []struct{ id, want string }{
		{"preview-name-1", "status_letter"}, {"preview-from-1", "2027-01-01"}, {"preview-old-1", "45.00"}, {"preview-new-1", "50.00"},
		{"preview-name-2", "Village holiday"}, {"preview-from-2", "2027-03-01"},
	} {
		if got := p.Text(x.id); got != x.want {
			t.Errorf("%s = %q, want %q", x.id, got, x.want)
		}
	}
	if p.Doc.Find(`[data-testid="resolution-number"]`).AttrOr("value", "") != "2026-14" || p.Doc.Find(`select[name="name1"] option[selected]`).AttrOr("value", "") != "status_letter" {
		t.Error("the preview does not keep what was typed")
	}
	if h.Ledger.JournalLen() != before || len(resolutions(h)) != n || h.Ledger.Params().At(domain.MustDate("2027-01-01")).StatusLetterFee.String() != "45.00" {
		t.Fatal("a preview changed the ledger")
	}

	form.Set("action", "adopt")
	if p := board.Post("/staff/resolutions", form); p.Status != http.StatusSeeOther {
		t.Fatalf("adopt: %d %s", p.Status, p.Text("resolution-error"))
	}
	rs := resolutions(h)
	if len(rs) != n+1 || rs[len(rs)-1].Number != "2026-14" || rs[len(rs)-1].By != "trustee" {
		t.Fatalf("recorded: %+v", rs[len(rs)-1])
	}
	p = board.Get("/staff/fees?adopted=2026-14")
	if p.Text("fee-value-status_letter") != "45.00" || !strings.Contains(p.Text("fee-scheduled-status_letter"), "50.00 from 2027-01-01") {
		t.Fatalf("before its date: %q, later %q", p.Text("fee-value-status_letter"), p.Text("fee-scheduled-status_letter"))
	}
	if p.Doc.Find(`[data-testid="resolution"]`).First().AttrOr("data-number", "") != "2026-14" {
		t.Fatal("the new resolution is not first in the history")
	}
	// From its date the fee page shows the new value in force.
	h.SetClock(time.Date(2027, time.January, 4, 9, 0, 0, 0, h.Loc))
	board.Login("trustee", stafftest.Password)
	p = board.Get("/staff/fees")
	if p.Text("fee-value-status_letter") != "50.00" || p.Text("fee-since-status_letter") != "2027-01-01" || p.Text("fee-setby-status_letter") != "Resolution 2026-14" {
		t.Fatalf("in 2027: %q since %q by %q", p.Text("fee-value-status_letter"), p.Text("fee-since-status_letter"), p.Text("fee-setby-status_letter"))
	}
	if p.Doc.Find(`[data-holiday="2026-01-01"]`).Length() != 0 || p.Doc.Find(`[data-holiday="2027-03-01"]`).Length() != 1 {
		t.Error("in 2027 the holidays of 2027 and 2028 are shown")
	}
}

// TestResolutionRefused: what the form refuses and what the domain
// refuses are shown on the form again, with what was typed, and change
// nothing.
func TestResolutionRefused(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	admin.Get("/staff/resolutions/new")
	// Before the seed the ledger refuses every resolution.
	if p := admin.Post("/staff/resolutions", feeForm("2026-14", "adopt")); p.Status != http.StatusServiceUnavailable || !strings.Contains(p.Text("resolution-error"), "not seeded yet") {
		t.Fatalf("unseeded: %d %q", p.Status, p.Text("resolution-error"))
	}
	h.Seed()
	if p := admin.Post("/staff/resolutions", feeForm("2026-14", "adopt")); p.Status != http.StatusSeeOther {
		t.Fatalf("adopt: %d %s", p.Status, p.Text("resolution-error"))
	}
	for _, x := range []struct {
		name   string
		set    map[string]string
		status int
		want   string
	}{
		{"retroactive", map[string]string{"effective1": "2026-10-01"}, http.StatusUnprocessableEntity, "sets status_letter from 2026-10-01, before today (2026-11-02)"},
		{"retroactive holiday", map[string]string{"holidays": "2026-12-31\n2026-10-12"}, http.StatusUnprocessableEntity, "adds the holiday 2026-10-12, before today"},
		{"failed vote", map[string]string{"ayes": "3", "nays": "3"}, http.StatusUnprocessableEntity, "did not pass"},
		{"vote over the board", map[string]string{"present": "9"}, http.StatusUnprocessableEntity, "does not add up"},
		{"duplicate number", map[string]string{"number": "2026-14"}, http.StatusConflict, "Resolution 2026-14 is recorded already."},
		{"bad money", map[string]string{"value1": "fifty"}, http.StatusUnprocessableEntity, `Row 1: status_letter: want an amount like 35.00, got "fifty".`},
		{"bad count", map[string]string{"name1": "board_size", "value1": "0"}, http.StatusUnprocessableEntity, "Row 1: board_size: want a whole number from 1 to 99"},
		{"value with a space", map[string]string{"value1": "50 00"}, http.StatusUnprocessableEntity, "has a space in it"},
		{"unknown parameter", map[string]string{"name1": "mayor_salary"}, http.StatusUnprocessableEntity, `Row 1: there is no parameter "mayor_salary".`},
		{"row without parameter", map[string]string{"name1": ""}, http.StatusUnprocessableEntity, "Row 1: choose the parameter"},
		{"row without value", map[string]string{"value1": ""}, http.StatusUnprocessableEntity, "Row 1: status_letter needs its value."},
		{"bad effective date", map[string]string{"effective1": "2027-02-30"}, http.StatusUnprocessableEntity, `Row 1: the effective date "2027-02-30" is not a real date`},
		{"US date", map[string]string{"adopted_on": "11/02/2026"}, http.StatusUnprocessableEntity, `The adoption date "11/02/2026" is not a real date written as YYYY-MM-DD.`},
		{"no adoption date", map[string]string{"adopted_on": ""}, http.StatusUnprocessableEntity, "The adoption date is missing"},
		{"ayes not a number", map[string]string{"ayes": "five"}, http.StatusUnprocessableEntity, `The number of ayes must be a whole number, 0 or more; got "five".`},
		{"negative nays", map[string]string{"nays": "-1"}, http.StatusUnprocessableEntity, "The number of nays must be a whole number"},
		{"no number", map[string]string{"number": ""}, http.StatusUnprocessableEntity, "A resolution needs its number"},
		{"no title", map[string]string{"title": ""}, http.StatusUnprocessableEntity, "A resolution needs its title."},
		{"nothing set", map[string]string{"name1": "", "effective1": "", "value1": "", "note1": ""}, http.StatusUnprocessableEntity, "sets no parameter and adds no holiday"},
		{"bad holiday", map[string]string{"holidays": "2027-01-01\nJuly 4"}, http.StatusUnprocessableEntity, `Holidays, line 2: the date "July 4" is not a real date`},
		{"holiday twice", map[string]string{"holidays": "2027-03-01\n2027-03-01"}, http.StatusUnprocessableEntity, "Holidays, line 2: 2027-03-01 is listed twice."},
		{"duplicate row", map[string]string{"name2": "status_letter", "effective2": "2027-01-01", "value2": "55.00"}, http.StatusUnprocessableEntity, "already has a row effective 2027-01-01"},
		{"no action", map[string]string{"action": ""}, http.StatusUnprocessableEntity, "Choose Preview or Record the resolution."},
	} {
		t.Run(x.name, func(t *testing.T) {
			before, n := h.Ledger.JournalLen(), len(resolutions(h))
			params := h.Ledger.Params()
			form := feeForm("2026-15", "adopt")
			for k, v := range x.set {
				form.Set(k, v)
			}
			p := admin.Post("/staff/resolutions", form)
			if p.Status != x.status || !strings.Contains(p.Text("resolution-error"), x.want) {
				t.Fatalf("%d %q, want %d %q", p.Status, p.Text("resolution-error"), x.status, x.want)
			}
			if !p.Has("resolution-form") || p.Doc.Find(`[data-testid="resolution-title"]`).AttrOr("value", "") != form.Get("title") {
				t.Error("the form is not shown again with what was typed")
			}
			if len(resolutions(h)) != n || h.Ledger.Params() != params {
				t.Error("a refused resolution changed the ledger's parameters")
			}
			if after := h.Ledger.JournalLen(); after > before+1 {
				t.Errorf("%d commands for one refusal", after-before)
			}
		})
	}
	// The preview of a retroactive row still shows it: only the ledger,
	// when the resolution is recorded, decides which dates it takes.
	form := feeForm("2026-15", "preview")
	form.Set("effective1", "2026-10-01")
	if p := admin.Post("/staff/resolutions", form); p.Status != http.StatusOK || p.Text("preview-old-1") != "45.00" {
		t.Fatalf("preview of a retroactive row: %d %q", p.Status, p.Text("preview-old-1"))
	}
}
