package assessments_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestLettersGoToTheOwnersMailingAddress: the mail merge of a project's
// notice of hearing (§5.14(6)) and of a repair hearing's notice
// (§5.14(13)) put one letter a page, dated the day the notice was given
// or mailed, addressed through the envelope's window to the owner's
// mailing address when the village knows it, else to the parcel; a time
// at the end of a sentence takes one period.
func TestLettersGoToTheOwnersMailingAddress(t *testing.T) {
	h := newOffice(t)
	levy(t, h)
	landlord := domain.MailingAddress{Name: "Harbor Rentals LLC", Street: "PO Box 118", City: "Madison", State: "WI", ZIP: "53701"}
	h.Submit("clerk", &domain.MailingAddressChange{Parcel: district[0], Address: landlord})
	c := h.SignedIn("pclerk", domain.RoleClerk)

	st, ct, body := c.GetPDF("/staff/assessments/SA-2026-05/letters.pdf")
	if st != http.StatusOK || ct != "application/pdf" {
		t.Fatalf("notice letters: %d %s", st, ct)
	}
	pages := stafftest.PDFPages(t, body)
	stafftest.CheckLetter(t, pages)
	if len(pages) != 2 {
		t.Fatalf("two owners, %d pages", len(pages))
	}
	stafftest.InWindow(t, pages[0], staff.AddressWindow, landlord.Lines())
	stafftest.InWindow(t, pages[1], staff.AddressWindow, []string{"Owner 2", "102 Pearl St", "Belleville, WI 53508"})
	if text := stafftest.PageText(pages[0]); !strings.Contains(text, "June 20, 2026") || !strings.Contains(text, "$1,000.00") {
		t.Fatalf("the letter:\n%s", text)
	}

	h.SetClock(at(h, "2026-08-04 09:00"))
	c = signIn(h, "pclerk")
	c.Get("/staff/special-charges")
	notice := url.Values{"id": {"RN-7"}, "category": {"sidewalk"}, "parcels": {district[0] + "\n" + district[1]}, "description": {"Replace broken walk"}, "method": {"publication"}, "newspaper": {"Belleville Recorder"},
		"published_on": {"2026-08-03"}, "mailed_on": {"2026-08-04"}, "hearing_on": {"2026-08-24"}, "hearing_at": {"Village hall, 6:30 p.m."}}
	if p := c.Post("/staff/special-charges/notices", notice); p.Status != http.StatusSeeOther {
		t.Fatalf("notice: %d %q", p.Status, p.Text("charge-error"))
	}
	st, _, body = c.GetPDF("/staff/special-charges/notices/RN-7/letters.pdf")
	if st != http.StatusOK {
		t.Fatalf("repair letters: %d %s", st, body)
	}
	pages = stafftest.PDFPages(t, body)
	stafftest.CheckLetter(t, pages)
	if len(pages) != 2 {
		t.Fatalf("two owners, %d pages", len(pages))
	}
	stafftest.InWindow(t, pages[0], staff.AddressWindow, landlord.Lines())
	if text := stafftest.PageText(pages[1]); !strings.Contains(text, "August 4, 2026") || !strings.Contains(text, "6:30 p.m.") || !strings.Contains(text, "sidewalk repair") {
		t.Fatalf("the repair letter:\n%s", text)
	}
	if st, _, _ := c.GetPDF("/staff/special-charges/notices/RN-none/letters.pdf"); st != http.StatusNotFound {
		t.Fatalf("an unknown notice: %d", st)
	}
}
