package window_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestWindowFindsBill looks bills up at the window the ways residents
// name them: a bill number with spaces or without
// its "B-", and the owner's name, which only the clerk's office searches.
func TestWindowFindsBill(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"100.00"}})
	for _, q := range []string{"B 2026 0101", "2026-0101", "b20260101", "Ana Gutierrez", "gutiérrez"} {
		p := c.Get("/staff/window?bill=" + url.QueryEscape(q))
		if !p.Has("window-bill-card") || p.Doc.Find(`[data-testid="pay-amount"]`).AttrOr("value", "") != "142.37" {
			t.Errorf("%q: no bill B-2026-0101 at the window (%s)", q, p.Text("window-error"))
		}
	}
	p := c.Get("/staff/window?bill=" + url.QueryEscape("Nobody Known"))
	if p.Has("window-bill-card") || !strings.Contains(p.Text("window-error"), "no bill") {
		t.Errorf("an unknown name: bill card %v, error %q", p.Has("window-bill-card"), p.Text("window-error"))
	}
}

// TestWindowLookupByAddressWords: what is not a bill number or an owner
// lists the bills of the parcels whose address has its words, whole or
// their start.
func TestWindowLookupByAddressWords(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Post("/staff/window/open", url.Values{"float": {"100.00"}})
	for _, q := range []string{"10 main street", "10 Main"} {
		p := c.Get("/staff/window?bill=" + url.QueryEscape(q))
		if !strings.Contains(p.Body, "B-2026-0101") {
			t.Errorf("%q: B-2026-0101 of 10 Main St is not offered (%s)", q, p.Text("window-error"))
		}
	}
}
