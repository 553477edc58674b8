package domain

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestChartOfIsPutInTurn: the chart made at once from a list of accounts,
// codes repeated among them, is the chart that putting each in turn makes:
// the same accounts in the same order, the same lookups, and the same JSON
// the ledger stores.
func TestChartOfIsPutInTurn(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 5))
		var accounts []ChartAccount
		for i := range r.IntN(40) {
			accounts = append(accounts, ChartAccount{Code: fmt.Sprintf("%03d-%05d", r.IntN(5)*100, r.IntN(30)), Name: fmt.Sprint("account ", i), Type: AccountRevenue})
		}
		want := &Chart{byCode: map[string]ChartAccount{}}
		for _, a := range accounts {
			want.put(a)
		}
		got := chartOf(accounts)
		if !reflect.DeepEqual(got.Accounts, want.Accounts) || !reflect.DeepEqual(got.byCode, want.byCode) {
			t.Fatalf("seed %d: chartOf gives %v, putting in turn %v", seed, got.Accounts, want.Accounts)
		}
	}
}

// TestLoadChartHandsOutCopies: the chart a transaction reads is its own.
// An account the books add to one read is in no other read of the same
// record, and a chart written since is read as written.
func TestLoadChartHandsOutCopies(t *testing.T) {
	tx := newStaffTx()
	accounts := []ChartAccount{
		{Code: "100", Type: AccountFund, Name: "General fund", General: true},
		{Code: "100-46100", Type: AccountRevenue, Name: "Charges for services", Fund: "100", Sources: []string{SourceBills}},
	}
	if err := tx.Put(CollectionChart, chartRecord, accounts); err != nil {
		t.Fatal(err)
	}
	first, err := loadChart(tx)
	if err != nil || len(first.Accounts) != 2 {
		t.Fatalf("first read: %v, %v", first, err)
	}
	first.put(ChartAccount{Code: "100-11500", Type: AccountAsset, Name: "Undeposited receipts", Fund: "100"})
	second, err := loadChart(tx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := second.Account("100-11500"); ok || len(second.Accounts) != 2 {
		t.Fatalf("a second read holds the account added to the first: %v", second.Accounts)
	}
	if err := tx.Put(CollectionChart, chartRecord, first.Accounts); err != nil {
		t.Fatal(err)
	}
	third, err := loadChart(tx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := third.Account("100-11500"); !ok || !reflect.DeepEqual(third.Accounts, first.Accounts) {
		t.Fatalf("the chart written since: %v, want %v", third.Accounts, first.Accounts)
	}
	// Reads of an unchanged record share its accounts until one changes
	// them: each change stays in the read it was made to.
	var reads [3]*Chart
	for i := range reads {
		if reads[i], err = loadChart(tx); err != nil {
			t.Fatal(err)
		}
	}
	reads[0].put(ChartAccount{Code: "100-11600", Type: AccountAsset, Name: "Petty cash", Fund: "100"})
	reads[1].put(ChartAccount{Code: "100-11700", Type: AccountAsset, Name: "Change fund", Fund: "100"})
	for i, want := range []string{"100-11600", "100-11700", ""} {
		for _, code := range []string{"100-11600", "100-11700"} {
			_, ok := reads[i].Account(code)
			if inList := slices.ContainsFunc(reads[i].Accounts, func(a ChartAccount) bool { return a.Code == code }); ok != (code == want) || inList != ok {
				t.Errorf("read %d: account %s found %v (in its list %v), want %v", i, code, ok, inList, code == want)
			}
		}
	}
	if len(reads[2].Accounts) != len(third.Accounts) {
		t.Errorf("an unchanged read has %d accounts, want %d", len(reads[2].Accounts), len(third.Accounts))
	}
}
