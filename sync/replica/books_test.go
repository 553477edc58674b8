package replica

import (
	"context"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestBooksOpenOnTheBillsOfTheCommandThatOpensThem: demo data writes its
// bills and then, in its history, the chart that opens the books, in one
// command: the opening entry counts those bills, as it counts bills
// stored before.
func TestBooksOpenOnTheBillsOfTheCommandThatOpensThem(t *testing.T) {
	n := openNode(t, t.TempDir(), time.Date(2026, 4, 10, 10, 0, 0, 0, time.UTC))
	defer n.Close()
	for n.FSM().Format() < domain.BooksFormat {
		time.Sleep(20 * time.Millisecond)
	}
	cmd, err := n.NewCommand(domain.KindSeedDemo, "demo")
	if err != nil {
		t.Fatal(err)
	}
	chart := cmd
	chart.ID, chart.Kind, chart.Seq = "demo-chart", domain.KindChart, 0
	chart.Payload = &domain.ChartChange{Accounts: []domain.ChartAccount{
		{Code: "GF", Type: domain.AccountFund, Name: "General fund", General: true},
		{Code: "48000", Type: domain.AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF", Major: "Miscellaneous", Sources: []string{domain.SourceBills}},
	}}
	cmd.Payload = &domain.SeedDemo{
		Parcels:  []domain.Parcel{{ID: "0601-141-2001", Address: "141 W Main St", County: domain.Dane, Owner: "Test"}},
		Accounts: []domain.Account{{Number: "100101", Name: "Test", Parcels: []string{"0601-141-2001"}}},
		Bills: []domain.Bill{
			{ID: "T1", Account: "100101", Parcel: "0601-141-2001", Description: "test", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("100.00")},
			{ID: "T2", Account: "100101", Parcel: "0601-141-2001", Description: "test", BilledOn: domain.MustDate("2026-03-02"), Principal: domain.MustMoney("25.00")},
		},
		History: []domain.Command{chart},
	}
	if _, err := n.Submit(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	tb, err := domain.ReadsOf(n).TrialBalance(domain.MustDate("2026-12-31"))
	if err != nil || !tb.Balanced() {
		t.Fatalf("trial balance %+v, %v", tb, err)
	}
	got := map[string]string{}
	for _, r := range tb.Rows {
		got[r.Account.Code] = r.Balance().String()
	}
	if got["GF-121"] != "125.00" || got["GF-341"] != "125.00" {
		t.Fatalf("the books opened by the demo's own chart: %v; want its 125.00 of bills as receivables", got)
	}
}
