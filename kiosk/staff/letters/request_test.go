package letters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// titleCompany gives the office's ledger a title company's account, on
// the company's own office parcel.
func titleCompany(h *stafftest.Harness) {
	h.Ledger.PutParcel(domain.Parcel{ID: "0601-200-0001", Address: "2 Main St", County: domain.Dane, Owner: "Badger Title Co."}, "300001")
}

// queuedMail reads back the messages a mail queue holds on disk (its
// relay never answers in these tests): what the office handed the real
// mailer.
func queuedMail(t *testing.T, dir string) []mail.Message {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.msg"))
	if err != nil {
		t.Fatal(err)
	}
	var out []mail.Message
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := strings.Cut(string(b), "\n")
		var m mail.Message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// officeWithMail starts the office with a real mail queue whose relay
// does not answer, so every message stays in its folder.
func officeWithMail(t *testing.T, cards *fakeTerminal) (*stafftest.Harness, string) {
	dir := t.TempDir()
	q, err := mail.New(mail.Config{Relay: "127.0.0.1:9", From: "Village of Belleville <clerk@belleville.example>", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	o := stafftest.Options{Mail: q}
	if cards != nil {
		o.CardTerminal = cards
	}
	h := stafftest.NewWith(t, o)
	titleCompany(h)
	return h, dir
}

// requestForm is a title company's request as the window's form sends it.
func requestForm(c *stafftest.Client) url.Values {
	p := c.Get("/staff/letters/new")
	id, _ := p.Doc.Find(`input[name="command_id"]`).Attr("value")
	fee, _ := p.Doc.Find(`input[name="fee"]`).Attr("value")
	return url.Values{"command_id": {id}, "fee": {fee}, "parcel": {"0601-141-2002"}, "requester": {"Badger Title Co."}, "contact": {"Pat Closer, 608-555-0199"},
		"email": {"closings@badgertitle.example"}, "closing_on": {"2026-11-20"}, "delivery": {"email"}, "payment": {"check"}, "check_number": {"5512"}, "account": {"300001"}}
}

// TestTitleCompanyLetterAtTheWindow (§5.11): a title company asks at the
// window for a letter e-mailed to it and pays by check into the clerk's
// drawer. The queue shows who asked and how the letter goes out; the
// fee's check is in the drawer, on the company's account. Completing the
// letter e-mails it as a PDF through the office's mail queue, records it
// delivered, and the queue says when it was sent.
func TestTitleCompanyLetterAtTheWindow(t *testing.T) {
	h, dir := officeWithMail(t, nil)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/window")
	if p := c.Post("/staff/window/open", url.Values{"float": {"50.00"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("open drawer: %d", p.Status)
	}
	p := c.Get("/staff/letters/new")
	if !strings.Contains(p.Text("request-terms"), "45.00") || !strings.Contains(p.Text("request-terms"), "2026-11-04") {
		t.Fatalf("terms: %q", p.Text("request-terms"))
	}
	p = c.Post("/staff/letters/new", requestForm(c))
	if p.Status != http.StatusSeeOther {
		t.Fatalf("request: %d %s", p.Status, p.Text("request-error"))
	}
	claim := strings.TrimPrefix(p.Location, "/staff/letters/")
	p = c.Get("/staff/letters")
	if got := p.Text("letter-delivery-" + claim); got != "E-mail to closings@badgertitle.example" {
		t.Fatalf("queue delivery: %q", got)
	}
	if !strings.Contains(p.Doc.Find(`tr[data-claim="`+claim+`"]`).Text(), "Badger Title Co.") {
		t.Fatal("the queue does not name the requester")
	}
	p = c.Get("/staff/letters/" + claim)
	if paid := p.Text("letter-paid"); !strings.Contains(paid, "check 5512") || !strings.Contains(paid, "300001") || !p.Has("return-check") {
		t.Fatalf("paid: %q", paid)
	}
	d, ok, err := domain.ReadsOf(h.Ledger).OpenDrawer("jdoe")
	if err != nil || !ok || len(d.Payments) != 1 || d.Payments[0].Reference != "5512" || !d.Payments[0].Amount.Equal(domain.MustMoney("45.00")) {
		t.Fatalf("drawer: %+v %v", d, err)
	}
	form := url.Values{"assessment_changes": {"none"}, "deferred": {"none"}, "improvements": {"none"}, "floodplain": {"Not in a mapped floodplain."}, "violations": {"none known"}}
	if p := c.Post("/staff/letters/"+claim+"/complete", form); p.Status != http.StatusSeeOther {
		t.Fatalf("complete: %d %s", p.Status, p.Text("letter-error"))
	}
	msgs := queuedMail(t, dir)
	if len(msgs) != 1 {
		t.Fatalf("%d messages queued", len(msgs))
	}
	m := msgs[0]
	if m.To != "closings@badgertitle.example" || !strings.Contains(m.Subject, "SL-2026-0001") || len(m.Attachments) != 1 {
		t.Fatalf("message: to %q, subject %q, %d attachments", m.To, m.Subject, len(m.Attachments))
	}
	if a := m.Attachments[0]; a.Name != "SL-2026-0001.pdf" || a.ContentType != "application/pdf" || !bytes.HasPrefix(a.Data, []byte("%PDF-")) || !bytes.Contains(a.Data, []byte("SL-2026-0001")) {
		t.Fatalf("attachment %q %q, %d bytes", a.Name, a.ContentType, len(a.Data))
	}
	p = c.Get("/staff/letters/" + claim)
	if p.Text("letter-state") != "delivered" || !strings.Contains(p.Text("letter-delivered"), "email") {
		t.Fatalf("after completing: %q %q", p.Text("letter-state"), p.Text("letter-delivered"))
	}
	if sent := c.Get("/staff/letters?all=1").Text("letter-sent-" + claim); !strings.HasPrefix(sent, "2026-11-02") {
		t.Fatalf("sent: %q", sent)
	}
}

// TestWindowRequestRefusals (§5.11): an e-mail address that is not one,
// a parcel the ledger does not hold, a fee changed in the form, a check
// without an open drawer: each shows the form again with what is wrong,
// and nothing is recorded.
func TestWindowRequestRefusals(t *testing.T) {
	h, _ := officeWithMail(t, nil)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/window")
	c.Post("/staff/window/open", url.Values{"float": {"50.00"}})
	other := h.SignedIn("kclerk", domain.RoleClerk)
	before := h.Ledger.JournalLen()
	for _, tc := range []struct {
		name, field, value, want string
		status                   int
	}{
		{"bad e-mail", "email", "closings at badger", "not an e-mail address", http.StatusUnprocessableEntity},
		{"unknown parcel", "parcel", "0601-999-9999", "There is no parcel", http.StatusNotFound},
		{"tampered fee", "fee", "0.01", "fee today is 45.00, not 0.01", http.StatusConflict},
		{"unknown account", "account", "999999", "There is no account", http.StatusNotFound},
		{"bad closing date", "closing_on", "11/20/2026", "not a real date", http.StatusUnprocessableEntity},
	} {
		t.Run("§5.11/"+tc.name, func(t *testing.T) {
			f := requestForm(c)
			f.Set(tc.field, tc.value)
			p := c.Post("/staff/letters/new", f)
			if p.Status != tc.status || !strings.Contains(p.Text("request-error"), tc.want) {
				t.Fatalf("%d %q, want %d %q", p.Status, p.Text("request-error"), tc.status, tc.want)
			}
			if got, _ := p.Doc.Find(`input[name="requester"]`).Attr("value"); got != "Badger Title Co." {
				t.Fatalf("the form comes back without what was typed: %q", got)
			}
		})
	}
	if p := other.Post("/staff/letters/new", requestForm(other)); p.Status != http.StatusConflict || !strings.Contains(p.Text("request-error"), "Open a drawer") {
		t.Fatalf("a check without a drawer: %d %q", p.Status, p.Text("request-error"))
	}
	if h.Ledger.JournalLen() != before {
		t.Fatalf("refused requests recorded %d commands", h.Ledger.JournalLen()-before)
	}
	if q, _ := domain.ReadsOf(h.Ledger).StatusQueue(domain.Date{}); len(q) != 0 {
		t.Fatalf("the queue holds %d requests", len(q))
	}
}

// fakeTerminal approves every charge, once per key, and refunds them.
type fakeTerminal struct {
	mu       sync.Mutex
	charged  map[string]domain.Money
	refunded []string
}

func (f *fakeTerminal) Charge(_ context.Context, key string, amount domain.Money) (terminal.Approval, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.charged == nil {
		f.charged = map[string]domain.Money{}
	}
	f.charged[key] = amount
	return terminal.Approval{Key: key, Reference: "APPROVED-" + key[len(key)-4:], Amount: amount, Card: &domain.CardShown{Brand: "visa", Last4: "4242"}}, nil
}

// Refund records a refund of a charge it approved.
func (f *fakeTerminal) Refund(_ context.Context, r terminal.RefundRequest) (terminal.Refund, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.charged[r.ChargeKey]; !ok {
		return terminal.Refund{}, fmt.Errorf("no charge %q to refund", r.ChargeKey)
	}
	f.refunded = append(f.refunded, r.ChargeKey)
	return terminal.Refund{Key: r.Key, Reference: "REFUND-" + r.ChargeKey, Amount: r.Amount}, nil
}

// TestWindowCardNeverChargedForARefusedRequest: a request the ledger
// would refuse for what the form says (a mailing address for a letter
// picked up) is refused before the card is charged; a form sent again
// under the command id of a letter already taken, with other details,
// leads to that letter: the terminal is not asked again (its answer for
// the id would be the first letter's charge) and nothing is refunded.
func TestWindowCardNeverChargedForARefusedRequest(t *testing.T) {
	cards := &fakeTerminal{}
	h, _ := officeWithMail(t, cards)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	f := requestForm(c)
	f.Set("payment", "card")
	f.Set("delivery", "pickup")
	f.Set("mail_to", "1 Elm St, Belleville WI 53508")
	f.Del("account")
	if p := c.Post("/staff/letters/new", f); p.Status == http.StatusSeeOther || !strings.Contains(p.Text("request-error"), "mailing address") || len(cards.charged) != 0 {
		t.Fatalf("a request the ledger refuses: %d %q, %d charges", p.Status, p.Text("request-error"), len(cards.charged))
	}
	f.Del("mail_to")
	first := c.Post("/staff/letters/new", f)
	if first.Status != http.StatusSeeOther || len(cards.charged) != 1 {
		t.Fatalf("the corrected request: %d %q, %d charges", first.Status, first.Text("request-error"), len(cards.charged))
	}
	other := requestForm(c)
	other.Set("command_id", f.Get("command_id"))
	other.Set("payment", "card")
	other.Set("delivery", "pickup")
	other.Set("requester", "Another Title LLC")
	other.Del("account")
	p := c.Post("/staff/letters/new", other)
	q, _ := domain.ReadsOf(h.Ledger).StatusQueue(domain.Date{})
	if p.Location != first.Location || len(cards.refunded) != 0 || len(cards.charged) != 1 {
		t.Fatalf("a form under a used command id: %d %q (first %q); refunds %v; charges %d; letters %d", p.Status, p.Location, first.Location, cards.refunded, len(cards.charged), len(q))
	}
}

// TestWindowRequestByCard (§5.11): the fee charged on the window's
// terminal once; the same form sent twice is the same request, not a
// second charge nor a second letter; a pickup letter is not e-mailed.
func TestWindowRequestByCard(t *testing.T) {
	cards := &fakeTerminal{}
	h, dir := officeWithMail(t, cards)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	f := requestForm(c)
	f.Set("payment", "card")
	f.Set("delivery", "pickup")
	f.Del("account")
	first := c.Post("/staff/letters/new", f)
	again := c.Post("/staff/letters/new", f)
	if first.Status != http.StatusSeeOther || again.Location != first.Location {
		t.Fatalf("card request: %d %q, again %d %q (%s)", first.Status, first.Location, again.Status, again.Location, again.Text("request-error"))
	}
	if len(cards.charged) != 1 {
		t.Fatalf("%d charges", len(cards.charged))
	}
	claim := strings.TrimPrefix(first.Location, "/staff/letters/")
	p := c.Get("/staff/letters/" + claim)
	if p.Text("letter-how") != "Pick up" || !strings.Contains(p.Text("letter-paid"), "card") {
		t.Fatalf("letter: %q %q", p.Text("letter-how"), p.Text("letter-paid"))
	}
	c.Post("/staff/letters/"+claim+"/complete", url.Values{"assessment_changes": {"none"}, "deferred": {"none"}, "improvements": {"none"}, "floodplain": {"none"}, "violations": {"none"}})
	if n := len(queuedMail(t, dir)); n != 0 {
		t.Fatalf("a letter to pick up was e-mailed (%d messages)", n)
	}
}

// TestStatusLetterAPI (§5.11): a staff token of a role that takes letters
// requests one for a title company, billed on its account and e-mailed;
// the same command id sent again answers with the same claim. Bad input
// is refused with a clear error and records nothing, and no credential
// but such a token reaches the route: none, a signed-in session, an
// auditor's or a hotel operator's token.
func TestStatusLetterAPI(t *testing.T) {
	h := stafftest.New(t)
	titleCompany(h)
	tok := h.Token("api-clerk", domain.RoleClerk)
	body := func(edit func(map[string]any)) string {
		m := map[string]any{"command_id": "tc-1", "parcel": "0601-141-2002", "requester": "Badger Title Co.", "contact": "Pat Closer, 608-555-0199",
			"email": "closings@badgertitle.example", "closing_on": "2026-11-20", "account": "300001", "fee": "45.00"}
		if edit != nil {
			edit(m)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	st, b := h.API("POST", "/api/v1/status-letters", tok, body(nil))
	var ans struct {
		Claim    string `json:"claim"`
		Delivery string `json:"delivery"`
		Email    string `json:"email"`
		BillID   string `json:"bill_id"`
	}
	if err := json.Unmarshal(b, &ans); st != http.StatusOK || err != nil || ans.Claim == "" {
		t.Fatalf("%d %s", st, b)
	}
	if ans.Delivery != "email" || ans.Email != "closings@badgertitle.example" || ans.BillID == "" {
		t.Fatalf("answer: %s", b)
	}
	bill, err := h.Ledger.Bill(ans.BillID)
	if err != nil || bill.Account != "300001" || bill.Parcel != "0601-200-0001" || !bill.Principal.Equal(domain.MustMoney("45.00")) {
		t.Fatalf("fee bill: %+v %v", bill, err)
	}
	if st, b2 := h.API("POST", "/api/v1/status-letters", tok, body(nil)); st != http.StatusOK || !bytes.Equal(b, b2) {
		t.Fatalf("the same command again: %d %s", st, b2)
	}
	before := h.Ledger.JournalLen()
	for _, tc := range []struct {
		name   string
		edit   func(map[string]any)
		status int
		want   string
	}{
		{"bad e-mail", func(m map[string]any) { m["email"] = "not-an-address" }, http.StatusUnprocessableEntity, "not an e-mail address"},
		{"unknown parcel", func(m map[string]any) { m["parcel"] = "0601-999-9999" }, http.StatusNotFound, "no parcel"},
		{"tampered fee", func(m map[string]any) { m["fee"] = "4.50" }, http.StatusConflict, "fee today is 45.00"},
		{"unknown account", func(m map[string]any) { m["account"] = "999999" }, http.StatusNotFound, "no account"},
		{"unknown field", func(m map[string]any) { m["payment"] = "card" }, http.StatusBadRequest, ""},
	} {
		t.Run("§5.11/"+tc.name, func(t *testing.T) {
			st, b := h.API("POST", "/api/v1/status-letters", tok, body(func(m map[string]any) { m["command_id"] = "bad-" + tc.name; tc.edit(m) }))
			if st != tc.status || !strings.Contains(string(b), tc.want) {
				t.Fatalf("%d %s, want %d %q", st, b, tc.status, tc.want)
			}
		})
	}
	if h.Ledger.JournalLen() != before {
		t.Fatal("a refused request was recorded")
	}
	others := map[domain.Role]string{}
	for _, role := range []domain.Role{domain.RoleAuditor, domain.RoleHotelOperator, domain.RoleAdministrator} {
		others[role] = h.Token("api-"+strings.ReplaceAll(string(role), "_", "-"), role)
	}
	c := h.SignedIn("jdoe", domain.RoleClerk)
	before = h.Ledger.JournalLen()
	if st, _ := h.API("POST", "/api/v1/status-letters", "", body(nil)); st != http.StatusUnauthorized {
		t.Fatalf("without a token: %d", st)
	}
	for role, other := range others {
		if st, _ := h.API("POST", "/api/v1/status-letters", other, body(func(m map[string]any) { m["command_id"] = "x-" + string(role) })); st != http.StatusForbidden {
			t.Fatalf("a %s's token: %d", role, st)
		}
	}
	// A signed-in clerk's browser session is not a token.
	req, _ := http.NewRequest("POST", h.Srv.URL+"/api/v1/status-letters", strings.NewReader(body(func(m map[string]any) { m["command_id"] = "session" })))
	req.Header.Set("Content-Type", "application/json")
	if p := c.Do(req); p.Status != http.StatusUnauthorized {
		t.Fatalf("with a session cookie: %d", p.Status)
	}
	if h.Ledger.JournalLen() != before {
		t.Fatal("a refused credential recorded something")
	}
}
