package purchasing_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// noticePDF fetches an order's notice as c, fails unless it is a PDF
// laid out as the office's letters are, and returns its one page.
func noticePDF(t *testing.T, c *stafftest.Client, path string) []stafftest.Word {
	t.Helper()
	st, ct, body := c.GetPDF(path)
	if st != http.StatusOK || ct != "application/pdf" {
		t.Fatalf("%s: %d %s %.300s", path, st, ct, body)
	}
	pages := stafftest.PDFPages(t, body)
	stafftest.CheckLetter(t, pages)
	if len(pages) != 1 {
		t.Fatalf("%s: a notice on %d pages", path, len(pages))
	}
	stafftest.InWindow(t, pages[0], staff.ReturnWindow, []string{"Village of Belleville"})
	return pages[0]
}

func says(t *testing.T, page []stafftest.Word, want ...string) {
	t.Helper()
	text := strings.Join(strings.Fields(stafftest.PageText(page)), " ")
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the notice does not say %q:\n%s", w, stafftest.PageText(page))
		}
	}
}

// TestNoticesToPublish (§5.13(1), Wis. Stat. 62.15): an order for
// materials expected to cost more than the class 2 threshold prints its
// advertisement for bids, dated as the clerk chooses, with the day bids
// open and the latest days of its two insertions, headed right under the
// letterhead (a notice to the public has no address window); once the
// insertions are recorded it says them; supplies over the class 1
// threshold print the class 1 notice; an order that needs none, a notice
// dated too late or after its publication, a class 2 notice without the
// day bids open or with another day than the order records, and a date
// that cannot be read are refused with a plain message.
func TestNoticesToPublish(t *testing.T) {
	h := adopted(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	gravel := "/staff/orders/" + orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Crushed gravel, 1,200 tons"}, "category": {"materials"}, "estimate": {"30,000.00"}}))
	if p := admin.Get(gravel); !p.Has("notice-pdf-form") || !p.Has("notice-pdf-open") || !strings.Contains(p.Text("notice-pdf"), "class 2 notice") {
		t.Fatalf("the order's page offers no class 2 notice to print: %q", p.Text("notice-pdf"))
	}

	page := noticePDF(t, admin, gravel+"/notice.pdf?date=2027-02-01&bids_open=2027-03-01")
	says(t, page, "Advertisement for bids", "February 1, 2027", "Crushed gravel, 1,200 tons (materials), purchase order PO-2027-",
		"until 4:30 p.m. on March 1, 2027", "more than $25,000.00", "lowest responsible bidder", "Dated February 1, 2027.", "Purchasing Agent, Village of Belleville",
		"on or before February 15, 2027", "on or before February 22, 2027")
	for _, w := range page {
		if w.S == "Advertisement for bids" && w.Top > staff.AddressWindow.Y {
			t.Errorf("the heading stands %.1f mm down, where a letter's address would be: a notice starts under the letterhead", w.Top)
		}
		if w.S == "$30,000.00" || strings.Contains(w.S, "30,000") {
			t.Errorf("the notice publishes the estimate: %q", w.S)
		}
	}

	for path, want := range map[string]int{
		gravel + "/notice.pdf?date=2027-02-01":                       http.StatusUnprocessableEntity, // no day bids open
		gravel + "/notice.pdf?date=2027-02-01&bids_open=2027-02-10":  http.StatusUnprocessableEntity, // too late for two insertions
		gravel + "/notice.pdf?date=02/01/2027&bids_open=2027-03-01":  http.StatusUnprocessableEntity,
		gravel + "/notice.pdf?date=2027-02-01&bids_open=next-monday": http.StatusUnprocessableEntity,
		"/staff/orders/PO-2027-9999/notice.pdf":                      http.StatusNotFound,
	} {
		if st, _, body := admin.GetPDF(path); st != want {
			t.Errorf("%s: %d, want %d: %.200s", path, st, want, body)
		}
	}

	if p := admin.Post(gravel+"/notice", url.Values{"notice1": {"2027-02-04"}, "notice2": {"2027-02-11"}, "bids_open": {"2027-03-01"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("record the notice: %d %s", p.Status, p.Text("order-error"))
	}
	if p := admin.Get(gravel); !p.Has("notice-pdf-form") || p.Has("notice-pdf-open") {
		t.Fatal("with the day bids open recorded, the print form still asks it (or is gone)")
	}
	page = noticePDF(t, admin, gravel+"/notice.pdf?date=2027-02-02")
	says(t, page, "March 1, 2027", "published February 4, 2027 and February 11, 2027")
	for path, msg := range map[string]string{
		gravel + "/notice.pdf?date=2027-02-05":                      "first published on February 4, 2027",
		gravel + "/notice.pdf?date=2027-02-02&bids_open=2027-03-08": "records that bids open on March 1, 2027",
	} {
		if st, _, body := admin.GetPDF(path); st != http.StatusUnprocessableEntity || !strings.Contains(body, msg) {
			t.Errorf("%s: %d %.300s", path, st, body)
		}
	}

	salt := "/staff/orders/" + orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-53300"}, "description": {"Road salt"}, "category": {"supplies"}, "estimate": {"6,000.00"}}))
	if p := admin.Get(salt); !strings.Contains(p.Text("notice-pdf"), "class 1 notice") || p.Has("notice-pdf-open") {
		t.Fatalf("the salt's page: %q", p.Text("notice-pdf"))
	}
	page = noticePDF(t, admin, salt+"/notice.pdf?date=2027-02-01")
	says(t, page, "Notice of proposed public contract", "Road salt (supplies)", "more than $5,000.00 and not more than $25,000.00", "publish once, before the contract is let")

	pens := "/staff/orders/" + orderID(t, admin.Post("/staff/orders", url.Values{"line": {"100-51400"}, "description": {"Pens"}, "category": {"supplies"}, "estimate": {"40.00"}}))
	if p := admin.Get(pens); p.Has("notice-pdf-form") {
		t.Fatal("an order that needs no notice offers one to print")
	}
	if st, _, body := admin.GetPDF(pens + "/notice.pdf"); st != http.StatusConflict || !strings.Contains(body, "needs no published notice") {
		t.Fatalf("pens: %d %.300s", st, body)
	}

	stafftest.CheckRoleMatrix(t, h, []stafftest.Route{{Method: "GET", Path: salt + "/notice.pdf?date=2027-02-01", Cap: staff.CapReadBudget}})
}
