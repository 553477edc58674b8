package kiosk

import (
	"slices"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

func TestSpellings(t *testing.T) {
	got := spellings("  b-2026 0101 ")
	for _, want := range []string{"b-2026 0101", "B-2026 0101", "b-20260101"} {
		if !slices.Contains(got, want) {
			t.Errorf("spellings %q lack %q", got, want)
		}
	}
}

func TestAddressMatches(t *testing.T) {
	for _, tc := range []struct {
		q, addr string
		want    bool
	}{
		{"141 W Main St", "141 W Main St", true},
		{"141 west main street", "141 W. Main Street", true},
		{"141 main", "141 W Main St", true},
		{"Main St", "141 W Main St", false}, // no house number
		{"141", "141 W Main St", false},     // a number alone could be anything
		{"143 W Main St", "141 W Main St", false},
		{"141 W Main St", "", false},
	} {
		q := strings.Fields(domain.NormalizeAddress(tc.q))
		if got := addressMatches(q, tc.addr); got != tc.want {
			t.Errorf("%q ~ %q = %v, want %v", tc.q, tc.addr, got, tc.want)
		}
	}
}

func TestCompact(t *testing.T) {
	if compact("0601-141-2001") != compact(" 0601 141 2001") || compact("0601-141-2001") != "06011412001" {
		t.Error("parcel ids with and without dashes differ")
	}
}
