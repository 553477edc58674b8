package window_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestWindowDay is a clerk's day at the window at handler level: open the
// drawer, take cash with change and a check, close on a blind count that
// comes up short, see the alert for money not deposited, and the
// treasurer's deposit slip that clears it.
func TestWindowDay(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)

	p := c.Get("/staff/window")
	if !p.Has("open-form") {
		t.Fatal("no open-drawer form before the drawer is open")
	}
	if p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"10.00"}, "tender": {"cash"}}); p.Status != http.StatusConflict {
		t.Fatalf("payment without a drawer: %d", p.Status)
	}
	if p := c.Post("/staff/window/open", url.Values{"float": {"100.00"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("open: %d %s", p.Status, p.Text("window-error"))
	}
	p = c.Get("/staff/window?bill=B-2026-0101")
	drawer := p.Text("drawer-id")
	if drawer == "" || p.Doc.Find(`[data-testid="pay-amount"]`).AttrOr("value", "") != "142.37" {
		t.Fatalf("window: drawer %q, amount prefilled %q", drawer, p.Doc.Find(`[data-testid="pay-amount"]`).AttrOr("value", ""))
	}
	// Too little cash handed over is refused; nothing posts.
	if p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"142.37"}, "tender": {"cash"}, "tendered": {"100.00"}}); p.Status != http.StatusUnprocessableEntity || !p.Has("window-error") {
		t.Fatalf("short cash: %d", p.Status)
	}
	cash := url.Values{"bill": {"B-2026-0101"}, "amount": {"142.37"}, "tender": {"cash"}, "tendered": {"160.00"}, "payer": {"Ana"}}
	// The change is shown before the payment posts.
	if p := c.Post("/staff/window/pay", cash); p.Status != http.StatusOK || p.Text("confirm-change") != "17.63" {
		t.Fatalf("cash with change: %d, change %q", p.Status, p.Text("confirm-change"))
	}
	cash.Set("confirm", "yes")
	p = c.Post("/staff/window/pay", cash)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("cash: %d %s", p.Status, p.Text("window-error"))
	}
	p = c.Get(p.Location)
	if p.Text("change-due") != "17.63" || p.Text("receipt-balance") != "0.00" || p.Text("receipt-status") != "posted" {
		t.Fatalf("cash receipt: change %q balance %q status %q", p.Text("change-due"), p.Text("receipt-balance"), p.Text("receipt-status"))
	}
	c.Get("/staff/window")
	if p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"90.00"}, "tender": {"check"}}); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("check without a number: %d", p.Status)
	}
	p = c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"90.00"}, "tender": {"check"}, "reference": {"1042"}, "payer": {"Luis Ramirez"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("check: %d %s", p.Status, p.Text("window-error"))
	}
	// The blind count shows nothing of what the drawer should hold.
	p = c.Get("/staff/window/close")
	if !p.Has("close-form") || strings.Contains(p.Body, "242.37") || strings.Contains(p.Body, "142.37") {
		t.Fatal("the close page is not blind")
	}
	if p := c.Get("/staff/drawers/" + drawer); p.Has("drawer-payments") {
		t.Fatal("the cashier sees the drawer's payments before the count")
	}
	h.SetClock(h.Now().Add(7 * time.Hour)) // 16:00; the session idled out
	if p := c.Get("/staff/window/close"); p.Status != http.StatusSeeOther {
		t.Fatalf("a session idle for 7 hours: %d", p.Status)
	}
	c.Login("jdoe", stafftest.Password)
	c.Get("/staff/window/close")
	p = c.Post("/staff/window/close", url.Values{"drawer": {drawer}, "cash": {"242.00"}, "checks": {"90.00"}, "check_count": {"1"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("close: %d %s", p.Status, p.Text("close-error"))
	}
	p = c.Get(p.Location)
	if p.Text("over-short") != "-0.37" || p.Text("expected-cash") != "242.37" {
		t.Fatalf("after close: over/short %q expected %q", p.Text("over-short"), p.Text("expected-cash"))
	}
	// 16:45, after the office closed: the money is not deposited.
	h.SetClock(h.Now().Add(45 * time.Minute))
	c.Login("jdoe", stafftest.Password)
	if p := c.Get("/staff/"); !p.Has("alert-undeposited") {
		t.Fatal("no alert for money not deposited by the day's end")
	}
	// The clerk cannot make the deposit; the treasurer can.
	if p := c.Post("/staff/deposits", url.Values{"depository": {"Bank of Belleville (designated)"}, "drawer": {drawer}}); p.Status != http.StatusForbidden {
		t.Fatalf("clerk deposit: %d", p.Status)
	}
	// The board designated the depository (ledger format 2: a slip names a
	// designated depository, domain/depository.go).
	h.Submit("treasurer", &domain.DepositoryChange{Op: domain.DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville (designated)", Institution: "Bank of Belleville", Resolution: "2026-03", From: domain.MustDate("2026-01-01")})
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	p = tr.Get("/staff/drawers")
	if !p.Has("alert-undeposited") || !p.Has("deposit-"+drawer) {
		t.Fatal("the drawers page does not offer the closed drawer for deposit")
	}
	if got := p.Doc.Find(`[data-testid="depository"] option`).AttrOr("value", ""); got != "BOB" {
		t.Fatalf("the deposit form offers %q, not the designated depository", got)
	}
	if p := tr.Post("/staff/deposits", url.Values{"depository": {"Some other bank"}, "drawer": {drawer}}); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("an undesignated depository: %d", p.Status)
	}
	p = tr.Post("/staff/deposits", url.Values{"depository": {"BOB"}, "drawer": {drawer}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("deposit: %d %s", p.Status, p.Text("error"))
	}
	p = tr.Get(p.Location)
	// Cash counted 242.00 less the 100.00 float, and the check.
	if p.Text("slip-cash") != "142.00" || p.Text("slip-checks") != "90.00" || p.Text("slip-total") != "232.00" || p.Text("slip-depository") != "Bank of Belleville (designated)" {
		t.Fatalf("slip: cash %q checks %q total %q", p.Text("slip-cash"), p.Text("slip-checks"), p.Text("slip-total"))
	}
	if p := c.Get("/staff/"); p.Has("alert-undeposited") {
		t.Fatal("the alert stays after the deposit")
	}
	if p := tr.Post("/staff/deposits", url.Values{"depository": {"BOB"}, "drawer": {drawer}}); p.Status != http.StatusConflict {
		t.Fatalf("second deposit of a drawer: %d", p.Status)
	}
}

func TestNextDayAlert(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"50.00"}})
	c.Get("/staff/window")
	c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0102"}, "amount": {"20.00"}, "tender": {"cash"}, "tendered": {"20.00"}})
	if p := c.Get("/staff/"); p.Has("alert-undeposited") {
		t.Fatal("an alert during the business day")
	}
	h.SetClock(h.Now().Add(24 * time.Hour))
	c.Login("jdoe", stafftest.Password)
	if p := c.Get("/staff/"); !p.Has("alert-undeposited") {
		t.Fatal("no alert the next morning for yesterday's money")
	}
}

// TestWindowLookupAndReceipt: the window finds bills by
// account number and by address, not only by bill number; a check's
// receipt says nothing of cash handed over; the receipt is on letterhead
// with a print button, and its links and command id are marked out of
// print.
func TestWindowLookupAndReceipt(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
	b, _ := h.Ledger.Bill("B-2026-0101")
	pc, _ := h.Ledger.Parcel(b.Parcel)
	for _, q := range []string{b.Account, strings.ToLower(pc.Address), strings.Replace(pc.Address, " St", " Street", 1)} {
		p := c.Get("/staff/window?bill=" + url.QueryEscape(q))
		if !p.Has("window-match-B-2026-0101") {
			t.Fatalf("window lookup %q: %q %q", q, p.Text("window-matches"), p.Text("window-error"))
		}
	}
	if p := c.Get("/staff/window?bill=nothing-like-it"); !strings.Contains(p.Text("window-error"), "no bill, account or address") {
		t.Fatalf("no match: %q", p.Text("window-error"))
	}
	p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"20.00"}, "tender": {"check"}, "reference": {"77"}})
	p = c.Get(p.Location)
	if strings.Contains(p.Body, "Cash handed over") || p.Has("change-due") {
		t.Fatal("a check's receipt speaks of cash handed over")
	}
	if !p.Has("receipt-letterhead") || !p.Has("print-receipt") || p.Doc.Find(`script[src="/staff/assets/print.js"]`).Length() != 1 {
		t.Fatal("the receipt has no letterhead or print button")
	}
	if p.Doc.Find(`dd.cmd`).Length() != 1 || p.Doc.Find(`.no-print [data-testid="back-to-window"]`).Length() != 1 {
		t.Fatal("the command id or the links are not kept out of print")
	}
	if js := c.Get("/staff/assets/print.js"); js.Status != http.StatusOK || !strings.Contains(js.Body, "window.print()") {
		t.Fatalf("print.js: %d", js.Status)
	}
}

// TestReceiptLetterheadFromConfiguration: the office's printed receipt is
// headed with the village hall's name, address and telephone from the
// node's configuration, and keeps the built-in heading without them.
func TestReceiptLetterheadFromConfiguration(t *testing.T) {
	head := staff.Letterhead{Name: "Village of Belleville", Address: "24 W Main St, Belleville, WI 53508", Phone: "(608) 424-3341", Email: "clerk@belleville.example"}
	for _, tc := range []struct {
		head             staff.Letterhead
		address, contact string
	}{
		{head, head.Address, "Questions: (608) 424-3341 · clerk@belleville.example"},
		{staff.Letterhead{}, "Office of the Clerk · Belleville, Wisconsin 53508", ""},
	} {
		h := stafftest.NewWith(t, stafftest.Options{Letterhead: tc.head})
		c := h.SignedIn("jdoe", domain.RoleClerk)
		c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
		p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"20.00"}, "tender": {"check"}, "reference": {"77"}})
		p = c.Get(p.Location)
		if p.Text("letterhead-name") != "Village of Belleville" || p.Text("letterhead-address") != tc.address || p.Text("letterhead-contact") != tc.contact {
			t.Fatalf("letterhead %+v: %q / %q / %q", tc.head, p.Text("letterhead-name"), p.Text("letterhead-address"), p.Text("letterhead-contact"))
		}
	}
}

// TestReceiptShowsTheCard: a card payment's receipt in
// the office names the card's brand and last four digits as the ledger
// recorded them; a check's names no card.
func TestReceiptShowsTheCard(t *testing.T) {
	h := stafftest.New(t)
	cmd, err := h.Ledger.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B-2026-0102", Amount: domain.MustMoney("50.00"), Tender: domain.Card, Reference: "SIM000001",
		Card: &domain.CardShown{Brand: "visa", Last4: "4242"}}
	res, err := h.Ledger.Submit(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	c := h.SignedIn("jdoe", domain.RoleClerk)
	p := c.Get("/staff/receipts/" + res.Receipt.Number)
	if p.Text("receipt-card") != "Visa •••• 4242" || !strings.Contains(p.Text("receipt-tender"), "SIM000001") {
		t.Fatalf("card receipt: card %q, tender %q", p.Text("receipt-card"), p.Text("receipt-tender"))
	}

	c.Post("/staff/window/open", url.Values{"float": {"0.00"}})
	p = c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"20.00"}, "tender": {"check"}, "reference": {"77"}})
	p = c.Get(p.Location)
	if p.Has("receipt-card") || strings.Contains(p.Body, "••••") {
		t.Errorf("a check's receipt names a card: %q", p.Text("receipt-tender"))
	}
}
