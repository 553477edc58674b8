package treasury_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/staff/treasury"
)

func newHarness(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{treasury.New()}})
	h.Seed()
	h.Submit("admin", &domain.ChartChange{Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "100-48100", Type: domain.AccountRevenue, Name: "Interest", Fund: "100", Major: "Miscellaneous revenue"},
		{Code: "600", Type: domain.AccountFund, Name: "Water utility"},
		{Code: "600-48100", Type: domain.AccountRevenue, Name: "Water interest", Fund: "600", Major: "Miscellaneous revenue"},
	}})
	return h
}

// refusedForm posts a form that must be refused with a message beside it
// and no command applied.
func refusedForm(t *testing.T, h *stafftest.Harness, c *stafftest.Client, path string, form url.Values, want string) {
	t.Helper()
	before := h.Ledger.JournalLen()
	p := c.Post(path, form)
	if p.Status != http.StatusUnprocessableEntity && p.Status != http.StatusConflict {
		t.Fatalf("POST %s: status %d, want a refusal; %s", path, p.Status, p.Text("form-error"))
	}
	if !strings.Contains(p.Text("form-error"), want) {
		t.Fatalf("POST %s: message %q, want %q", path, p.Text("form-error"), want)
	}
	if h.Ledger.JournalLen() != before+1 && h.Ledger.JournalLen() != before {
		t.Fatalf("POST %s: %d commands for one refusal", path, h.Ledger.JournalLen()-before)
	}
}

func posted(t *testing.T, c *stafftest.Client, path string, form url.Values) stafftest.Page {
	t.Helper()
	p := c.Post(path, form)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("POST %s: status %d: %s", path, p.Status, p.Text("form-error"))
	}
	return c.Get(p.Location)
}

func fetch(t *testing.T, c *stafftest.Client, path string) (string, string) {
	t.Helper()
	resp, err := c.HTTP.Get(c.H.Srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return resp.Header.Get("Content-Type"), string(b)
}

// TestLegalClaimFromNoticeToLetter is a claim against the village at
// handler level: recorded by the administrator, the President notified
// (the start page asks for it until then), the attorney contacted at the
// President's discretion, the itemized claim, the 120 days on the start
// page, a disallowance dated before the claim refused, the disallowance,
// its letter as a PDF stating the six-month limit, its service by
// certified mail, and the suit deadline on the start page.
func TestLegalClaimFromNoticeToLetter(t *testing.T) {
	h := newHarness(t)
	admin := h.SignedIn("admin", domain.RoleAdministrator)
	pres := h.SignedIn("president", domain.RolePresident)
	trustee := h.SignedIn("trustee", domain.RoleBoard)

	refusedForm(t, h, admin, "/staff/legal-claims", url.Values{"claimant": {"Dana Roe"}, "description": {"pothole"}}, "Give the day")
	p := posted(t, admin, "/staff/legal-claims", url.Values{"claimant": {"Dana Roe"}, "address": {"12 Oak St, Belleville WI 53508"}, "description": {"Car damaged by a pothole on Main St"}, "notice_on": {"2026-10-30"}})
	if p.Text("lc-claimant") != "Dana Roe" || p.Text("lc-notice-on") != "2026-10-30" || p.Text("lc-deemed") != "" {
		t.Fatalf("claim page: %q %q %q", p.Text("lc-claimant"), p.Text("lc-notice-on"), p.Text("lc-deemed"))
	}
	id := "LC-2026-001"
	if !admin.Get("/staff/").Has("alert-legal-president-" + id) {
		t.Fatal("the administrator's start page does not ask to contact the President")
	}
	base := "/staff/legal-claims/" + id
	// A trustee is not the one the administrator contacts: no form, and
	// the route refuses the role.
	if p := trustee.Get(base); p.Has("lc-notify-form") || !p.Has("lc-notify-waiting") {
		t.Fatal("a trustee is offered the notice to the President")
	}
	if p := trustee.Post(base+"/notify", url.Values{"on": {"2026-11-02"}}); p.Status != http.StatusForbidden {
		t.Fatalf("a trustee records the notice to the President: %d", p.Status)
	}
	p = posted(t, admin, base+"/notify", url.Values{"on": {"2026-11-02"}, "note": {"by phone"}})
	if !strings.Contains(p.Text("lc-president"), "2026-11-02") || !strings.Contains(p.Text("lc-president"), "admin") {
		t.Fatalf("President notified: %q", p.Text("lc-president"))
	}
	if admin.Get("/staff/").Has("alert-legal-president-" + id) {
		t.Fatal("the alert stays after the President was notified")
	}
	// The attorney is the President's decision alone: the administrator
	// and a trustee see it waiting; the President's start page asks for it.
	for _, c := range []*stafftest.Client{admin, trustee} {
		if p := c.Get(base); p.Has("lc-attorney-form") || !p.Has("lc-attorney-waiting") {
			t.Fatal("someone other than the President is offered the decision on the attorney")
		}
		before := h.Ledger.JournalLen()
		if p := c.Post(base+"/attorney", url.Values{"on": {"2026-11-02"}, "contact": {"yes"}}); p.Status != http.StatusForbidden || h.Ledger.JournalLen() != before {
			t.Fatalf("someone other than the President records the attorney: %d", p.Status)
		}
	}
	if !pres.Get("/staff/").Has("alert-legal-attorney-" + id) {
		t.Fatal("the President's start page does not ask about the attorney")
	}
	if !pres.Get(base).Has("lc-attorney-form") {
		t.Fatal("the President is not offered the decision on the attorney")
	}
	p = posted(t, pres, base+"/attorney", url.Values{"on": {"2026-11-02"}, "contact": {"yes"}})
	if pres.Get("/staff/").Has("alert-legal-attorney-" + id) {
		t.Fatal("the attorney alert stays after the President's decision")
	}
	if p.Text("lc-contacted") != "yes" || !strings.Contains(p.Text("lc-attorney"), "president") {
		t.Fatalf("attorney: %q %q", p.Text("lc-contacted"), p.Text("lc-attorney"))
	}
	p = posted(t, admin, base+"/itemize", url.Values{"claim_on": {"2026-11-02"}, "amount": {"1,200.00"}})
	if p.Text("lc-deemed") != "2027-03-02" {
		t.Fatalf("deemed disallowed on %q, want 2027-03-02 (120 days)", p.Text("lc-deemed"))
	}
	if a := admin.Get("/staff/").Text("alert-legal-deadline-" + id); !strings.Contains(a, "2027-03-02") {
		t.Fatalf("start page deadline: %q", a)
	}
	if !pres.Get("/staff/").Has("alert-legal-deadline-" + id) {
		t.Fatal("the President's start page does not show the 120 days")
	}
	h.SetClock(time.Date(2026, time.November, 10, 20, 0, 0, 0, h.Loc))
	admin.Login("admin", stafftest.Password)
	admin.Get(base)
	refusedForm(t, h, admin, base+"/decide", url.Values{"decision": {"disallow"}, "on": {"2026-11-01"}, "meeting": {"Board 2026-11-10, motion 4"}}, "cannot be served before the claim")
	refusedForm(t, h, admin, base+"/decide", url.Values{"decision": {"disallow"}, "on": {"2026-11-10"}}, "meeting")
	p = posted(t, admin, base+"/decide", url.Values{"decision": {"disallow"}, "on": {"2026-11-10"}, "meeting": {"Board 2026-11-10, motion 4"}})
	if !strings.Contains(p.Text("lc-outcome"), "disallow") || !p.Has("lc-pdf") || !admin.Get("/staff/").Has("alert-legal-notice-"+id) {
		t.Fatalf("after the disallowance: %q", p.Text("lc-outcome"))
	}
	ct, pdf := fetch(t, admin, base+"/disallowance.pdf")
	if ct != "application/pdf" || !strings.HasPrefix(pdf, "%PDF-") || !strings.Contains(pdf, "six \\(6\\) months") || !strings.Contains(pdf, "Dana Roe") {
		t.Fatalf("letter: %s, %d bytes", ct, len(pdf))
	}
	// Until it is served the notice is dated as the clerk chooses (today
	// by default), addressed through the envelope's window.
	_, pdf = fetch(t, admin, base+"/disallowance.pdf?date=2026-11-10")
	pages := stafftest.PDFPages(t, pdf)
	stafftest.CheckLetter(t, pages)
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"Dana Roe"})
	if text := stafftest.PageText(pages[0]); !strings.Contains(text, "November 10, 2026") {
		t.Fatalf("the letter is not dated:\n%s", text)
	}
	if st, _, _ := admin.GetPDF(base + "/disallowance.pdf?date=2026-11-09"); st != http.StatusUnprocessableEntity {
		t.Fatalf("a notice dated before the decision: %d", st)
	}
	h.SetClock(time.Date(2026, time.November, 11, 9, 0, 0, 0, h.Loc))
	admin.Login("admin", stafftest.Password)
	admin.Get(base)
	refusedForm(t, h, admin, base+"/notice", url.Values{"on": {"2026-11-11"}}, "tracking number")
	p = posted(t, admin, base+"/notice", url.Values{"on": {"2026-11-11"}, "tracking": {"9407 1118 9876 5000 1234 56"}})
	if p.Text("lc-suit-deadline") != "2027-05-11" || p.Text("lc-tracking") != "9407 1118 9876 5000 1234 56" {
		t.Fatalf("after the notice: suit deadline %q tracking %q", p.Text("lc-suit-deadline"), p.Text("lc-tracking"))
	}
	if a := admin.Get("/staff/").Text("alert-legal-suit-" + id); !strings.Contains(a, "2027-05-11") {
		t.Fatalf("start page suit deadline: %q", a)
	}
	_, pdf = fetch(t, admin, base+"/disallowance.pdf")
	if !strings.Contains(pdf, "9407 1118 9876 5000 1234 56") || !strings.Contains(pdf, "May 11, 2027") || !strings.Contains(pdf, "November 11, 2026") {
		t.Fatal("the served letter lacks its certified-mail number or the last day for suit")
	}
	// Who may not: the clerk and the treasurer do not see legal claims.
	if p := h.SignedIn("clerk", domain.RoleClerk).Get("/staff/legal-claims"); p.Status != http.StatusForbidden {
		t.Fatalf("clerk: %d", p.Status)
	}
	// The auditor reads, and records nothing.
	aud := h.SignedIn("aud", domain.RoleAuditor)
	if p := aud.Get(base); p.Status != http.StatusOK || p.Has("lc-notice-form") || p.Has("lc-decide-form") {
		t.Fatalf("auditor's view: %d", p.Status)
	}
}

func TestDepositoriesAndTheirInterest(t *testing.T) {
	h := newHarness(t)
	tr := h.SignedIn("treas", domain.RoleTreasurer)
	refusedForm(t, h, tr, "/staff/depositories", url.Values{"id": {"BOB"}, "name": {"Bank of Belleville"}, "institution": {"Bank of Belleville"}, "from": {"2026-01-01"}}, "resolution")
	p := posted(t, tr, "/staff/depositories", url.Values{"id": {"bob"}, "name": {"Bank of Belleville general"}, "institution": {"Bank of Belleville"}, "resolution": {"2026-03"}, "from": {"2026-01-01"}})
	if p.Text("depository-state") != "designated" {
		t.Fatalf("designated: %q", p.Text("depository-state"))
	}
	refusedForm(t, h, tr, "/staff/depositories/BOB/interest", url.Values{"on": {"2026-11-02"}, "amount": {"12.50"}, "revenue": {"100"}}, "revenue account")
	p = posted(t, tr, "/staff/depositories/BOB/interest", url.Values{"on": {"2026-11-02"}, "amount": {"12.50"}, "revenue": {"100-48100"}, "statement": {"October"}})
	if p.Text("depository-interest") != "$12.50" {
		t.Fatalf("interest: %q", p.Text("depository-interest"))
	}
	actuals, err := domain.ReadsOf(h.Ledger).Actuals(2026)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range actuals {
		found = found || (a.Account == "100-48100" && a.Receipts.String() == "12.50")
	}
	if !found {
		t.Fatalf("interest not in the actuals of 100-48100: %+v", actuals)
	}
	refusedForm(t, h, tr, "/staff/depositories/BOB/end", url.Values{"to": {"the first of November"}, "resolution": {"2026-40"}}, "The last day of the designation")
	p = posted(t, tr, "/staff/depositories/BOB/end", url.Values{"to": {"2026-11-01"}, "resolution": {"2026-40"}})
	if p.Text("depository-state") != "not designated" {
		t.Fatalf("ended: %q", p.Text("depository-state"))
	}
	if p := h.SignedIn("clerk", domain.RoleClerk).Post("/staff/depositories", url.Values{"id": {"X"}}); p.Status != http.StatusForbidden {
		t.Fatalf("clerk designates: %d", p.Status)
	}
}

func TestInvestmentRegisterAndMaturities(t *testing.T) {
	h := newHarness(t)
	tr := h.SignedIn("treas", domain.RoleTreasurer)
	form := url.Values{"security": {"12-month CD"}, "institution": {"Bank of Belleville"}, "fund": {"600"}, "amount": {"250,000.00"},
		"purchased_on": {"2026-01-05"}, "matures_on": {"2026-11-20"}, "rate": {"4.10"}}
	refusedForm(t, h, tr, "/staff/investments", form, "needs its legal ground")
	form.Set("ground", "crypto")
	refusedForm(t, h, tr, "/staff/investments", form, "not a legal ground")
	form.Set("ground", "time-deposit")
	p := posted(t, tr, "/staff/investments", form)
	if !p.Has("investment-INV-2026-001") || !strings.Contains(p.Text("investment-matures"), "soon") {
		t.Fatalf("register: %s", p.Text("investments"))
	}
	if a := tr.Get("/staff/").Text("alert-maturity-INV-2026-001"); !strings.Contains(a, "2026-11-20") {
		t.Fatalf("start page maturity: %q", a)
	}
	refusedForm(t, h, tr, "/staff/investments/INV-2026-001/interest", url.Values{"on": {"2026-11-02"}, "amount": {"850.00"}, "revenue": {"100-48100"}}, "belongs to fund 100")
	p = posted(t, tr, "/staff/investments/INV-2026-001/interest", url.Values{"on": {"2026-11-02"}, "amount": {"850.00"}, "revenue": {"600-48100"}})
	if p.Text("investment-interest") != "$850.00" {
		t.Fatalf("interest: %q", p.Text("investment-interest"))
	}
	posted(t, tr, "/staff/investments/INV-2026-001/redeem", url.Values{"redeemed_on": {"2026-11-02"}})
	if tr.Get("/staff/").Has("alert-maturity-INV-2026-001") {
		t.Fatal("a redeemed investment is still flagged")
	}
}

func TestCountySettlementStatement(t *testing.T) {
	h := newHarness(t)
	for _, b := range []domain.TaxBill{
		{ID: "T2026-0601-141-2001", Parcel: "0601-141-2001", County: domain.Dane, TaxYear: 2026, IssuedOn: domain.MustDate("2026-11-01"), GeneralTax: domain.MustMoney("3000.00"),
			SpecialItems: []domain.TaxItem{{Description: "Sidewalk", Amount: domain.MustMoney("200.00")}}},
		{ID: "T2026-2301-001-0001", Parcel: "2301-001-0001", County: domain.Green, TaxYear: 2026, IssuedOn: domain.MustDate("2026-11-01"), GeneralTax: domain.MustMoney("1000.00")},
	} {
		if err := h.Ledger.PutTaxBill(b); err != nil {
			t.Fatal(err)
		}
	}
	h.Submit("", &domain.PayPropertyTax{TaxBillID: "T2026-0601-141-2001", Option: domain.TaxFirstInstallment, Amount: domain.MustMoney("1700.00"), Tender: domain.Card, Reference: "APPROVAL-1"})
	h.Submit("", &domain.PayPropertyTax{TaxBillID: "T2026-2301-001-0001", Option: domain.TaxFull, Amount: domain.MustMoney("1000.00"), Tender: domain.Card, Reference: "APPROVAL-2"})

	h.SetClock(time.Date(2027, time.January, 16, 9, 0, 0, 0, h.Loc))
	tr := h.SignedIn("treas", domain.RoleTreasurer)
	home := tr.Get("/staff/")
	if !strings.Contains(home.Text("alert-settlement-dane-2026-january"), "$1,500.00") || !home.Has("alert-settlement-green-2026-january") {
		t.Fatalf("start page: %q", home.Text("alert-settlement-dane-2026-january"))
	}
	settlement := "/staff/settlements?county=dane&year=2026&period=january"
	p := tr.Get(settlement)
	if p.Text("settlement-collected") != "$1,500.00" || p.Text("settlement-due") != "$1,500.00" || p.Text("settlement-specials") != "$200.00" || !p.Has("settlement-past-due") ||
		p.Text("settlement-due-on") != "2027-01-15" || !p.Has("settlement-not-apportioned") || p.Has("settlement-form") {
		t.Fatalf("statement before the apportionment: due %q specials %q", p.Text("settlement-due"), p.Text("settlement-specials"))
	}
	// No settlement before the roll's apportionment is recorded.
	pay := url.Values{"county": {"dane"}, "year": {"2026"}, "period": {"january"}, "jurisdiction": {"belleville-sd"}, "paid_on": {"2027-01-16"}, "amount": {"675.00"}, "reference": {"check 5120"}}
	refusedForm(t, h, tr, "/staff/settlements", pay, "apportionment of the 2026 Dane roll is not recorded")

	// The clerk records the roll's levy; the form starts with the county
	// and the village filled in.
	clerk := h.SignedIn("clerk", domain.RoleClerk)
	lp := clerk.Get("/staff/levy?county=dane&year=2026")
	if lp.Status != http.StatusOK || !lp.Has("levy-none") || !strings.Contains(lp.Text("levy-bills"), "$3,000.00") {
		t.Fatalf("levy page: %d %q", lp.Status, lp.Text("levy-bills"))
	}
	levy := url.Values{"county": {"dane"}, "year": {"2026"}, "received_on": {"2026-11-05"}, "total": {"3,000.00"},
		"code1": {"dane"}, "name1": {"Dane County"}, "kind1": {"county"}, "levy1": {"600.00"},
		"code2": {"belleville"}, "name2": {"Village of Belleville"}, "kind2": {"village"}, "levy2": {"900.00"},
		"code3": {"belleville-sd"}, "name3": {"Belleville School District"}, "kind3": {"school"}, "levy3": {"1,349.99"},
		"code4": {"madison-college"}, "name4": {"Madison Area Technical College"}, "kind4": {"technical_college"}, "levy4": {"150.00"}}
	refusedForm(t, h, clerk, "/staff/levy", levy, "add up to 2999.99, not the roll's general property tax of 3000.00")
	levy.Set("levy3", "1,350.00")
	levy.Set("total", "3,100.00")
	levy.Set("levy1", "700.00")
	refusedForm(t, h, clerk, "/staff/levy", levy, "carry 3000.00 of general property tax, not 3100.00")
	levy.Set("total", "3,000.00")
	levy.Set("levy1", "600.00")
	lp = posted(t, clerk, "/staff/levy", levy)
	if !lp.Has("levy-recorded") || lp.Text("levy-belleville-sd") == "" || !strings.Contains(lp.Text("levy-belleville-sd"), "45.00%") {
		t.Fatalf("after recording: %q", lp.Text("levy-belleville-sd"))
	}

	p = tr.Get(settlement)
	for code, want := range map[string]string{"dane": "$300.00", "belleville": "$450.00", "belleville-sd": "$675.00", "madison-college": "$75.00"} {
		if got := p.Text("share-amount-" + code); got != want {
			t.Fatalf("share of %s: %q, want %q", code, got, want)
		}
	}
	if p.Text("settlement-village-share") != "$450.00" || p.Text("settlement-due") != "$1,050.00" || !strings.Contains(p.Text("share-unsettled-belleville"), "kept") {
		t.Fatalf("apportioned statement: village %q due %q", p.Text("settlement-village-share"), p.Text("settlement-due"))
	}
	refusedForm(t, h, tr, "/staff/settlements", url.Values{"county": {"dane"}, "year": {"2026"}, "period": {"january"}, "jurisdiction": {"belleville-sd"}, "paid_on": {"2027-01-16"}, "amount": {"675.00"}}, "reference")
	over := url.Values{"county": {"dane"}, "year": {"2026"}, "period": {"january"}, "jurisdiction": {"belleville-sd"}, "paid_on": {"2027-01-16"}, "amount": {"675.01"}, "reference": {"check 5120"}}
	refusedForm(t, h, tr, "/staff/settlements", over, "675.00 is left to pay")
	// The village's own share is recorded as kept, no reference needed,
	// at most its share of the period.
	village := url.Values{"county": {"dane"}, "year": {"2026"}, "period": {"january"}, "jurisdiction": {"belleville"}, "paid_on": {"2027-01-16"}, "amount": {"450.01"}}
	refusedForm(t, h, tr, "/staff/settlements", village, "450.00 is left to record")
	village.Set("amount", "450.00")
	if p := posted(t, tr, "/staff/settlements", village); p.Text("settlement-kept") != "$450.00" || p.Text("settlement-paid") != "$0.00" {
		t.Fatalf("the village's share kept: kept %q, paid %q", p.Text("settlement-kept"), p.Text("settlement-paid"))
	}
	posted(t, tr, "/staff/settlements", pay)
	for i, code := range []string{"dane", "madison-college"} {
		amount := map[string]string{"dane": "300.00", "madison-college": "75.00"}[code]
		p = posted(t, tr, "/staff/settlements", url.Values{"county": {"dane"}, "year": {"2026"}, "period": {"january"}, "jurisdiction": {code}, "paid_on": {"2027-01-16"}, "amount": {amount}, "reference": {fmt.Sprintf("check %d", 5122+i)}})
	}
	if p.Text("settlement-unsettled") != "$0.00" || p.Has("settlement-past-due") || !strings.Contains(p.Text("settlement-payments"), "Belleville School District") {
		t.Fatalf("after payment: %q %q", p.Text("settlement-unsettled"), p.Text("settlement-payments"))
	}
	ct, csv := fetch(t, tr, "/staff/settlements/dane/2026/january.csv")
	for _, want := range []string{"T2026-0601-141-2001", "total general tax collected,1500.00", "dane,2026,january,belleville-sd,Belleville School District,school,1350.00,675.00,675.00,0.00,false", "dane,2026,january,belleville,Village of Belleville,village,900.00,450.00,450.00,0.00,true"} {
		if !strings.HasPrefix(ct, "text/csv") || !strings.Contains(csv, want) {
			t.Fatalf("csv (%s) lacks %q:\n%s", ct, want, csv)
		}
	}
	ct, pdf := fetch(t, tr, "/staff/settlements/dane/2026/january.pdf")
	if ct != "application/pdf" || !strings.HasPrefix(pdf, "%PDF-") || !strings.Contains(pdf, "Belleville School District") || !strings.Contains(pdf, "$675.00") || !strings.Contains(pdf, "kept") {
		t.Fatalf("pdf: %s, %d bytes", ct, len(pdf))
	}
	home = tr.Get("/staff/")
	if home.Has("alert-settlement-dane-2026-january") || !home.Has("alert-settlement-green-2026-january") {
		t.Fatal("the start page flags the wrong settlements after Dane was paid")
	}
	// Shares paid: the apportionment stays.
	if lp := clerk.Get("/staff/levy?county=dane&year=2026"); !lp.Has("levy-locked") || lp.Has("levy-form") {
		t.Fatal("the levy form is offered after shares were paid")
	}
	refusedForm(t, h, clerk, "/staff/levy", levy, "can no longer change")
}

func TestTreasuryAPI(t *testing.T) {
	h := newHarness(t)
	adminTok := h.Token("admin", domain.RoleAdministrator)
	body := `{"command_id":"lc-1","command":{"op":"file","id":"LC-API-1","claimant":"Dana Roe","description":"Pothole","claim_on":"2026-11-01","amount":"900.00"}}`
	status, out := h.API("POST", "/api/v1/legal-claims", adminTok, body)
	if status != http.StatusOK {
		t.Fatalf("file: %d %s", status, out)
	}
	n := h.Ledger.JournalLen()
	if status, again := h.API("POST", "/api/v1/legal-claims", adminTok, body); status != http.StatusOK || string(again) != string(out) || h.Ledger.JournalLen() != n {
		t.Fatalf("the same command_id again: %d %s", status, again)
	}
	other := strings.Replace(body, "900.00", "901.00", 1)
	if status, _ := h.API("POST", "/api/v1/legal-claims", adminTok, other); status != http.StatusConflict {
		t.Fatalf("the same command_id with another body: %d", status)
	}
	bad := `{"command_id":"lc-2","command":{"op":"decide","id":"LC-API-1","decision":"disallow","on":"2026-10-31","meeting":"m"}}`
	if status, out := h.API("POST", "/api/v1/legal-claims", adminTok, bad); status != http.StatusUnprocessableEntity || !strings.Contains(string(out), "before the claim") {
		t.Fatalf("a disallowance before the claim: %d %s", status, out)
	}
	status, out = h.API("GET", "/api/v1/legal-claims/LC-API-1", adminTok, "")
	var got struct {
		ID        string `json:"id"`
		Deadlines struct {
			DeemedDisallowedOn string `json:"deemed_disallowed_on"`
		} `json:"deadlines"`
	}
	if err := json.Unmarshal(out, &got); status != http.StatusOK || err != nil || got.Deadlines.DeemedDisallowedOn != "2027-03-01" {
		t.Fatalf("get: %d %s", status, out)
	}

	trTok := h.Token("treas", domain.RoleTreasurer)
	inv := `{"command_id":"inv-1","command":{"op":"buy","id":"INV-API-1","security":"Gold coins","institution":"Dealer","fund":"100","amount":"1000.00","purchased_on":"2026-11-02","matures_on":"2027-11-02","rate":"0"}}`
	if status, out := h.API("POST", "/api/v1/investments", trTok, inv); status != http.StatusUnprocessableEntity || !strings.Contains(string(out), "legal ground") {
		t.Fatalf("an investment with no legal ground: %d %s", status, out)
	}
	dep := `{"command_id":"dep-1","command":{"op":"designate","id":"BOB","name":"Bank of Belleville","institution":"Bank of Belleville","resolution":"2026-03","from":"2026-01-01"}}`
	if status, out := h.API("POST", "/api/v1/depositories", trTok, dep); status != http.StatusOK {
		t.Fatalf("designate: %d %s", status, out)
	}
	if status, out := h.API("GET", "/api/v1/depositories", trTok, ""); status != http.StatusOK || !strings.Contains(string(out), `"id":"BOB"`) {
		t.Fatalf("depositories: %d %s", status, out)
	}
	if status, out := h.API("GET", "/api/v1/settlements/green/2026/february", trTok, ""); status != http.StatusOK || !strings.Contains(string(out), `"due_on":"2027-02-20"`) {
		t.Fatalf("settlement: %d %s", status, out)
	}
	if status, _ := h.API("POST", "/api/v1/depositories", adminTok, strings.Replace(dep, "dep-1", "dep-2", 1)); status != http.StatusForbidden {
		t.Fatalf("the administrator designates: %d", status)
	}
}

// TestTreasuryRoleMatrix: every page and API route of the module refuses
// the roles without its capability, and submits nothing for them.
func TestTreasuryRoleMatrix(t *testing.T) {
	h := newHarness(t)
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/legal-claims", Cap: staff.CapReadLegalClaims},
		{Method: "POST", Path: "/staff/legal-claims", Cap: staff.CapLegalClaims, Form: url.Values{"claimant": {"x"}}},
		{Method: "GET", Path: "/staff/legal-claims/none", Cap: staff.CapReadLegalClaims},
		{Method: "POST", Path: "/staff/legal-claims/none/notify", Cap: staff.CapLegalNotify, Form: url.Values{"on": {"2026-11-02"}}},
		{Method: "POST", Path: "/staff/legal-claims/none/attorney", Cap: staff.CapLegalAttorney, Form: url.Values{"on": {"2026-11-02"}}},
		{Method: "POST", Path: "/staff/legal-claims/none/decide", Cap: staff.CapLegalClaims, Form: url.Values{"on": {"2026-11-02"}}},
		{Method: "GET", Path: "/staff/legal-claims/none/disallowance.pdf", Cap: staff.CapReadLegalClaims},
		{Method: "GET", Path: "/staff/depositories", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/staff/depositories", Cap: staff.CapTreasury, Form: url.Values{"id": {"M"}}},
		{Method: "POST", Path: "/staff/depositories/none/end", Cap: staff.CapTreasury, Form: url.Values{"to": {"2026-11-02"}}},
		{Method: "POST", Path: "/staff/depositories/none/interest", Cap: staff.CapTreasury, Form: url.Values{"on": {"2026-11-02"}, "amount": {"1.00"}}},
		{Method: "GET", Path: "/staff/investments", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/staff/investments", Cap: staff.CapTreasury, Form: url.Values{"amount": {"1.00"}}},
		{Method: "POST", Path: "/staff/investments/none/interest", Cap: staff.CapTreasury, Form: url.Values{"on": {"2026-11-02"}, "amount": {"1.00"}}},
		{Method: "POST", Path: "/staff/investments/none/redeem", Cap: staff.CapTreasury, Form: url.Values{"redeemed_on": {"2026-11-02"}}},
		{Method: "GET", Path: "/staff/settlements", Cap: staff.CapReadTreasury},
		{Method: "GET", Path: "/staff/settlements/dane/2026/january.csv", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/staff/settlements", Cap: staff.CapTreasury, Form: url.Values{"year": {"2026"}}},
		{Method: "GET", Path: "/staff/settlements/dane/2026/january.pdf", Cap: staff.CapReadTreasury},
		{Method: "GET", Path: "/staff/levy", Cap: staff.CapLevy},
		{Method: "POST", Path: "/staff/levy", Cap: staff.CapLevy, Form: url.Values{"year": {"2026"}}},
	})
	stafftest.CheckAPIRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/api/v1/legal-claims", Cap: staff.CapReadLegalClaims},
		{Method: "GET", Path: "/api/v1/legal-claims/none", Cap: staff.CapReadLegalClaims},
		{Method: "POST", Path: "/api/v1/legal-claims", Cap: staff.CapLegalClaims, Body: `{"command_id":"m","command":{"op":"notify","id":"none","on":"2026-11-02"}}`},
		{Method: "GET", Path: "/api/v1/depositories", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/api/v1/depositories", Cap: staff.CapTreasury, Body: `{"command_id":"m","command":{"op":"end","id":"none","resolution":"x","to":"2026-11-02"}}`},
		{Method: "POST", Path: "/api/v1/depositories/interest", Cap: staff.CapTreasury, Body: `{"command_id":"m","command":{"depository":"none"}}`},
		{Method: "GET", Path: "/api/v1/investments", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/api/v1/investments", Cap: staff.CapTreasury, Body: `{"command_id":"m","command":{"op":"redeem","id":"none"}}`},
		{Method: "POST", Path: "/api/v1/investments/interest", Cap: staff.CapTreasury, Body: `{"command_id":"m","command":{"investment":"none"}}`},
		{Method: "GET", Path: "/api/v1/settlements/dane/2026/january", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/api/v1/settlements", Cap: staff.CapTreasury, Body: `{"command_id":"m","command":{"county":"dane"}}`},
		{Method: "GET", Path: "/api/v1/levy-apportionments/dane/2026", Cap: staff.CapReadTreasury},
		{Method: "POST", Path: "/api/v1/levy-apportionments", Cap: staff.CapLevy, Body: `{"command_id":"m","command":{"county":"dane"}}`},
	})
}

// TestLevyAndSettlementAPI: the roll's apportionment and a settlement
// payment through the API, with command_id idempotency: a payment retried
// with its command_id gets its first answer even though the share it paid
// is now settled, and nothing is applied twice.
func TestLevyAndSettlementAPI(t *testing.T) {
	h := newHarness(t)
	if err := h.Ledger.PutTaxBill(domain.TaxBill{ID: "T2026-2301-001-0001", Parcel: "2301-001-0001", County: domain.Green, TaxYear: 2026, IssuedOn: domain.MustDate("2026-11-01"), GeneralTax: domain.MustMoney("1000.00")}); err != nil {
		t.Fatal(err)
	}
	h.Submit("", &domain.PayPropertyTax{TaxBillID: "T2026-2301-001-0001", Option: domain.TaxFull, Amount: domain.MustMoney("1000.00"), Tender: domain.Card, Reference: "APPROVAL-2"})
	h.SetClock(time.Date(2027, time.January, 12, 9, 0, 0, 0, h.Loc))
	tok := h.Token("treas", domain.RoleTreasurer)
	pay := `{"command_id":"set-1","command":{"county":"green","tax_year":2026,"period":"january","jurisdiction":"green","paid_on":"2027-01-12","amount":"333.34","reference":"wire 1"}}`
	if status, out := h.API("POST", "/api/v1/settlements", tok, pay); status != http.StatusConflict || !strings.Contains(string(out), "not recorded") {
		t.Fatalf("a payment before the apportionment: %d %s", status, out)
	}
	levy := `{"command_id":"levy-1","command":{"county":"green","tax_year":2026,"received_on":"2026-11-03","total":"1000.00","shares":[` +
		`{"jurisdiction":"green","name":"Green County","kind":"county","levy":"100.00"},` +
		`{"jurisdiction":"belleville","name":"Village of Belleville","kind":"village","levy":"100.00"},` +
		`{"jurisdiction":"belleville-sd","name":"Belleville School District","kind":"school","levy":"100.00"}`
	if status, out := h.API("POST", "/api/v1/levy-apportionments", tok, levy+`]}}`); status != http.StatusUnprocessableEntity || !strings.Contains(string(out), "add up to 300.00") {
		t.Fatalf("levies that do not add up: %d %s", status, out)
	}
	levy = strings.Replace(levy, `"total":"1000.00"`, `"total":"300.00"`, 1)
	if status, out := h.API("POST", "/api/v1/levy-apportionments", tok, levy+`]}}`); status != http.StatusUnprocessableEntity || !strings.Contains(string(out), "carry 1000.00") {
		t.Fatalf("an apportionment of another total than the roll's: %d %s", status, out)
	}
	levy = strings.Replace(strings.Replace(levy, `"total":"300.00"`, `"total":"1000.00"`, 1), `"kind":"school","levy":"100.00"`, `"kind":"school","levy":"800.00"`, 1)
	if status, out := h.API("POST", "/api/v1/levy-apportionments", tok, levy+`]}}`); status != http.StatusOK {
		t.Fatalf("the apportionment: %d %s", status, out)
	}
	status, out := h.API("GET", "/api/v1/settlements/green/2026/january", tok, "")
	if status != http.StatusOK || !strings.Contains(string(out), `"jurisdiction":"green","name":"Green County","kind":"county","levy":"100.00","share":"100.00"`) || !strings.Contains(string(out), `"share":"800.00"`) {
		t.Fatalf("the statement: %d %s", status, out)
	}
	pay = strings.Replace(pay, `"amount":"333.34"`, `"amount":"100.00"`, 1)
	status, first := h.API("POST", "/api/v1/settlements", tok, pay)
	if status != http.StatusOK {
		t.Fatalf("the payment: %d %s", status, first)
	}
	n := h.Ledger.JournalLen()
	if status, again := h.API("POST", "/api/v1/settlements", tok, pay); status != http.StatusOK || string(again) != string(first) || h.Ledger.JournalLen() != n {
		t.Fatalf("the payment retried: %d %s", status, again)
	}
	if status, out := h.API("POST", "/api/v1/settlements", tok, strings.Replace(strings.Replace(pay, "set-1", "set-2", 1), "wire 1", "wire 2", 1)); status != http.StatusUnprocessableEntity || !strings.Contains(string(out), "0.00 is left to pay") {
		t.Fatalf("a second payment of a settled share: %d %s", status, out)
	}
	if status, out := h.API("GET", "/api/v1/levy-apportionments/green/2026", tok, ""); status != http.StatusOK || !strings.Contains(string(out), `"paid_shares":true`) {
		t.Fatalf("the apportionment read: %d %s", status, out)
	}
}
