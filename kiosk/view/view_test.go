package view_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/receipt"
	"github.com/villagehall/appliance/kiosk/view"
)

func page(t *testing.T, lang i18n.Lang) view.Page {
	t.Helper()
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	p := view.Page{Printer: c.Printer(lang), Title: "Test", CSRF: "tok", CSS: "/assets/kiosk.css", JS: "/assets/kiosk.js",
		Idle: view.Idle{Seconds: 120, Warn: 30, URL: "/reset"}}
	for _, l := range i18n.Langs() {
		p.Langs = append(p.Langs, view.LangLink{Lang: l, Label: p.T("lang." + string(l)), URL: "/?lang=" + string(l), Current: l == lang})
	}
	return p
}

func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "[") && strings.Contains(buf.String(), "]</") {
		// A missing catalogue key prints as "[key]".
		for _, line := range strings.Split(buf.String(), "\n") {
			if strings.Contains(line, "[") && strings.Contains(line, "]<") {
				t.Errorf("missing message: %s", strings.TrimSpace(line))
			}
		}
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func text(doc *goquery.Document, testid string) string {
	return strings.Join(strings.Fields(doc.Find(`[data-testid="`+testid+`"]`).First().Text()), " ")
}

var (
	m = domain.MustMoney
	d = domain.MustDate
)

func pastDue() view.Bill {
	return view.Bill{
		BillRow: view.BillRow{
			ID: "B-2026-0101", Description: "Water and sewer", Account: "100101", Parcel: "0601-141-2001",
			Address: "141 W Main St", BilledOn: d("2026-03-01"), DueOn: d("2026-03-31"),
			Status: domain.BillPastDue, Balance: m("194.05"), URL: "/bills/B-2026-0101",
		},
		Today:     d("2026-11-10"),
		Principal: m("200.00"),
		Interest: []view.Charge{
			{Month: 1, On: d("2026-04-01"), Base: m("200.00"), Amount: m("3.00")},
			{Month: 2, On: d("2026-05-01"), Base: m("150.00"), Amount: m("2.25")},
		},
		Penalty:      &view.Charge{On: d("2026-11-02"), Base: m("150.00"), Amount: m("2.25")},
		Payments:     []view.Payment{{On: d("2026-04-15"), Amount: m("53.00"), Receipt: "hall-kiosk-000004"}},
		Paid:         m("53.00"),
		PenaltyOn:    d("2026-11-02"),
		TaxRollOn:    d("2026-11-15"),
		InterestRate: "1.5%", PenaltyRate: "1.5%",
		Next:    view.NextAfterPenalty,
		Payable: true, PayURL: "/bills/B-2026-0101/pay", AccountURL: "/accounts/100101", Section: "§5.10",
	}
}

func TestLayout(t *testing.T) {
	for _, lang := range i18n.Langs() {
		doc := render(t, view.StartPage(page(t, lang), view.Start{FindURL: "/find"}))
		if got, _ := doc.Find("html").Attr("lang"); got != string(lang) {
			t.Errorf("lang %q, want %s", got, lang)
		}
		if doc.Find(`[data-testid="lang-switch"] [data-testid]`).Length() != 2 {
			t.Errorf("%s: language switch", lang)
		}
		cur := doc.Find(`[data-testid="lang-` + string(lang) + `"]`)
		if v, _ := cur.Attr("aria-current"); v != "true" {
			t.Errorf("%s: current language not marked", lang)
		}
		if doc.Find("script:not([src])").Length() != 0 || doc.Find("[style]").Length() != 0 {
			t.Errorf("%s: inline script or style (the CSP forbids them)", lang)
		}
	}
	es := render(t, view.StartPage(page(t, i18n.Spanish), view.Start{FindURL: "/find"}))
	if got := text(es, "start-pay"); got != "Buscar y pagar una factura" {
		t.Errorf("Spanish start button %q", got)
	}
}

func TestBanner(t *testing.T) {
	p := page(t, i18n.English)
	p.Banner = &view.Banner{Offline: true, Pending: 3}
	doc := render(t, view.FindPage(p, view.Find{Action: "/find"}))
	if got := text(doc, "banner"); !strings.Contains(got, "Working offline: 3 payments waiting to post") {
		t.Errorf("banner %q", got)
	}
	p.Banner = &view.Banner{AsOf: time.Date(2026, 10, 20, 10, 42, 0, 0, time.UTC), Pending: 2}
	doc = render(t, view.FindPage(p, view.Find{Action: "/find"}))
	if got := text(doc, "banner-as-of"); !strings.Contains(got, "Records as of 10:42 AM") {
		t.Errorf("banner %q", got)
	}
	if got := text(doc, "banner-pending"); got != "2 payments waiting to post." {
		t.Errorf("pending %q", got)
	}
	if v, _ := doc.Find(`[data-testid="banner"]`).Attr("role"); v != "status" {
		t.Errorf("banner role %q", v)
	}
}

func TestBillPage(t *testing.T) {
	doc := render(t, view.BillPage(page(t, i18n.English), pastDue()))
	if got := text(doc, "amount-due"); got != "$194.05" {
		t.Errorf("amount due %q", got)
	}
	if s, _ := doc.Find(`[data-testid="status"]`).Attr("data-status"); s != "past_due" || text(doc, "status") != "Past due" {
		t.Errorf("status %q %q", s, text(doc, "status"))
	}
	rows := doc.Find(`[data-testid="line-interest"]`)
	if rows.Length() != 2 {
		t.Fatalf("%d interest rows", rows.Length())
	}
	if got := strings.Join(strings.Fields(rows.Eq(1).Text()), " "); !strings.Contains(got, "month 2") || !strings.Contains(got, "May 1, 2026") || !strings.Contains(got, "1.5% of $150.00") || !strings.HasSuffix(got, "$2.25") {
		t.Errorf("interest row %q", got)
	}
	if got := text(doc, "line-penalty"); !strings.Contains(got, "November 2, 2026") || !strings.HasSuffix(got, "$2.25") {
		t.Errorf("penalty row %q", got)
	}
	if got := text(doc, "line-payment"); !strings.Contains(got, "hall-kiosk-000004") || !strings.HasSuffix(got, "−$53.00") {
		t.Errorf("payment row %q", got)
	}
	if got := text(doc, "next-steps"); !strings.Contains(got, "The November penalty has been added") || !strings.Contains(got, "November 15, 2026") {
		t.Errorf("next %q", got)
	}
	if got := text(doc, "section-cite"); !strings.Contains(got, "§5.10") {
		t.Errorf("cite %q", got)
	}
	if doc.Find(`[data-testid="pay-button"]`).Length() != 1 {
		t.Error("no pay button")
	}
}

func TestBillPageSpanish(t *testing.T) {
	b := pastDue()
	b.Next = view.NextInterest
	b.NextInterestOn = d("2026-06-01")
	doc := render(t, view.BillPage(page(t, i18n.Spanish), b))
	got := text(doc, "next-steps")
	for _, want := range []string{"1 de junio de 2026", "1 de noviembre de 2026", "recargo del 1.5%", "15 de noviembre de 2026", "impuesto a la propiedad", "§5.10"} {
		if !strings.Contains(got, want) {
			t.Errorf("Spanish next steps lack %q: %q", want, got)
		}
	}
	if text(doc, "status") != "Vencida" {
		t.Errorf("status %q", text(doc, "status"))
	}
}

func TestBillPageTaxRoll(t *testing.T) {
	b := pastDue()
	b.Status, b.Next, b.Payable = domain.BillTaxRoll, view.NextTaxRoll, false
	doc := render(t, view.BillPage(page(t, i18n.English), b))
	if doc.Find(`[data-testid="pay-button"]`).Length() != 0 {
		t.Error("a tax-roll bill offers payment")
	}
	if got := text(doc, "tax-roll-notice"); !strings.Contains(got, "property tax roll") || !strings.Contains(got, "can no longer be paid here") {
		t.Errorf("notice %q", got)
	}
	if got := text(doc, "line-total"); !strings.HasPrefix(got, "Amount put on the property tax roll") {
		t.Errorf("total %q: a tax-roll bill is not due here", got)
	}
	if text(doc, "status") != "On the tax roll" {
		t.Errorf("status %q", text(doc, "status"))
	}
}

func TestStatusesHaveWords(t *testing.T) {
	for _, s := range []domain.BillStatus{domain.BillCurrent, domain.BillPastDue, domain.BillPaid, domain.BillTaxRoll} {
		for _, lang := range i18n.Langs() {
			doc := render(t, view.GroupPage(page(t, lang), view.Group{Kind: "account", Title: "A", Bills: []view.BillRow{{ID: "B", Status: s, Balance: m("1")}}}))
			if got := text(doc, "status"); got == "" || strings.HasPrefix(got, "[") {
				t.Errorf("%s/%s: status %q", lang, s, got)
			}
		}
	}
}

func TestPayPageError(t *testing.T) {
	f := view.Pay{
		Bill:    pastDue().BillRow,
		Amount:  "12.345",
		Problem: &view.Problem{Message: "“12.345” has more than two digits after the decimal point.", Suggestion: "Round it to whole cents, like 25.50."},
		Action:  "/bills/B-2026-0101/pay",
	}
	doc := render(t, view.PayPage(page(t, i18n.English), f))
	if got := text(doc, "error-message"); !strings.Contains(got, "more than two digits") {
		t.Errorf("message %q", got)
	}
	if v, _ := doc.Find(`[data-testid="error"]`).Attr("role"); v != "alert" {
		t.Errorf("error role %q", v)
	}
	in := doc.Find(`[data-testid="amount-input"]`)
	if v, _ := in.Attr("aria-invalid"); v != "true" {
		t.Error("input not marked invalid")
	}
	if v, _ := in.Attr("aria-describedby"); v != "amount-hint amount-error" {
		t.Errorf("aria-describedby %q", v)
	}
	id, _ := in.Attr("id")
	if doc.Find(`label[for="`+id+`"]`).Length() != 1 {
		t.Error("input without label")
	}
	if doc.Find(`form input[name="csrf"][value="tok"]`).Length() != 2 {
		t.Error("a form without the CSRF token")
	}
	if got := text(doc, "pay-full"); got != "Pay the full amount, $194.05" {
		t.Errorf("full button %q", got)
	}
}

func TestConfirmPage(t *testing.T) {
	c := view.Confirm{
		Bill:       pastDue().BillRow,
		Amount:     m("100.00"),
		Allocation: domain.Allocation{Penalty: m("2.25"), Interest: m("5.25"), Principal: m("92.50")},
		Remaining:  m("94.05"),
		CommandID:  "0190-cmd", Signature: "sig", Action: "/bills/B-2026-0101/charge",
		Simulator: true, Outcomes: []string{"approve", "decline", "timeout", "cancel"},
		Problem: &view.Problem{Message: "Your card was declined."},
	}
	doc := render(t, view.ConfirmPage(page(t, i18n.English), c))
	rows := doc.Find(`[data-testid="allocation"] tbody tr`)
	var order []string
	rows.Each(func(_ int, s *goquery.Selection) { v, _ := s.Attr("data-testid"); order = append(order, v) })
	if strings.Join(order, ",") != "alloc-penalty,alloc-interest,alloc-principal" {
		t.Errorf("allocation order %v", order)
	}
	for id, want := range map[string]string{"alloc-penalty": "$2.25", "alloc-interest": "$5.25", "alloc-principal": "$92.50", "remaining-balance": "$94.05", "confirm-amount": "$100.00"} {
		if got := text(doc, id); !strings.HasSuffix(got, want) {
			t.Errorf("%s %q, want %s", id, got, want)
		}
	}
	form := doc.Find(`[data-testid="charge-form"]`)
	for name, want := range map[string]string{"amount": "100.00", "command_id": "0190-cmd", "sig": "sig", "csrf": "tok"} {
		if v, _ := form.Find(`input[name="` + name + `"]`).Attr("value"); v != want {
			t.Errorf("field %s = %q, want %q", name, v, want)
		}
	}
	if _, ok := form.Attr("data-commit"); !ok {
		t.Error("the payment form does not stop the idle timer")
	}
	if got := text(doc, "simulator"); !strings.Contains(got, "Card terminal (simulator)") || doc.Find(`[data-testid="sim-decline"]`).Length() != 1 {
		t.Errorf("simulator %q", got)
	}
	if text(doc, "error-message") != "Your card was declined." {
		t.Errorf("problem %q", text(doc, "error-message"))
	}
	c.Simulator = false
	if render(t, view.ConfirmPage(page(t, i18n.English), c)).Find(`[data-testid="simulator"]`).Length() != 0 {
		t.Error("simulator panel without the flag")
	}
}

func TestReceiptPage(t *testing.T) {
	r := view.Receipt{
		Number: "hall-kiosk-000012", Status: domain.Provisional,
		At:     time.Date(2026, 10, 31, 16, 0, 5, 0, time.UTC),
		BillID: "B-2026-0101", Description: "Water and sewer", Account: "100101", Parcel: "0601-141-2001",
		Amount: m("221.00"), Tender: domain.Card, Reference: "SIM000001",
		Allocation: domain.Allocation{Interest: m("21.00"), Principal: m("200.00")},
		Balance:    m("0.00"), Node: "hall-kiosk", DoneURL: "/reset", BillURL: "/bills/B-2026-0101",
	}
	doc := render(t, view.ReceiptPage(page(t, i18n.English), r))
	for id, want := range map[string]string{
		"receipt-number": "hall-kiosk-000012", "receipt-status": "Provisional", "receipt-time": "October 31, 2026, 4:00 PM",
		"receipt-amount": "$221.00", "alloc-interest": "$21.00", "alloc-principal": "$200.00", "receipt-balance": "$0.00",
		"provisional-note": "Recorded; it posts when the network returns",
	} {
		if got := text(doc, id); !strings.Contains(got, want) {
			t.Errorf("%s %q, want %q", id, got, want)
		}
	}
	if doc.Find(`[data-testid="alloc-overpayment"]`).Length() != 0 {
		t.Error("an overpayment row for no overpayment")
	}
	r.Status = domain.Posted
	r.Index = 42
	es := render(t, view.ReceiptPage(page(t, i18n.Spanish), r))
	for id, want := range map[string]string{"receipt-status": "Registrado", "receipt-time": "31 de octubre de 2026, 16:00", "posted-note": "Pago registrado"} {
		if got := text(es, id); !strings.Contains(got, want) {
			t.Errorf("Spanish %s %q, want %q", id, got, want)
		}
	}
}

func TestFindPageResults(t *testing.T) {
	f := view.Find{Query: "145 W Main", Action: "/find", Groups: []view.Group{
		{Kind: "parcel", Key: "0601-141-2002", Title: "Parcel 0601-141-2002", Subtitle: "145 W Main St", URL: "/parcels/0601-141-2002",
			Bills: []view.BillRow{{ID: "B-1", Status: domain.BillPaid, Balance: m("0"), URL: "/bills/B-1"}}},
		{Kind: "parcel", Key: "0601-141-2003", Title: "Parcel 0601-141-2003", URL: "/parcels/0601-141-2003"},
	}}
	doc := render(t, view.FindPage(page(t, i18n.English), f))
	if n := doc.Find(`[data-testid="result-group"]`).Length(); n != 2 {
		t.Errorf("%d groups", n)
	}
	if got := text(doc, "bill-balance"); got != "$0.00" {
		t.Errorf("balance %q", got)
	}
	if text(doc, "no-bills") == "" {
		t.Error("an empty group says nothing")
	}
	if v, _ := doc.Find(`[data-testid="search-input"]`).Attr("value"); v != "145 W Main" {
		t.Errorf("query %q", v)
	}
}

func TestErrorPage(t *testing.T) {
	doc := render(t, view.ErrorPage(page(t, i18n.Spanish), view.Error{Status: 403, Problem: view.Problem{Message: "Este formulario ha caducado.", Suggestion: "Empiece de nuevo."}, BackURL: "/", BackLabel: "Inicio"}))
	if text(doc, "error-message") != "Este formulario ha caducado." || text(doc, "error-suggestion") != "Empiece de nuevo." {
		t.Errorf("%q %q", text(doc, "error-message"), text(doc, "error-suggestion"))
	}
}

// TestInterestSummaryMatchesRule: a bill not yet due says when interest
// starts in the same words as the rule under it (§5.10: the day after the
// due date, then the day after each monthly anniversary of it), never
// "at the start of each month", in both languages.
func TestInterestSummaryMatchesRule(t *testing.T) {
	b := pastDue()
	b.Next = view.NextPayBy
	for _, tc := range []struct {
		lang      i18n.Lang
		same, not string
	}{
		{i18n.English, "on the day after the due date (" + "April 1, 2026" + "), then on the day after each monthly anniversary of the due date", "start of each month"},
		{i18n.Spanish, "el día después del vencimiento (" + "1 de abril de 2026" + ") y luego el día después de cada aniversario mensual del vencimiento", "comienzo de cada mes"},
	} {
		doc := render(t, view.BillPage(page(t, tc.lang), b))
		summary, rule := text(doc, "next-summary"), text(doc, "interest-rule")
		for name, got := range map[string]string{"summary": summary, "rule": rule} {
			if !strings.Contains(got, tc.same) || strings.Contains(got, tc.not) {
				t.Errorf("%s %s %q, want it to say %q", tc.lang, name, got, tc.same)
			}
		}
	}
}

// TestLetterReceiptOneReceivedDate (§5.11): a status letter requested on
// a Friday after closing time is received the next Monday. Its receipt
// says "Received" once, of that Monday: the moment of the request and
// payment is named as such, not as a second, different "received". It
// says how the letter is had (picked up at the window) and from when.
func TestLetterReceiptOneReceivedDate(t *testing.T) {
	r := view.Receipt{Number: "hall-kiosk-000031", Kind: domain.KindRequestStatusLetter, Status: domain.Posted,
		At: time.Date(2026, 10, 23, 21, 45, 0, 0, time.UTC), Parcel: "0601-141-2005", Amount: m("45.00"), Tender: domain.Card, Reference: "SIM-3",
		Requester: "Luis", ReceivedOn: domain.MustDate("2026-10-26"), ReadyBy: domain.MustDate("2026-10-28"), DoneURL: "/reset"}
	doc := render(t, view.ReceiptPage(page(t, i18n.English), r))
	var received []string
	doc.Find("dt").Each(func(_ int, s *goquery.Selection) {
		if strings.HasPrefix(strings.TrimSpace(s.Text()), "Received") {
			received = append(received, strings.TrimSpace(s.Next().Text()))
		}
	})
	if len(received) != 1 || received[0] != "October 26, 2026" {
		t.Fatalf("the receipt's received dates: %q", received)
	}
	if label := strings.TrimSpace(doc.Find(`[data-testid="receipt-time"]`).Prev().Text()); label != "Requested" {
		t.Fatalf("the receipt's time is labelled %q", label)
	}
	if got := text(doc, "claim-delivery"); !strings.Contains(got, "clerk's window") || !strings.Contains(got, "October 28, 2026") {
		t.Fatalf("delivery: %q", got)
	}
	body := receipt.Text(page(t, i18n.English), r)
	if strings.Count(body, "Received") != 1 || !strings.Contains(body, "Received October 26, 2026") || !strings.Contains(body, "October 28, 2026") {
		t.Fatalf("the e-mailed copy:\n%s", body)
	}
}
