package books_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// villageBank is villageBooks with the depository BOB and April 2026 at
// it: a $200.00 bill paid with a $250.00 check at the window on April 6
// and deposited (DEP-1), the $50.00 overpaid refunded by check 5001 on
// BOB on April 10, and a $100.00 bill paid in cash on April 28 and
// deposited (DEP-2). BOB's book balance of April 30 is $300.00. The clock
// is then May 4, 2026.
func villageBank(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := villageBooks(t)
	at := func(day string) {
		d := domain.MustDate(day)
		h.SetClock(time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, h.Loc))
	}
	at("2026-04-01")
	h.Submit("tom", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: domain.MustDate("2026-01-01"), Number: "000123456789"})
	h.Submit("tom", &domain.CheckStock{Next: 5001, Account: "BOB"})
	for _, s := range []domain.SignatureChange{
		{Op: "approve", ID: "sig-wells", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion 2026-04-01 #5", ApprovedOn: domain.MustDate("2026-04-01")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2026-04-01 #5", ApprovedOn: domain.MustDate("2026-04-01")},
	} {
		h.Submit("clerk", &s)
	}
	window := func(day, id, bill, amount, paid string, tender domain.Tender) domain.Result {
		at(day)
		h.Submit("clerk", &domain.CreateBills{Bills: []domain.NewBill{
			{ID: bill, Account: "100101", Parcel: "0601-141-2001", Description: "charges " + id, BilledOn: domain.MustDate(day), Principal: domain.MustMoney(amount)},
		}})
		h.Submit("clerk", &domain.DrawerOpen{DrawerID: "D-" + id, Float: domain.MustMoney("0.00")})
		pay := &domain.WindowPayment{DrawerID: "D-" + id, BillID: bill, Amount: domain.MustMoney(paid), Tender: tender}
		close := &domain.DrawerClose{DrawerID: "D-" + id}
		if tender == domain.Check {
			pay.Reference = "check 1234"
			close.CountedChecks, close.CheckCount = domain.MustMoney(paid), 1
		} else {
			pay.Tendered = domain.MustMoney(paid)
			close.CountedCash = domain.MustMoney(paid)
		}
		res := h.Submit("clerk", pay)
		h.Submit("clerk", close)
		h.Submit("tom", &domain.Deposit{DepositID: id, Depository: "BOB", Drawers: []string{"D-" + id}})
		return res
	}
	over := window("2026-04-06", "DEP-1", "B-G2", "200.00", "250.00", domain.Check)
	at("2026-04-10")
	h.Submit("tom", &domain.IssueRefund{Op: "approve", BillID: "B-G2", CommandID: over.CommandID})
	h.Submit("tom", &domain.IssueRefund{Op: "check", BillID: "B-G2", CommandID: over.CommandID, Account: "BOB", Payee: "Ana Gutierrez", Signatures: []string{"sig-wells", "sig-treas"}})
	window("2026-04-28", "DEP-2", "B-G3", "100.00", "100.00", domain.Cash)
	h.SetClock(time.Date(2026, time.May, 4, 9, 0, 0, 0, h.Loc))
	return h
}

// TestCashAndBankReconciliationPages: the books' index links to both
// pages; the cash of April 30 is all at BOB and ties to the trial
// balance; the treasurer records April's statement (a check number the
// account never wrote is refused beside the form) and sees it reconciled
// with check 5001 outstanding and DEP-2 in transit; the CSV twins say the
// same; a clerk reads the pages but may not record a statement.
func TestCashAndBankReconciliationPages(t *testing.T) {
	h := villageBank(t)
	tr := h.SignedIn("tom", domain.RoleTreasurer)
	if p := tr.Get("/staff/books"); !p.Has("link-cash") || !p.Has("link-bank") {
		t.Fatalf("the books' index links: cash %v, bank %v", p.Has("link-cash"), p.Has("link-bank"))
	}

	p := tr.Get("/staff/books/cash?as_of=2026-04-30")
	if p.Status != http.StatusOK {
		t.Fatalf("cash by depository: %d %s", p.Status, p.Text("error"))
	}
	if p.Text("cash-BOB") != "$300.00" || p.Text("cash-books") != "$300.00" || p.Text("cash-difference") != "$0.00" || !p.Has("all-placed") || p.Has("cash-unexplained") {
		t.Fatalf("cash of April 30: BOB %q, books %q, difference %q, all placed %v", p.Text("cash-BOB"), p.Text("cash-books"), p.Text("cash-difference"), p.Has("all-placed"))
	}
	recs := readCSV(t, tr.Get("/staff/books/cash.csv?as_of=2026-04-30").Body)
	if strings.Join(recs[0], ",") != "as_of,row,depository,name,in,out,balance" || recs[1][2] != "BOB" || recs[1][6] != "300.00" || recs[len(recs)-1][1] != "difference" || recs[len(recs)-1][6] != "0.00" {
		t.Fatalf("cash CSV: %q", recs)
	}

	p = tr.Get("/staff/books/bank")
	if p.Status != http.StatusOK || !p.Has("no-statement") || !p.Has("statement-form") {
		t.Fatalf("the bank page before a statement: %d, no statement %v, form %v", p.Status, p.Has("no-statement"), p.Has("statement-form"))
	}
	if v, _ := p.Doc.Find(`[data-testid="statement-form"] input[name="on"]`).Attr("value"); v != "2026-04-30" {
		t.Errorf("the form offers the statement date %q, want the last day of the month before", v)
	}
	form := url.Values{"depository": {"BOB"}, "on": {"2026-04-30"}, "balance": {"250.00"}, "cleared": {"5009"}, "credited": {"DEP-1"}, "reference": {"April"}}
	p = tr.Post("/staff/books/bank", form)
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("statement-error"), "No check 5009 was written on BOB's account") {
		t.Fatalf("a check the account never wrote: %d %q", p.Status, p.Text("statement-error"))
	}
	if v := p.Doc.Find(`[data-testid="statement-form"] textarea[name="cleared"]`).Text(); v != "5009" {
		t.Errorf("the form shown again holds %q, want what was typed", v)
	}
	form.Set("cleared", "")
	p = tr.Post("/staff/books/bank", form)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("the statement: %d %q", p.Status, p.Text("statement-error"))
	}
	p = tr.Get(p.Location)
	if !p.Has("statement-recorded") || p.Text("rec-bank") != "$250.00" || p.Text("rec-book") != "$300.00" || p.Text("rec-outstanding") != "$50.00" ||
		p.Text("rec-in-transit") != "$100.00" || p.Text("rec-difference") != "$0.00" || !strings.HasPrefix(p.Text("rec-status"), "Reconciled") {
		t.Fatalf("the reconciliation: bank %q, book %q, outstanding %q, in transit %q, difference %q, status %q",
			p.Text("rec-bank"), p.Text("rec-book"), p.Text("rec-outstanding"), p.Text("rec-in-transit"), p.Text("rec-difference"), p.Text("rec-status"))
	}
	if rows := p.Doc.Find(`[data-testid="outstanding-row"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "check 5001") {
		t.Errorf("outstanding: %q", rows.Text())
	}
	if rows := p.Doc.Find(`[data-testid="in-transit-row"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "deposit DEP-2") {
		t.Errorf("in transit: %q", rows.Text())
	}
	if !p.Has("statement-2026-04-30") {
		t.Error("the history lacks the statement")
	}
	recs = readCSV(t, tr.Get("/staff/books/bank.csv?depository=BOB&statement=2026-04-30").Body)
	want := map[string]string{"bank_balance": "250.00", "in_transit": "100.00", "outstanding": "50.00", "adjusted_bank": "300.00", "book_balance": "300.00", "adjusted_book": "300.00", "difference": "0.00"}
	for _, rec := range recs[1:] {
		if w, ok := want[rec[2]]; ok {
			if rec[5] != w {
				t.Errorf("bank CSV %s: %s, want %s", rec[2], rec[5], w)
			}
			delete(want, rec[2])
		}
	}
	if len(want) != 0 {
		t.Errorf("bank CSV lacks %v: %q", want, recs)
	}

	// The same statement again is refused: it is recorded already.
	if p = tr.Post("/staff/books/bank", form); p.Status != http.StatusConflict || !strings.Contains(p.Text("statement-error"), "recorded already") {
		t.Errorf("the statement twice: %d %q", p.Status, p.Text("statement-error"))
	}

	cl := h.SignedIn("cleo", domain.RoleClerk)
	p = cl.Get("/staff/books/bank?depository=BOB")
	if p.Status != http.StatusOK || p.Has("statement-form") || p.Text("rec-difference") != "$0.00" {
		t.Fatalf("the clerk's page: %d, form %v, difference %q", p.Status, p.Has("statement-form"), p.Text("rec-difference"))
	}
	if p = cl.Post("/staff/books/bank", form); p.Status != http.StatusForbidden {
		t.Errorf("a clerk's statement: %d", p.Status)
	}
}
