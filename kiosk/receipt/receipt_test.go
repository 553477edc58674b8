package receipt

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

var belleville = Village{
	Name: "Village of Belleville", Address: "24 W Main St, Belleville, WI 53508",
	Phone: "608-555-0142", Email: "clerk@belleville.example", PublicURL: "https://belleville.example/",
}

func page(t *testing.T, lang i18n.Lang) view.Page {
	t.Helper()
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	return view.Page{Printer: cat.Printer(lang)}
}

// TestLetterhead: the letterhead is the village's; the QR code leads to
// the receipt on the public site with the kiosk's proof, and there is
// none without a public site.
func TestLetterhead(t *testing.T) {
	v := view.Receipt{Number: "R-0001/2"}
	if err := Letterhead(&v, belleville, "proof"); err != nil {
		t.Fatal(err)
	}
	if v.Letterhead != (view.Letterhead{Name: belleville.Name, Address: belleville.Address, Phone: belleville.Phone, Email: belleville.Email}) {
		t.Errorf("letterhead %+v", v.Letterhead)
	}
	want := "https://belleville.example/receipt/" + url.PathEscape("R-0001/2") + "?k=proof"
	if v.QRLink != want || !strings.HasPrefix(v.QR, "data:image/png;base64,") {
		t.Errorf("QR link %q (want %q), image %.30q", v.QRLink, want, v.QR)
	}
	off := belleville
	off.PublicURL = ""
	v = view.Receipt{Number: "R-0001"}
	if err := Letterhead(&v, off, "proof"); err != nil {
		t.Fatal(err)
	}
	if v.QR != "" || v.QRLink != "" || v.Letterhead.Name != belleville.Name {
		t.Errorf("without a public site: QR %q, link %q, letterhead %+v", v.QR, v.QRLink, v.Letterhead)
	}
}

// TestEmail: the e-mailed copy names the village in its subject and says
// what was paid, the balance and who to ask, in the page's language;
// without a letterhead it names the village from the catalogue and sends
// the resident to the window.
func TestEmail(t *testing.T) {
	at := time.Date(2026, 10, 20, 9, 30, 0, 0, time.UTC)
	v := view.Receipt{Number: "K1-000042", Status: domain.Posted, At: at, BillID: "B-2026-0113", Tender: domain.Card,
		Amount: domain.Cents(18879), Balance: domain.Cents(0), Card: "Visa ending 4242"}
	if err := Letterhead(&v, belleville, "proof"); err != nil {
		t.Fatal(err)
	}
	m := Email(page(t, i18n.English), v, "dana@example.com")
	if m.To != "dana@example.com" || m.Subject != "Receipt K1-000042, Village of Belleville" {
		t.Errorf("to %q, subject %q", m.To, m.Subject)
	}
	for _, want := range []string{"Village of Belleville\n24 W Main St", "B-2026-0113", "$188.79", "Visa ending 4242", v.QRLink,
		"Questions? Call 608-555-0142 or write to clerk@belleville.example, giving receipt K1-000042."} {
		if !strings.Contains(m.Body, want) {
			t.Errorf("the e-mail lacks %q:\n%s", want, m.Body)
		}
	}
	bare := view.Receipt{Number: "K1-000043", Status: domain.Posted, At: at, Tender: domain.Card, Amount: domain.Cents(100)}
	m = Email(page(t, i18n.Spanish), bare, "dana@example.com")
	if m.Subject != "Recibo K1-000043, Villa de Belleville" || !strings.Contains(m.Body, "ventanilla") {
		t.Errorf("without a letterhead, in Spanish: %q\n%s", m.Subject, m.Body)
	}
}
