package refunds_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestReturnedCheckAndRefund: a check overpays a bill; the refund shows in
// the queue with its deadline; the treasurer approves it; the check comes
// back unpaid, so the payment is reversed, the fee billed, the refund
// cancelled and a notice made for the payer.
func TestReturnedCheckAndRefund(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
	c.Get("/staff/window")
	pay := url.Values{"bill": {"B-2026-0102"}, "amount": {"100.00"}, "tender": {"check"}, "reference": {"3003"}, "payer": {"Luis Ramirez"}}
	// A check over the balance: a warning and a confirm before it posts.
	if p := c.Post("/staff/window/pay", pay); p.Status != http.StatusOK || !p.Has("confirm-overpayment") {
		t.Fatalf("an overpaying check posted without a confirm: %d", p.Status)
	}
	pay.Set("confirm", "yes")
	p := c.Post("/staff/window/pay", pay)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("check: %d %s", p.Status, p.Text("window-error"))
	}
	p = c.Get(p.Location)
	receipt := p.Text("receipt-number")
	if !p.Has("return-check") {
		t.Fatal("a check's receipt offers no returned-check link to the clerk")
	}
	p = c.Get("/staff/refunds")
	row := p.Doc.Find(`tr[data-refund]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "10.00") || !strings.Contains(row.Text(), "due") {
		t.Fatalf("refund queue: %q", p.Text("refunds"))
	}
	cmd, _ := row.Attr("data-refund")
	if p.Has("approve-" + cmd) {
		t.Fatal("the clerk is offered the approval")
	}
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	tr.Get("/staff/refunds")
	// The queue names the payee and the address the check goes to; the
	// approval asks for a confirmation that repeats them, so a check is not
	// written to the wrong person.
	pc, _ := h.Ledger.Parcel("0601-141-2002")
	if payee := p.Text("refund-payee-" + cmd); !strings.Contains(payee, "Luis Ramirez") || pc.Address == "" || !strings.Contains(payee, pc.Address) {
		t.Fatalf("payee %q, want Luis Ramirez at %q", payee, pc.Address)
	}
	if p := tr.Post("/staff/refunds/"+cmd+"/approve", url.Values{"bill": {"B-2026-0102"}}); p.Status != http.StatusOK || !strings.Contains(p.Text("approve-summary"), "$10.00 to Luis Ramirez, "+pc.Address) {
		t.Fatalf("approve without a confirmation: %d %q", p.Status, p.Text("approve-summary"))
	}
	if p := tr.Get("/staff/refunds"); strings.Contains(p.Text("refund-state-"+cmd), "approved") {
		t.Fatal("the confirmation page approved the refund")
	}
	if p := tr.Post("/staff/refunds/"+cmd+"/approve", url.Values{"bill": {"B-2026-0102"}, "confirm": {"yes"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", p.Status, p.Text("error"))
	}
	if p := tr.Get("/staff/refunds"); !strings.Contains(p.Text("refund-state-"+cmd), "approved") || !p.Has("record-check-"+cmd) {
		t.Fatalf("after approval: %q", p.Text("refund-state-"+cmd))
	}
	// 16 business days later the approved refund is overdue.
	h.SetClock(h.Now().Add(25 * 24 * time.Hour))
	tr.Login("treasurer", stafftest.Password)
	if p := tr.Get("/staff/refunds"); !p.Has("overdue-" + cmd) {
		t.Fatal("an approved refund past its deadline is not flagged")
	}
	if p := tr.Get("/staff/"); !p.Has("alert-refunds-late") {
		t.Fatal("the start page does not flag the late refund")
	}
	p = tr.Get("/staff/returned-checks/new?receipt=" + receipt)
	if p.Status != http.StatusOK || p.Text("return-fee") == "" {
		t.Fatalf("return form: %d", p.Status)
	}
	p = tr.Post("/staff/returned-checks", url.Values{"bill": {"B-2026-0102"}, "receipt": {receipt}, "referral": {"Second returned check this year."}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("return: %d %s", p.Status, p.Text("error"))
	}
	p = tr.Get(p.Location)
	fee := h.Ledger.Params().At(domain.DateOf(h.Now())).ReturnedCheckFee
	b, _ := h.Ledger.Bill("B-2026-0102")
	// Owed is the bill's balance today, its interest as though the check
	// had not been paid (the 10.00 overpayment's refund is cancelled), and
	// the fee: one figure, not "plus the interest" on top of it.
	fig, _ := b.Figures(domain.DateOf(h.Now().In(h.Loc)), h.Ledger.Params())
	if p.Text("notice-fee") != "$"+fee.String() || p.Text("notice-owed") != "$"+fig.Balance.Add(fee).String() || !p.Has("notice-referral") {
		t.Fatalf("notice: fee %q owed %q, want $%s", p.Text("notice-fee"), p.Text("notice-owed"), fig.Balance.Add(fee))
	}
	if notice := p.Text("returned-notice"); strings.Contains(notice, "plus the interest") || !strings.Contains(notice, "interest counted as though the check had not been paid") {
		t.Fatalf("notice: %q", notice)
	}
	// The notice to mail is a letter dated as the clerk chooses, to the
	// account's parcel in the envelope's window, without the office's
	// referral note.
	id := strings.TrimPrefix(p.Location, "/staff/returned-checks/")
	if id == "" {
		id = strings.TrimPrefix(p.Doc.Find(`[data-testid="returned-pdf"]`).AttrOr("href", ""), "/staff/returned-checks/")
		id = strings.TrimSuffix(id, "/notice.pdf")
	}
	today := domain.DateOf(h.Now().In(h.Loc))
	st, ct, body := tr.GetPDF("/staff/returned-checks/" + id + "/notice.pdf?date=" + today.String())
	if st != http.StatusOK || ct != "application/pdf" {
		t.Fatalf("notice PDF of %q: %d %s %.200s", id, st, ct, body)
	}
	pages := stafftest.PDFPages(t, body)
	stafftest.CheckLetter(t, pages)
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"11 Main St", "Belleville, WI 53508"})
	text := stafftest.PageText(pages[0])
	for _, want := range []string{staff.LongDate(today), "Notice of returned check", staff.Dollars(fig.Balance.Add(fee)), "Tear off"} {
		if !strings.Contains(text, want) {
			t.Errorf("the notice PDF does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Second returned check") {
		t.Error("the notice PDF prints the internal referral note")
	}
	if st, _, _ := tr.GetPDF("/staff/returned-checks/" + id + "/notice.pdf?date=2020-01-01"); st != http.StatusUnprocessableEntity {
		t.Errorf("a notice dated before the return: %d", st)
	}
	if len(b.Payments) != 0 {
		t.Fatal("the returned check's payment is still on the bill")
	}
	fees, _ := h.Ledger.BillsByAccount("100102")
	if len(fees) != 2 {
		t.Fatalf("account has %d bills, want the fee billed too", len(fees))
	}
	if p := tr.Get("/staff/refunds"); !strings.Contains(p.Text("refund-state-"+cmd), "cancelled") || p.Has("overdue-"+cmd) {
		t.Fatalf("refund after the return: %q", p.Text("refund-state-"+cmd))
	}
	// A second return of the same receipt is refused.
	if p := tr.Post("/staff/returned-checks", url.Values{"bill": {"B-2026-0102"}, "receipt": {receipt}}); p.Status != http.StatusNotFound {
		t.Fatalf("second return: %d", p.Status)
	}
}

func TestRefundCheckRecorded(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
	c.Get("/staff/window")
	c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"150.00"}, "tender": {"check"}, "reference": {"88"}, "confirm": {"yes"}})
	p := c.Get("/staff/refunds")
	cmd, _ := p.Doc.Find(`tr[data-refund]`).Attr("data-refund")
	if p := c.Post("/staff/refunds/"+cmd+"/check", url.Values{"bill": {"B-2026-0101"}, "check_number": {"9001"}}); p.Status != http.StatusConflict {
		t.Fatalf("check before approval: %d", p.Status)
	}
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	tr.Get("/staff/refunds")
	tr.Post("/staff/refunds/"+cmd+"/approve", url.Values{"bill": {"B-2026-0101"}, "confirm": {"yes"}})
	// The check is drawn on the checking account, from its stock, with
	// two signatures (§5.07(4), §5.18).
	h.Submit("treasurer", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "BOB", Name: "General checking", Institution: "Bank of Belleville", Resolution: "2026-01", From: domain.MustDate("2026-01-01"), Number: "000123456789"})
	h.Submit("treasurer", &domain.CheckStock{Next: 9001, Account: "BOB"})
	for _, s := range []domain.SignatureChange{
		{Op: "approve", ID: "sig-pres", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion", ApprovedOn: domain.MustDate("2026-01-05")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion", ApprovedOn: domain.MustDate("2026-01-05")},
	} {
		h.Submit("treasurer", &s)
	}
	c.Get("/staff/refunds")
	form := url.Values{"bill": {"B-2026-0101"}, "check_number": {"10451"}, "account": {"BOB"}, "signatures": {"sig-pres sig-treas"}}
	if p := c.Post("/staff/refunds/"+cmd+"/check", form); p.Status != http.StatusConflict || !strings.Contains(p.Text("error"), "is number 9001, not 10451") {
		t.Fatalf("a number out of the stock: %d %s", p.Status, p.Text("error"))
	}
	c.Get("/staff/refunds")
	form.Set("check_number", "9001")
	if p := c.Post("/staff/refunds/"+cmd+"/check", form); p.Status != http.StatusSeeOther {
		t.Fatalf("record check: %d %s", p.Status, p.Text("error"))
	}
	if reg, err := domain.ReadsOf(h.Ledger).CheckRegister(h.Today().String()[:7]); err != nil || len(reg) != 1 || reg[0].Refund != cmd || reg[0].Payee == "" {
		t.Fatalf("the register: %+v %v", reg, err)
	}
	if p := c.Get("/staff/refunds"); !strings.Contains(p.Text("refund-state-"+cmd), "paid check 9001") {
		t.Fatalf("state: %q", p.Text("refund-state-"+cmd))
	}
}

// TestReturnedCheckNoticeGoesToWhoPresentedIt: a tenant's check pays the
// owner's bill and comes back. §5.20 holds the presenter liable, so the
// notice is the tenant's, at the address on the check: the page asks for
// it, the PDF is refused without it (never mailed to the owner instead),
// and a bad address is refused with what to correct.
func TestReturnedCheckNoticeGoesToWhoPresentedIt(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
	c.Get("/staff/window")
	p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"142.37"}, "tender": {"check"}, "reference": {"771"}, "payer": {"Jane Tenant"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("check: %d %s", p.Status, p.Text("window-error"))
	}
	receipt := c.Get(p.Location).Text("receipt-number")
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	p = tr.Post("/staff/returned-checks", url.Values{"bill": {"B-2026-0101"}, "receipt": {receipt}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("return: %d %s", p.Status, p.Text("error"))
	}
	pdfURL := p.Location + "/notice.pdf"
	p = tr.Get(p.Location)
	if got := p.Text("notice-to"); !strings.HasPrefix(got, "To Jane Tenant") {
		t.Errorf("the notice on screen is %q, want it to Jane Tenant", got)
	}
	if !p.Has("presenter-form") || p.Doc.Find(`[data-testid="presenter-name"]`).AttrOr("value", "") != "Jane Tenant" {
		t.Fatal("the page does not ask for the presenter's address")
	}

	// Without the address: refused, saying whose address to type.
	st, _, body := tr.GetPDF(pdfURL)
	if st != http.StatusUnprocessableEntity || !strings.Contains(string(body), "Jane Tenant") {
		t.Fatalf("a notice without the presenter's address: %d %.300s", st, body)
	}
	// A bad address: refused, naming the field.
	bad := url.Values{"name": {"Jane Tenant"}, "street": {"4 Elm St"}, "city": {"Madison"}, "state": {"Wisc"}, "zip": {"53703"}}
	if st, _, body := tr.GetPDF(pdfURL + "?" + bad.Encode()); st != http.StatusUnprocessableEntity || !strings.Contains(string(body), "two-letter code") {
		t.Fatalf("a notice to a bad address: %d %.300s", st, body)
	}
	// With it: the letter is to the tenant at the check's address, and
	// names neither the owner nor the owner's address.
	good := url.Values{"name": {"Jane Tenant"}, "street": {"4 Elm St"}, "street2": {"Apt 2"}, "city": {"Madison"}, "state": {"wi"}, "zip": {"53703"}}
	st, ct, body := tr.GetPDF(pdfURL + "?" + good.Encode())
	if st != http.StatusOK || ct != "application/pdf" {
		t.Fatalf("notice PDF: %d %s %.200s", st, ct, body)
	}
	pages := stafftest.PDFPages(t, body)
	stafftest.CheckLetter(t, pages)
	stafftest.InWindow(t, pages[0], staff.AddressWindow, []string{"Jane Tenant", "4 Elm St", "Apt 2", "Madison, WI 53703"})
	text := stafftest.PageText(pages[0])
	for _, owner := range []string{"Ana Gutierrez", "10 Main St"} {
		if strings.Contains(text, owner) {
			t.Errorf("the tenant's notice names the owner's %q:\n%s", owner, text)
		}
	}
}
