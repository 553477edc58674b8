package find

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

// ledger is a Ledger of a few records, for the lookups.
type ledger struct {
	bills    map[string]domain.Bill
	accounts map[string]domain.Account
	parcels  []domain.Parcel
}

func (l ledger) Bill(id string) (domain.Bill, error) {
	if b, ok := l.bills[id]; ok {
		return b, nil
	}
	return domain.Bill{}, domain.Errorf(domain.ENOTFOUND, "", "no bill %s", id)
}

func (l ledger) Account(n string) (domain.Account, error) {
	if a, ok := l.accounts[n]; ok {
		return a, nil
	}
	return domain.Account{}, domain.Errorf(domain.ENOTFOUND, "", "no account %s", n)
}

func (l ledger) FindParcels(q domain.ParcelQuery) ([]domain.Parcel, error) {
	return domain.FilterParcels(l.parcels, q), nil
}

func testLedger() ledger {
	return ledger{
		bills:    map[string]domain.Bill{"B-2026-0113": {ID: "B-2026-0113"}},
		accounts: map[string]domain.Account{"100101": {Number: "100101"}},
		parcels: []domain.Parcel{
			{ID: "0601-141-2001", Address: "141 W Main St"},
			{ID: "0601-305-1001", Address: "305 Hale St"},
		},
	}
}

func TestSearch(t *testing.T) {
	l := testLedger()
	for _, tc := range []struct {
		q                        string
		bills, accounts, parcels int
	}{
		{"b 2026 0113", 1, 0, 0},
		{" 100101 ", 0, 1, 0},
		{"06011412001", 0, 0, 1},
		{"141 west main street", 0, 0, 1},
		{"Main St", 0, 0, 0}, // no house number
		{"141 W Mian St", 0, 0, 0},
	} {
		m, err := Search(l, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Bills) != tc.bills || len(m.Accounts) != tc.accounts || len(m.Parcels) != tc.parcels || m.Count() != tc.bills+tc.accounts+tc.parcels {
			t.Errorf("%q: %d bills, %d accounts, %d parcels, want %d, %d, %d", tc.q, len(m.Bills), len(m.Accounts), len(m.Parcels), tc.bills, tc.accounts, tc.parcels)
		}
	}
}

func TestParcelsDespiteTypos(t *testing.T) {
	l := testLedger()
	for _, tc := range []struct {
		q    string
		want string // the parcel found, "" for none
	}{
		{"0601 141 2001", "0601-141-2001"},
		{"141 W Mian St", "0601-141-2001"},
		{"141 west main stret", "0601-141-2001"},
		{"305 Hael Street", "0601-305-1001"},
		{"305 hale avenu", ""}, // Hale is a street
		{"142 W Main St", ""},  // a typo in the number names another house
	} {
		got, err := Parcels(l, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%q found %v, want none", tc.q, got)
		case tc.want != "" && (len(got) != 1 || got[0].ID != tc.want):
			t.Errorf("%q found %v, want %s", tc.q, got, tc.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	got, err := Suggest(testLedger(), "305 hail st")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"305 Hale St"}) {
		t.Errorf("suggested %q", got)
	}
}
