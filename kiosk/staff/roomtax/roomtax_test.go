package roomtax_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/roomtax"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// office is the clerk's office with the room tax module, two operators
// registered by the treasurer (Belle Inn, whose login is innkeeper, and
// Sugar River Rooms, whose login is rival), on 20 March 2026.
type office struct {
	h *stafftest.Harness
	t *testing.T
}

func newOffice(t *testing.T) *office { return newOfficeWith(t, stafftest.Options{}) }

// newOfficeWith is newOffice with opts (a card terminal); the room tax
// module is added to its modules.
func newOfficeWith(t *testing.T, opts stafftest.Options) *office {
	opts.Modules = append(opts.Modules, roomtax.New())
	h := stafftest.NewWith(t, opts)
	h.Seed()
	o := &office{h: h, t: t}
	o.at("2026-03-20 10:00")
	h.AddUser("treas", domain.RoleTreasurer, true)
	h.AddUser("innkeeper", domain.RoleHotelOperator, true)
	h.AddUser("rival", domain.RoleHotelOperator, true)
	h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorRegister, ID: "belle-inn", LegalName: "Belle Inn LLC",
		Establishments: []domain.Establishment{{Name: "Belle Inn", Address: "12 Vine St"}}, SellersPermit: "456-1027384756-02", Contact: "Ann Belle, 608-555-0100"})
	h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorLink, ID: "belle-inn", Login: "innkeeper"})
	h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorRegister, ID: "sugar-rooms", LegalName: "Sugar River Rooms", Marketplace: true, SellersPermit: "456-99", Contact: "ops@example.com"})
	h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorLink, ID: "sugar-rooms", Login: "rival"})
	return o
}

// at moves the office's clock ("2026-04-10 09:00", village time).
func (o *office) at(s string) {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, o.h.Loc)
	if err != nil {
		o.t.Fatal(err)
	}
	o.h.SetClock(t)
}

// as signs in an existing account (a session starts at the clock's time).
func (o *office) as(username string) *stafftest.Client {
	o.t.Helper()
	c := o.h.Client()
	if p := c.Login(username, stafftest.Password); p.Status != http.StatusSeeOther {
		o.t.Fatalf("sign in as %s: %d", username, p.Status)
	}
	c.Get("/staff/")
	return c
}

// q1Form is Belle Inn's Q1 return as typed: 20,000.00 of gross receipts,
// a sale to the Forest Service with its purchase order, and one to the
// 4-H without its certificate number.
func q1Form() url.Values {
	return url.Values{"period": {"2026-Q1"}, "gross": {"20,000.00"},
		"sale1_amount": {"1000.00"}, "sale1_buyer": {"US Forest Service"}, "sale1_entity": {"federal"}, "sale1_billed": {"yes"}, "sale1_document": {"purchase_order"}, "sale1_number": {"PO-7731"},
		"sale2_amount": {"500.00"}, "sale2_buyer": {"Green County 4-H"}, "sale2_entity": {"nonprofit"}, "sale2_billed": {"yes"}, "sale2_document": {"certificate_number"}, "sale2_number": {""},
		"basis": {"calendar"}, "signer": {"Ann Belle"}, "capacity": {"owner"}}
}

// fileQ1 files Belle Inn's Q1 return on 10 April through the pages.
func (o *office) fileQ1(c *stafftest.Client) {
	o.t.Helper()
	form := q1Form()
	form.Set("action", "preview")
	p := c.Post("/staff/room-tax/operators/belle-inn/file", form)
	if p.Status != http.StatusOK || p.Text("fig-tax") != "1330.00" {
		o.t.Fatalf("preview: %d tax %q %s", p.Status, p.Text("fig-tax"), p.Text("file-error"))
	}
	digest, _ := p.Doc.Find(`input[name="digest"]`).Attr("value")
	form.Set("action", "sign")
	form.Set("digest", digest)
	form.Set("sign", "yes")
	if p := c.Post("/staff/room-tax/operators/belle-inn/file", form); p.Status != http.StatusSeeOther {
		o.t.Fatalf("sign: %d %s", p.Status, p.Text("file-error"))
	}
}

// journal returns the journal's entries of kind k by actor.
func (o *office) journal(k domain.Kind, actor string) []staff.JournalEntry {
	var out []staff.JournalEntry
	o.h.Ledger.Journal(func(e staff.JournalEntry) error {
		if e.Kind == k && e.Actor == actor {
			out = append(out, e)
		}
		return nil
	})
	return out
}

// TestOperatorFilesQ1WithAPreviewBeforeSigning: the operator's login files
// its first return: the rule's figures are shown before signing (one
// exemption valid, one rejected and taxed), signing needs the preview, the
// return page shows the figures as of today once the read is recorded,
// and a second return for the quarter is refused (amend instead).
func TestOperatorFilesQ1WithAPreviewBeforeSigning(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	c := o.as("innkeeper")
	if p := c.Get("/staff/"); !strings.Contains(p.Text("alert-room-tax-due"), "2026-Q1") {
		t.Errorf("the start page's alert: %q", p.Text("alert-room-tax-due"))
	}
	home := c.Get("/staff/room-tax")
	if home.Status != http.StatusOK || home.Text("operator-name") != "Belle Inn LLC" || !home.Has("file-2026-Q1") || !home.Has("no-returns") {
		t.Fatalf("home: %d %q", home.Status, home.Text("operator-name"))
	}
	if p := c.Get("/staff/room-tax/operators/belle-inn/file?period=2026-Q1"); p.Status != http.StatusOK || !p.Has("file-election") {
		t.Fatalf("form: %d", p.Status)
	}
	// Another operator's form is refused by the page.
	if p := c.Get("/staff/room-tax/operators/sugar-rooms/file"); p.Status != http.StatusForbidden {
		t.Errorf("another operator's form: %d", p.Status)
	}

	form := q1Form()
	form.Set("action", "preview")
	p := c.Post("/staff/room-tax/operators/belle-inn/file", form)
	if p.Status != http.StatusOK || p.Text("fig-tax") != "1330.00" || p.Text("fig-exempt") != "1000.00" || p.Text("preview-sales-status-2") != "rejected: taxed" || !strings.Contains(p.Text("fig-rejected"), "2") {
		t.Fatalf("preview: %d tax %q exempt %q line 2 %q", p.Status, p.Text("fig-tax"), p.Text("fig-exempt"), p.Text("preview-sales-status-2"))
	}
	before := o.h.Ledger.JournalLen()
	// Signing what was not previewed (the figures changed) is refused.
	digest, _ := p.Doc.Find(`input[name="digest"]`).Attr("value")
	changed := q1Form()
	changed.Set("gross", "10,000.00")
	changed.Set("action", "sign")
	changed.Set("digest", digest)
	changed.Set("sign", "yes")
	if p := c.Post("/staff/room-tax/operators/belle-inn/file", changed); p.Status != http.StatusUnprocessableEntity || o.h.Ledger.JournalLen() != before {
		t.Fatalf("signing unpreviewed figures: %d", p.Status)
	}
	// Without ticking the signature.
	form.Set("action", "sign")
	form.Set("digest", digest)
	if p := c.Post("/staff/room-tax/operators/belle-inn/file", form); p.Status != http.StatusUnprocessableEntity || o.h.Ledger.JournalLen() != before {
		t.Fatalf("unsigned: %d", p.Status)
	}
	form.Set("sign", "yes")
	p = c.Post("/staff/room-tax/operators/belle-inn/file", form)
	if p.Status != http.StatusSeeOther || p.Location != "/staff/room-tax/returns/belle-inn_2026-Q1" {
		t.Fatalf("sign: %d %q %s", p.Status, p.Location, p.Text("file-error"))
	}
	if got := o.journal(domain.KindRoomTaxFile, "innkeeper"); len(got) != 1 || got[0].Outcome != "applied" {
		t.Fatalf("the filing in the journal: %+v", got)
	}

	reads := len(o.journal(domain.KindRoomTaxRead, "innkeeper"))
	ret := c.Get(p.Location)
	if ret.Status != http.StatusOK || ret.Text("fig-tax") != "1330.00" || ret.Text("fig-fee") != "0.00" || ret.Text("sales-status-2") != "rejected: taxed" || !strings.Contains(ret.Text("retain-until"), "2031-03-31") {
		t.Fatalf("return page: %d tax %q", ret.Status, ret.Text("fig-tax"))
	}
	after := o.journal(domain.KindRoomTaxRead, "innkeeper")
	if len(after) != reads+1 || after[len(after)-1].Outcome != "applied" || ret.Text("read-id") != after[len(after)-1].CommandID {
		t.Fatalf("the read is not journaled: %d → %d, page says %q", reads, len(after), ret.Text("read-id"))
	}
	filed, err := domain.ReadsOf(o.h.Ledger).RoomTaxReturn("belle-inn_2026-Q1")
	if ref := filed.PaymentReference(); err != nil || !strings.HasPrefix(ref, "belle-inn_2026-Q1-") || ret.Text("payment-ref") != ref || !strings.Contains(ret.Text("pay-note"), ref) {
		t.Errorf("how to pay: %q %q, want %q (%v)", ret.Text("pay-note"), ret.Text("payment-ref"), ref, err)
	}
	if p := c.Get("/staff/room-tax/operators/belle-inn/file?period=2026-Q1"); strings.Contains(p.Body, `value="2026-Q1"`) {
		t.Error("the filed quarter is still offered")
	}
	again := q1Form()
	again.Set("action", "preview")
	digest2, _ := c.Post("/staff/room-tax/operators/belle-inn/file", again).Doc.Find(`input[name="digest"]`).Attr("value")
	again.Set("action", "sign")
	again.Set("digest", digest2)
	again.Set("sign", "yes")
	if p := c.Post("/staff/room-tax/operators/belle-inn/file", again); p.Status != http.StatusConflict || !strings.Contains(p.Text("file-error"), "amended return") {
		t.Fatalf("a second return for Q1: %d %q", p.Status, p.Text("file-error"))
	}
	if p := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1/return.pdf"); p.Status != http.StatusOK || !strings.HasPrefix(p.Body, "%PDF-") {
		t.Errorf("the return's PDF: %d", p.Status)
	}
	if p := c.Get("/staff/room-tax/blank.pdf"); p.Status != http.StatusOK || !strings.HasPrefix(p.Body, "%PDF-") {
		t.Errorf("the blank return: %d", p.Status)
	}
}

// TestAmendAndLateReturn: an amendment replaces the figures with history;
// a return filed late shows the fee and interest as of today.
func TestAmendAndLateReturn(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.at("2026-04-12 09:00")
	c := o.as("innkeeper")
	am := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1/amend")
	if am.Status != http.StatusOK {
		t.Fatalf("amend form: %d", am.Status)
	}
	if v, _ := am.Doc.Find(`input[name="gross"]`).Attr("value"); v != "20000.00" {
		t.Fatalf("the amend form is not filled with the figures in force: %q", v)
	}
	form := q1Form()
	form.Del("basis")
	form.Set("sale2_number", "ES-40221")
	form.Set("reason", "found the 4-H certificate")
	form.Set("action", "preview")
	reads := len(o.journal(domain.KindRoomTaxRead, "innkeeper"))
	p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/amend", form)
	if p.Text("fig-tax") != "1295.00" {
		t.Fatalf("amended preview: %q %s", p.Text("fig-tax"), p.Text("file-error"))
	}
	// The preview shows the return on record (its payments, its filing
	// date's fee and interest): a read, journaled.
	if got := o.journal(domain.KindRoomTaxRead, "innkeeper"); len(got) != reads+1 || got[len(got)-1].Outcome != "applied" {
		t.Fatalf("the amended preview's read: %d → %d", reads, len(got))
	}
	o.h.Ledger.SetProvisional(true)
	if p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/amend", form); p.Status != http.StatusServiceUnavailable || strings.Contains(p.Body, "1295.00") {
		t.Fatalf("an amended preview without a quorum: %d", p.Status)
	}
	o.h.Ledger.SetProvisional(false)
	digest, _ := p.Doc.Find(`input[name="digest"]`).Attr("value")
	form.Set("action", "sign")
	form.Set("digest", digest)
	form.Set("sign", "yes")
	if p := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/amend", form); p.Status != http.StatusSeeOther {
		t.Fatalf("amend: %d %s", p.Status, p.Text("file-error"))
	}
	ret := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1")
	if ret.Text("fig-tax") != "1295.00" || !ret.Has("filing-1") || !ret.Has("filing-2") {
		t.Fatalf("after the amendment: %q", ret.Text("fig-tax"))
	}

	// Q2 (due July 31) filed on August 5: the fee and a month's interest.
	o.at("2026-08-05 09:00")
	c = o.as("innkeeper")
	q2 := url.Values{"period": {"2026-Q2"}, "gross": {"10000.00"}, "signer": {"Ann Belle"}, "capacity": {"owner"}, "action": {"preview"}}
	p = c.Post("/staff/room-tax/operators/belle-inn/file", q2)
	if p.Text("fig-fee") != "100.00" || p.Text("fig-interest") != "7.00" || p.Text("fig-balance") != "807.00" {
		t.Fatalf("late preview: fee %q interest %q balance %q %s", p.Text("fig-fee"), p.Text("fig-interest"), p.Text("fig-balance"), p.Text("file-error"))
	}
	digest, _ = p.Doc.Find(`input[name="digest"]`).Attr("value")
	q2.Set("action", "sign")
	q2.Set("digest", digest)
	q2.Set("sign", "yes")
	if p := c.Post("/staff/room-tax/operators/belle-inn/file", q2); p.Status != http.StatusSeeOther {
		t.Fatalf("Q2: %d %s", p.Status, p.Text("file-error"))
	}
	// As of September 2, another month of interest, and delinquent.
	o.at("2026-09-02 09:00")
	home := o.as("innkeeper").Get("/staff/room-tax")
	if home.Text("balance-2026-Q2") != "814.00" || !home.Has("portal-delinquent-2026-Q2") || !strings.HasPrefix(home.Text("status-2026-Q2"), "filed late · balance due") {
		t.Fatalf("Q2 as of September 2: %q %q", home.Text("balance-2026-Q2"), home.Text("status-2026-Q2"))
	}
}

// TestReadsAreRecordedBeforeAnythingIsShown: when the ledger cannot record
// the read (no quorum), the return is not shown.
func TestReadsAreRecordedBeforeAnythingIsShown(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	c := o.as("innkeeper")
	audit := func() *stafftest.Client { o.h.AddUser("audit", domain.RoleAuditor, true); return o.as("audit") }()
	o.h.Ledger.SetProvisional(true)
	for _, path := range []string{"/staff/room-tax/returns/belle-inn_2026-Q1", "/staff/room-tax/returns/belle-inn_2026-Q1/return.pdf", "/staff/room-tax"} {
		p := c.Get(path)
		if p.Status != http.StatusServiceUnavailable || strings.Contains(p.Body, "1330.00") || strings.Contains(p.Body, "20000.00") {
			t.Errorf("%s without a quorum: %d (figures shown: %v)", path, p.Status, strings.Contains(p.Body, "1330.00"))
		}
	}
	if p := audit.Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=audit"); p.Status != http.StatusServiceUnavailable || strings.Contains(p.Body, "1330.00") {
		t.Errorf("an auditor's read without a quorum: %d", p.Status)
	}
	o.h.Ledger.SetProvisional(false)
	if p := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1"); p.Status != http.StatusOK || p.Text("fig-tax") != "1330.00" {
		t.Errorf("with the quorum back: %d", p.Status)
	}
	// An auditor names a reason first: the form, then the page.
	p := audit.Get("/staff/room-tax/returns/belle-inn_2026-Q1")
	if p.Status != http.StatusOK || !p.Has("reason-form") || strings.Contains(p.Body, "1330.00") {
		t.Fatalf("the reason form: %d", p.Status)
	}
	p = audit.Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=audit&note=2026+annual+audit")
	rec, err := domain.ReadsOf(o.h.Ledger).RoomTaxRead(p.Text("read-id"))
	if p.Status != http.StatusOK || err != nil || rec.Reader != "audit" || rec.Basis != domain.BasisAuditor || !strings.Contains(rec.Reason, "2026 annual audit") {
		t.Fatalf("the auditor's read: %d %+v %v", p.Status, rec, err)
	}
}

// route is a route that shows returns' figures, and what each reader may
// see of it.
type route struct {
	name, path string
	api        bool
}

// TestReturnRoutesRoleMatrix requests every route that shows a return, an
// audit report or figures, as each role: the filer, the treasurer's office
// and the auditors read (each read journaled, with its reader); another
// operator, a clerk, an administrator, a board member and a department
// head are refused
// (403, no figures, the refusal journaled when the ledger refused it);
// an official with an access grant reads.
func TestReturnRoutesRoleMatrix(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.h.Submit("treas", &domain.RoomTaxDetermine{Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 1}, Type: domain.DeterminationOffice, Basis: "Audit report: the 4-H sale is taxable.", GrossReceipts: domain.MustMoney("20000.00")})
	o.at("2027-01-20 09:00")
	o.h.Submit("innkeeper", &domain.FileRoomTaxReturn{Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 2}, GrossReceipts: domain.MustMoney("1000.00"), Signer: "A", Capacity: "owner"})
	o.h.Submit("innkeeper", &domain.FileRoomTaxReturn{Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 3}, GrossReceipts: domain.MustMoney("1000.00"), Signer: "A", Capacity: "owner"})
	o.h.Submit("innkeeper", &domain.FileRoomTaxReturn{Operator: "belle-inn", Period: domain.Quarter{Year: 2026, Q: 4}, GrossReceipts: domain.MustMoney("1000.00"), Signer: "A", Capacity: "owner"})
	o.h.Submit("innkeeper", &domain.AnnualRoomTaxReturn{Operator: "belle-inn", Year: 2026, Signer: "A", Capacity: "owner", Quarters: []domain.AnnualFigures{
		{Period: domain.Quarter{Year: 2026, Q: 1}, GrossReceipts: domain.MustMoney("20000.00")}, {Period: domain.Quarter{Year: 2026, Q: 2}, GrossReceipts: domain.MustMoney("1000.00")},
		{Period: domain.Quarter{Year: 2026, Q: 3}, GrossReceipts: domain.MustMoney("1000.00")}, {Period: domain.Quarter{Year: 2026, Q: 4}, GrossReceipts: domain.MustMoney("1000.00")}}})
	o.h.Submit("treas", &domain.RoomTaxCertify{ID: "C-1", Operator: "belle-inn", Requester: "Prairie Lodging LLC", RequesterIs: "buyer"})
	for _, u := range []struct {
		name string
		role domain.Role
	}{{"pclerk", domain.RoleClerk}, {"admin", domain.RoleAdministrator}, {"audit", domain.RoleAuditor}, {"trustee", domain.RoleBoard}, {"dhead", domain.RoleDepartmentHead}, {"granted", domain.RoleClerk}} {
		o.h.AddUser(u.name, u.role, true)
	}
	o.h.Submit("treas", &domain.RoomTaxAccessGrant{Op: "grant", ID: "G-1", Official: "granted", Operator: "belle-inn", Reason: "the village attorney's review of the appeal", Until: domain.MustDate("2027-02-28")})

	routes := []route{
		{name: "return page", path: "/staff/room-tax/returns/belle-inn_2026-Q1?reason=administration"},
		{name: "return PDF", path: "/staff/room-tax/returns/belle-inn_2026-Q1/return.pdf?reason=administration"},
		{name: "operator's returns", path: "/staff/room-tax/operators/belle-inn/returns?reason=administration"},
		{name: "annual return", path: "/staff/room-tax/annual/belle-inn_2026?reason=administration"},
		{name: "amend form", path: "/staff/room-tax/returns/belle-inn_2026-Q1/amend?reason=administration"},
		{name: "annual form", path: "/staff/room-tax/operators/belle-inn/annual/2026?reason=administration"},
		{name: "collections by operator", path: "/staff/room-tax/reports/by-operator?year=2026&reason=administration"},
		{name: "certificate", path: "/staff/room-tax/certificates/C-1?reason=administration"},
		{name: "export for the DOR", path: "/staff/room-tax/export.csv?year=2026&agency=DOR&official=J.+Doe&reason=audit"},
		{name: "API return", path: "/api/v1/room-tax/returns/belle-inn_2026-Q1?reason=administration", api: true},
		{name: "API returns", path: "/api/v1/room-tax/returns?operator=belle-inn&reason=administration", api: true},
	}
	// Who may read what: the answer a role gets on each route.
	const ok, refused = http.StatusOK, http.StatusForbidden
	want := map[string]map[string]int{
		"innkeeper": {"collections by operator": refused, "certificate": refused, "export for the DOR": refused},
		"treas":     {},
		"audit":     {"amend form": refused, "annual form": refused, "certificate": refused, "export for the DOR": refused},
		"rival":     {"*": refused},
		"pclerk":    {"*": refused},
		"admin":     {"*": refused},
		"trustee":   {"*": refused},
		"dhead":     {"*": refused},
		"granted":   {"collections by operator": refused, "amend form": refused, "annual form": refused, "certificate": refused, "export for the DOR": refused},
	}
	tokens := map[string]string{}
	for user := range want {
		tokens[user] = tokenOf(o.h, user)
	}
	for user, exceptions := range want {
		c := o.as(user)
		for _, rt := range routes {
			t.Run(user+"/"+rt.name, func(t *testing.T) {
				expect := ok
				if s, has := exceptions[rt.name]; has {
					expect = s
				} else if s, has := exceptions["*"]; has {
					expect = s
				}
				actor := user
				before := len(o.journal(domain.KindRoomTaxRead, user))
				var status int
				var body string
				if rt.api {
					var b []byte
					status, b = o.h.API("GET", rt.path, tokens[user], "")
					body = string(b)
				} else {
					p := c.Get(rt.path)
					status, body = p.Status, p.Body
				}
				if status != expect {
					t.Fatalf("%s: status %d, want %d: %.300s", rt.path, status, expect, body)
				}
				for _, figure := range []string{"1330.00", "1400.00", "20000.00", "20,000.00"} {
					if expect != ok && strings.Contains(body, figure) {
						t.Fatalf("a refused reader sees the figure %s", figure)
					}
				}
				reads := o.journal(domain.KindRoomTaxRead, actor)
				if expect == ok {
					if len(reads) != before+1 || reads[len(reads)-1].Outcome != "applied" {
						t.Fatalf("the read is not in the journal: %d → %d", before, len(reads))
					}
				} else if len(reads) > before && reads[len(reads)-1].Outcome != "refused" {
					t.Fatalf("a refused read was journaled as applied")
				}
			})
		}
	}
	// The grant ends: the official is refused from then on.
	o.at("2027-03-01 09:00")
	if p := o.as("granted").Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=necessary"); p.Status != http.StatusForbidden || strings.Contains(p.Body, "1400.00") {
		t.Errorf("after the grant ended: %d", p.Status)
	}
}

// tokenOf issues an API token to an existing account.
func tokenOf(h *stafftest.Harness, user string) string {
	id, tok, hash := staff.NewAPIToken()
	h.Submit("setup", &domain.APITokenChange{Op: "issue", ID: id, Username: user, SecretHash: hash})
	return tok
}

// TestReturnFiguresStayOutOfTheJournal: a refused filing's journal entry
// (its error column, on the page and in the CSV export) and the journal's
// search never show a return's figures; every read is there with its
// reader.
func TestReturnFiguresStayOutOfTheJournal(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	// Exempt sales above gross receipts, sent past the form (the API).
	tok := o.h.Token("inn-robot", domain.RoleHotelOperator)
	o.h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorLink, ID: "belle-inn", Login: "inn-robot"})
	st, b := o.h.API("POST", "/api/v1/room-tax/returns", tok, `{"command_id":"q1-bad","period":"2026-Q1","gross_receipts":"777.77","exempt_sales":[{"amount":"888.88","entity":"federal","buyer":"USFS","billed_to_entity":true,"document":"purchase_order","document_number":"PO-1"}],"signer":"A","capacity":"owner","year":{"basis":"calendar","end_month":12}}`)
	if st != http.StatusUnprocessableEntity || strings.Contains(string(b), "777.77") {
		t.Fatalf("the refused filing: %d %s", st, b)
	}
	o.fileQ1(o.as("innkeeper"))
	o.as("innkeeper").Get("/staff/room-tax/returns/belle-inn_2026-Q1")
	o.h.AddUser("admin", domain.RoleAdministrator, true)
	admin := o.as("admin")
	j := admin.Get("/staff/journal")
	if j.Status != http.StatusOK || !strings.Contains(j.Body, "room_tax_read") || !strings.Contains(j.Body, "room_tax_file") {
		t.Fatalf("journal: %d", j.Status)
	}
	csv := admin.Get("/staff/journal.csv")
	search := admin.Get("/staff/journal?q=888")
	for what, body := range map[string]string{"journal page": j.Body, "journal CSV": csv.Body, "journal search": search.Body} {
		for _, figure := range []string{"777.77", "888.88", "20000", "20,000", "1330.00", "1000.00"} {
			if strings.Contains(body, figure) {
				t.Errorf("the %s shows the figure %s", what, figure)
			}
		}
	}
	if !strings.Contains(csv.Body, "room_tax_read") || !strings.Contains(csv.Body, "innkeeper") {
		t.Error("the journal's CSV does not list the reads")
	}
}

// TestTreasurerAdministers: registration and links on the pages, an
// extension (too long refused), an office audit with its basis and the
// refund due, a payment at the window, access grants, the access log, a
// certificate, a forfeiture, a tourism transfer and the public totals.
func TestTreasurerAdministers(t *testing.T) {
	o := newOffice(t)
	o.h.AddUser("newinn", domain.RoleHotelOperator, true)
	c := o.as("treas")
	p := c.Post("/staff/room-tax/operators", url.Values{"legal_name": {"Hale Street B&B"}, "sellers_permit": {"456-3"}, "contact": {"hale@example.com"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("register-error"), "establishment") {
		t.Fatalf("no establishment: %d %q", p.Status, p.Text("register-error"))
	}
	p = c.Post("/staff/room-tax/operators", url.Values{"legal_name": {"Hale Street B&B"}, "sellers_permit": {"456-3"}, "contact": {"hale@example.com"}, "est1_name": {"Hale House"}, "est1_address": {"305 Hale St"}})
	if p.Status != http.StatusSeeOther || p.Location != "/staff/room-tax/operators/hale-street-b-b" {
		t.Fatalf("register: %d %q", p.Status, p.Location)
	}
	if p := c.Post("/staff/room-tax/operators/hale-street-b-b", url.Values{"op": {"link"}, "login": {"newinn"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("link: %d %s", p.Status, p.Text("operator-error"))
	}
	if p := c.Get("/staff/room-tax/operators/hale-street-b-b"); !p.Has("login-newinn") || !strings.Contains(p.Text("operator-establishments"), "305 Hale St") {
		t.Fatalf("the account: %s", p.Text("operator-establishments"))
	}

	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.at("2026-04-20 09:00")
	o.h.Submit("kiosk", &domain.PayRoomTax{Return: "belle-inn_2026-Q1", Amount: domain.MustMoney("1330.00"), Reference: "SIM-1"})
	// Q2 of Sugar River Rooms: an extension, at most a month.
	o.at("2026-07-20 09:00")
	c = o.as("treas")
	p = c.Post("/staff/room-tax/returns/sugar-rooms_2026-Q2/extension", url.Values{"to": {"2026-09-01"}, "cause": {"owner in hospital"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("error"), "2026-08-31") {
		t.Fatalf("an extension of more than a month: %d %q", p.Status, p.Text("error"))
	}
	if p := c.Post("/staff/room-tax/returns/sugar-rooms_2026-Q2/extension", url.Values{"to": {"2026-08-31"}, "cause": {"owner in hospital"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("extension: %d %q", p.Status, p.Text("error"))
	}
	if p := c.Get("/staff/room-tax/returns/sugar-rooms_2026-Q2?reason=administration"); !strings.Contains(p.Text("extension"), "2026-08-31") {
		t.Fatalf("the extension on the return: %q", p.Text("extension"))
	}
	// An office audit of Belle Inn's Q1, with its basis, and the refund it
	// finds. The form starts from the exempt sales on record, each with its
	// buyer and document, and the rule judges the restated lines.
	form := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=administration")
	if v, _ := form.Doc.Find(`[data-testid="det-sale-buyer-2"]`).Attr("value"); v != "Green County 4-H" {
		t.Fatalf("the determination form's second sale: %q", v)
	}
	bad := c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/determination", url.Values{"type": {"office_audit"}, "gross": {"20000.00"}, "basis": {"b"}, "det_sale1_amount": {"ten"}, "det_sale1_buyer": {"X"}})
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "Exempt sale 1") {
		t.Fatalf("a restated sale without an amount: %d", bad.Status)
	}
	p = c.Post("/staff/room-tax/returns/belle-inn_2026-Q1/determination", url.Values{"type": {"field_audit"}, "gross": {"18000.00"}, "basis": {"The books show 18,000.00 of room sales."},
		"det_sale1_amount": {"1000.00"}, "det_sale1_buyer": {"US Forest Service"}, "det_sale1_entity": {"federal"}, "det_sale1_billed": {"yes"}, "det_sale1_document": {"purchase_order"}, "det_sale1_number": {"PO-7731"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("determination: %d %q", p.Status, p.Text("error"))
	}
	ret := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=administration")
	if ret.Text("determination-tax-1") != "1190.00" || ret.Text("determination-refund-1") != "140.00" || !strings.Contains(ret.Text("determination-basis-1"), "18,000.00") || ret.Text("fig-overpayment") != "140.00" {
		t.Fatalf("the determination: tax %q refund %q", ret.Text("determination-tax-1"), ret.Text("determination-refund-1"))
	}
	if !strings.Contains(ret.Text("determination-sales-1"), "US Forest Service") || !strings.Contains(ret.Text("determination-sales-1"), "PO-7731") {
		t.Errorf("the determination's exempt sales: %q", ret.Text("determination-sales-1"))
	}
	// Window payment: needs an open drawer.
	if p := c.Post("/staff/room-tax/returns/sugar-rooms_2026-Q2/payment", url.Values{"amount": {"10.00"}, "tender": {"check"}, "reference": {"1"}}); p.Status != http.StatusConflict {
		t.Fatalf("a window payment without a drawer: %d", p.Status)
	}
	// Grants: the officials offered are the board (the President among
	// them), the clerk's office and the administrator.
	o.h.AddUser("trustee", domain.RoleBoard, true)
	o.h.AddUser("vpres", domain.RolePresident, true)
	if g := c.Get("/staff/room-tax/grants"); !strings.Contains(g.Body, `value="vpres"`) || !strings.Contains(g.Body, `value="trustee"`) {
		t.Fatal("the grants page does not offer the President and the trustee as officials")
	}
	p = c.Post("/staff/room-tax/grants", url.Values{"official": {"trustee"}, "operator": {"belle-inn"}, "reason": {""}, "until": {"2026-08-31"}})
	if p.Status != http.StatusUnprocessableEntity || !p.Has("grant-error") {
		t.Fatalf("a grant without a reason: %d", p.Status)
	}
	if p := c.Post("/staff/room-tax/grants", url.Values{"official": {"trustee"}, "operator": {"belle-inn"}, "reason": {"appeal hearing"}, "until": {"2026-08-31"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("grant: %d %s", p.Status, p.Text("grant-error"))
	}
	trustee := o.as("trustee")
	if p := trustee.Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=necessary"); p.Status != http.StatusOK || p.Text("fig-tax") != "1190.00" {
		t.Fatalf("the granted trustee: %d", p.Status)
	}
	if p := trustee.Get("/staff/room-tax/returns/sugar-rooms_2026-Q2?reason=necessary"); p.Status != http.StatusForbidden {
		t.Fatalf("the trustee on another operator: %d", p.Status)
	}
	log := c.Get("/staff/room-tax/reads")
	if !strings.Contains(log.Body, "trustee") || !strings.Contains(log.Body, "Deemed necessary under an access grant") || !strings.Contains(log.Body, "grant G-") {
		t.Fatal("the access log lacks the trustee's read and its reason")
	}
	// A certificate on the sale of Belle Inn: 140.00 overpaid, nothing due.
	if p := c.Post("/staff/room-tax/certificates", url.Values{"operator": {"belle-inn"}, "requester": {"Prairie Lodging LLC"}, "requester_is": {"buyer"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("certificate: %d %s", p.Status, p.Text("enforcement-error"))
	} else if cert := c.Get(p.Location); !strings.Contains(cert.Text("certificate-answer"), "No amount is due") {
		t.Fatalf("certificate: %q", cert.Text("certificate-answer"))
	}
	if p := c.Post("/staff/room-tax/forfeitures", url.Values{"operator": {"belle-inn"}, "violation": {"records not made available"}, "from": {"2026-07-01"}, "to": {"2026-07-05"}, "per_day": {"25.00"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("forfeiture: %d %s", p.Status, p.Text("enforcement-error"))
	}
	if e := c.Get("/staff/room-tax/enforcement?reason=administration"); !strings.Contains(e.Text("forfeitures"), "5 days × 25.00 = 125.00") {
		t.Fatalf("forfeitures: %q", e.Text("forfeitures"))
	}
	if p := c.Post("/staff/room-tax/transfers", url.Values{"year": {"2026"}, "on": {"2026-07-20"}, "amount": {"500.00"}, "to": {"Belleville Tourism Commission"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("transfer: %d %s", p.Status, p.Text("report-error"))
	}
	// The public totals: any role; 1330.00 collected in Q2, 70% of it due to tourism.
	o.h.AddUser("pclerk", domain.RoleClerk, true)
	rep := o.as("pclerk").Get("/staff/room-tax/reports?year=2026")
	if rep.Status != http.StatusOK || rep.Text("collected-2026-Q2") != "1330.00" || rep.Text("tourism-required") != "931.00" || rep.Text("tourism-due") != "431.00" || rep.Has("by-operator-link") {
		t.Fatalf("reports: %d Q2 %q required %q due %q", rep.Status, rep.Text("collected-2026-Q2"), rep.Text("tourism-required"), rep.Text("tourism-due"))
	}
	// Closing keeps the records.
	if p := c.Post("/staff/room-tax/operators/belle-inn", url.Values{"op": {"close"}, "closed_on": {"2026-07-20"}, "reason": {"sold"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("close: %d %s", p.Status, p.Text("operator-error"))
	}
	if p := c.Get("/staff/room-tax/returns/belle-inn_2026-Q1?reason=administration"); p.Status != http.StatusOK || !strings.Contains(p.Text("retain-until"), "2031-03-31") {
		t.Fatalf("a closed operator's return: %d", p.Status)
	}
}

// TestEnforcementIsARead: the amounts due and the liabilities of
// successors come from the sellers' returns, so the page that lists them
// asks why, records the read, and shows nothing without it.
func TestEnforcementIsARead(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.at("2026-06-15 09:00")
	o.h.Submit("treas", &domain.RoomTaxSuccessor{ID: "S-1", Operator: "belle-inn", Successor: "Prairie Lodging LLC", PurchasePrice: domain.MustMoney("5000.00")})
	c := o.as("treas")
	before := len(o.journal(domain.KindRoomTaxRead, "treas"))
	if p := c.Get("/staff/room-tax/enforcement"); p.Status != http.StatusOK || !p.Has("reason-form") || strings.Contains(p.Body, "1330.00") || strings.Contains(p.Body, "1,330.00") {
		t.Fatalf("without a reason: %d", p.Status)
	}
	if n := len(o.journal(domain.KindRoomTaxRead, "treas")); n != before {
		t.Fatalf("the reason form recorded a read")
	}
	o.h.Ledger.SetProvisional(true)
	if p := c.Get("/staff/room-tax/enforcement?reason=administration"); p.Status != http.StatusServiceUnavailable || strings.Contains(p.Body, "Prairie Lodging") {
		t.Fatalf("without a quorum: %d", p.Status)
	}
	o.h.Ledger.SetProvisional(false)
	p := c.Get("/staff/room-tax/enforcement?reason=administration")
	reads := o.journal(domain.KindRoomTaxRead, "treas")
	if p.Status != http.StatusOK || !strings.Contains(p.Text("successor-S-1"), "Prairie Lodging LLC") || len(reads) == 0 || reads[len(reads)-1].Outcome != "applied" {
		t.Fatalf("the page: %d %q, reads %d", p.Status, p.Text("successor-S-1"), len(reads))
	}
	rec, err := domain.ReadsOf(o.h.Ledger).RoomTaxRead(reads[len(reads)-1].CommandID)
	if err != nil || rec.What != domain.ReadReport || len(rec.Subjects) != 1 || rec.Subjects[0] != "belle-inn" {
		t.Fatalf("the read: %+v %v", rec, err)
	}
	o.h.AddUser("pclerk", domain.RoleClerk, true)
	if p := o.as("pclerk").Get("/staff/room-tax/enforcement?reason=administration"); p.Status != http.StatusForbidden || strings.Contains(p.Body, "Prairie") {
		t.Fatalf("a clerk: %d", p.Status)
	}
}

// TestRoomTaxAPI: an operator's token files and reads its own returns
// only; the command id makes a retry answer the first result; a reader
// other than the filer must give a reason.
func TestRoomTaxAPI(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	tok := o.h.Token("inn-robot", domain.RoleHotelOperator)
	o.h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorLink, ID: "belle-inn", Login: "inn-robot"})
	body := `{"command_id":"q1","period":"2026-Q1","gross_receipts":"20000.00","exempt_sales":[{"amount":"1000.00","entity":"federal","buyer":"USFS","billed_to_entity":true,"document":"purchase_order","document_number":"PO-1"}],"signer":"Ann Belle","capacity":"owner","year":{"basis":"calendar","end_month":12}}`
	st, b := o.h.API("POST", "/api/v1/room-tax/returns", tok, body)
	var first struct {
		Index  uint64 `json:"index"`
		Return string `json:"return"`
	}
	if err := json.Unmarshal(b, &first); st != http.StatusOK || err != nil || first.Return != "belle-inn_2026-Q1" {
		t.Fatalf("file: %d %s", st, b)
	}
	if st, b := o.h.API("POST", "/api/v1/room-tax/returns", tok, body); st != http.StatusOK || !strings.Contains(string(b), `"index":`+itoa(first.Index)) {
		t.Fatalf("the same command id again: %d %s", st, b)
	}
	if st, _ := o.h.API("POST", "/api/v1/room-tax/returns", tok, strings.Replace(body, `"2026-Q1"`, `"2026-Q2"`, 1)); st != http.StatusConflict {
		t.Fatalf("the command id reused for another return: %d", st)
	}
	if st, _ := o.h.API("POST", "/api/v1/room-tax/returns", tok, strings.Replace(body, `"period"`, `"operator":"sugar-rooms","period"`, 1)); st != http.StatusForbidden {
		t.Fatalf("filing for another operator: %d", st)
	}
	st, b = o.h.API("GET", "/api/v1/room-tax/returns/belle-inn_2026-Q1", tok, "")
	var got struct {
		Read   string `json:"read"`
		Return struct {
			Figures domain.RoomTaxReturn `json:"figures"`
		} `json:"return"`
	}
	if err := json.Unmarshal(b, &got); st != http.StatusOK || err != nil || got.Read == "" || got.Return.Figures.Tax.String() != "1330.00" {
		t.Fatalf("read own: %d %s", st, b)
	}
	rival := o.h.Token("rival-robot", domain.RoleHotelOperator)
	o.h.Submit("treas", &domain.RoomTaxOperatorChange{Op: domain.OperatorLink, ID: "sugar-rooms", Login: "rival-robot"})
	if st, b := o.h.API("GET", "/api/v1/room-tax/returns/belle-inn_2026-Q1", rival, ""); st != http.StatusForbidden || strings.Contains(string(b), "1330") {
		t.Fatalf("another operator's token: %d %s", st, b)
	}
	if st, _ := o.h.API("GET", "/api/v1/room-tax/returns?operator=belle-inn", rival, ""); st != http.StatusForbidden {
		t.Fatalf("another operator's list: %d", st)
	}
	treas := o.h.Token("treas-robot", domain.RoleTreasurer)
	if st, _ := o.h.API("GET", "/api/v1/room-tax/returns/belle-inn_2026-Q1", treas, ""); st != http.StatusUnprocessableEntity {
		t.Fatalf("the treasurer without a reason: %d", st)
	}
	if st, b := o.h.API("GET", "/api/v1/room-tax/returns?operator=*&reason=reconciliation", treas, ""); st != http.StatusOK || !strings.Contains(string(b), "belle-inn_2026-Q1") {
		t.Fatalf("every operator's returns: %d %s", st, b)
	}
	if st, _ := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q2/extension", tok, `{"command_id":"x1","to":"2026-08-31","cause":"c"}`); st != http.StatusForbidden {
		t.Fatalf("an operator's extension: %d", st)
	}
	if st, b := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q2/extension", treas, `{"command_id":"x1","to":"2026-09-01","cause":"c"}`); st != http.StatusUnprocessableEntity {
		t.Fatalf("an extension of more than a month: %d %s", st, b)
	}
	if st, b := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q2/extension", treas, `{"command_id":"x2","to":"2026-08-31","cause":"flood"}`); st != http.StatusOK {
		t.Fatalf("extension: %d %s", st, b)
	}
	if st, b := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q1/determinations", treas, `{"command_id":"d1","type":"office_audit","basis":"report","gross_receipts":"19000.00"}`); st != http.StatusOK {
		t.Fatalf("determination: %d %s", st, b)
	}

	// Payments through the API: the treasurer's office posts a card
	// payment a processor took; an operator cannot post one for itself.
	pay := `{"command_id":"p1","amount":"500.00","tender":"card","reference":"PROC-88121","payer":"Belle Inn LLC"}`
	if st, _ := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q1/payments", tok, pay); st != http.StatusForbidden {
		t.Fatalf("an operator posting its own card payment: %d", st)
	}
	journal := o.h.Ledger.JournalLen()
	for name, bad := range map[string]string{
		"no approval reference": `{"command_id":"p2","amount":"500.00","tender":"card","reference":""}`,
		"no amount":             `{"command_id":"p3","amount":"0.00","tender":"card","reference":"PROC-1"}`,
		"a tender it is not":    `{"command_id":"p4","amount":"5.00","tender":"barter","reference":"PROC-1"}`,
	} {
		if st, b := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q1/payments", treas, bad); st != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", name, st, b)
		}
	}
	if st, b := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q1/payments", treas, `{"command_id":"p5","amount":"5.00","tender":"cash"}`); st != http.StatusConflict {
		t.Errorf("cash without an open drawer: %d %s", st, b)
	}
	if st, b := o.h.API("POST", "/api/v1/room-tax/returns/sugar-rooms_2026-Q1/payments", treas, `{"command_id":"p6","amount":"5.00","tender":"card","reference":"PROC-2"}`); st != http.StatusNotFound {
		t.Errorf("a return not on record: %d %s", st, b)
	}
	if n := o.h.Ledger.JournalLen(); n-journal > 3 {
		t.Errorf("refused payments changed more than the journal's refusals: %d entries", n-journal)
	}
	var paid struct {
		Receipt string `json:"receipt"`
	}
	st, b = o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q1/payments", treas, pay)
	if err := json.Unmarshal(b, &paid); st != http.StatusOK || err != nil || paid.Receipt == "" || strings.Contains(string(b), "1330") {
		t.Fatalf("the card payment: %d %s", st, b)
	}
	if st, b2 := o.h.API("POST", "/api/v1/room-tax/returns/belle-inn_2026-Q1/payments", treas, pay); st != http.StatusOK || !strings.Contains(string(b2), paid.Receipt) {
		t.Fatalf("the same payment again: %d %s", st, b2)
	}
	st, b = o.h.API("GET", "/api/v1/room-tax/returns/belle-inn_2026-Q1", tok, "")
	if err := json.Unmarshal(b, &got); st != http.StatusOK || err != nil || got.Return.Figures.Paid.String() != "500.00" {
		t.Fatalf("the return after the payment (paid once): %d %s", st, b)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestExportRecordsItsReadsInParts: an export of more returns than one
// read may name is recorded as several reads, all before the CSV, each
// naming the returns of its part, and every row names the read that
// covers its return.
func TestExportRecordsItsReadsInParts(t *testing.T) {
	defer roomtax.SetExportReadSubjects(3)()
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.at("2027-01-20 09:00")
	want := []string{"belle-inn_2026-Q1"}
	for q := 2; q <= 4; q++ {
		p := domain.Quarter{Year: 2026, Q: q}
		o.h.Submit("innkeeper", &domain.FileRoomTaxReturn{Operator: "belle-inn", Period: p, GrossReceipts: domain.MustMoney("1000.00"), Signer: "A", Capacity: "owner"})
		want = append(want, "belle-inn_"+p.String())
	}
	before := len(o.journal(domain.KindRoomTaxRead, "treas"))
	p := o.as("treas").Get("/staff/room-tax/export.csv?year=2026&agency=DOR&official=J.+Doe&reason=audit")
	if p.Status != http.StatusOK {
		t.Fatalf("export: %d %.300s", p.Status, p.Body)
	}
	reads := o.journal(domain.KindRoomTaxRead, "treas")[before:]
	if len(reads) != 2 || reads[0].Outcome != "applied" || reads[1].Outcome != "applied" {
		t.Fatalf("an export of 4 returns in reads of 3: %+v", reads)
	}
	rows, err := csv.NewReader(strings.NewReader(p.Body)).ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("the CSV: %v, %q", err, p.Body)
	}
	recorded := map[string][]string{}
	for _, id := range []string{reads[0].CommandID, reads[1].CommandID} {
		var rec domain.RoomTaxReadRecord
		if err := o.h.Ledger.Get(domain.CollectionRoomTaxReads, id, &rec); err != nil {
			t.Fatal(err)
		}
		recorded[id] = rec.Subjects
	}
	if got := append(slices.Clone(recorded[reads[0].CommandID]), recorded[reads[1].CommandID]...); !slices.Equal(got, want) {
		t.Errorf("the reads name %v, want %v", got, want)
	}
	for i, row := range rows[1:] {
		id, read := row[0]+"_"+row[3], row[len(row)-1]
		if !slices.Contains(recorded[read], id) {
			t.Errorf("row %d (%s) names read %q, which covers %v", i+1, id, read, recorded[read])
		}
	}
}
