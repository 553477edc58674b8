package records

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// memRecords is a ledger's records in memory, by collection and id.
type memRecords map[string]map[string]any

func (m memRecords) Get(collection, id string, v any) error {
	x, ok := m[collection][id]
	if !ok {
		return domain.Errorf(domain.ENOTFOUND, "", "no %s %q", collection, id)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (m memRecords) List(collection, prefix string, fn func(string, []byte) error) error {
	var ids []string
	for id := range m[collection] {
		if strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		b, err := json.Marshal(m[collection][id])
		if err != nil {
			return err
		}
		if err := fn(id, b); err != nil {
			return err
		}
	}
	return nil
}

func (m memRecords) Keys(string, string) ([]string, error) { return nil, nil }

// rendering is a Pages that renders into the response, in English.
type rendering struct{ t *testing.T }

func (p rendering) Page(*http.Request, string, ...string) view.Page {
	c, err := i18n.Load()
	if err != nil {
		p.t.Fatal(err)
	}
	return view.Page{Printer: c.Printer(i18n.Langs()[0]), Title: "Test"}
}

func (p rendering) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	w.WriteHeader(status)
	if err := c.Render(r.Context(), w); err != nil {
		p.t.Fatal(err)
	}
}

func (p rendering) Fail(_ http.ResponseWriter, _ *http.Request, err error) {
	p.t.Fatalf("failed: %v", err)
}

// purchaseLedger holds three awarded orders: one certified and paid in
// part by check, with the board's vote; one whose funds the treasurer
// refused; one of an earlier release, received and invoiced, its board
// approval in free text, no check paid.
func purchaseLedger() memRecords {
	m, d := domain.MustMoney, domain.MustDate
	bids := []domain.OrderBid{{Vendor: "Morton Salt", Amount: m("4000.00")}, {Vendor: "Compass", Amount: m("4100.00")}, {Vendor: "Cargill", Amount: m("4200.00")}}
	certified := &domain.Act{By: "treas"}
	paid := domain.Order{ID: "PO-2027-0001", Year: 2027, Line: "100-53300", Description: "Road salt", Category: domain.CategorySupplies, Bids: bids, Status: domain.OrderIssued,
		Award: &domain.Award{Vendor: "Morton Salt", Amount: m("4000.00"), On: d("2027-03-03"), Basis: domain.AwardMostAdvantageous,
			Vote: &domain.BudgetVoteRecord{On: d("2027-03-02"), Present: 6, Ayes: 5, Nays: 1, Board: 7, Required: 4, Passed: true}},
		Certified: certified, Receipts: []domain.Delivery{{On: d("2027-03-10"), Conforms: true, Invoice: "M-1", Invoiced: m("2500.00")}}}
	refused := domain.Order{ID: "PO-2027-0002", Year: 2027, Line: "100-53300", Description: "Plow truck", Category: domain.CategoryEquipment, Bids: bids, Status: domain.OrderAwarded,
		Award:   &domain.Award{Vendor: "Morton Salt", Amount: m("36900.00"), On: d("2027-03-03"), Basis: domain.AwardMostAdvantageous, Vote: paid.Award.Vote},
		Refused: &domain.Act{By: "treas", Reason: "funds not available"}}
	older := domain.Order{ID: "PO-2026-0004", Year: 2026, Line: "100-53300", Description: "Gravel", Category: domain.CategoryMaterials, Bids: bids, Status: domain.OrderReceived,
		Award:     &domain.Award{Vendor: "Compass", Amount: m("4100.00"), On: d("2026-06-03"), Basis: domain.AwardMostAdvantageous, BoardApproval: "motion of June 2, item 4", BoardApprovedOn: d("2026-06-02")},
		Certified: certified, Receipts: []domain.Delivery{{On: d("2026-06-10"), Conforms: true, Invoice: "C-9", Invoiced: m("4100.00"), Final: true}}}
	return memRecords{
		domain.CollectionOrders: {paid.ID: paid, refused.ID: refused, older.ID: older},
		domain.CollectionClaims: {
			"CL-2027-0001": domain.Claim{ID: "CL-2027-0001", Year: 2027, Order: paid.ID, Amount: m("2500.00"), Status: domain.ClaimPaid, Check: "00005001"},
			"CL-2027-0002": domain.Claim{ID: "CL-2027-0002", Year: 2027, Order: paid.ID, Amount: m("1500.00"), Status: domain.ClaimApproved},
			"CL-2026-0009": domain.Claim{ID: "CL-2026-0009", Year: 2026, Order: older.ID, Amount: m("4100.00"), Status: domain.ClaimApproved, Voided: []string{"00004001"}},
		},
	}
}

func show(t *testing.T, serve func(*Records, http.ResponseWriter, *http.Request), path, id string) *goquery.Document {
	t.Helper()
	rec := New(rendering{t}, nil, domain.ReadsOf(purchaseLedger()), func() domain.Date { return domain.MustDate("2027-04-01") })
	r := httptest.NewRequest("GET", path, nil)
	r.SetPathValue("id", id)
	w := httptest.NewRecorder()
	serve(rec, w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("%s: %d", path, w.Code)
	}
	doc, err := goquery.NewDocumentFromReader(w.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func text(doc *goquery.Document, testid string) string {
	return strings.Join(strings.Fields(doc.Find(`[data-testid="`+testid+`"]`).Text()), " ")
}

// TestPurchaseRecordSaysWhatWasPaid (§5.12(5), §5.12(6)): the public
// record of an order says "paid" only for what checks paid on its claims,
// and "awarded" only once the treasurer certified the funds; a refused
// certification says so; the board's approval is its meeting and vote, or
// an earlier award's free text.
func TestPurchaseRecordSaysWhatWasPaid(t *testing.T) {
	for _, tc := range []struct {
		name, id, standing, paid, board string
		refusal                         string
	}{
		{"§5.12(5)/paid in part by check", "PO-2027-0001", "paid_in_part", "Paid by check: $2,500.00",
			"Approved by the Village Board at its meeting of", ""},
		{"§5.12(6)/funds refused", "PO-2027-0002", "funds_refused", "", "Approved by the Village Board at its meeting of", "funds not available"},
		{"§5.12(5)/invoiced, claim allowed, check voided: not paid", "PO-2026-0004", "awarded", "", "Approved by the Village Board: motion of June 2, item 4", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := show(t, (*Records).ShowPurchasePage, "/purchases/"+tc.id, tc.id)
			if got, _ := doc.Find(`[data-testid="purchase-standing"]`).Attr("data-standing"); got != tc.standing {
				t.Errorf("standing %q, want %q", got, tc.standing)
			}
			if got := text(doc, "purchase-paid"); got != tc.paid {
				t.Errorf("paid %q, want %q", got, tc.paid)
			}
			if got := text(doc, "purchase-board"); !strings.HasPrefix(got, tc.board) {
				t.Errorf("board %q, want %q…", got, tc.board)
			}
			if got := text(doc, "purchase-refusal"); !strings.Contains(got, tc.refusal) || (tc.refusal == "") != (got == "") {
				t.Errorf("refusal %q, want %q", got, tc.refusal)
			}
			if strings.Contains(doc.Text(), "Amount paid") {
				t.Error("the award's amount is called paid")
			}
		})
	}
	doc := show(t, (*Records).ShowPurchasePage, "/purchases/PO-2027-0001", "PO-2027-0001")
	if got := text(doc, "purchase-board"); got != "Approved by the Village Board at its meeting of March 2, 2027: 5 ayes, 1 nays, 6 members present." {
		t.Errorf("the vote: %q", got)
	}
	if got := text(doc, "purchase-standing"); got != "Paid in part" {
		t.Errorf("standing text %q", got)
	}
	list := show(t, (*Records).ShowPurchasesPage, "/purchases", "")
	var standings []string
	list.Find(`[data-testid="purchase-row"] [data-testid="purchase-standing"]`).Each(func(_ int, s *goquery.Selection) {
		v, _ := s.Attr("data-standing")
		standings = append(standings, v)
	})
	if want := []string{"paid_in_part", "funds_refused", "awarded"}; !slices.Equal(standings, want) {
		t.Errorf("the list's standings %v, want %v", standings, want)
	}
}
