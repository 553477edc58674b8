package kiosk_test

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// seedAssessmentReport records, with the domain's own rules, a project on
// the fixture's four parcels whose report is filed, and a second project
// whose report is not.
func seedAssessmentReport(t *testing.T, l *fakeLedger) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	tx := &fakeTx{l: l, bills: map[string]domain.Bill{}, receipts: map[string]domain.Receipt{}, records: map[string][]byte{}, index: map[string]bool{}}
	n := 0
	do := func(at string, p domain.Payload) {
		t.Helper()
		n++
		dt, _ := domain.ParseDateTime(at)
		c := domain.Command{ID: fmt.Sprintf("sa-%d", n), Kind: p.Kind(), At: dt, Node: "hall-clerk", Seq: uint64(n), Actor: "clerk", Payload: p}
		if _, err := domain.Apply(tx, c, uint64(2000+n), domain.DefaultParams()); err != nil {
			t.Fatalf("%s: %v", p.Kind(), err)
		}
	}
	district := []string{"0601-141-2001", "0601-141-2002", "0601-141-2003", "0601-141-2005"}
	for _, id := range []string{"SA-2026-1", "SA-2026-2"} {
		do("2026-06-01T19:00", &domain.AssessmentPreliminary{Project: id, Number: "2026-31", AdoptedOn: domain.MustDate("2026-06-01"), Purpose: "Sidewalk on W Main St " + id,
			Basis: domain.BasisBenefit, Improvements: []string{"Sidewalk"}, District: district, Limits: "Both sides of W Main St from Vine St to Pearl St", Officer: "Village Engineer"})
	}
	var parcels []domain.ReportParcel
	for i, id := range district {
		rp := domain.ReportParcel{Parcel: id, Units: domain.MustUnits("50"), Damages: domain.Cents(0)}
		if i == 3 {
			rp.Exempt = true
		}
		parcels = append(parcels, rp)
	}
	do("2026-06-15T10:00", &domain.AssessmentReport{Project: "SA-2026-1", FiledOn: domain.MustDate("2026-06-15"),
		Documents: []domain.Document{{Name: "plans.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.4 plans")}},
		Costs:     []domain.CostItem{{Improvement: "Sidewalk", Category: domain.CostDirect, Description: "Concrete sidewalk, 5 feet", Amount: domain.MustMoney("12000.00")}},
		Parcels:   parcels})
	maps.Copy(l.records, tx.records)
	for k, v := range tx.index {
		l.index[k] = v
	}
}

// TestAssessmentReportOpenToInspection: a filed report is listed and read
// at the kiosk with the estimate and every parcel's proposed assessment
// (the exempt one's share paid by the village); a project whose report is
// not filed is neither listed nor readable.
func TestAssessmentReportOpenToInspection(t *testing.T) {
	h := newHarness(t)
	seedAssessmentReport(t, h.ledger)
	list := h.get("/assessment-reports")
	h.expect(list, http.StatusOK)
	if list.count("assessment-report-row") != 1 {
		t.Fatalf("%d reports listed", list.count("assessment-report-row"))
	}
	p := h.get("/assessment-reports/SA-2026-1")
	h.expect(p, http.StatusOK)
	if p.text("assessment-report-estimate") != "$12,000.00" || p.text("assessment-report-net") != "$9,000.00" {
		t.Errorf("estimate %q, assessed %q (three of four equal shares)", p.text("assessment-report-estimate"), p.text("assessment-report-net"))
	}
	if p.count("assessment-report-parcel") != 4 || !strings.Contains(p.text("assessment-report-parcels"), "141 W Main St") {
		t.Errorf("parcels: %q", p.text("assessment-report-parcels"))
	}
	row := p.doc.Find(`[data-parcel="0601-141-2001"]`).Text()
	if !strings.Contains(row, "$3,000.00") {
		t.Errorf("the first parcel's row: %q", row)
	}
	if es := h.get("/assessment-reports/SA-2026-1?lang=es"); !strings.Contains(es.text("assessment-report-parcels"), "exenta") {
		t.Errorf("Spanish: %q", es.text("assessment-report-parcels"))
	}
	h.expect(h.get("/assessment-reports/SA-2026-2"), http.StatusNotFound)
	h.expect(h.get("/assessment-reports/nope"), http.StatusNotFound)
}
