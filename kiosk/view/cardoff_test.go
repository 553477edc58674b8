package view_test

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// TestCardOff renders the notice of a kiosk without a card terminal, on a
// bill, on a page of its own and on the start screen, in both languages:
// no pay button, the amount, what to bring, and every word from the
// catalogue.
func TestCardOff(t *testing.T) {
	c := &view.CardOff{Amounts: []view.Due{{Label: "Amount due today", Amount: m("194.05")}}, Bring: []string{"the bill number", "cash"}}
	for _, tc := range []struct {
		lang  i18n.Lang
		title string
	}{
		{i18n.English, "Card payments are not available at this kiosk today."},
		{i18n.Spanish, "Hoy no se aceptan pagos con tarjeta en este quiosco."},
	} {
		b := pastDue()
		b.CardOff = c
		doc := render(t, view.BillPage(page(t, tc.lang), b))
		if doc.Find(`[data-testid="pay-button"]`).Length() != 0 {
			t.Errorf("%s: a pay button beside the notice", tc.lang)
		}
		if text(doc, "card-off-title") != tc.title || text(doc, "card-off-amount") != "$194.05" || doc.Find(`[data-testid="card-off-bring"] li`).Length() != 2 {
			t.Errorf("%s: notice %q", tc.lang, text(doc, "card-off"))
		}

		own := view.CardOff{Amounts: c.Amounts, Bring: c.Bring, BackURL: "/bills/B-2026-0101", BackLabel: "Back"}
		doc = render(t, view.CardOffPage(page(t, tc.lang), own))
		if text(doc, "card-off-title") != tc.title || text(doc, "card-off-nothing") == "" || doc.Find(`h1`).Length() != 1 {
			t.Errorf("%s: page %q", tc.lang, text(doc, "card-off"))
		}
		if href, _ := doc.Find(`[data-testid="card-off-back"]`).Attr("href"); href != "/bills/B-2026-0101" {
			t.Errorf("%s: back %q", tc.lang, href)
		}

		doc = render(t, view.StartPage(page(t, tc.lang), view.Start{FindURL: "/find", CardOff: true}))
		if !strings.HasPrefix(text(doc, "card-off"), tc.title) {
			t.Errorf("%s: start notice %q", tc.lang, text(doc, "card-off"))
		}
	}
	if doc := render(t, view.StartPage(page(t, i18n.English), view.Start{FindURL: "/find"})); doc.Find(`[data-testid="card-off"]`).Length() != 0 {
		t.Error("a start screen with a terminal says it takes no cards")
	}
}
