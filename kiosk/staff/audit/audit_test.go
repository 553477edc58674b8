package audit_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/audit"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestEngagementAndExtract: the clerk records the firm the board
// confirmed (refused without the confirmation); the auditor downloads the
// year's extract, whose manifest lists every file with its checksum.
func TestEngagementAndExtract(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{audit.New()}})
	h.Seed()
	h.SetClock(time.Date(2027, 2, 10, 10, 0, 0, 0, h.Loc))
	clerk := h.SignedIn("cleo", domain.RoleClerk)
	clerk.Get("/staff/audit")
	if p := clerk.Post("/staff/audit/engagements", url.Values{"year": {"2026"}, "firm": {"Johnson Block & Co."}, "confirmed_on": {"2027-02-09"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("audit-error"), "board's confirmation") {
		t.Fatalf("an engagement without the board: %d %q", p.Status, p.Text("audit-error"))
	}
	if es, _ := domain.ReadsOf(h.Ledger).AuditEngagements(); len(es) != 0 {
		t.Fatalf("a refused engagement was recorded: %+v", es)
	}
	if p := clerk.Post("/staff/audit/engagements", url.Values{"year": {"2026"}, "firm": {"Johnson Block & Co."}, "confirmation": {"motion 2027-02-09 #6"}, "confirmed_on": {"2027-02-09"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("engagement: %d %q", p.Status, p.Text("audit-error"))
	}
	h.Submit("admin", &domain.ChartChange{Accounts: []domain.ChartAccount{{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true}}})
	h.Submit("treas", &domain.InvestmentChange{Op: domain.InvestmentBuy, ID: "INV-1", Security: "12-month CD", Institution: "Bank of Belleville", Ground: "time-deposit", Fund: "100",
		Amount: domain.MustMoney("250000.00"), PurchasedOn: domain.MustDate("2026-01-05"), MaturesOn: domain.MustDate("2026-12-20"), Rate: "4.10"})
	aud := h.SignedIn("casey", domain.RoleAuditor)
	if p := aud.Get("/staff/audit"); !strings.Contains(p.Text("engagement-2026"), "Johnson Block") || p.Has("engagement-form") {
		t.Fatalf("the auditor's page: %q", p.Text("engagements"))
	}
	p := aud.Get("/staff/audit/2026/extract.zip")
	if p.Status != http.StatusOK {
		t.Fatalf("extract: %d", p.Status)
	}
	zr, err := zip.NewReader(bytes.NewReader([]byte(p.Body)), int64(len(p.Body)))
	if err != nil {
		t.Fatal(err)
	}
	var m audit.Manifest
	var investments []byte
	for _, f := range zr.File {
		rc, _ := f.Open()
		switch f.Name {
		case audit.ManifestName:
			err = json.NewDecoder(rc).Decode(&m)
		case "investments.csv":
			investments, _ = io.ReadAll(rc)
		}
		rc.Close()
	}
	if !strings.Contains(string(investments), "INV-1,12-month CD,Bank of Belleville,time-deposit,100,250000.00,2026-01-05,2026-12-20,4.10") {
		t.Errorf("investments.csv:\n%s", investments)
	}
	if err != nil || m.Year != 2026 || len(m.Files) != len(zr.File)-1 || m.Files[0].Name != audit.JournalLines {
		t.Fatalf("manifest %+v %v", m, err)
	}
	// 2026's journal here is the parameters' seed; the engagement is 2027's.
	if m.Journal.Entries != 1 || m.Journal.FirstSeq != 1 || m.Journal.Prev != "" {
		t.Errorf("journal span %+v", m.Journal)
	}
}

// TestAuditRoutesByRole: the auditors, the treasurer and the
// administrator read the extract; the clerk, the administrator and the
// treasurer record engagements; no one else.
func TestAuditRoutesByRole(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{audit.New()}})
	h.Seed()
	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/staff/audit", Cap: staff.CapAudit},
		{Method: "POST", Path: "/staff/audit/engagements", Cap: staff.CapAuditEngagement},
		{Method: "GET", Path: "/staff/audit/2026/extract.zip", Cap: staff.CapAudit},
	})
	stafftest.CheckAPIRoleMatrix(t, h, []stafftest.Route{
		{Method: "GET", Path: "/api/v1/audit/2026/extract.zip", Cap: staff.CapAudit},
		{Method: "GET", Path: "/api/v1/audit/engagements", Cap: staff.CapAudit},
		{Method: "POST", Path: "/api/v1/audit/engagements", Cap: staff.CapAuditEngagement, Body: `{"command_id":"x","command":{}}`},
	})
}

// booksVillage is a ledger whose books opened on December 31, 2025, so
// they hold 2026 whole: a general fund whose line 46100 collects village
// bills, a bill of 2025 paid in 2026, a bill of 2026 paid in part and a
// certificate of deposit bought with the fund's money. The clock is then
// January 15, 2027.
func booksVillage(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{audit.New()}})
	h.Seed()
	at := func(day string) {
		d := domain.MustDate(day)
		h.SetClock(time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, h.Loc))
	}
	at("2025-12-31")
	h.Submit("admin", &domain.ChartChange{Source: "audit test", Accounts: []domain.ChartAccount{
		{Code: "100", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "100-46100", Type: domain.AccountRevenue, Name: "Charges for services", Fund: "100", Major: "Charges for services", Sources: []string{domain.SourceBills}},
	}})
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "snow removal", BilledOn: domain.MustDate("2025-12-31"), Principal: domain.MustMoney("45.00")},
	}})
	at("2026-01-12")
	h.Submit("kiosk", &domain.PayBill{BillID: "B-1", Amount: domain.MustMoney("45.00"), Tender: domain.Card, Reference: "SIM-1"})
	at("2026-03-02")
	h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
		{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("80.00")},
	}})
	at("2026-03-20")
	h.Submit("kiosk", &domain.PayBill{BillID: "B-2", Amount: domain.MustMoney("30.00"), Tender: domain.Card, Reference: "SIM-2"})
	at("2026-06-01")
	h.Submit("treas", &domain.InvestmentChange{Op: domain.InvestmentBuy, ID: "INV-1", Security: "12-month CD", Institution: "Bank of Belleville", Ground: "time-deposit", Fund: "100",
		Amount: domain.MustMoney("1000.00"), PurchasedOn: domain.MustDate("2026-06-01"), MaturesOn: domain.MustDate("2027-06-01"), Rate: "4.10"})
	h.SetClock(time.Date(2027, time.January, 15, 9, 0, 0, 0, h.Loc))
	return h
}

// extractCSVs downloads the extract of year as the auditor and returns
// each CSV file's records, the header first.
func extractCSVs(t *testing.T, h *stafftest.Harness, year int) map[string][][]string {
	t.Helper()
	p := h.SignedIn("casey", domain.RoleAuditor).Get("/staff/audit/" + strconv.Itoa(year) + "/extract.zip")
	if p.Status != http.StatusOK {
		t.Fatalf("extract: %d", p.Status)
	}
	zr, err := zip.NewReader(bytes.NewReader([]byte(p.Body)), int64(len(p.Body)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]string{}
	var m audit.Manifest
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		switch {
		case f.Name == audit.ManifestName:
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
		case strings.HasSuffix(f.Name, ".csv"):
			recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("%s: %v", f.Name, err)
			}
			out[f.Name] = recs
		}
	}
	// The manifest lists every file with its records.
	for _, f := range m.Files {
		if recs, ok := out[f.Name]; ok && f.Rows != len(recs)-1 {
			t.Errorf("manifest: %s has %d rows, the file %d", f.Name, f.Rows, len(recs)-1)
		}
	}
	for _, name := range []string{"trial-balance.csv", "general-ledger.csv", "budget-to-actual.csv", "receipts.csv"} {
		if !slices.ContainsFunc(m.Files, func(f audit.ManifestFile) bool { return f.Name == name }) {
			t.Errorf("the manifest does not list %s: %+v", name, m.Files)
		}
	}
	return out
}

// column returns the index of name in header, failing the test without it.
func column(t *testing.T, header []string, name string) int {
	t.Helper()
	i := slices.Index(header, name)
	if i < 0 {
		t.Fatalf("no column %q in %v", name, header)
	}
	return i
}

func money(t *testing.T, s string) domain.Money {
	t.Helper()
	if s == "" {
		return domain.Money{}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	return domain.MoneyFromDecimal(d)
}

// TestExtractFromTheBooks: the extract's trial balance is the books' of
// December 31 (§5.15), balanced, account by account; the general ledger's
// lines of the year sum, account by account, to the trial balance's
// movement in the year (the balance of December 31 less that of the year
// before); and the budget against actual and the receipts carry the
// books' actuals of the year, which the books hold whole.
func TestExtractFromTheBooks(t *testing.T) {
	h := booksVillage(t)
	files := extractCSVs(t, h, 2026)
	reads := domain.ReadsOf(h.Ledger)
	end, err := reads.TrialBalance(domain.MustDate("2026-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	start, err := reads.TrialBalance(domain.MustDate("2025-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	if !end.Balanced() || end.Debit.IsZero() || len(start.Rows) == 0 {
		t.Fatalf("the books: %+v, before the year %+v", end, start)
	}

	tb := files["trial-balance.csv"]
	hd := tb[0]
	acct, deb, cred, bal := column(t, hd, "account"), column(t, hd, "debit"), column(t, hd, "credit"), column(t, hd, "balance")
	if len(tb) != len(end.Rows)+2 {
		t.Fatalf("trial-balance.csv has %d rows, the books %d accounts:\n%v", len(tb)-1, len(end.Rows), tb)
	}
	for i, r := range end.Rows {
		rec := tb[i+1]
		if rec[acct] != r.Account.Code || !money(t, rec[deb]).Equal(r.Debit) || !money(t, rec[cred]).Equal(r.Credit) || !money(t, rec[bal]).Equal(r.Balance()) {
			t.Errorf("trial balance row %d: %v, the books %s %s/%s", i+1, rec, r.Account.Code, r.Debit, r.Credit)
		}
	}
	total := tb[len(tb)-1]
	if total[acct] != "total" || !money(t, total[deb]).Equal(money(t, total[cred])) || !money(t, total[deb]).Equal(end.Debit) {
		t.Errorf("totals: %v, the books %s/%s", total, end.Debit, end.Credit)
	}

	// The general ledger is the year's movement.
	movement := map[string]domain.Money{}
	for _, r := range end.Rows {
		movement[r.Account.Code] = r.Debit.Sub(r.Credit)
	}
	for _, r := range start.Rows {
		movement[r.Account.Code] = movement[r.Account.Code].Sub(r.Debit.Sub(r.Credit))
	}
	gl := files["general-ledger.csv"]
	hd = gl[0]
	date, gacct, gdeb, gcred := column(t, hd, "date"), column(t, hd, "account"), column(t, hd, "debit"), column(t, hd, "credit")
	if len(gl) < 2 {
		t.Fatal("general-ledger.csv is empty")
	}
	lines := map[string]domain.Money{}
	for _, rec := range gl[1:] {
		if !strings.HasPrefix(rec[date], "2026-") {
			t.Errorf("an entry of another year: %v", rec)
		}
		lines[rec[gacct]] = lines[rec[gacct]].Add(money(t, rec[gdeb])).Sub(money(t, rec[gcred]))
	}
	for code, m := range movement {
		if !lines[code].Equal(m) {
			t.Errorf("%s: the general ledger moves it %s, the trial balances %s", code, lines[code], m)
		}
	}
	for code := range lines {
		if _, ok := movement[code]; !ok {
			t.Errorf("%s is in the general ledger and not in the trial balance", code)
		}
	}

	// The actuals are the books': the bill of 2026 in full, the one of
	// 2025 not again.
	ch, _ := reads.Chart()
	var lineAccounts []domain.ChartAccount
	for _, a := range ch.Accounts {
		if a.Type.Line() {
			lineAccounts = append(lineAccounts, a)
		}
	}
	books, err := reads.LineActivity(lineAccounts, 2026, domain.MustDate("2026-12-31"))
	if err != nil {
		t.Fatal(err)
	}
	if !books["100-46100"].Equal(domain.MustMoney("80.00")) {
		t.Fatalf("the books' 2026 charges for services: %s", books["100-46100"])
	}
	bta := files["budget-to-actual.csv"]
	hd = bta[0]
	bacct, actual, from := column(t, hd, "account"), column(t, hd, "actual"), column(t, hd, "actual_from")
	seen := 0
	for _, rec := range bta[1:] {
		want, ok := books[rec[bacct]]
		if !ok {
			t.Errorf("budget-to-actual: %v is no line of the books", rec)
			continue
		}
		seen++
		if !money(t, rec[actual]).Equal(want) || rec[from] != domain.FromBooks {
			t.Errorf("budget-to-actual %s: %s from %s, the books %s", rec[bacct], rec[actual], rec[from], want)
		}
	}
	if seen == 0 {
		t.Errorf("budget-to-actual has no line: %v", bta)
	}
	rc := files["receipts.csv"]
	if len(rc) != 2 || rc[1][column(t, rc[0], "month")] != "03" || rc[1][column(t, rc[0], "account")] != "100-46100" ||
		!money(t, rc[1][column(t, rc[0], "receipts")]).Equal(domain.MustMoney("80.00")) || rc[1][column(t, rc[0], "from")] != domain.FromBooks {
		t.Errorf("receipts.csv: %v", rc)
	}
}
