package kiosk_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// levySewer runs a project to its levy on the fake ledger: 2,000.00 of
// sewer laterals shared by parcels 2001 and 2002, three yearly
// installments at 5%, the first due October 31, 2026.
func levySewer(t *testing.T, h *harness) (first, second string) {
	t.Helper()
	d, m := domain.MustDate, domain.MustMoney
	ids := []string{"0601-141-2001", "0601-141-2002"}
	const pid = "SA-2026-20"
	steps := []struct {
		at      string
		payload domain.Payload
	}{
		{"2026-06-02T09:00", &domain.AssessmentPreliminary{Project: pid, Number: "2026-50", AdoptedOn: d("2026-06-01"), Purpose: "Sewer lateral replacement",
			Basis: domain.BasisPolicePower, Improvements: []string{"Sewer"}, District: ids, Limits: "141 and 145 W Main Street", Installments: 3, Officer: "Public works director"}},
		{"2026-06-15T09:00", &domain.AssessmentReport{Project: pid, FiledOn: d("2026-06-15"), Documents: []domain.Document{{Name: "plan.txt", Data: []byte("plan")}},
			Costs:     []domain.CostItem{{Improvement: "Sewer", Category: domain.CostDirect, Description: "Laterals", Amount: m("2000.00")}},
			Parcels:   []domain.ReportParcel{{Parcel: ids[0], Units: domain.MustUnits("1")}, {Parcel: ids[1], Units: domain.MustUnits("1")}},
			Benefited: "The laterals serve these two properties only."}},
		{"2026-06-20T09:00", &domain.AssessmentNotice{Project: pid, Method: domain.NoticePosting, Places: []string{"Village hall", "Public library", "Post office"},
			NoticeOn: d("2026-06-20"), MailedOn: d("2026-06-20"), Inspection: "Village hall", HearingOn: d("2026-07-07"), HearingAt: "Village hall, 7:00 pm"}},
		{"2026-07-07T20:00", &domain.AssessmentHearing{Project: pid, HeldOn: d("2026-07-07"), Action: domain.ActionApprove}},
		{"2026-07-14T20:00", &domain.AssessmentFinal{Project: pid, Number: "2026-55", AdoptedOn: d("2026-07-14"), InterestRate: domain.MustRate("0.05"), FirstDueOn: d("2026-10-31")}},
		{"2026-07-16T09:00", &domain.AssessmentPublish{Project: pid, PublishedOn: d("2026-07-16"), Publication: "Belleville Recorder"}},
		{"2026-07-20T09:00", &domain.AssessmentLevy{Project: pid, LeviedOn: d("2026-07-20")}},
	}
	for i, s := range steps {
		at, err := domain.ParseDateTime(s.at)
		if err != nil {
			t.Fatal(err)
		}
		c := domain.Command{V: domain.CommandVersion, ID: fmt.Sprintf("step-%d", i), Kind: s.payload.Kind(), At: at, Node: "hall-clerk", Seq: uint64(1000 + i), Actor: "staff", Payload: s.payload}
		if _, err := h.ledger.Submit(context.Background(), c); err != nil {
			t.Fatalf("%s: %v", c.Kind, err)
		}
	}
	return domain.AssessmentID(pid, ids[0]), domain.AssessmentID(pid, ids[1])
}

// TestAssessmentPaidAtTheKiosk: a parcel's page lists its special
// assessment beside its bills; its page shows the three installments and
// offers the first or the whole; the first is charged by card through the
// checkout and its receipt names the assessment; the confirmation
// reloaded leads to the receipt, never a second charge.
func TestAssessmentPaidAtTheKiosk(t *testing.T) {
	h := newHarness(t)
	id, _ := levySewer(t, h)

	parcel := h.get("/parcels/0601-141-2001")
	h.expect(parcel, http.StatusOK)
	if parcel.count("assessment-row") != 1 || parcel.text("assessment-outstanding") != "$1,000.00" || parcel.text("assessment-status") != "Current" {
		t.Fatalf("parcel lists %d assessments, %q %q", parcel.count("assessment-row"), parcel.text("assessment-outstanding"), parcel.text("assessment-status"))
	}
	a := h.get("/assessments/" + url.PathEscape(id))
	h.expect(a, http.StatusOK)
	if a.count("installment") != 3 || a.count("assessment-pay-installment") != 1 || a.count("assessment-pay-full") != 1 {
		t.Fatalf("installments %d, options %d/%d", a.count("installment"), a.count("assessment-pay-installment"), a.count("assessment-pay-full"))
	}
	if !strings.Contains(a.text("assessment-pay-installment"), "$333.34") || !strings.Contains(a.text("assessment-pay-full"), "$1,000.00") {
		t.Fatalf("options %q / %q", a.text("assessment-pay-installment"), a.text("assessment-pay-full"))
	}
	// Each installment after the first bears a year's interest at 5% on
	// the principal still unpaid, owed from the day after the one before
	// falls due: shown before it is owed, not as $0.00.
	for n, want := range map[string][]string{"2": {"$33.33", "2026"}, "3": {"$16.67", "2027"}} {
		got := strings.Join(strings.Fields(a.doc.Find(`[data-testid="installment"][data-n="`+n+`"] [data-testid="installment-interest"]`).Text()), " ")
		if !strings.HasPrefix(got, want[0]) || !strings.Contains(got, want[1]) {
			t.Fatalf("installment %s interest %q, want %s owed from a day of %s", n, got, want[0], want[1])
		}
	}

	// An option that is not offered is refused, nothing submitted.
	before, _ := h.ledger.counts()
	bad := h.post("/assessments/"+url.PathEscape(id)+"/pay", url.Values{"csrf": {a.csrf()}, "option": {"half"}})
	h.expect(bad, http.StatusConflict)
	if after, _ := h.ledger.counts(); after != before {
		t.Fatal("a refused option submitted a command")
	}

	r := h.post("/assessments/"+url.PathEscape(id)+"/pay", url.Values{"csrf": {a.csrf()}, "option": {"installment"}})
	h.expect(r, http.StatusSeeOther)
	c := h.get(r.location)
	h.expect(c, http.StatusOK)
	if c.text("confirm-amount") != "$333.34" || c.text("remaining-balance") != "$666.66" || c.text("assessment-option") != "Installment 1" {
		t.Fatalf("confirm %q %q %q", c.text("confirm-amount"), c.text("remaining-balance"), c.text("assessment-option"))
	}

	// A form whose amount was changed is refused: nothing charged.
	action, fields := formFields(c, "charge-form")
	tampered := url.Values{}
	for k, v := range fields {
		tampered[k] = v
	}
	tampered.Set("amount", "1.00")
	h.expect(h.post(action, tampered), http.StatusBadRequest)

	done := h.post(action, fields)
	h.expect(done, http.StatusSeeOther)
	rc := h.get(done.location)
	h.expect(rc, http.StatusOK)
	if rc.text("receipt-amount") != "$333.34" || rc.text("receipt-balance") != "$666.66" {
		t.Fatalf("receipt %q %q", rc.text("receipt-amount"), rc.text("receipt-balance"))
	}
	if got := rc.text("receipt-card"); got != "Visa •••• 4242" {
		t.Errorf("receipt card %q, want the simulator's test card", got)
	}
	if !strings.Contains(rc.doc.Text(), "Sewer lateral replacement") {
		t.Fatal("the receipt does not name the assessment")
	}
	again := h.get(r.location)
	h.expect(again, http.StatusSeeOther)
	if got, err := domain.ReadsOf(h.ledger).Assessment(id); err != nil || len(got.Payments) != 1 || got.Payments[0].Tender != domain.Card {
		t.Fatalf("payments %+v %v", got.Payments, err)
	}

	after := h.get("/assessments/" + url.PathEscape(id))
	if st := after.doc.Find(`[data-testid="installment"][data-n="1"]`).AttrOr("data-status", ""); st != domain.InstallmentPaid {
		t.Fatalf("installment 1 is %q after the payment", st)
	}
	if after.text("assessment-outstanding") != "$666.66" || !strings.Contains(after.text("assessment-pay-installment"), "$333.33") {
		t.Fatalf("after: %q %q", after.text("assessment-outstanding"), after.text("assessment-pay-installment"))
	}
}

// TestAssessmentWithoutTerminal: a kiosk without a card terminal shows
// what to pay at the clerk's window, and its checkout charges nothing.
func TestAssessmentWithoutTerminal(t *testing.T) {
	h := newHarness(t, withoutTerminal)
	id, _ := levySewer(t, h)
	a := h.get("/assessments/" + url.PathEscape(id))
	h.expect(a, http.StatusOK)
	if a.count("card-off") != 1 || a.count("assessment-pay-installment") != 0 {
		t.Fatalf("card-off %d, options %d", a.count("card-off"), a.count("assessment-pay-installment"))
	}
	before, _ := h.ledger.counts()
	h.expect(h.post("/assessments/"+url.PathEscape(id)+"/pay", url.Values{"csrf": {h.csrfToken(h.client)}, "option": {"installment"}}), http.StatusServiceUnavailable)
	if after, _ := h.ledger.counts(); after != before {
		t.Fatal("a kiosk without a terminal submitted a command")
	}
}
