package main

import (
	"strings"
	"testing"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestMailingInBrowser: a clerk records a parcel owner's mailing address
// on the parcel's page (a bad ZIP code is shown beside the form first),
// then an account's own on its mailing page; each page shows where mail
// goes; the mailing page's forms make a batch of bills and a batch of
// notices, served as PDFs, the bills addressed as recorded. Each page,
// the form with its error too, passes axe.
func TestMailingInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-10-20T10:00", [4]string{"mclerk", "Mia Clerk", "clerk", ""})
	b.as("mclerk")

	// Demo parcel 0601-141-2005, 305 Hale St, Luis Ramirez.
	b.open("/staff/parcels/0601-141-2005", "mailing-form")
	if to := b.text("mail-to"); !strings.Contains(to, "305 Hale St") {
		t.Fatalf("before an address is recorded, mail goes to %q", to)
	}
	browsertest.Axe(t, b.ctx, "a parcel's page")
	b.do("a mailing address with a bad ZIP code",
		set(`[data-testid="mailing-name"]`, "Luis Ramirez"),
		set(`[data-testid="mailing-street"]`, "PO Box 77"),
		set(`[data-testid="mailing-city"]`, "New Glarus"),
		set(`[data-testid="mailing-state"]`, "wi"),
		set(`[data-testid="mailing-zip"]`, "5357"),
		submit("mailing-save", "mailing-error"),
	)
	if msg := b.text("mailing-error"); !strings.Contains(msg, "ZIP code") {
		t.Fatalf("the error says %q", msg)
	}
	browsertest.Axe(t, b.ctx, "a parcel's mailing address refused")
	b.do("the ZIP code corrected", set(`[data-testid="mailing-zip"]`, "53574"), submit("mailing-save", "mailing-saved"))
	if to := b.text("mail-to"); !strings.Contains(to, "PO Box 77") || !strings.Contains(to, "New Glarus, WI 53574") {
		t.Fatalf("after the address is recorded, mail goes to %q", to)
	}
	b.shot("mailing-1-parcel")

	// Demo account 100101, Ana Gutierrez at 141 W Main St.
	b.open("/staff/accounts/100101/mailing", "mailing-form")
	browsertest.Axe(t, b.ctx, "an account's mailing address")
	b.do("the account's mailing address",
		set(`[data-testid="mailing-name"]`, "Ana Gutierrez"),
		set(`[data-testid="mailing-street"]`, "1200 Elm Ridge Rd"),
		set(`[data-testid="mailing-city"]`, "Verona"),
		set(`[data-testid="mailing-state"]`, "WI"),
		set(`[data-testid="mailing-zip"]`, "53593"),
		submit("mailing-save", "mailing-saved"),
	)
	if to := b.text("mail-to"); !strings.Contains(to, "1200 Elm Ridge Rd") {
		t.Fatalf("the account's mail goes to %q", to)
	}
	browsertest.Axe(t, b.ctx, "an account's mailing address recorded")
	b.shot("mailing-2-account")

	b.open("/staff/mailing", "batch-bills")
	browsertest.Axe(t, b.ctx, "the mailing page")
	b.shot("mailing-3-page")
	// Each form's own fields, as the browser would send them.
	fetchForm := func(form string) string {
		return b.eval(`(() => { const f = document.querySelector('[data-testid="` + form + `"]');
			return fetch(f.action + '?' + new URLSearchParams(new FormData(f))).then(r => r.arrayBuffer().then(a => {
				let s = ''; for (const c of new Uint8Array(a)) s += String.fromCharCode(c);
				return r.status + ' ' + r.headers.get('content-type') + '\n' + s })) })()`)
	}
	bills := fetchForm("batch-bills")
	if !strings.HasPrefix(bills, "200 application/pdf\n%PDF-") {
		t.Fatalf("the batch of bills: %.80q", bills)
	}
	first, err := b.m.Node.Bill("B-2026-0101")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1200 Elm Ridge Rd", "Verona, WI 53593", "PO Box 77", "New Glarus, WI 53574", first.Shown()} {
		if !strings.Contains(bills, want) {
			t.Errorf("the batch of bills does not say %q", want)
		}
	}
	b.do("the notices' date", set(`[data-testid="batch-notice-date"]`, "2026-10-20"))
	if notices := fetchForm("batch-notices"); !strings.HasPrefix(notices, "200 application/pdf\n%PDF-") || !strings.Contains(notices, "Notice of unpaid bill before November 1") {
		t.Fatalf("the batch of notices: %.80q", notices)
	}
	b.do("a date that cannot be read", set(`[data-testid="batch-date"]`, "10/20/2026"))
	if bad := fetchForm("batch-bills"); !strings.HasPrefix(bad, "422 ") {
		t.Fatalf("a batch dated 10/20/2026: %.80q", bad)
	}
}
