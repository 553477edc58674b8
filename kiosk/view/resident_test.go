package view_test

import (
	"testing"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// TestResidentPagesSpeakBothLanguages renders every page of the status
// letter, property tax and purchasing flows in both languages: a missing
// message would print as "[key]" and fail render.
func TestResidentPagesSpeakBothLanguages(t *testing.T) {
	tb := domain.TaxBill{ID: "T2026-0601-141-2001", Parcel: "0601-141-2001", County: domain.Dane, TaxYear: 2026, GeneralTax: m("3001.25"),
		SpecialItems: []domain.TaxItem{{Description: "Sidewalk", Amount: m("231.48"), BillID: "B-1"}}}
	fig, err := tb.Figures(domain.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	pp := domain.PublicPurchase{ID: "PO-1", Date: d("2026-09-14"), Description: "Salt", Vendor: "Compass", Amount: m("9840.00"), Category: domain.CategorySupplies,
		Bids: []domain.Bid{{Vendor: "Compass", Amount: m("9840.00")}}}
	em := pp
	em.Emergency, em.Invoice, em.Explanation = true, "INV", "Broke."
	for _, lang := range i18n.Langs() {
		p := page(t, lang)
		pages := map[string]templ.Component{
			"letter": view.LetterPage(p, view.Letter{Action: "/letters", Fee: m("45.00"), ReadyBy: d("2026-10-22"),
				Problem: &view.Problem{Message: "x"}, Fields: map[string]*view.Problem{"name": {Message: "x"}},
				Choices: []view.ParcelChoice{{ID: "a", Address: "b"}}}),
			"letter-confirm": view.LetterConfirmPage(p, view.LetterConfirm{Parcel: "a", Fee: m("45.00"), ReceivedOn: d("2026-10-26"), ReadyBy: d("2026-10-28"), Today: d("2026-10-23"), Simulator: true, Outcomes: []string{"approve"}}),
			"tax-search":     view.TaxSearchPage(p, view.TaxSearch{Choices: []view.ParcelChoice{{ID: "a", Address: "b"}}, Problem: &view.Problem{Message: "x"}}),
			"tax-parcel":     view.TaxParcelPage(p, view.TaxParcel{Parcel: "a", County: "Dane", Bills: []view.TaxRow{{ID: "T", TaxYear: 2026, Status: domain.TaxFirstPaid}}}),
			"tax-bill": view.TaxBillPage(p, view.TaxBill{ID: tb.ID, TaxYear: 2026, County: "Dane", GeneralTax: tb.GeneralTax, SpecialItems: tb.SpecialItems, Figures: fig,
				Collects: true, Options: []view.TaxOption{{Option: domain.TaxFull, Amount: fig.Total}, {Option: domain.TaxFirstInstallment, Amount: fig.FirstInstallment}}}),
			"tax-confirm": view.TaxConfirmPage(p, view.TaxConfirm{Option: domain.TaxFirstInstallment, Amount: m("1.00"), Remaining: m("2.00"), SecondDue: d("2027-07-31"), County: "Green"}),
			"purchases":   view.PurchasesPage(p, view.Purchases{Items: []view.PurchaseRow{{PublicPurchase: pp}, {PublicPurchase: em}}, Tabs: []view.Tab{{Key: "all", Label: "All", Current: true}}}),
			"purchase":    view.PurchasePage(p, view.Purchase{PublicPurchase: pp, LowBid: 0}),
			"emergency":   view.PurchasePage(p, view.Purchase{PublicPurchase: em, LowBid: -1}),
			"letter-receipt": view.ReceiptPage(p, view.Receipt{Number: "hall-kiosk-000001", Kind: domain.KindRequestStatusLetter, Status: domain.Posted,
				ReadyBy: d("2026-10-22"), ReceivedOn: d("2026-10-20"), Tender: domain.Card, Requester: "Dana"}),
			"tax-receipt": view.ReceiptPage(p, view.Receipt{Number: "hall-kiosk-000002", Kind: domain.KindPayPropertyTax, Status: domain.Posted, TaxYear: 2026, County: "Dane",
				Option: domain.TaxFull, Tender: domain.Card}),
			"start": view.StartPage(p, view.Start{FindURL: "/find", Menu: []view.Menu{{Key: "start.tax", URL: "/property-tax", Test: "start-tax"}, {Key: "start.letter", URL: "/letters", Test: "l"}, {Key: "start.purchases", URL: "/purchases", Test: "p"}}}),
		}
		for name, c := range pages {
			t.Run(string(lang)+"/"+name, func(t *testing.T) {
				doc := render(t, c)
				if got, _ := doc.Find("html").Attr("lang"); got != string(lang) {
					t.Errorf("lang %q", got)
				}
			})
		}
	}
}
