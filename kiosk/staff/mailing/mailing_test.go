package mailing_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/assessments"
	"github.com/villagehall/appliance/kiosk/staff/mailing"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

var (
	district = []string{"0601-141-3001", "0601-141-3002"}
	landlord = domain.MailingAddress{Name: "Harbor Rentals LLC", Street: "PO Box 118", City: "Madison", State: "WI", ZIP: "53701-0118"}
)

// village is the clerk's office with the mailing: the harness's two
// parcels and bills (water and sewer on 100101 billed October 20, weed
// cutting on 100102 billed October 25), a 12,345.67 bill on 100101 billed
// August 1 and partly paid, the account's mailing address at a landlord,
// a special charge on 100102, and a sewer assessment of two lots levied
// July 20 whose first installment falls due October 31.
func village(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{assessments.New(), mailing.New()},
		Letterhead: staff.Letterhead{Name: "Village of Belleville", Address: "24 W Main St, Belleville, WI 53508", Phone: "(608) 424-3341"}})
	h.Seed()
	for i, id := range district {
		h.Ledger.PutParcel(domain.Parcel{ID: id, Address: fmt.Sprintf("%d Pearl St", 100+2*i), County: domain.Dane, Owner: fmt.Sprintf("Owner %d", i+1)}, fmt.Sprintf("2001%02d", i+1))
	}
	h.SetClock(at(h, "2026-07-20 09:00"))
	h.Submit("boss", &domain.AssessmentPreliminary{Project: "SA-2026-05", Number: "2026-50", AdoptedOn: domain.MustDate("2026-06-01"), Purpose: "Sewer laterals", Basis: domain.BasisPolicePower,
		Improvements: []string{"Sewer"}, District: district, Limits: "Two lots", Installments: 3, Officer: "Public works director"})
	h.Submit("boss", &domain.AssessmentReport{Project: "SA-2026-05", FiledOn: domain.MustDate("2026-06-15"), Documents: []domain.Document{{Name: "plan.txt", Data: []byte("plan")}},
		Costs:     []domain.CostItem{{Improvement: "Sewer", Category: domain.CostDirect, Description: "Laterals", Amount: domain.MustMoney("3000.00")}},
		Parcels:   []domain.ReportParcel{{Parcel: district[0], Units: domain.MustUnits("1")}, {Parcel: district[1], Units: domain.MustUnits("2")}},
		Benefited: "The laterals serve these lots."})
	h.Submit("boss", &domain.AssessmentNotice{Project: "SA-2026-05", Method: domain.NoticePublication, Newspaper: "Belleville Recorder", NoticeOn: domain.MustDate("2026-06-20"), MailedOn: domain.MustDate("2026-06-20"),
		Inspection: "Village hall", HearingOn: domain.MustDate("2026-07-07"), HearingAt: "Village hall, 7 pm"})
	h.Submit("boss", &domain.AssessmentHearing{Project: "SA-2026-05", HeldOn: domain.MustDate("2026-07-07"), Action: domain.ActionApprove})
	h.Submit("boss", &domain.AssessmentFinal{Project: "SA-2026-05", Number: "2026-55", AdoptedOn: domain.MustDate("2026-07-14"), InterestRate: domain.MustRate("0.05"), FirstDueOn: domain.MustDate("2026-10-31")})
	h.Submit("boss", &domain.AssessmentPublish{Project: "SA-2026-05", PublishedOn: domain.MustDate("2026-07-16"), Publication: "Belleville Recorder"})
	h.Submit("boss", &domain.AssessmentLevy{Project: "SA-2026-05", LeviedOn: domain.MustDate("2026-07-20")})

	h.SetClock(at(h, "2026-08-01 09:00"))
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{{ID: "B-2026-0200", Account: "100101", Parcel: "0601-141-2001", Description: "Water main connection", BilledOn: domain.MustDate("2026-08-01"), Principal: domain.MustMoney("12345.67")}}})
	h.Submit("clerk", &domain.MailingAddressChange{Account: "100101", Address: landlord})
	h.SetClock(at(h, "2026-08-20 10:00"))
	h.Submit("kiosk", &domain.PayBill{BillID: "B-2026-0200", Amount: domain.MustMoney("1000.00"), Tender: domain.Card, Reference: "SIM-1"})
	h.SetClock(at(h, "2026-11-02 09:00"))
	h.Submit("clerk", &domain.SpecialCharge{ChargeID: "SC-1", BillID: "B-2026-SC1", Category: domain.ChargeWeeds, Account: "100102", Parcel: "0601-141-2002", Reference: "Work order 17",
		Items: []domain.ChargeItem{{Description: "Weed cutting, 2 hours", Amount: domain.MustMoney("1150.00")}, {Description: "Disposal", Amount: domain.MustMoney("25.50")}}})
	return h
}

func at(h *stafftest.Harness, s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, h.Loc)
	if err != nil {
		panic(err)
	}
	return t
}

// pdf fetches a PDF as c, fails unless it is one, checks its layout and
// returns its pages.
func pdf(t *testing.T, c *stafftest.Client, path string) [][]stafftest.Word {
	t.Helper()
	st, ct, body := c.GetPDF(path)
	if st != http.StatusOK || ct != "application/pdf" {
		t.Fatalf("%s: %d %s %.300s", path, st, ct, body)
	}
	pages := stafftest.PDFPages(t, body)
	stafftest.CheckLetter(t, pages)
	for _, p := range pages[:1] {
		stafftest.InWindow(t, p, staff.ReturnWindow, []string{"Village of Belleville", "24 W Main St", "Belleville, WI 53508"})
	}
	return pages
}

func has(t *testing.T, page []stafftest.Word, want ...string) {
	t.Helper()
	text := stafftest.PageText(page)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q:\n%s", w, text)
		}
	}
}

// TestBillsToMail: a utility bill, a special charge and an assessment's
// installment print dated as the clerk chose, to the account's mailing
// address, else the parcel in the village, in the envelope's window, with
// their figures (thousands separated) and a stub; an account's statement
// lists its open bills and the payments since a date; a batch puts each
// open bill of a kind on its own page.
func TestBillsToMail(t *testing.T) {
	h := village(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	// A bill prints its number for people (2026-000123), not its key;
	// the seed's bills, made without the ledger's counter, have none.
	number := func(id string) string {
		t.Helper()
		b, err := h.Ledger.Bill(id)
		if err != nil {
			t.Fatal(err)
		}
		return b.Shown()
	}
	if number("B-2026-0200") == "B-2026-0200" {
		t.Fatal("a bill made at this ledger format has no number")
	}

	pages := pdf(t, c, "/staff/bills/B-2026-0200/bill.pdf?date=2026-09-15")
	if len(pages) != 1 {
		t.Fatalf("a bill on %d pages", len(pages))
	}
	stafftest.InWindow(t, pages[0], staff.AddressWindow, landlord.Lines())
	has(t, pages[0], "September 15, 2026", number("B-2026-0200"), "Water main connection", "$12,345.67", "Paid", "-$1,000.00", "Interest (", "$11,515.86", "August 31, 2026", "Tear off", "Amount enclosed", "at the kiosk")

	pages = pdf(t, c, "/staff/bills/B-2026-SC1/bill.pdf")
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"Luis Ramirez", "11 Main St", "Belleville, WI 53508"})
	has(t, pages[0], "November 2, 2026", "Special charge", "weed elimination", "Weed cutting, 2 hours", "$1,150.00", "$1,175.50", "December 2, 2026")

	id := domain.AssessmentID("SA-2026-05", district[1])
	pages = pdf(t, c, "/staff/assessment/"+id+"/installments/2/bill.pdf?date=2026-10-01")
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"Owner 2", "102 Pearl St", "Belleville, WI 53508"})
	has(t, pages[0], "October 1, 2026", "installment 2 of 3", "Sewer laterals", "$2,000.00")

	pages = pdf(t, c, "/staff/accounts/100101/statement.pdf?date=2026-11-02&since=2026-08-01")
	stafftest.InWindow(t, pages[0], staff.AddressWindow, landlord.Lines())
	has(t, pages[0], "Statement of account", number("B-2026-0101"), number("B-2026-0200"), "$142.37", "2026-08-20", "$1,000.00", "Total due")

	pages = pdf(t, c, "/staff/mailing/bills.pdf?kind=utility&date=2026-11-02")
	if len(pages) != 3 {
		t.Fatalf("three open utility bills on %d pages", len(pages))
	}
	for i, id := range []string{"B-2026-0200", "B-2026-0101", "B-2026-0102"} {
		has(t, pages[i], number(id))
	}
	stafftest.InWindow(t, pages[2], staff.AddressWindow, []string{"Luis Ramirez", "11 Main St", "Belleville, WI 53508"})
	if pages := pdf(t, c, "/staff/mailing/bills.pdf?kind=utility&date=2026-11-02&due_from=2026-11-01&due_to=2026-11-20"); len(pages) != 1 {
		t.Fatalf("bills due in November: %d pages", len(pages))
	}
	pages = pdf(t, c, "/staff/mailing/bills.pdf?kind=special&date=2026-11-02")
	if len(pages) != 1 {
		t.Fatalf("special charges: %d pages", len(pages))
	}
	pages = pdf(t, c, "/staff/mailing/bills.pdf?kind=assessment&date=2026-10-01&due_to=2026-10-31")
	if len(pages) != 2 {
		t.Fatalf("first installments: %d pages", len(pages))
	}
	if p := c.Get("/staff/mailing"); p.Status != http.StatusOK || !p.Has("batch-bills") || !p.Has("batch-notices") {
		t.Fatalf("mailing page: %d", p.Status)
	}
}

// TestNoticesOfDelinquency (§5.10): before November 1 a bill past due
// gets a notice saying the penalty and the tax roll to come, with the
// amounts; from November 2 to 15 the final notice; a bill not past due
// gets none; a date outside the notice's window, an unknown notice or
// kind, or a date that cannot be read is a plain error.
func TestNoticesOfDelinquency(t *testing.T) {
	h := village(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)

	pages := pdf(t, c, "/staff/bills/B-2026-0200/notice.pdf?notice=november&date=2026-10-15")
	stafftest.InWindow(t, pages[0], staff.AddressWindow, landlord.Lines())
	has(t, pages[0], "October 15, 2026", "Notice of unpaid bill before November 1", "November 1, 2026", "November 2, 2026", "tax roll", "Dane County")

	pages = pdf(t, c, "/staff/mailing/notices.pdf?notice=november&year=2026&date=2026-10-15")
	if len(pages) != 1 {
		t.Fatalf("november notices: %d pages:\n%s", len(pages), stafftest.PageText(pages[1]))
	}
	pages = pdf(t, c, "/staff/mailing/notices.pdf?notice=tax-roll&date=2026-11-02")
	if len(pages) != 1 {
		t.Fatalf("final notices: %d pages", len(pages))
	}
	has(t, pages[0], "Final notice before the tax roll", "November 15, 2026", "4:30 p.m.", "Penalty")

	for path, want := range map[string]int{
		"/staff/bills/B-2026-0101/notice.pdf?notice=tax-roll&date=2026-11-02&year=2026": http.StatusConflict,
		"/staff/bills/B-2026-0101/notice.pdf?notice=tax-roll&date=2026-11-02":           http.StatusUnprocessableEntity,
		"/staff/mailing/notices.pdf?notice=november&date=2026-11-05":                    http.StatusUnprocessableEntity,
		"/staff/mailing/notices.pdf?notice=tax-roll&date=2026-11-16":                    http.StatusUnprocessableEntity,
		"/staff/mailing/notices.pdf?notice=reminder&date=2026-11-02":                    http.StatusUnprocessableEntity,
		"/staff/mailing/bills.pdf?kind=water":                                           http.StatusUnprocessableEntity,
		"/staff/mailing/bills.pdf?kind=utility&date=11/02/2026":                         http.StatusUnprocessableEntity,
		"/staff/mailing/bills.pdf?kind=utility&due_from=2026-12-01&due_to=2026-11-01":   http.StatusUnprocessableEntity,
		"/staff/bills/B-none/bill.pdf":                                                  http.StatusNotFound,
	} {
		if st, _, _ := c.GetPDF(path); st != want {
			t.Errorf("%s: %d, want %d", path, st, want)
		}
	}
	hotel := h.SignedIn("inn", domain.RoleHotelOperator)
	for _, path := range []string{"/staff/bills/B-2026-0200/bill.pdf", "/staff/accounts/100101/statement.pdf", "/staff/mailing/bills.pdf?kind=utility"} {
		if st, _, _ := hotel.GetPDF(path); st != http.StatusForbidden {
			t.Errorf("a hotel operator reads %s: %d", path, st)
		}
	}
}

// TestMailingRoutesByRole: every role without the capability is refused
// each page, with nothing submitted; those with it are not; the API of
// mailing addresses takes only a token that may read bills.
func TestMailingRoutesByRole(t *testing.T) {
	h := village(t)
	id := domain.AssessmentID("SA-2026-05", district[1])
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/mailing", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/mailing/bills.pdf?kind=utility", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/mailing/notices.pdf?notice=tax-roll", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/bills/B-2026-0200/bill.pdf", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/bills/B-2026-0200/notice.pdf?notice=tax-roll", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/accounts/100101/statement.pdf", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/assessment/" + id + "/installments/1/bill.pdf", Cap: staff.CapReadAssessments},
		{Method: "GET", Path: "/staff/assessment/" + id + "/installments/1/notice.pdf", Cap: staff.CapReadAssessments},
		{Method: "GET", Path: "/staff/mailing/notices.pdf?notice=installment", Cap: staff.CapReadBills},
		{Method: "GET", Path: "/staff/parcels/0601-141-2001", Cap: staff.CapReadBills},
		{Method: "POST", Path: "/staff/parcels/0601-141-2001/mailing", Cap: staff.CapBills, Form: url.Values{"name": {"X"}}},
		{Method: "GET", Path: "/staff/accounts/100101/mailing", Cap: staff.CapBills},
		{Method: "POST", Path: "/staff/accounts/100101/mailing", Cap: staff.CapBills, Form: url.Values{"name": {"X"}}},
	})
	hotel := h.Token("inn", domain.RoleHotelOperator)
	for _, path := range []string{"/api/v1/accounts/100101", "/api/v1/parcels/0601-141-2001"} {
		if st, _ := h.API("GET", path, hotel, ""); st != http.StatusForbidden {
			t.Errorf("a hotel operator's token reads %s: %d", path, st)
		}
	}
}

// TestNoNoticeForABillPaidSince: printed on November 2, a notice dated
// October 15 leaves out a bill paid in full on October 20, though it was
// unpaid on the notice's date: it would tell the owner a paid bill is
// unpaid.
func TestNoNoticeForABillPaidSince(t *testing.T) {
	h := village(t)
	h.SetClock(at(h, "2026-10-20 10:00"))
	h.Submit("kiosk", &domain.PayBill{BillID: "B-2026-0200", Amount: domain.MustMoney("12000.00"), Tender: domain.Card, Reference: "SIM-2"})
	h.SetClock(at(h, "2026-11-02 09:00"))
	b, _ := h.Ledger.Bill("B-2026-0200")
	if f, _ := b.Figures(h.Today(), h.Ledger.Params()); f.Status != domain.BillPaid {
		t.Fatalf("the bill is not paid off: %+v", f)
	}
	c := h.SignedIn("jdoe", domain.RoleClerk)
	for _, page := range pdf(t, c, "/staff/mailing/notices.pdf?notice=november&year=2026&date=2026-10-15") {
		if text := stafftest.PageText(page); strings.Contains(text, b.Shown()) {
			t.Fatalf("a notice dated October 15 names bill %s, paid on October 20:\n%s", b.Shown(), text)
		}
	}
}
