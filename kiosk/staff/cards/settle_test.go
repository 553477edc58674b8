package cards_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/cards"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// settledVillage is a village whose books are kept, with 210.00 of card
// receipts on March 10, 2026 (130.00 of water, 80.00 of the general
// fund), the Bank of Belleville designated and an administration line for
// the processor's fee. The clock is then March 12.
func settledVillage(t *testing.T) (*stafftest.Harness, domain.Date) {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{cards.New(nil, receipts{}, nil)}})
	h.Seed()
	at := func(when string) {
		d, err := time.ParseInLocation("2006-01-02T15:04", when, h.Loc)
		if err != nil {
			t.Fatal(err)
		}
		h.SetClock(d)
	}
	at("2026-01-02T09:00")
	h.Submit("admin", &domain.ChartChange{Source: "cards test", Accounts: []domain.ChartAccount{
		{Code: "GF", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "WU", Type: domain.AccountFund, Name: "Water utility"},
		{Code: "ADMIN", Type: domain.AccountDepartment, Name: "Administration", Fund: "GF"},
		{Code: "48000", Type: domain.AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF", Major: "Miscellaneous", Sources: []string{domain.SourceBills}},
		{Code: "46100", Type: domain.AccountRevenue, Name: "Water sales", Fund: "WU", Major: "Charges for services"},
		{Code: "51400", Type: domain.AccountExpenditure, Name: "Administration", Fund: "GF", Unit: "ADMIN", Major: "General government"},
	}})
	at("2026-03-02T09:00")
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("130.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("80.00")},
	}})
	at("2026-03-10T10:00")
	h.Submit("kiosk", &domain.PayBill{BillID: "B-W1", Amount: domain.MustMoney("130.00"), Tender: domain.Card, Reference: "SIM-1"})
	h.Submit("kiosk", &domain.PayBill{BillID: "B-G1", Amount: domain.MustMoney("80.00"), Tender: domain.Card, Reference: "SIM-2"})
	at("2026-03-11T16:00")
	h.Submit("treas", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: domain.MustDate("2026-01-01")})
	at("2026-03-12T10:00")
	return h, domain.MustDate("2026-03-10")
}

// TestCardsSettlement (§5.06): the treasurer records the processor's
// deposit of March 10's 210.00 less a 5.00 fee from the reconciliation
// page; the page then shows it and the fee is on its line in the trial
// balance. A bad amount is refused in plain words and changes nothing; a
// second settlement of the day is refused with the domain's message and
// the values kept. The clerk sees no form.
func TestCardsSettlement(t *testing.T) {
	h, day := settledVillage(t)
	page := "/staff/cards?day=" + day.String()
	tina := h.SignedIn("tina", domain.RoleTreasurer)
	p := tina.Get(page)
	if p.Status != http.StatusOK || !p.Has("cards-settle-form") || p.Has("cards-settled") {
		t.Fatalf("the treasurer's page %d, form %v: %s", p.Status, p.Has("cards-settle-form"), p.Body)
	}
	if !strings.Contains(p.Text("settle-depository"), "Bank of Belleville") || !strings.Contains(p.Text("settle-fee-account"), "51400 Administration") {
		t.Errorf("the selects: %q, %q", p.Text("settle-depository"), p.Text("settle-fee-account"))
	}
	if c := h.SignedIn("pat", domain.RoleClerk).Get(page); c.Status != http.StatusForbidden && c.Has("cards-settle-form") {
		t.Error("the clerk has the settlement form")
	}
	if a := h.SignedIn("avery", domain.RoleAuditor).Get(page); a.Status != http.StatusOK || a.Has("cards-settle-form") {
		t.Errorf("the auditor: %d, form %v", a.Status, a.Has("cards-settle-form"))
	}

	form := func(amount string) url.Values {
		return url.Values{"day": {day.String()}, "depository": {"BOB"}, "deposited": {amount}, "fee_account": {"51400"}, "reference": {"po_1"}}
	}
	journal := h.Ledger.JournalLen()
	bad := tina.Post("/staff/cards/settle", form("two hundred"))
	if bad.Status == http.StatusOK || bad.Status >= 500 || !strings.Contains(bad.Text("form-error"), "amount deposited") || h.Ledger.JournalLen() != journal {
		t.Errorf("a bad amount: %d %q, journal %d → %d", bad.Status, bad.Text("form-error"), journal, h.Ledger.JournalLen())
	}
	if !strings.Contains(bad.Body, `value="two hundred"`) {
		t.Error("the bad amount is not kept")
	}

	if posted := tina.Post("/staff/cards/settle", form("205.00")); posted.Status != http.StatusSeeOther {
		t.Fatalf("the settlement: %d %q", posted.Status, posted.Text("form-error"))
	}
	ok := tina.Get(page)
	if ok.Status != http.StatusOK || !ok.Has("cards-settled") {
		t.Fatalf("the page after the settlement: %d", ok.Status)
	}
	if ok.Text("cards-settled-deposited") != "$205.00" || ok.Text("cards-settled-fee") != "$5.00" || ok.Text("cards-settled-reference") != "po_1" ||
		!strings.Contains(ok.Text("cards-settled-fee-line"), "51400") || !strings.Contains(ok.Text("cards-settled-by"), "tina") || ok.Has("cards-settle-form") {
		t.Errorf("the settlement shown: %s", ok.Text("cards-settled"))
	}
	tb, err := domain.ReadsOf(h.Ledger).TrialBalance(h.Today())
	if err != nil {
		t.Fatal(err)
	}
	fee := ""
	for _, row := range tb.Rows {
		if row.Account.Code == "51400" {
			fee = row.Balance().String()
		}
	}
	if fee != "5.00" || !tb.Balanced() {
		t.Errorf("the fee line in the trial balance: %q, balanced %v", fee, tb.Balanced())
	}

	again := tina.Post("/staff/cards/settle", form("205.00"))
	if again.Status != http.StatusConflict || !strings.Contains(again.Text("form-error"), "were settled on 2026-03-12") || !strings.Contains(again.Body, `value="205.00"`) {
		t.Errorf("a second settlement: %d %q", again.Status, again.Text("form-error"))
	}
}

// TestCardsLateReceiptsSettledApart (§5.06): a card payment a kiosk took
// offline on March 10 reaches the ledger after the day was settled; the
// page says it is not yet deposited and offers the form again, for the
// late receipts alone; once the processor's deposit of them is recorded
// the page lists it and the form is gone.
func TestCardsLateReceiptsSettledApart(t *testing.T) {
	h, day := settledVillage(t)
	tina := h.SignedIn("tina", domain.RoleTreasurer)
	page := "/staff/cards?day=" + day.String()
	form := func(amount string) url.Values {
		return url.Values{"day": {day.String()}, "depository": {"BOB"}, "deposited": {amount}, "fee_account": {"51400"}, "reference": {"po"}}
	}
	if p := tina.Post("/staff/cards/settle", form("205.00")); p.Status != http.StatusSeeOther {
		t.Fatalf("the settlement: %d %q", p.Status, p.Text("form-error"))
	}
	now := h.Now()
	h.SetClock(time.Date(2026, time.March, 10, 15, 0, 0, 0, h.Loc))
	h.Submit("kiosk", &domain.PayBill{BillID: "B-G1", Amount: domain.MustMoney("20.00"), Tender: domain.Card, Reference: "SIM-3"})
	h.SetClock(now)
	p := tina.Get(page)
	if !strings.Contains(p.Text("cards-late"), "$20.00 of this day's card receipts reached the ledger after its settlement") || !p.Has("cards-settle-form") {
		t.Fatalf("the page with a late receipt: %q, form %v", p.Text("cards-late"), p.Has("cards-settle-form"))
	}
	if p := tina.Post("/staff/cards/settle", form("19.50")); p.Status != http.StatusSeeOther {
		t.Fatalf("the late receipts' settlement: %d %q", p.Status, p.Text("form-error"))
	}
	p = tina.Get(page)
	if got := p.Text("cards-settled-later-1"); !strings.Contains(got, "$20.00, deposited $19.50 in BOB (fee $0.50)") || p.Has("cards-late") || p.Has("cards-settle-form") {
		t.Errorf("after the late receipts' settlement: %q, late %v, form %v", got, p.Has("cards-late"), p.Has("cards-settle-form"))
	}
}

// TestCardsRoleMatrix: the settlement is the treasurer's alone; every
// other role is refused and changes nothing.
func TestCardsRoleMatrix(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{cards.New(nil, receipts{}, nil)}})
	day := h.Today().AddDays(-1)
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/cards?day=" + day.String(), Cap: staff.CapCardReconcile},
		{Method: "GET", Path: "/staff/cards.csv?day=" + day.String(), Cap: staff.CapCardReconcile},
		{Method: "POST", Path: "/staff/cards/settle", Cap: staff.CapTreasury, Form: url.Values{"day": {day.String()}, "depository": {"BOB"}, "deposited": {"210.00"}}},
	})
}
