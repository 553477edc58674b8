package domain

import (
	"reflect"
	"testing"
)

// TestTouchedBy: what the journal lists a command under, from its result
// and the records it made.
func TestTouchedBy(t *testing.T) {
	m := func(s string) *Money { v := MustMoney(s); return &v }
	bill := Bill{ID: "B1", Account: "100101", Principal: MustMoney("50.00")}
	pay := &Receipt{Number: "n1-000002", BillID: "B1", Account: "100101", Amount: MustMoney("12.00")}
	several := &Receipt{Number: "n1-000003", Account: "100101", Amount: MustMoney("30.00"), Lines: []ReceiptLine{{BillID: "B1"}, {BillID: "B2"}}}
	returned := &ReturnedCheckRecord{BillID: "B1", Account: "100101", Payment: BillPayment{Receipt: "n1-000002", Amount: MustMoney("12.00")}}
	for _, c := range []struct {
		section, name string
		res           Result
		made          *Bill
		returned      *ReturnedCheckRecord
		want          Touched
	}{
		{"§5.10", "a payment names its bill, receipt, account and amount", Result{Receipt: pay}, nil, nil, Touched{Bills: []string{"B1"}, Receipt: "n1-000002", Account: "100101", Amount: m("12.00")}},
		{"§5.10", "a payment of several bills names each", Result{Receipt: several}, nil, nil, Touched{Bills: []string{"B1", "B2"}, Receipt: "n1-000003", Account: "100101", Amount: m("30.00")}},
		{"§5.10", "a new bill names itself and its principal", Result{}, &bill, nil, Touched{Bills: []string{"B1"}, Account: "100101", Amount: m("50.00")}},
		{"§5.20", "a returned check takes the payment back", Result{}, &Bill{ID: "FEE"}, returned, Touched{Bills: []string{"B1"}, Receipt: "n1-000002", Account: "100101", Amount: m("-12.00")}},
		{"§5.10", "a refused command touched nothing", Result{Receipt: pay, Error: Errorf(EINVALID, "", "no")}, nil, nil, Touched{}},
		{"", "a command of no bill or receipt touched nothing", Result{Note: "ok"}, nil, nil, Touched{}},
	} {
		t.Run(c.section+"/"+c.name, func(t *testing.T) {
			if got := TouchedBy(c.res, c.made, c.returned); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
	if got := (Touched{Bills: []string{"B-2026-0101"}}); !got.TouchesBill("b-2026-0101") || got.TouchesBill("B-2026-0102") {
		t.Fatal("TouchesBill ignores case only")
	}
}
