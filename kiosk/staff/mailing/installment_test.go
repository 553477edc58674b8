package mailing_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestInstallmentNotices (§5.14(12)): a special assessment's installment
// past due and unpaid gets a notice, dated on or before November 15, to
// the owner's mailing address (else the parcel), saying what is due and
// that it goes on the tax roll as a delinquent tax unless paid by the end
// of November 15; it prints singly from the assessment's page and in the
// mailing's batch, one a page; a paid installment, one not yet due or due
// for a later roll, and one already on the roll get none; a notice dated
// after November 15, or of an installment that does not exist, is a plain
// error.
func TestInstallmentNotices(t *testing.T) {
	h := village(t)
	estate := domain.MailingAddress{Name: "Estate of Owner 1", Street: "c/o Dahl & Sons, Attorneys", Street2: "200 S Main St", City: "Verona", State: "WI", ZIP: "53593"}
	h.Submit("clerk", &domain.MailingAddressChange{Parcel: district[0], Address: estate})
	c := h.SignedIn("jdoe", domain.RoleClerk)
	first, second := domain.AssessmentID("SA-2026-05", district[0]), domain.AssessmentID("SA-2026-05", district[1])

	page := c.Get("/staff/assessment/" + second)
	if page.Status != http.StatusOK || !page.Has("installment-notice-1") || !page.Has("installment-bill-1") || page.Has("installment-notice-2") {
		t.Fatalf("the assessment's page links the notice of installment 1 only: %d", page.Status)
	}
	pages := pdf(t, c, page.Doc.Find(`[data-testid="installment-notice-1"]`).AttrOr("href", "")+"?date=2026-11-02")
	if len(pages) != 1 {
		t.Fatalf("a notice on %d pages", len(pages))
	}
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"Owner 2", "102 Pearl St", "Belleville, WI 53508"})
	has(t, pages[0], "November 2, 2026", "Notice of unpaid special assessment installment", "Installment 1 of 3", "Sewer laterals", "SA-2026-05",
		"was due October 31, 2026", "end of November 15, 2026", "4:30 p.m.", "tax roll of Dane County", "delinquent tax", "5.14(12)", "Tear off")

	pages = pdf(t, c, "/staff/mailing/notices.pdf?notice=installment&year=2026&date=2026-11-02")
	if len(pages) != 2 {
		t.Fatalf("installment notices: %d pages", len(pages))
	}
	stafftest.InWindow(t, pages[0], staff.AddressWindow, estate.Lines())
	has(t, pages[0], first+"#1")
	has(t, pages[1], second+"#1")
	for i, p := range pages {
		for _, w := range p {
			if strings.Contains(w.S, "#2") {
				t.Errorf("page %d: installment 2, due next year, gets a notice: %q", i+1, w.S)
			}
		}
	}

	left := c.Get("/staff/assessment/" + first).Text("installment-left-1")
	h.Submit("kiosk", &domain.PayAssessment{AssessmentID: first, Option: domain.PayInstallment, Amount: domain.MustMoney(left), Tender: domain.Card, Reference: "SIM-2"})
	if pages = pdf(t, c, "/staff/mailing/notices.pdf?notice=installment&date=2026-11-03"); len(pages) != 1 {
		t.Fatalf("after installment 1 of %s was paid: %d pages", first, len(pages))
	}
	has(t, pages[0], second+"#1")

	for path, want := range map[string]int{
		"/staff/assessment/" + first + "/installments/1/notice.pdf?date=2026-11-03":  http.StatusConflict,            // paid
		"/staff/assessment/" + second + "/installments/1/notice.pdf?date=2026-10-15": http.StatusConflict,            // not yet due
		"/staff/assessment/" + second + "/installments/2/notice.pdf?date=2026-11-03": http.StatusConflict,            // due next year
		"/staff/assessment/" + second + "/installments/1/notice.pdf?date=2026-11-16": http.StatusUnprocessableEntity, // after the roll
		"/staff/assessment/" + second + "/installments/1/notice.pdf?date=11/03/2026": http.StatusUnprocessableEntity,
		"/staff/assessment/" + second + "/installments/9/notice.pdf":                 http.StatusNotFound,
		"/staff/assessment/" + second + "/installments/x/notice.pdf":                 http.StatusNotFound,
		"/staff/mailing/notices.pdf?notice=installment&year=2026&date=2026-11-16":    http.StatusUnprocessableEntity,
	} {
		if st, _, body := c.GetPDF(path); st != want {
			t.Errorf("%s: %d, want %d: %.200s", path, st, want, body)
		}
	}
	hotel := h.SignedIn("inn", domain.RoleHotelOperator)
	if st, _, _ := hotel.GetPDF("/staff/assessment/" + second + "/installments/1/notice.pdf"); st != http.StatusForbidden {
		t.Errorf("a hotel operator prints an installment's notice: %d", st)
	}
}

// TestStatementListsInstallments: an account's statement lists the
// special assessment installments on its parcel owed before the next tax
// roll — due, then past due — with their total added to what the account
// owes; an installment due at a later roll is not listed.
func TestStatementListsInstallments(t *testing.T) {
	h := village(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	key := domain.InstallmentKey(domain.AssessmentID("SA-2026-05", district[1]), 1)

	pages := pdf(t, c, "/staff/accounts/200102/statement.pdf?date=2026-10-01")
	has(t, pages[0], "Special assessment installments", key, "2026-10-31", "Sewer laterals, 1 of 3", "Total due", "November 15, 2026")
	text := stafftest.PageText(pages[0])
	if !strings.Contains(text, "\ndue\n") || strings.Contains(text, "past due") || strings.Contains(text, "#2") {
		t.Errorf("on October 1 installment 1 is due, and installment 2 is not listed:\n%s", text)
	}
	pages = pdf(t, c, "/staff/accounts/200102/statement.pdf?date=2026-11-02")
	has(t, pages[0], key, "past due")

	// The amount due (beside the address and on the stub) adds the
	// installment to the open bills.
	left := domain.MustMoney(c.Get("/staff/assessment/" + domain.AssessmentID("SA-2026-05", district[1])).Text("installment-left-1"))
	due := staff.Dollars(left)
	if n := strings.Count(stafftest.PageText(pages[0]), due); n < 3 {
		t.Errorf("the installment's %s is printed %d times, want its row, its total and the amount due:\n%s", due, n, stafftest.PageText(pages[0]))
	}

	pages = pdf(t, c, "/staff/accounts/100101/statement.pdf?date=2026-11-02")
	if strings.Contains(stafftest.PageText(pages[0]), "Special assessment installments") {
		t.Error("an account with no assessment on its parcel lists installments")
	}
}
