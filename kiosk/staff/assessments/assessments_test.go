package assessments_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/assessments"
	"github.com/villagehall/appliance/kiosk/staff/pdfcheck"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// district are the four parcels of the test's project: the third is a
// church (exempt), the fourth a corner lot.
var district = []string{"0601-141-3001", "0601-141-3002", "0601-141-3003", "0601-141-3004"}

// newOffice starts the clerk's office with the module, the district's
// parcels and the parameters seeded, on June 2, 2026.
func newOffice(t *testing.T) *stafftest.Harness {
	t.Helper()
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{assessments.New()}})
	h.Seed()
	for i, id := range district {
		h.Ledger.PutParcel(domain.Parcel{ID: id, Address: fmt.Sprintf("%d Pearl St", 100+2*i), County: domain.Dane, Owner: fmt.Sprintf("Owner %d", i+1)}, fmt.Sprintf("2001%02d", i+1))
	}
	h.SetClock(at(h, "2026-06-02 10:00"))
	return h
}

// signIn signs an existing account in again: a session ends after 30
// idle minutes, and the tests move the clock by days.
func signIn(h *stafftest.Harness, username string) *stafftest.Client {
	h.T.Helper()
	c := h.Client()
	if p := c.Login(username, stafftest.Password); p.Status != http.StatusSeeOther {
		h.T.Fatalf("sign in as %s: %d", username, p.Status)
	}
	c.Get("/staff/")
	return c
}

// later moves the clock and signs the account in again.
func later(h *stafftest.Harness, when, username string) *stafftest.Client {
	h.T.Helper()
	h.SetClock(at(h, when))
	return signIn(h, username)
}

func at(h *stafftest.Harness, s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, h.Loc)
	if err != nil {
		panic(err)
	}
	return t
}

// upload posts a multipart form (the report's, with its plans) with the
// session's CSRF token.
func upload(c *stafftest.Client, path string, form url.Values, file, content string) stafftest.Page {
	c.H.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("csrf", c.CSRF)
	for k, vs := range form {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	if file != "" {
		fw, _ := mw.CreateFormFile("documents", file)
		_, _ = fw.Write([]byte(content))
	}
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.H.Srv.URL+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Do(req)
}

func preliminaryForm() url.Values {
	return url.Values{"project": {"SA-2026-01"}, "number": {"2026-31"}, "adopted_on": {"2026-06-01"}, "purpose": {"Reconstruct Pearl Street"}, "basis": {"benefit"},
		"improvements": {"Sanitary sewer\nStreet"}, "limits": {"Pearl Street from Main to Vine"}, "district": {strings.Join(district, "\n")}, "installments": {"0"}, "officer": {"Village Engineer"}}
}

func reportForm() url.Values {
	f := url.Values{"filed_on": {"2026-06-15"},
		"cost_imp1": {"Sanitary sewer"}, "cost_cat1": {"direct"}, "cost_desc1": {"Sewer main"}, "cost_amt1": {"40,000.00"},
		"cost_imp2": {"Street"}, "cost_cat2": {"direct"}, "cost_desc2": {"Pavement"}, "cost_amt2": {"20,000.00"},
		"cost_imp3": {"Street"}, "cost_cat3": {"direct"}, "cost_desc3": {""}, "cost_amt3": {""}}
	for i, id := range district {
		f.Set("units_"+id, "66")
		f.Set("damages_"+id, "")
		switch i {
		case 2:
			f.Set("exempt_"+id, "1")
		case 3:
			f.Set("units_"+id, "150")
			f.Set("long_"+id, "100")
			f.Set("deduction_"+id, "75")
		}
	}
	return f
}

// TestProjectInTheOffice carries a project through the office's pages:
// the preliminary resolution, the report with its plans, a notice refused
// for its hearing date and then given, the mailed letters as a PDF, the
// hearing's modification, the final resolution, its publication, the
// levy, a payment in cash at the window, and the actual cost lower with a
// refund in the refund queue that the treasurer approves.
func TestProjectInTheOffice(t *testing.T) {
	h := newOffice(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	const project = "/staff/assessments/SA-2026-01"

	admin.Get("/staff/assessments/new")
	bad := preliminaryForm()
	bad.Set("district", district[0]+"\n0601-999-9999")
	if p := admin.Post("/staff/assessments", bad); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("step-error"), "no parcel") {
		t.Fatalf("a district with an unknown parcel: %d %q", p.Status, p.Text("step-error"))
	}
	if p := admin.Post("/staff/assessments", preliminaryForm()); p.Status != http.StatusSeeOther || p.Location != project {
		t.Fatalf("preliminary resolution: %d %q", p.Status, p.Location)
	}
	if p := admin.Get(project); p.Text("project-stage") != "preliminary resolution adopted" || !p.Has("report-form") || p.Has("notice-form") {
		t.Fatalf("project page: %q, report form %v", p.Text("project-stage"), p.Has("report-form"))
	}

	admin = later(h, "2026-06-15 09:00", "boss")
	admin.Get(project)
	if p := upload(admin, project+"/report", reportForm(), "", ""); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("step-error"), "plans and specifications") {
		t.Fatalf("a report without plans: %d %q", p.Status, p.Text("step-error"))
	}
	if p := upload(admin, project+"/report", reportForm(), "plans.pdf", "%PDF-1.4 the plans"); p.Status != http.StatusSeeOther {
		t.Fatalf("report: %d %s", p.Status, p.Text("step-error"))
	}
	p := admin.Get(project)
	if p.Text("estimate-total") != "60000.00" || p.Text("village-"+district[2]) == "0.00" || p.Text("net-"+district[2]) != "0.00" || !p.Has("corner-"+district[3]) {
		t.Fatalf("schedule: estimate %q, church pays %q net %q", p.Text("estimate-total"), p.Text("village-"+district[2]), p.Text("net-"+district[2]))
	}
	docURL, _ := p.Doc.Find(`[data-testid="documents"] a`).Attr("href")
	if d := admin.Get(docURL); d.Status != http.StatusOK || d.Body != "%PDF-1.4 the plans" {
		t.Fatalf("the plans: %d %q", d.Status, d.Body)
	}

	admin = later(h, "2026-06-20 10:00", "boss")
	admin.Get(project)
	notice := url.Values{"method": {"posting"}, "place1": {"Village hall"}, "place2": {"Library"}, "place3": {"Post office"}, "notice_on": {"2026-06-20"}, "mailed_on": {"2026-06-20"},
		"inspection": {"Village hall, weekdays"}, "hearing_on": {"2026-06-25"}, "hearing_at": {"Village hall, 7 pm"}}
	before := h.Ledger.JournalLen()
	if p := admin.Post(project+"/notice", notice); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("step-error"), "10 to 40 days") || p.Doc.Find(`[data-testid="notice-hearing-on"]`).AttrOr("value", "") != "2026-06-25" {
		t.Fatalf("a hearing too soon: %d %q", p.Status, p.Text("step-error"))
	}
	if n := h.Ledger.JournalLen(); n != before+1 {
		t.Fatalf("the refused notice: %d journal entries, want one refused", n-before)
	}
	notice.Set("hearing_on", "2026-07-07")
	if p := admin.Post(project+"/notice", notice); p.Status != http.StatusSeeOther {
		t.Fatalf("notice: %d %q", p.Status, p.Text("step-error"))
	}
	p = admin.Get(project)
	lettersURL, _ := p.Doc.Find(`[data-testid="notice-letters"]`).Attr("href")
	pdf := admin.Get(lettersURL)
	if pdf.Status != http.StatusOK || !strings.HasPrefix(pdf.Body, "%PDF-") || strings.Count(pdf.Body, "/Type /Page\n") != len(district) {
		t.Fatalf("the letters: %d, %d pages", pdf.Status, strings.Count(pdf.Body, "/Type /Page\n"))
	}
	// Every letter reads right: nothing drawn over anything, within the
	// margins (the return address sits in the envelope's window, nearer
	// the left edge than the body), no raw code, every amount with its
	// separators.
	pdfcheck.Assert(t, "notice letters", []byte(pdf.Body), pdfcheck.Layout{Left: 13, Right: 19})
	if again := admin.Get(lettersURL); again.Body != pdf.Body {
		t.Fatal("the same notice renders different letters")
	}

	admin = later(h, "2026-07-07 20:00", "boss")
	admin.Get(project)
	hearing := reportForm()
	hearing.Set("held_on", "2026-07-07")
	hearing.Set("action", "modify")
	hearing.Set("units_"+district[0], "80")
	if p := admin.Post(project+"/hearing", hearing); p.Status != http.StatusSeeOther {
		t.Fatalf("hearing: %d %q", p.Status, p.Text("step-error"))
	}
	if p := admin.Get(project); p.Text("project-stage") != "report approved after the hearing" || !strings.Contains(p.Text("hearings"), "parcels "+district[0]) {
		t.Fatalf("after the hearing: %q %q", p.Text("project-stage"), p.Text("hearings"))
	}

	admin = later(h, "2026-07-14 20:00", "boss")
	admin.Get(project)
	if p := admin.Post(project+"/levy", url.Values{"levied_on": {"2026-07-14"}}); p.Status != http.StatusConflict || !strings.Contains(p.Text("step-error"), "after the final resolution") {
		t.Fatalf("a levy before the final resolution: %d %q", p.Status, p.Text("step-error"))
	}
	if p := admin.Post(project+"/final", url.Values{"number": {"2026-40"}, "adopted_on": {"2026-07-14"}, "installments": {"3"}, "rate": {"5%"}, "first_due_on": {"2026-10-31"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("final: %d %q", p.Status, p.Text("step-error"))
	}
	admin = later(h, "2026-07-16 09:00", "boss")
	admin.Get(project)
	if p := admin.Post(project+"/publish", url.Values{"published_on": {"2026-07-16"}, "publication": {"Belleville Recorder"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("publish: %d %q", p.Status, p.Text("step-error"))
	}
	admin = later(h, "2026-07-20 09:00", "boss")
	if p := admin.Get("/staff/"); !p.Has("alert-assessment-SA-2026-01") {
		t.Error("no alert to levy the published project")
	}
	admin.Get(project)
	if p := admin.Post(project+"/levy", url.Values{"levied_on": {"2026-07-20"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("levy: %d %q", p.Status, p.Text("step-error"))
	}
	p = admin.Get(project)
	if p.Doc.Find(`[data-testid="assessments"] tbody tr`).Length() != 3 || p.Text("appeal-by") != "until 2026-10-14" {
		t.Fatalf("levied: %d assessments, %q", p.Doc.Find(`[data-testid="assessments"] tbody tr`).Length(), p.Text("appeal-by"))
	}
	full := p.Text("amount-" + district[1])

	// The window: cash for the whole of the second parcel's assessment.
	clerk := h.SignedIn("pclerk", domain.RoleClerk)
	id := domain.AssessmentID("SA-2026-01", district[1])
	// Its second installment's year of interest at 5% is shown before it
	// is owed, with the day it is owed from; the statuses read as words.
	if p := admin.Get("/staff/assessment/" + id); !strings.Contains(p.Text("installment-interest-2"), "owed from 2026-11-01") || strings.HasPrefix(p.Text("installment-interest-2"), "0.00") || p.Text("installment-status-1") != "not yet due" {
		t.Fatalf("installments: interest %q, status %q", p.Text("installment-interest-2"), p.Text("installment-status-1"))
	}
	if p := clerk.Get("/staff/assessment/" + id + "/pay"); !p.Has("no-drawer") {
		t.Fatal("the window page without a drawer")
	}
	clerk.Get("/staff/window")
	clerk.Post("/staff/window/open", url.Values{"float": {"50.00"}})
	if p := clerk.Get("/staff/assessment/" + id + "/pay"); p.Doc.Find(`[data-testid="option-full"]`).Length() != 1 || p.Doc.Find(`[data-testid="pay-amount"]`).AttrOr("value", "") == "" {
		t.Fatalf("window form: %s", p.Text("assessment-pay-form"))
	}
	tendered := fmt.Sprintf("%d.00", mustCents(t, full)/100+10)
	p = clerk.Post("/staff/assessment/"+id+"/pay", url.Values{"amount": {full}, "tender": {"cash"}, "tendered": {tendered}, "payer": {"Owner 2"}})
	if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/receipts/") {
		t.Fatalf("window payment: %d %q", p.Status, p.Text("window-error"))
	}
	if rc := clerk.Get(p.Location); rc.Text("receipt-balance") != "0.00" || rc.Text("change-due") == "" {
		t.Fatalf("receipt: balance %q change %q", rc.Text("receipt-balance"), rc.Text("change-due"))
	}
	if p := admin.Get("/staff/assessment/" + id); p.Text("assessment-status") != "paid" {
		t.Fatalf("after the window: %q", p.Text("assessment-status"))
	}

	// The actual cost is lower: every assessment reduced, the one paid in
	// full refunded through the refund queue.
	admin = later(h, "2026-09-15 20:00", "boss")
	admin.Get(project)
	if p := admin.Post(project+"/change", url.Values{"op": {"actual_cost"}, "on": {"2026-09-15"}, "reason": {"Bids came in low"}, "actual_cost": {"40,000.00"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("actual cost: %d %q", p.Status, p.Text("step-error"))
	}
	if p := admin.Get(project); !strings.Contains(p.Text("changes"), "actual_cost") {
		t.Fatalf("changes: %q", p.Text("changes"))
	}
	treas := h.SignedIn("treas", domain.RoleTreasurer)
	rq := treas.Get("/staff/refunds")
	row := rq.Doc.Find(`[data-bill="` + id + `"]`)
	if !strings.Contains(rq.Body, id) {
		t.Fatalf("the refund queue does not list the assessment's refund: %s", rq.Text("refunds"))
	}
	due, _ := h.Ledger.RefundsDue()
	var refund domain.RefundDue
	for _, d := range due {
		if d.BillID == id {
			refund = d
		}
	}
	if !refund.Amount.IsPositive() || refund.RefundBy != domain.MustDate("2026-10-06") {
		t.Fatalf("refund due: %+v (row %d)", refund, row.Length())
	}
	// The refund goes to the parcel's owner at its address: what was paid
	// above the new amount may come from several payments.
	if payee := rq.Text("refund-payee-" + refund.CommandID); !strings.Contains(payee, "Owner 2") || !strings.Contains(payee, "102 Pearl St") {
		t.Fatalf("the refund's payee: %q", payee)
	}
	if p := treas.Post("/staff/refunds/"+refund.CommandID+"/approve", url.Values{"bill": {id}, "confirm": {"yes"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("approve the refund: %d %s", p.Status, p.Text("error"))
	}
	if st, ok, _ := domain.ReadsOf(h.Ledger).RefundState(refund.CommandID); !ok || st.State != domain.RefundApproved || !st.Amount.Equal(refund.Amount) {
		t.Fatalf("refund state: %+v", st)
	}
}

func mustCents(t *testing.T, s string) int64 {
	m, err := domain.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m.Cents()
}

// TestAssessmentPagesByRole: who may take which step, and who may only
// read; a refused step changes nothing.
func TestAssessmentPagesByRole(t *testing.T) {
	h := newOffice(t)
	clerk := h.SignedIn("pclerk", domain.RoleClerk)
	board := h.SignedIn("trustee", domain.RoleBoard)
	auditor := h.SignedIn("audit", domain.RoleAuditor)
	hotel := h.SignedIn("inn", domain.RoleHotelOperator)
	before := h.Ledger.JournalLen()
	if p := clerk.Post("/staff/assessments", preliminaryForm()); p.Status != http.StatusForbidden {
		t.Fatalf("a clerk records a preliminary resolution: %d", p.Status)
	}
	if p := hotel.Get("/staff/assessments"); p.Status != http.StatusForbidden {
		t.Fatalf("a hotel operator reads the projects: %d", p.Status)
	}
	if h.Ledger.JournalLen() != before {
		t.Fatal("a refused request changed the ledger")
	}
	board.Get("/staff/assessments/new")
	if p := board.Post("/staff/assessments", preliminaryForm()); p.Status != http.StatusSeeOther {
		t.Fatalf("the board's preliminary resolution: %d %s", p.Status, p.Text("step-error"))
	}
	if p := board.Get("/staff/assessments/SA-2026-01"); p.Has("report-form") {
		t.Error("a board member is offered the report form")
	}
	if p := clerk.Get("/staff/assessments/SA-2026-01"); !p.Has("report-form") {
		t.Error("the clerk is not offered the report form")
	}
	if p := auditor.Get("/staff/assessments/SA-2026-01"); p.Status != http.StatusOK || p.Has("report-form") || p.Text("project-stage") == "" {
		t.Errorf("the auditor's page: %d", p.Status)
	}
	board = later(h, "2026-06-15 09:00", "trustee")
	if p := upload(board, "/staff/assessments/SA-2026-01/report", reportForm(), "plans.pdf", "x"); p.Status != http.StatusForbidden {
		t.Fatalf("the board files the report: %d", p.Status)
	}
}

// TestSpecialChargesPage: a repair charge refused without its notice; a
// notice refused when it was published too late, then recorded; its
// hearing decided; the charge billed as a village bill.
func TestSpecialChargesPage(t *testing.T) {
	h := newOffice(t)
	clerk := h.SignedIn("pclerk", domain.RoleClerk)
	clerk.Get("/staff/special-charges")
	charge := url.Values{"category": {"sidewalk"}, "account": {"200101"}, "parcel": {district[0]}, "reference": {"WO-114"}, "desc1": {"Replace 12 ft of walk"}, "amount1": {"336.00"}}
	if p := clerk.Post("/staff/special-charges", charge); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("charge-error"), "notice and hearing first") {
		t.Fatalf("a repair without notice: %d %q", p.Status, p.Text("charge-error"))
	}
	inst := url.Values{"category": {"snow_ice"}, "account": {"200101"}, "parcel": {district[0]}, "reference": {"WO-115"}, "desc1": {"Sidewalk cleared"}, "amount1": {"75.00"}, "installments": {"3"}}
	if p := clerk.Post("/staff/special-charges", inst); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("charge-error"), "not payable in installments") {
		t.Fatalf("installments: %d %q", p.Status, p.Text("charge-error"))
	}
	notice := url.Values{"id": {"RN-1"}, "category": {"sidewalk"}, "parcels": {district[0]}, "description": {"Replace broken walk"}, "method": {"publication"}, "newspaper": {"Belleville Recorder"},
		"published_on": {"2026-06-01"}, "mailed_on": {"2026-06-01"}, "hearing_on": {"2026-06-15"}, "hearing_at": {"Village hall, 7 pm"}}
	if p := clerk.Post("/staff/special-charges/notices", notice); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("charge-error"), "20 days before") {
		t.Fatalf("a notice too late: %d %q", p.Status, p.Text("charge-error"))
	}
	notice.Set("hearing_on", "2026-06-22")
	if p := clerk.Post("/staff/special-charges/notices", notice); p.Status != http.StatusSeeOther {
		t.Fatalf("notice: %d %q", p.Status, p.Text("charge-error"))
	}
	clerk = later(h, "2026-06-22 21:00", "pclerk")
	clerk.Get("/staff/special-charges")
	if p := clerk.Post("/staff/special-charges/notices/RN-1/hearing", url.Values{"decision": {"perform"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("hearing: %d %q", p.Status, p.Text("charge-error"))
	}
	charge.Set("notice", "RN-1")
	charge.Del("csrf") // the first session's token
	p := clerk.Post("/staff/special-charges", charge)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("charge: %d %q %s", p.Status, p.Text("charge-error"), p.Text("error"))
	}
	p = clerk.Get(p.Location)
	billID := p.Doc.Find(`[data-testid="charge-billed"] a`).Text()
	b, err := h.Ledger.Bill(billID)
	if err != nil || b.Principal.String() != "336.00" || b.Account != "200101" || !strings.Contains(b.Description, "sidewalk repair") {
		t.Fatalf("the bill %q: %+v %v", billID, b, err)
	}
}

// TestAssessmentAPI: a project driven through the API with a token: each
// step with its command id (a retry answers the first result, a reuse
// with another body is a conflict), a token without the capability
// refused, and a card payment with its receipt.
func TestAssessmentAPI(t *testing.T) {
	h := newOffice(t)
	admin := h.Token("script", domain.RoleAdministrator)
	clerk := h.Token("robot", domain.RoleClerk)
	pre := `{"command_id":"p-1","project":"SA-2026-07","number":"2026-70","adopted_on":"2026-06-01","purpose":"Sewer laterals","basis":"police_power","improvements":["Sewer"],` +
		`"district":["` + district[0] + `","` + district[1] + `"],"limits":"Two lots","installments":2,"officer":"Public works director"}`
	if st, b := h.API("POST", "/api/v1/assessments", clerk, pre); st != http.StatusForbidden {
		t.Fatalf("a clerk's token records a resolution: %d %s", st, b)
	}
	st, b := h.API("POST", "/api/v1/assessments", admin, pre)
	var first assessments.StepResponse
	if err := json.Unmarshal(b, &first); st != http.StatusOK || err != nil || first.Index == 0 {
		t.Fatalf("preliminary: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessments", admin, pre); st != http.StatusOK || !strings.Contains(string(b), fmt.Sprintf(`"index":%d`, first.Index)) {
		t.Fatalf("retry: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessments", admin, strings.Replace(pre, "Two lots", "Three lots", 1)); st != http.StatusConflict {
		t.Fatalf("reused id: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessments", admin, `{"command_id":"p-2","projekt":"x"}`); st != http.StatusBadRequest {
		t.Fatalf("unknown field: %d %s", st, b)
	}
	h.SetClock(at(h, "2026-06-15 09:00"))
	report := `{"command_id":"r-1","filed_on":"2026-06-15","documents":[{"name":"plan.txt","content_type":"text/plain","data":"cGxhbg=="}],` +
		`"costs":[{"improvement":"Sewer","category":"direct","description":"Laterals","amount":"3000.00"}],` +
		`"parcels":[{"parcel":"` + district[0] + `","units":"1","damages":"0.00"},{"parcel":"` + district[1] + `","units":"2","damages":"0.00"}],"benefited":"The laterals serve these lots."}`
	if st, b := h.API("POST", "/api/v1/assessments/SA-2026-08/report", clerk, strings.Replace(report, "r-1", "r-0", 1)); st != http.StatusNotFound {
		t.Fatalf("a report on no project: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessments/SA-2026-07/report", clerk, strings.Replace(strings.Replace(report, "r-1", "r-00", 1), `"filed_on"`, `"project":"SA-2026-99","filed_on"`, 1)); st != http.StatusUnprocessableEntity {
		t.Fatalf("a body about another project: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessments/SA-2026-07/report", clerk, report); st != http.StatusOK {
		t.Fatalf("report: %d %s", st, b)
	}
	waive := func(i int, day string) string {
		return fmt.Sprintf(`{"command_id":"w-%d","op":"waive","parcel":"%s","signed_on":"%s","signer":"Owner %d"}`, i, district[i], day, i+1)
	}
	for i := range 2 {
		if st, b := h.API("POST", "/api/v1/assessments/SA-2026-07/owner", clerk, waive(i, "2026-06-15")); st != http.StatusOK {
			t.Fatalf("waiver %d: %d %s", i, st, b)
		}
	}
	h.SetClock(at(h, "2026-06-17 20:00"))
	for _, s := range []struct{ step, token, body string }{
		{"final", admin, `{"command_id":"f-1","number":"2026-71","adopted_on":"2026-06-17","interest_rate":"0.04","first_due_on":"2026-10-31"}`},
		{"publish", clerk, `{"command_id":"u-1","published_on":"2026-06-17","publication":"Belleville Recorder"}`},
	} {
		if st, b := h.API("POST", "/api/v1/assessments/SA-2026-07/"+s.step, s.token, s.body); st != http.StatusOK {
			t.Fatalf("%s: %d %s", s.step, st, b)
		}
	}
	treas := h.Token("levier", domain.RoleTreasurer)
	if st, b := h.API("POST", "/api/v1/assessments/SA-2026-07/levy", clerk, `{"command_id":"l-1","levied_on":"2026-06-17"}`); st != http.StatusForbidden {
		t.Fatalf("a clerk's token levies: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessments/SA-2026-07/levy", treas, `{"command_id":"l-1","levied_on":"2026-06-17"}`); st != http.StatusOK {
		t.Fatalf("levy: %d %s", st, b)
	}
	st, b = h.API("GET", "/api/v1/assessments/SA-2026-07", clerk, "")
	var pr assessments.ProjectResponse
	if err := json.Unmarshal(b, &pr); st != http.StatusOK || err != nil || len(pr.Assessments) != 2 || pr.Assessments[1].Assessment.Amount.String() != "2000.00" || !pr.Project.Final.Waived {
		t.Fatalf("project: %d %s", st, b)
	}
	id := domain.AssessmentID("SA-2026-07", district[1])
	pay := `{"command_id":"pay-1","assessment_id":"` + id + `","option":"installment","amount":"1000.00","tender":"card","reference":"APPROVAL-7"}`
	st, b = h.API("POST", "/api/v1/assessment-payments", clerk, pay)
	var paid assessments.StepResponse
	if err := json.Unmarshal(b, &paid); st != http.StatusOK || err != nil || paid.Receipt == nil || paid.Receipt.Balance.String() != "1000.00" {
		t.Fatalf("payment: %d %s", st, b)
	}
	if st, b := h.API("POST", "/api/v1/assessment-payments", clerk, strings.Replace(pay, `"tender":"card"`, `"tender":"cash"`, 1)); st != http.StatusConflict {
		t.Fatalf("cash without a drawer (or a reused id): %d %s", st, b)
	}
	if st, b := h.API("GET", "/api/v1/assessment/"+id+"?as_of=2026-06-17", clerk, ""); st != http.StatusOK || !strings.Contains(string(b), `"outstanding":"1000.00"`) {
		t.Fatalf("assessment: %d %s", st, b)
	}
	hotel := h.Token("inn", domain.RoleHotelOperator)
	if st, _ := h.API("GET", "/api/v1/assessments", hotel, ""); st != http.StatusForbidden {
		t.Fatalf("a hotel operator's token reads the projects: %d", st)
	}
}

// levy records a small project's steps on the ledger directly, up to its
// levy on July 20, 2026: two parcels, 3,000.00 of sewer by units 1 and 2,
// three installments at 5%, the first due October 31, 2026.
func levy(t *testing.T, h *stafftest.Harness) {
	t.Helper()
	h.SetClock(at(h, "2026-07-20 09:00"))
	ids := district[:2]
	h.Submit("boss", &domain.AssessmentPreliminary{Project: "SA-2026-05", Number: "2026-50", AdoptedOn: domain.MustDate("2026-06-01"), Purpose: "Sewer laterals", Basis: domain.BasisPolicePower,
		Improvements: []string{"Sewer"}, District: ids, Limits: "Two lots", Installments: 3, Officer: "Public works director"})
	h.Submit("boss", &domain.AssessmentReport{Project: "SA-2026-05", FiledOn: domain.MustDate("2026-06-15"), Documents: []domain.Document{{Name: "plan.txt", Data: []byte("plan")}},
		Costs:     []domain.CostItem{{Improvement: "Sewer", Category: domain.CostDirect, Description: "Laterals", Amount: domain.MustMoney("3000.00")}},
		Parcels:   []domain.ReportParcel{{Parcel: ids[0], Units: domain.MustUnits("1")}, {Parcel: ids[1], Units: domain.MustUnits("2")}},
		Benefited: "The laterals serve these lots."})
	h.Submit("boss", &domain.AssessmentNotice{Project: "SA-2026-05", Method: domain.NoticePublication, Newspaper: "Belleville Recorder", NoticeOn: domain.MustDate("2026-06-20"), MailedOn: domain.MustDate("2026-06-20"),
		Inspection: "Village hall", HearingOn: domain.MustDate("2026-07-07"), HearingAt: "Village hall, 7 pm"})
	h.Submit("boss", &domain.AssessmentHearing{Project: "SA-2026-05", HeldOn: domain.MustDate("2026-07-07"), Action: domain.ActionApprove})
	h.Submit("boss", &domain.AssessmentFinal{Project: "SA-2026-05", Number: "2026-55", AdoptedOn: domain.MustDate("2026-07-14"), InterestRate: domain.MustRate("0.05"), FirstDueOn: domain.MustDate("2026-10-31")})
	h.Submit("boss", &domain.AssessmentPublish{Project: "SA-2026-05", PublishedOn: domain.MustDate("2026-07-16"), Publication: "Belleville Recorder"})
	h.Submit("boss", &domain.AssessmentLevy{Project: "SA-2026-05", LeviedOn: domain.MustDate("2026-07-20")})
}

// TestInstallmentsInTheNovemberRun (§5.14(12)): the treasurer's November
// run lists the first installments left unpaid with the bills, certifies
// them with the roll, and the county's CSV carries them as assessment
// lines: bill_id the installment, account empty, penalty 0.00.
func TestInstallmentsInTheNovemberRun(t *testing.T) {
	h := newOffice(t)
	levy(t, h)
	h.SetClock(at(h, "2026-08-10 10:00"))
	first := domain.AssessmentID("SA-2026-05", district[0])
	second := domain.AssessmentID("SA-2026-05", district[1])
	h.Submit("kiosk", &domain.PayAssessment{AssessmentID: first, Option: domain.PayInstallment, Amount: domain.MustMoney("333.34"), Tender: domain.Card, Reference: "SIM-1"})

	h.Token("treas", domain.RoleTreasurer) // the account
	treas := later(h, "2026-11-02 09:00", "treas")
	treas.Get("/staff/november?year=2026")
	if p := treas.PostConfirmed("/staff/november", url.Values{"year": {"2026"}, "step": {"penalties"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("penalties: %d", p.Status)
	}
	treas = later(h, "2026-11-16 09:00", "treas")
	p := treas.Get("/staff/november?year=2026")
	key := second + "#1"
	row := p.Doc.Find(`[data-testid="roll"] tr[data-bill="` + key + `"]`)
	if row.Length() != 1 || !strings.Contains(row.Text(), "666.67") || p.Doc.Find(`[data-testid="roll"] tr[data-bill="`+first+`#1"]`).Length() != 0 {
		t.Fatalf("the roll preview: %q", p.Text("roll"))
	}
	if href, _ := row.Find("a").Attr("href"); href != "/staff/assessment/"+second {
		t.Errorf("the line links to %q", href)
	}
	if p := treas.PostConfirmed("/staff/november", url.Values{"year": {"2026"}, "step": {"certify"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("certify: %d %s", p.Status, p.Text("error"))
	}
	req, _ := http.NewRequest(http.MethodGet, h.Srv.URL+"/staff/november/2026/dane.csv", nil)
	csv := treas.Do(req).Body
	want := "Dane,0601-141-3002,102 Pearl St,Owner 2,," + key + ",\"Special assessment SA-2026-05 (Sewer laterals), installment 1 of 3, delinquent\",2026-07-20,666.67,0.00,0.00,666.67,2026-11-16,"
	if !strings.Contains(csv, want) {
		t.Fatalf("the county CSV lacks the assessment line %q:\n%s", want, csv)
	}
	a, err := domain.ReadsOf(h.Ledger).Assessment(second)
	if err != nil || a.Installments[0].TaxRollYear != 2026 {
		t.Fatalf("the installment after certification: %+v %v", a.Installments[0], err)
	}
}

// TestStatusLetterReadsAssessments (§5.11): the status letter of a parcel
// states its outstanding and deferred special assessments and the
// contemplated improvements of its district from the ledger, and the
// clerk's answers on deferred assessments and contemplated improvements
// come filled in.
func TestStatusLetterReadsAssessments(t *testing.T) {
	h := newOffice(t)
	levy(t, h)
	h.SetClock(at(h, "2026-08-03 09:00"))
	h.Submit("boss", &domain.AssessmentPreliminary{Project: "SA-2027-01", Number: "2026-60", AdoptedOn: domain.MustDate("2026-08-03"), Purpose: "Pearl Street lighting", Basis: domain.BasisBenefit,
		Improvements: []string{"Lights"}, District: district, Limits: "Pearl Street", Installments: 1, Officer: "Administrator"})
	res := h.Submit("kiosk", &domain.RequestStatusLetter{Parcel: district[1], Requester: "Sugar River Title", Contact: "closings@example.com", Fee: domain.MustMoney("45.00"), Tender: domain.Card, Reference: "SIM-2"})
	clerk := h.SignedIn("pclerk", domain.RoleClerk)
	p := clerk.Get("/staff/letters/" + res.Receipt.Number)
	facts := p.Text("letter-facts")
	if !strings.Contains(facts, "Special assessment SA-2026-05") || !strings.Contains(facts, "2000.00") || !strings.Contains(facts, "Project SA-2027-01") {
		t.Fatalf("the letter's facts: %q", facts)
	}
	deferred := p.Doc.Find(`[data-testid="letter-deferred"]`).Text()
	improvements := p.Doc.Find(`[data-testid="letter-improvements"]`).Text()
	if !strings.Contains(deferred, "3 installments not yet due") || !strings.Contains(improvements, "Pearl Street lighting") {
		t.Fatalf("prefilled answers: deferred %q, improvements %q", deferred, improvements)
	}
}
