package books_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/books"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// TestControlsTieOnThePage: the village's receivables tie to its open
// bills in the general fund (the weed cutting bill's $50.00 still owed;
// the water bill is paid), the page says every control ties, and the CSV
// has the same figures; an auditor and a clerk read it.
func TestControlsTieOnThePage(t *testing.T) {
	h := villageBooks(t)
	au := h.SignedIn("audrey", domain.RoleAuditor)
	p := au.Get("/staff/books/controls")
	if p.Status != http.StatusOK {
		t.Fatalf("controls: %d %s", p.Status, p.Text("error"))
	}
	if !p.Has("controls-tie") || p.Has("controls-differ") {
		t.Fatalf("the page does not say every control ties: %q", p.Text("controls"))
	}
	row := p.Doc.Find(`[data-testid="control-GF-receivable"]`)
	if got := [3]string{row.Find(`[data-testid="books"]`).Text(), row.Find(`[data-testid="records"]`).Text(), strings.TrimSpace(row.Find(`[data-testid="difference"]`).Text())}; got != [3]string{"$50.00", "$50.00", "ties"} {
		t.Errorf("general fund receivables: %v, want $50.00 in both and tied", got)
	}
	if p.Has("control-WU-receivable") {
		if r := p.Doc.Find(`[data-testid="control-WU-receivable"] [data-testid="books"]`).Text(); r != "$0.00" {
			t.Errorf("the water utility's paid bill leaves receivables of %s", r)
		}
	}
	c := au.Get("/staff/books/controls.csv")
	rows, err := csv.NewReader(strings.NewReader(c.Body)).ReadAll()
	if err != nil || len(rows) < 2 || strings.Join(rows[0], ",") != strings.Join(books.ControlsCSVHeader, ",") {
		t.Fatalf("controls CSV: %v %q", err, c.Body)
	}
	found := false
	for _, r := range rows[1:] {
		if r[1] == "GF" && r[2] == "receivable" {
			found = true
			if r[4] != "50.00" || r[5] != "50.00" || r[7] != "0.00" || r[6] != "1" {
				t.Errorf("CSV line %v, want 50.00 in the books and in 1 bill, difference 0.00", r)
			}
		}
	}
	if !found {
		t.Errorf("no general fund receivable in the CSV: %v", rows)
	}
	if k := h.SignedIn("cleo", domain.RoleClerk).Get("/staff/books/controls"); k.Status != http.StatusOK {
		t.Errorf("a clerk reading the ties: %d", k.Status)
	}
}

// TestControlsThatDifferSayIt: a control that does not tie shows its
// difference and the page says how many do not.
func TestControlsThatDifferSayIt(t *testing.T) {
	h := stafftest.NewWith(t, stafftest.Options{Modules: []staff.Module{books.NewFrom(unbalanced{})}})
	p := h.SignedIn("audrey", domain.RoleAuditor).Get("/staff/books/controls")
	if p.Status != http.StatusOK {
		t.Fatalf("status %d", p.Status)
	}
	if !strings.Contains(p.Text("controls-differ"), "1 control accounts do not tie") || p.Has("controls-tie") {
		t.Errorf("banner: %q", p.Text("controls-differ"))
	}
	if d := strings.TrimSpace(p.Doc.Find(`[data-testid="control-GF-receivable"] [data-testid="difference"]`).Text()); d != "$5.00" {
		t.Errorf("difference %q, want $5.00", d)
	}
}
