package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/villagehall/appliance/kiosk/browsertest"
)

// TestParcelRollInBrowser: in Chromium on a real node, the clerk pastes
// the county's roll, reads what each line would do (a demo parcel's new
// owner, a new parcel with a new account), imports it, bills the new
// account for the new parcel, and finds it by its address; the resident
// kiosk then shows the new owner's bill.
func TestParcelRollInBrowser(t *testing.T) {
	b := newOfficeBrowser(t, "2026-03-02T10:00", [4]string{"clerk", "Casey Clerk", "clerk", ""})
	b.as("clerk")
	b.open("/staff/parcels/import", "roll-dry-run")
	roll := "parcel,address,county,owner,floodplain,account,account_name\n" +
		"0601-141-2002,22 S Vine St,Dane,Lindqvist Family Trust,no,,\n" +
		"0601-141-2950,50 Pearl St,Dane,Ida James,yes,200950,James household\n"
	b.do("check the roll", set(`[data-testid="roll-csv"]`, roll), submit("roll-dry-run", "roll-rows"))
	if got := b.eval(`document.querySelector('tr[data-parcel="0601-141-2002"]').dataset.change + ' ' + document.querySelector('tr[data-parcel="0601-141-2950"]').dataset.change`); got != "changed new" {
		t.Fatalf("the dry run says %q, want the demo parcel changed and the other new", got)
	}
	if got := b.text("roll-rows"); !strings.Contains(got, "was owner Robert Lindqvist") || !strings.Contains(got, "new account") {
		t.Fatalf("dry run rows: %q", got)
	}
	b.shot("roll-1-dry-run")
	browsertest.Axe(t, b.ctx, "roll-1-dry-run")
	b.do("import the roll", submit("roll-confirm", "roll-done"))
	if got := b.text("roll-done"); !strings.Contains(got, "1 new, 1 changed, 0 unchanged") {
		t.Fatalf("import: %q", got)
	}

	b.open("/staff/bills/new", "bill-form")
	b.do("bill the new account",
		set(`[data-testid="bill-account"]`, "200950"),
		set(`[data-testid="bill-parcel"]`, "0601-141-2950"),
		set(`[data-testid="bill-description"]`, "Sidewalk repair"),
		set(`[data-testid="bill-date"]`, "2026-03-02"),
		set(`[data-testid="bill-amount"]`, "75.00"),
		submit("bill-submit", "bill-created"),
	)
	id := strings.TrimPrefix(b.eval(`location.pathname`), "/staff/bills/") // the page names it by its number
	b.open("/staff/accounts?number=50+Pearl+St", "account-results")
	if got := b.text("account-results"); !strings.Contains(got, "Ida James") || !strings.Contains(got, "200950") {
		t.Fatalf("find by address: %q", got)
	}
	b.do("the kiosk's bill page", chromedp.Navigate(b.kiosk+"/bills/"+id), chromedp.WaitVisible(testid("amount-due")))
	if got := b.text("amount-due"); got != "$75.00" {
		t.Fatalf("the kiosk shows %q due on the new bill", got)
	}
}
