package roomtax_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// TestRoomTaxAPIPagesEveryOperatorsReturns (§5.22(8)): the auditors' read
// of every operator's returns holds more returns than one recorded read
// may name (domain.MaxReadSubjects). It comes a page at a time, by
// operator then period, each page one recorded read naming its returns;
// following next reads every return once; year= keeps one year's; a
// limit, cursor or year that is not one is refused and records nothing.
func TestRoomTaxAPIPagesEveryOperatorsReturns(t *testing.T) {
	o := newOffice(t)
	o.at("2127-02-10 09:00")
	// Two operators, a quarter each from 2026 on: 404 returns.
	var want []string
	for _, op := range []string{"belle-inn", "sugar-rooms"} {
		for y := 2026; y <= 2076; y++ {
			for q := 1; q <= 4; q++ {
				if op == "sugar-rooms" && y == 2076 && q > 2 {
					continue
				}
				res := o.h.Submit("treas", &domain.FileRoomTaxReturn{Operator: op, Period: domain.Quarter{Year: y, Q: q}, GrossReceipts: domain.MustMoney("1000.00"),
					Signer: "A. Filer", Capacity: "owner", Year: &domain.RoomTaxYear{Basis: "calendar", EndMonth: 12}})
				if res.Error != nil {
					t.Fatalf("file %s %d-Q%d: %s", op, y, q, res.Error)
				}
				want = append(want, domain.QuarterlyReturnID(op, domain.Quarter{Year: y, Q: q}))
			}
		}
	}
	if len(want) <= domain.MaxReadSubjects {
		t.Fatalf("only %d returns: the test needs more than one read may name", len(want))
	}
	treas := o.h.Token("treas-robot", domain.RoleTreasurer)
	type page struct {
		Read    string `json:"read"`
		Count   int    `json:"count"`
		Next    string `json:"next"`
		Returns []struct {
			ID string `json:"id"`
		} `json:"returns"`
	}
	get := func(query string) page {
		t.Helper()
		st, b := o.h.API("GET", "/api/v1/room-tax/returns?operator=*&reason=audit&"+query, treas, "")
		var p page
		if err := json.Unmarshal(b, &p); st != http.StatusOK || err != nil {
			t.Fatalf("%s: %d %.300s", query, st, b)
		}
		return p
	}
	var got []string
	pages := 0
	for q := "limit=150"; ; {
		p := get(q)
		pages++
		if p.Count != len(want) || len(p.Returns) == 0 || len(p.Returns) > 150 {
			t.Fatalf("page %d: count %d (want %d), %d returns", pages, p.Count, len(want), len(p.Returns))
		}
		rec, err := domain.ReadsOf(o.h.Ledger).RoomTaxRead(p.Read)
		if err != nil || len(rec.Subjects) != len(p.Returns) || rec.Subjects[0] != p.Returns[0].ID {
			t.Fatalf("page %d's read: %+v %v", pages, rec, err)
		}
		for _, r := range p.Returns {
			got = append(got, r.ID)
		}
		if p.Next == "" {
			break
		}
		if p.Next != got[len(got)-1] {
			t.Fatalf("next %q, want the page's last return %q", p.Next, got[len(got)-1])
		}
		q = "limit=150&after=" + p.Next
	}
	if pages != 3 || !slices.Equal(got, want) {
		t.Fatalf("%d pages, %d returns read; want 3 pages and every return once, in order", pages, len(got))
	}
	// The default page, and the largest one may ask for.
	if p := get(""); len(p.Returns) != 100 || p.Next == "" {
		t.Fatalf("default page: %d returns, next %q", len(p.Returns), p.Next)
	}
	if p := get(fmt.Sprintf("limit=%d", domain.MaxReadSubjects)); len(p.Returns) != domain.MaxReadSubjects {
		t.Fatalf("the largest page: %d returns", len(p.Returns))
	}
	// One year: two operators' four quarters, on one page.
	if p := get("year=2030"); p.Count != 8 || len(p.Returns) != 8 || p.Next != "" || p.Returns[0].ID != "belle-inn_2030-Q1" || p.Returns[7].ID != "sugar-rooms_2030-Q4" {
		t.Fatalf("year 2030: %+v", p)
	}
	journal := o.h.Ledger.JournalLen()
	for _, bad := range []struct{ query, says string }{
		{"limit=0", "1 to 400"},
		{fmt.Sprintf("limit=%d", domain.MaxReadSubjects+1), "1 to 400"},
		{"limit=ten", "1 to 400"},
		{"after=belle-inn", "room tax return reference"},
		{"year=30", "not a year"},
	} {
		st, b := o.h.API("GET", "/api/v1/room-tax/returns?operator=*&reason=audit&"+bad.query, treas, "")
		if st != http.StatusUnprocessableEntity || !strings.Contains(string(b), bad.says) {
			t.Errorf("%s: %d %.200s", bad.query, st, b)
		}
	}
	if n := o.h.Ledger.JournalLen(); n != journal {
		t.Errorf("refused pages recorded %d reads", n-journal)
	}
}
