package roomtax_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// portalOffice is newOffice with the card terminal simulator the portal
// charges through.
func portalOffice(t *testing.T) (*office, *terminal.Simulator) {
	sim := terminal.NewSimulator()
	return newOfficeWith(t, stafftest.Options{CardTerminal: sim}), sim
}

// TestOperatorHome: an operator's login lands on its room tax home, which
// lists its establishments and every quarter due or on record with its
// status (due, late, filed, amended, paid, balance due), the links to
// file, amend and pay, when the annual return is due, and its receipts.
// Other roles still land on the start page.
func TestOperatorHome(t *testing.T) {
	o := newOffice(t)
	o.h.AddUser("trustee", domain.RoleBoard, true)
	o.at("2026-04-10 09:00")
	c := o.h.Client()
	if p := c.Login("innkeeper", stafftest.Password); p.Status != http.StatusSeeOther || p.Location != "/staff/room-tax" {
		t.Fatalf("the operator lands on %q (%d), want its room tax home", p.Location, p.Status)
	}
	for _, user := range []string{"treas", "trustee"} {
		if p := o.h.Client().Login(user, stafftest.Password); p.Location != "/staff/" {
			t.Errorf("%s lands on %q, want the start page", user, p.Location)
		}
	}
	// A new operator login changes its temporary password first, then
	// lands on its home too.
	o.h.AddUser("newinn", domain.RoleHotelOperator, false)
	fresh := o.h.Client()
	if p := fresh.Login("newinn", stafftest.Password); p.Location != "/staff/password" {
		t.Fatalf("a temporary password leads to %q", p.Location)
	}
	fresh.Get("/staff/password")
	changed := fresh.Post("/staff/password", url.Values{"current": {stafftest.Password}, "new": {"quarterly lodging returns"}, "again": {"quarterly lodging returns"}})
	if changed.Location != "/staff/room-tax?changed=password" {
		t.Fatalf("after the password change: %d %q", changed.Status, changed.Location)
	}
	if p := fresh.Get(changed.Location); p.Status != http.StatusOK || !p.Has("password-changed") || !p.Has("no-operator") {
		t.Errorf("the home after the password change: %d", p.Status)
	}
	home := c.Get("/staff/room-tax")
	if home.Status != http.StatusOK || !strings.Contains(home.Text("operator-establishments"), "Belle Inn, 12 Vine St") {
		t.Fatalf("home: %d %q", home.Status, home.Text("operator-establishments"))
	}
	if got := home.Text("status-2026-Q1"); got != "due by 2026-04-30" || !home.Has("row-file-2026-Q1") || home.Has("row-pay-2026-Q1") || home.Has("row-amend-2026-Q1") {
		t.Fatalf("Q1 before filing: %q", got)
	}
	if !home.Has("no-receipts") || !strings.Contains(home.Text("annual-note"), "elect a calendar or a fiscal year") {
		t.Errorf("receipts %v, annual note %q", home.Has("no-receipts"), home.Text("annual-note"))
	}
	o.fileQ1(c)
	home = c.Get("/staff/room-tax")
	if got := home.Text("status-2026-Q1"); got != "filed · balance due" || home.Text("balance-2026-Q1") != "1330.00" || home.Text("tax-2026-Q1") != "1330.00" {
		t.Fatalf("Q1 filed: %q balance %q", got, home.Text("balance-2026-Q1"))
	}
	for _, id := range []string{"row-pay-2026-Q1", "row-amend-2026-Q1", "row-view-2026-Q1"} {
		if !home.Has(id) {
			t.Errorf("Q1 filed lacks %s", id)
		}
	}
	if home.Has("row-file-2026-Q1") || !strings.Contains(home.Text("annual-note"), "the one for 2026 is due by 2027-03-31") {
		t.Errorf("after filing: file link %v, annual note %q", home.Has("row-file-2026-Q1"), home.Text("annual-note"))
	}
	// July 31 passes without the Q2 return: late. Q1 is amended and paid
	// in full at the window.
	o.at("2026-08-03 09:00")
	o.h.AddUser("cashier", domain.RoleTreasurer, true)
	o.h.Submit("innkeeper", &domain.AmendRoomTaxReturn{Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 1}, GrossReceipts: domain.MustMoney("19000.00"), Signer: "Ann Belle", Capacity: "owner", Reason: "a refund to a guest"})
	o.h.Submit("cashier", &domain.DrawerOpen{DrawerID: "D-1", Float: domain.MustMoney("50.00")})
	fig, err := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1")
	if err != nil {
		t.Fatal(err)
	}
	f, err := fig.Figures(o.h.Today(), o.h.Ledger.Params())
	if err != nil {
		t.Fatal(err)
	}
	o.h.Submit("cashier", &domain.RoomTaxWindowPayment{Return: "belle-inn_2026-Q1", DrawerID: "D-1", Amount: f.Balance, Tender: domain.Check, Tendered: f.Balance, Reference: "1042"})
	home = o.as("innkeeper").Get("/staff/room-tax")
	// Paid after its delinquency date, it stays delinquent (§5.22): a
	// later payment does not clear it.
	if got := home.Text("status-2026-Q1"); got != "filed · amended · paid · delinquent" || home.Text("balance-2026-Q1") != "0.00" || home.Has("row-pay-2026-Q1") {
		t.Errorf("Q1 amended and paid: %q balance %q", got, home.Text("balance-2026-Q1"))
	}
	if got := home.Text("status-2026-Q2"); got != "late: not filed" || !home.Has("row-file-2026-Q2") {
		t.Errorf("Q2 not filed after its due date: %q", got)
	}
	if !strings.Contains(home.Text("operator-receipts"), "check") || home.Has("no-receipts") {
		t.Errorf("the check is not among the receipts: %q", home.Text("operator-receipts"))
	}
}

// payForm returns the card confirmation of paying amount toward Q1 and
// the form it charges with (the amount, the command id it fixed, its
// signature).
func payForm(t *testing.T, c *stafftest.Client, amount string) (stafftest.Page, url.Values) {
	t.Helper()
	p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/pay", url.Values{"amount": {amount}, "method": {"card"}})
	form := url.Values{}
	for _, name := range []string{"amount", "command_id", "sig"} {
		v, _ := p.Doc.Find(`[data-testid="charge-form"] input[name="` + name + `"]`).Attr("value")
		form.Set(name, v)
	}
	if p.Status != http.StatusOK || form.Get("command_id") == "" || form.Get("sig") == "" {
		t.Fatalf("pay by card: %d %q", p.Status, p.Text("pay-error"))
	}
	return p, form
}

// TestOperatorPaysByCard: the operator pays part of Q1 by card through
// the terminal (the simulator): a declined card records nothing; an
// approved one posts pay_room_tax in the operator's name, as the kiosk's
// payment does, and leads to its receipt; the same form sent again is the
// same payment, charged once.
func TestOperatorPaysByCard(t *testing.T) {
	o, sim := portalOffice(t)
	o.at("2026-04-10 09:00")
	c := o.as("innkeeper")
	o.fileQ1(c)
	o.at("2026-04-20 11:00")
	c = o.as("innkeeper")
	if p := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1"); !p.Has("pay-link") || !strings.Contains(p.Text("pay-note"), "remittance slip") {
		t.Errorf("the return page does not lead to paying it: %q", p.Text("pay-note"))
	}
	pay := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1/pay")
	if v, _ := pay.Doc.Find(`[data-testid="pay-amount"]`).Attr("value"); pay.Status != http.StatusOK || pay.Text("pay-balance") != "1330.00" || v != "1330.00" || !pay.Has("pay-card") {
		t.Fatalf("pay page: %d balance %q amount %q", pay.Status, pay.Text("pay-balance"), v)
	}
	for _, bad := range []string{"", "ten", "0.00", "-5.00", "12,50", "60,000.00"} {
		before := o.h.Ledger.JournalLen()
		p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/pay", url.Values{"amount": {bad}, "method": {"card"}})
		if p.Status < 400 || p.Status >= 500 || p.Text("pay-error") == "" || p.Has("charge-form") || o.h.Ledger.JournalLen() != before+1 {
			// One entry: the page's read, recorded before anything is shown.
			t.Errorf("amount %q: %d %q", bad, p.Status, p.Text("pay-error"))
		}
	}
	confirm, charge := payForm(t, c, "1,000.00")
	if confirm.Text("charge-amount") != "$1,000.00" || confirm.Text("charge-period") != "2026-Q1" || charge.Get("amount") != "1000.00" {
		t.Fatalf("confirmation: %q %q", confirm.Text("charge-amount"), confirm.Text("charge-period"))
	}
	cmd := charge.Get("command_id")
	// The confirmation's amount changed, or its command id, is refused
	// before the terminal is asked.
	for name, value := range map[string]string{"amount": "1.00", "command_id": "rtpay-0123456789abcdef0123456789abcdef", "sig": "00"} {
		changed := url.Values{}
		for k, v := range charge {
			changed[k] = v
		}
		changed.Set(name, value)
		if p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", changed); p.Status != http.StatusUnprocessableEntity || len(sim.Approved()) != 0 {
			t.Errorf("the confirmation with its %s changed: %d, %d approvals", name, p.Status, len(sim.Approved()))
		}
	}

	sim.SetOutcome(cmd, terminal.Decline)
	p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", charge)
	if p.Status != http.StatusPaymentRequired || !strings.Contains(p.Text("charge-error"), "declined") || len(o.journal(domain.KindPayRoomTax, "innkeeper")) != 0 {
		t.Fatalf("declined: %d %q", p.Status, p.Text("charge-error"))
	}
	p = c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", charge)
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/room-tax/receipts/") {
		t.Fatalf("approved: %d %q %s", p.Status, p.Location, p.Text("error"))
	}
	paid := o.journal(domain.KindPayRoomTax, "innkeeper")
	if len(paid) != 1 || paid[0].Outcome != "applied" || paid[0].CommandID != cmd {
		t.Fatalf("the payment in the journal: %+v", paid)
	}
	ret, err := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1")
	if err != nil || len(ret.Payments) != 1 || ret.Payments[0].Tender != domain.Card || !ret.Payments[0].Amount.Equal(domain.MustMoney("1000.00")) || ret.Payments[0].Payer != "Belle Inn LLC" {
		t.Fatalf("the return's payments: %+v %v", ret.Payments, err)
	}
	rc := c.Get(p.Location)
	if rc.Status != http.StatusOK || rc.Text("receipt-amount") != "$1,000.00" || rc.Text("receipt-tender") != "card" || rc.Text("receipt-period") != "2026-Q1" || rc.Text("receipt-number") != ret.Payments[0].Receipt {
		t.Fatalf("receipt: %d %q %q %q", rc.Status, rc.Text("receipt-amount"), rc.Text("receipt-tender"), rc.Text("receipt-number"))
	}
	// Sent again (a double click, a reload): the same receipt, charged once.
	again := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", charge)
	if again.Status != http.StatusSeeOther || again.Location != p.Location || len(sim.Approved()) != 1 {
		t.Fatalf("sent again: %d %q, %d approvals", again.Status, again.Location, len(sim.Approved()))
	}
	if ret, _ := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1"); len(ret.Payments) != 1 {
		t.Fatalf("%d payments after the form was sent twice", len(ret.Payments))
	}
	home := c.Get("/staff/room-tax")
	if home.Text("balance-2026-Q1") != "330.00" || home.Text("status-2026-Q1") != "filed · balance due" || !home.Has("receipt-link-"+ret.Payments[0].Receipt) {
		t.Fatalf("home after paying: %q %q", home.Text("balance-2026-Q1"), home.Text("status-2026-Q1"))
	}
	// A command id the office did not make is refused before any charge.
	forged := url.Values{"amount": {"1.00"}, "command_id": {"kiosk-123"}, "sig": {charge.Get("sig")}}
	if p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", forged); p.Status != http.StatusUnprocessableEntity || len(sim.Approved()) != 1 {
		t.Errorf("a forged command id: %d, %d approvals", p.Status, len(sim.Approved()))
	}
}

// TestOperatorCannotPayAnothersReturn is the attack of one operator's
// login on another's returns: every page of paying a return, its slip and
// its receipts answers 403 or 404, shows none of its figures, charges no
// card and records nothing; the window's search is not the operator's.
func TestOperatorCannotPayAnothersReturn(t *testing.T) {
	o, sim := portalOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.at("2026-04-20 11:00")
	c := o.as("innkeeper")
	_, own := payForm(t, c, "100.00")
	paid := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", own)
	if paid.Status != http.StatusSeeOther {
		t.Fatalf("the operator's own payment: %d", paid.Status)
	}
	cmd, receipt := own.Get("command_id"), strings.TrimPrefix(paid.Location, "/staff/room-tax/receipts/")
	ret, _ := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1")
	// The rival has a return of its own to pay.
	o.h.Submit("rival", &domain.FileRoomTaxReturn{Operator: "sugar-rooms", Period: domain.Quarter{Year: 2026, Q: 1}, GrossReceipts: domain.MustMoney("500.00"), Signer: "R", Capacity: "agent", Year: &domain.RoomTaxYear{Basis: domain.YearCalendar, EndMonth: 12}})

	rival := o.as("rival")
	other := "/staff/room-tax/returns/belle-inn_2026-Q1"
	forged := "rtpay-0123456789abcdef0123456789abcdef"
	for _, rq := range []struct {
		method, path string
		form         url.Values
		want         int
	}{
		{"GET", other + "/pay", nil, http.StatusForbidden},
		{"POST", other + "/pay", url.Values{"amount": {"100.00"}, "method": {"card"}}, http.StatusForbidden},
		{"POST", other + "/pay", url.Values{"amount": {"100.00"}, "method": {"check"}}, http.StatusForbidden},
		{"POST", other + "/charge", url.Values{"amount": {"100.00"}, "command_id": {forged}}, http.StatusForbidden},
		{"POST", other + "/charge", own, http.StatusForbidden},
		// The operator's own confirmation, carried by the rival to its own
		// return: the command id is Belle Inn's, and its charge is neither
		// repeated nor refunded.
		{"POST", "/staff/room-tax/returns/sugar-rooms_2026-Q1/charge", own, http.StatusUnprocessableEntity},
		{"POST", "/staff/room-tax/returns/sugar-rooms_2026-Q1/charge", url.Values{"amount": {"100.00"}, "command_id": {cmd}, "sig": {own.Get("sig")}}, http.StatusUnprocessableEntity},
		{"GET", other + "/slip.pdf", nil, http.StatusForbidden},
		{"GET", other + "/slip.pdf?amount=100.00", nil, http.StatusForbidden},
		{"GET", "/staff/room-tax/returns/belle-inn_2026-Q2/pay", nil, http.StatusForbidden},
		{"GET", "/staff/room-tax/returns/not-a-return/pay", nil, http.StatusNotFound},
		{"GET", "/staff/room-tax/receipts/" + receipt, nil, http.StatusNotFound},
		{"GET", "/staff/room-tax/remittance?ref=" + url.QueryEscape(ret.PaymentReference()), nil, http.StatusForbidden},
	} {
		t.Run(rq.method+" "+rq.path, func(t *testing.T) {
			before, approvals := o.h.Ledger.JournalLen(), len(sim.Approved())
			var p stafftest.Page
			if rq.method == "GET" {
				p = rival.Get(rq.path)
			} else {
				rival.Get("/staff/room-tax")
				before = o.h.Ledger.JournalLen()
				p = rival.Post(rq.path, rq.form)
			}
			if p.Status != rq.want {
				t.Fatalf("status %d, want %d: %.300s", p.Status, rq.want, p.Body)
			}
			for _, figure := range []string{"1330.00", "1,330.00", "1230.00", "1,230.00", "20,000.00", receipt, ret.PaymentReference()} {
				if strings.Contains(p.Body, figure) {
					t.Fatalf("the rival sees %q", figure)
				}
			}
			if len(sim.Approved()) != approvals || len(sim.Refunds()) != 0 {
				t.Fatal("a card was charged or refunded")
			}
			n := 0
			o.h.Ledger.Journal(func(e staff.JournalEntry) error {
				if n++; n > before && e.Outcome == "applied" && e.Kind != domain.KindRoomTaxRead {
					t.Errorf("the attack recorded %s", e.Kind)
				}
				return nil
			})
		})
	}
	if ret2, _ := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1"); len(ret2.Payments) != 1 {
		t.Fatalf("Belle Inn's return has %d payments", len(ret2.Payments))
	}
	// Other roles have no portal to pay on.
	for _, user := range []string{"treas"} {
		if p := o.as(user).Get(other + "/pay"); p.Status != http.StatusForbidden {
			t.Errorf("%s opened the operator's pay page: %d", user, p.Status)
		}
	}
}

// TestRemittanceSlip: the operator prints a remittance slip for a check:
// the operator, the period, the amount with its thousands separators and
// the payment reference, all inside the page's margins, nothing drawn
// over anything else; the treasurer's window finds the return by the
// slip's reference, and a wrong one finds nothing.
func TestRemittanceSlip(t *testing.T) {
	o, _ := portalOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	c := o.as("innkeeper")
	p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/pay", url.Values{"amount": {"1,330.00"}, "method": {"check"}})
	if p.Status != http.StatusSeeOther || p.Location != "/staff/room-tax/returns/belle-inn_2026-Q1/slip.pdf?amount=1330.00" {
		t.Fatalf("pay by check: %d %q", p.Status, p.Location)
	}
	slip := c.Get(p.Location)
	if slip.Status != http.StatusOK || !strings.HasPrefix(slip.Body, "%PDF-") {
		t.Fatalf("slip: %d %.200s", slip.Status, slip.Body)
	}
	ret, _ := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1")
	ref := ret.PaymentReference()
	words := pdfWords(t, slip.Body)
	text := ""
	for _, w := range words {
		text += w.s + "\n"
	}
	for _, want := range []string{"Room tax remittance slip", "Belle Inn LLC", "belle-inn", "2026-Q1", "2026-04-30", "$1,330.00", ref, "Amount enclosed", "Payment reference", "Belle Inn, 12 Vine St"} {
		if !strings.Contains(text, want) {
			t.Errorf("the slip lacks %q:\n%s", want, text)
		}
	}
	checkPage(t, words)

	// For part of the balance.
	part := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1/slip.pdf?amount=1,000.00")
	if part.Status != http.StatusOK || !strings.Contains(part.Body, "$1,000.00") {
		t.Errorf("slip for 1,000.00: %d", part.Status)
	}
	if bad := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1/slip.pdf?amount=lots"); bad.Status != http.StatusUnprocessableEntity {
		t.Errorf("slip for a bad amount: %d", bad.Status)
	}

	// The treasurer's window finds the return by the slip's reference.
	treas := o.as("treas")
	if home := treas.Get("/staff/room-tax"); !home.Has("remittance-form") {
		t.Error("the treasurer's room tax page has no remittance search")
	}
	found := treas.Get("/staff/room-tax/remittance?ref=" + url.QueryEscape(strings.ToLower(ref)))
	if found.Status != http.StatusSeeOther || !strings.HasPrefix(found.Location, "/staff/room-tax/returns/belle-inn_2026-Q1?") {
		t.Fatalf("the window's search: %d %q", found.Status, found.Location)
	}
	if p := treas.Get(found.Location); p.Status != http.StatusOK || !p.Has("window-form") || p.Text("fig-balance") != "1330.00" {
		t.Fatalf("the return at the window: %d %q", p.Status, p.Text("fig-balance"))
	}
	// Keyed into the window's bill box, the reference leads there too; a
	// clerk, who takes no room tax, is told whose window it is.
	if p := treas.Get("/staff/window?bill=" + url.QueryEscape(ref)); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/room-tax/remittance?ref=") {
		t.Errorf("the reference at the window: %d %q", p.Status, p.Location)
	}
	o.h.AddUser("pclerk", domain.RoleClerk, true)
	if p := o.as("pclerk").Get("/staff/window?bill=" + url.QueryEscape(ref)); p.Status != http.StatusOK || !strings.Contains(p.Doc.Text(), "treasurer's office takes room tax") || strings.Contains(p.Body, "1330.00") {
		t.Errorf("the reference at a clerk's window: %d", p.Status)
	}
	wrong := ref[:len(ref)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(ref, "A")]
	for _, bad := range []string{wrong, "belle-inn_2026-Q1", "nonsense"} {
		if p := treas.Get("/staff/room-tax/remittance?ref=" + url.QueryEscape(bad)); p.Status != http.StatusNotFound || p.Text("remittance-error") == "" || strings.Contains(p.Body, "1330.00") {
			t.Errorf("search for %q: %d %q", bad, p.Status, p.Text("remittance-error"))
		}
	}
}

// word is one text object of an uncompressed fpdf page: where it starts
// and ends (millimetres from the left edge), its baseline (points from
// the bottom) and what it says.
type word struct {
	page        int
	x, right, y float64
	s           string
}

var (
	pdfOps     = regexp.MustCompile(`BT /F(\w+) ([0-9.]+) Tf ET|BT ([0-9.]+) ([0-9.]+) Td \((.*?)\) ?Tj ET`)
	pdfFontRes = regexp.MustCompile(`/F(\w+) (\d+) 0 R`)
	pdfFontObj = regexp.MustCompile(`(\d+) 0 obj\s*<</Type /Font\s*/BaseFont /([A-Za-z-]+)`)
	pdfUnesc   = strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`)
)

// pdfWords reads the text of every page of an uncompressed PDF fpdf wrote
// in the core Helvetica fonts, measuring each text in its font and size.
func pdfWords(t *testing.T, pdf string) []word {
	t.Helper()
	objFont := map[string]string{}
	for _, m := range pdfFontObj.FindAllStringSubmatch(pdf, -1) {
		objFont[m[1]] = m[2]
	}
	style := map[string]string{}
	for _, m := range pdfFontRes.FindAllStringSubmatch(pdf, -1) {
		switch objFont[m[2]] {
		case "Helvetica":
			style[m[1]] = ""
		case "Helvetica-Bold":
			style[m[1]] = "B"
		}
	}
	meter := fpdf.New("P", "mm", "Letter", "")
	meter.AddPage()
	const k = 72 / 25.4
	var out []word
	page, rest := 0, pdf
	for {
		i := strings.Index(rest, "stream\n")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "endstream")
		body := rest[i+len("stream\n") : i+j]
		rest = rest[i+j+len("endstream"):]
		if !strings.Contains(body, "Tj ET") {
			continue
		}
		page++
		for _, m := range pdfOps.FindAllStringSubmatch(body, -1) {
			if m[1] != "" {
				st, ok := style[m[1]]
				if !ok {
					t.Fatalf("font F%s is not Helvetica", m[1])
				}
				size, _ := strconv.ParseFloat(m[2], 64)
				meter.SetFont("Helvetica", st, size)
				continue
			}
			x, _ := strconv.ParseFloat(m[3], 64)
			y, _ := strconv.ParseFloat(m[4], 64)
			s := pdfUnesc.Replace(m[5])
			out = append(out, word{page: page, x: x / k, right: x/k + meter.GetStringWidth(s), y: y, s: s})
		}
	}
	if len(out) == 0 {
		t.Fatal("no text in the PDF")
	}
	return out
}

// checkPage fails on text outside the report's margins of a Letter page
// (14 mm each side, 14 mm at the bottom), text drawn over other text, and
// an amount cut short.
func checkPage(t *testing.T, words []word) {
	t.Helper()
	const width, height, margin = 215.9, 279.4, 14.0
	for i, a := range words {
		if a.x < margin-0.01 || a.right > width-margin+0.01 {
			t.Errorf("page %d: %q runs from %.1f to %.1f mm, outside the margins", a.page, a.s, a.x, a.right)
		}
		if a.y < 0 || a.y > height*72/25.4 {
			t.Errorf("page %d: %q is off the page (%.1f pt)", a.page, a.s, a.y)
		}
		if strings.Contains(a.s, "$") && strings.Contains(a.s, "...") {
			t.Errorf("page %d: an amount is cut short: %q", a.page, a.s)
		}
		for _, b := range words[i+1:] {
			if a.page == b.page && math.Abs(a.y-b.y) < 6 && a.x < b.right-0.01 && b.x < a.right-0.01 && strings.TrimSpace(a.s) != "" && strings.TrimSpace(b.s) != "" {
				t.Errorf("page %d: %q and %q overlap", a.page, a.s, b.s)
			}
		}
	}
}

// TestPortalRoutesRoleMatrix: the portal's pages are the hotel operator's
// alone, and the remittance search the treasurer's office's; every other
// role is refused for its role and records nothing.
func TestPortalRoutesRoleMatrix(t *testing.T) {
	o, _ := portalOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	q1 := "/staff/room-tax/returns/belle-inn_2026-Q1"
	stafftest.CheckRoleMatrix(t, o.h, []stafftest.Route{
		{Method: "GET", Path: q1 + "/pay", Cap: staff.CapRoomTaxPay},
		{Method: "POST", Path: q1 + "/pay", Cap: staff.CapRoomTaxPay, Form: url.Values{"amount": {"1.00"}, "method": {"check"}}},
		{Method: "POST", Path: q1 + "/charge", Cap: staff.CapRoomTaxPay, Form: url.Values{"amount": {"1.00"}, "command_id": {"rtpay-0123456789abcdef0123456789abcdef"}}},
		{Method: "GET", Path: q1 + "/slip.pdf", Cap: staff.CapRoomTaxPay},
		{Method: "GET", Path: "/staff/room-tax/receipts/none", Cap: staff.CapRoomTaxPay},
		{Method: "GET", Path: "/staff/room-tax/remittance?ref=belle-inn_2026-Q1-AAAAAAAA", Cap: staff.CapRoomTaxAdmin},
	})
}

// TestOperatorCannotHaveAPostedPaymentRefunded: an operator carries the
// command id of its posted Q1 card payment to its Q2 return, with a
// confirmation's signature made as its own browser could (every form
// carries the session's CSRF token). Had the portal charged under that id,
// the terminal would have answered with Q1's approval, the ledger refused
// the reused id, and the portal refunded Q1's charge while Q1 stayed paid.
// The confirmation is sealed with a key only the office holds: refused
// before the terminal is asked; no refund, no second charge.
func TestOperatorCannotHaveAPostedPaymentRefunded(t *testing.T) {
	o, sim := portalOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.at("2026-07-06 10:00")
	o.h.Submit("innkeeper", &domain.FileRoomTaxReturn{Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 2}, GrossReceipts: domain.MustMoney("5000.00"), Signer: "Ann Belle", Capacity: "owner", Year: &domain.RoomTaxYear{Basis: domain.YearCalendar, EndMonth: 12}})
	c := o.as("innkeeper")
	page, own := payForm(t, c, "1000.00")
	if p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/charge", own); p.Status != http.StatusSeeOther {
		t.Fatalf("Q1 paid: %d", p.Status)
	}
	approved := len(sim.Approved())
	csrf, _ := page.Doc.Find(`input[name="csrf"]`).First().Attr("value")
	cmd := own.Get("command_id")
	mac := hmac.New(sha256.New, []byte("room-tax-portal-charge\x00"+csrf))
	mac.Write([]byte("belle-inn_2026-Q2\x001000.00\x00" + cmd))
	for _, sig := range []string{hex.EncodeToString(mac.Sum(nil)), own.Get("sig")} {
		p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q2/charge", url.Values{"amount": {"1000.00"}, "command_id": {cmd}, "sig": {sig}})
		if p.Status == http.StatusSeeOther {
			t.Fatalf("a confirmation carried to another return was taken (%s)", p.Location)
		}
	}
	q1, _ := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1")
	if len(sim.Refunds()) != 0 || len(sim.Approved()) != approved || len(q1.Payments) != 1 {
		t.Fatalf("refunds %+v, charges %d → %d, Q1 payments %d", sim.Refunds(), approved, len(sim.Approved()), len(q1.Payments))
	}
}
