package search_test

import (
	"slices"
	"testing"

	"github.com/villagehall/appliance/kiosk/search"
)

func TestBillIDs(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"B-2026-0113", "B-2026-0113"},
		{"B 2026 0113", "B-2026-0113"},
		{"b20260113", "B-2026-0113"},
		{"2026-0113", "B-2026-0113"},
		{" 2026 0113 ", "B-2026-0113"},
		{"t2026 0601 141 2001", "T2026-0601-141-2001"},
	} {
		if got := search.BillIDs(c.q); !slices.Contains(got, c.want) {
			t.Errorf("BillIDs(%q) = %q, want it to include %q", c.q, got, c.want)
		}
	}
	for _, q := range []string{"2026-011", "A-2026-0113", "100101", "141 W Main St"} {
		for _, id := range search.BillIDs(q) {
			if len(id) == 11 && id[0] == 'B' && id[1] == '-' {
				t.Errorf("BillIDs(%q) made up bill number %q", q, id)
			}
		}
	}
}

func TestSuggest(t *testing.T) {
	held := []string{"141 W Main St", "145 W Main St", "305 Hale St", "305 Hall St", "17 E Church St", "9 Park St"}
	for _, c := range []struct {
		name string
		q    string
		want []string
	}{
		{"closest of two", "305 hail st", []string{"305 Hall St"}},
		{"an extra letter", "305 hhale street", []string{"305 Hale St"}},
		{"suffix spelt out", "17 e chruch street", []string{"17 E Church St"}},
		{"house number must match", "306 hall st", nil},
		{"no house number", "hall st", nil},
		{"too far", "305 harrison st", nil},
		{"exact is not a suggestion", "9 park st", nil},
		{"short street, one edit of few letters", "9 pork st", []string{"9 Park St"}},
	} {
		if got := search.Suggest(c.q, held); !slices.Equal(got, c.want) {
			t.Errorf("%s: Suggest(%q) = %q, want %q", c.name, c.q, got, c.want)
		}
	}
	if got := search.Suggest("305 hail st", []string{"305 Hale St"}); !slices.Equal(got, []string{"305 Hale St"}) {
		t.Errorf("with only Hale St held: %q", got)
	}
}

func TestOwnerMatches(t *testing.T) {
	for _, c := range []struct {
		q, owner string
		want     bool
	}{
		{"Ana Gutierrez", "Ana Gutierrez", true},
		{"gutierrez", "Ana Gutierrez", true},
		{"Gutiérrez ana", "Ana Gutierrez", true},
		{"guti", "Ana Gutiérrez", true},
		{"Ana Lopez", "Ana Gutierrez", false},
		{"a", "Ana Gutierrez", false},
		{"", "Ana Gutierrez", false},
		{"Feed Seed", "Belleville Feed & Seed LLC", true},
	} {
		if got := search.OwnerMatches(c.q, c.owner); got != c.want {
			t.Errorf("OwnerMatches(%q, %q) = %v, want %v", c.q, c.owner, got, c.want)
		}
	}
}
