package domain

import (
	"fmt"
	"testing"
)

// allocString spells an allocation for comparing.
func allocString(a Allocation) string {
	return fmt.Sprintf("penalty %s interest %s principal %s over %s", a.Penalty, a.Interest, a.Principal, a.Overpayment)
}

// TestPreviewPaymentIsWhatPosts previews payments on a village bill and
// then posts each with pay_bill at the same moment: the preview's
// allocation and balance are the posted receipt's, and previewing changes
// nothing.
func TestPreviewPaymentIsWhatPosts(t *testing.T) {
	// Billed March 2, due April 1: $3.00 of interest a month from April 2,
	// the 1.5% penalty ($3.00) on November 2, the tax roll after November 15.
	bill := Bill{ID: "B-200", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("200.00")}
	type pay struct{ at, amount string }
	rows := []struct {
		section, name string
		before        []pay // posted first
		pay           pay
		want          string // the allocation
		balance       string
	}{
		{"§5.10", "partial before due", nil, pay{"2026-03-20T10:00", "50.00"},
			"penalty 0.00 interest 0.00 principal 50.00 over 0.00", "150.00"},
		{"§5.10", "full on the due date", nil, pay{"2026-04-01T16:30", "200.00"},
			"penalty 0.00 interest 0.00 principal 200.00 over 0.00", "0.00"},
		{"§5.07(1)", "overpaying", nil, pay{"2026-03-20T10:00", "250.00"},
			"penalty 0.00 interest 0.00 principal 200.00 over 50.00", "0.00"},
		{"§5.10", "past due with seven months of interest", nil, pay{"2026-10-20T10:15", "100.00"},
			"penalty 0.00 interest 21.00 principal 79.00 over 0.00", "121.00"},
		{"§5.10", "after an earlier payment", []pay{{"2026-05-10T09:00", "50.00"}}, pay{"2026-10-20T10:15", "100.00"},
			"penalty 0.00 interest 11.70 principal 88.30 over 0.00", "67.70"},
		{"§5.10", "November penalty first", nil, pay{"2026-11-05T11:00", "100.00"},
			"penalty 3.00 interest 24.00 principal 73.00 over 0.00", "127.00"},
		{"§5.10", "last day before the tax roll, in full", nil, pay{"2026-11-15T15:00", "227.00"},
			"penalty 3.00 interest 24.00 principal 200.00 over 0.00", "0.00"},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			tx := newResidentTx()
			tx.bills[bill.ID] = bill
			seq := uint64(1)
			post := func(p pay) Result {
				t.Helper()
				c := cmdAt(KindPayBill, p.at, seq)
				c.ID = fmt.Sprintf("cmd-%d", seq)
				seq++
				c.Payload = &PayBill{BillID: bill.ID, Amount: MustMoney(p.amount), Tender: Card, Reference: "OK"}
				res, err := tx.run(t, c)
				if err != nil {
					t.Fatalf("post %+v: %v", p, err)
				}
				return res
			}
			for _, p := range row.before {
				post(p)
			}
			b := tx.bill(t, bill.ID)
			paid := len(b.Payments)
			at, _ := ParseDateTime(row.pay.at)
			pv, err := b.PreviewPayment(at, MustMoney(row.pay.amount), DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			if got := allocString(pv.Allocation); got != row.want || pv.Balance.String() != row.balance {
				t.Errorf("preview %s, balance %s; want %s, balance %s", got, pv.Balance, row.want, row.balance)
			}
			if len(b.Payments) != paid || len(tx.bill(t, bill.ID).Payments) != paid {
				t.Fatal("previewing changed the bill")
			}
			rc := post(row.pay).Receipt
			if got := allocString(rc.Allocation); got != allocString(pv.Allocation) || !rc.Balance.Equal(pv.Balance) {
				t.Errorf("posted %s, balance %s; previewed %s, balance %s", got, rc.Balance, allocString(pv.Allocation), pv.Balance)
			}
		})
	}
}

// TestPreviewPaymentRefusesWhatPostingRefuses: a payment posting would
// refuse on the bill itself is refused by the preview with the same code.
func TestPreviewPaymentRefusesWhatPostingRefuses(t *testing.T) {
	bill := Bill{ID: "B-200", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("200.00"),
		Certified: &Certification{Year: 2026, At: mustDT("2026-11-16T08:30"), Command: "run", Amount: MustMoney("227.00")}}
	rows := []struct {
		section, name, at, amount string
		code                      Code
	}{
		{"§5.10", "after the tax roll", "2026-11-16T09:00", "10.00", ECONFLICT},
		{"§5.10", "before the bill", "2026-03-01T09:00", "10.00", EINVALID},
		{"§5.10", "zero", "2026-03-20T09:00", "0.00", EINVALID},
		{"§5.10", "over the payment limit", "2026-03-20T09:00", "50000.01", EINVALID},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			at, _ := ParseDateTime(row.at)
			_, err := bill.PreviewPayment(at, MustMoney(row.amount), DefaultParams())
			if ErrorCode(err) != row.code {
				t.Errorf("preview: %v, want %s", err, row.code)
			}
			tx := newResidentTx()
			tx.bills[bill.ID] = bill
			c := cmdAt(KindPayBill, row.at, 1)
			c.Payload = &PayBill{BillID: bill.ID, Amount: MustMoney(row.amount), Tender: Card}
			if _, err := tx.run(t, c); ErrorCode(err) != row.code {
				t.Errorf("posting: %v, want %s", err, row.code)
			}
		})
	}
}

func TestTakesPayment(t *testing.T) {
	bill := Bill{ID: "B-200", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("200.00")}
	paid := bill
	on, _ := ParseDateTime("2026-03-20T10:00")
	paid.Payments = []BillPayment{{At: on, Amount: MustMoney("200.00")}}
	certified := bill
	certified.Certified = &Certification{Year: 2026, At: mustDT("2026-11-16T08:00"), Amount: MustMoney("227.00")}
	rows := []struct {
		section, name string
		b             Bill
		on            string
		want          bool
	}{
		{"§5.10", "current", bill, "2026-03-20", true},
		{"§5.10", "past due", bill, "2026-10-20", true},
		{"§5.10", "November 15, the last day", bill, "2026-11-15", true},
		{"§5.10", "past November 15, not certified", bill, "2026-11-16", true},
		{"§5.10", "certified to the tax roll", certified, "2026-11-16", false},
		{"§5.10", "paid", paid, "2026-04-20", false},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			fig, err := row.b.Figures(MustDate(row.on), DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			if fig.TakesPayment() != row.want {
				t.Errorf("status %s balance %s: takes payment %v, want %v", fig.Status, fig.Balance, !row.want, row.want)
			}
		})
	}
}

// TestTaxPreviewIsWhatPosts: the figures after a previewed property tax
// payment carry the balance the posted receipt shows.
func TestTaxPreviewIsWhatPosts(t *testing.T) {
	tb := demoTaxBill()
	rows := []struct {
		section, name string
		option        TaxOption
		amount        string
		balance       string
	}{
		{"Ch. 74", "first installment", TaxFirstInstallment, "1732.11", "1500.62"},
		{"Ch. 74", "in full", TaxFull, "3232.73", "0.00"},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			tx := newResidentTx()
			if err := PutTaxBill(tx, tb); err != nil {
				t.Fatal(err)
			}
			after, err := tb.PreviewPayment(MustMoney(row.amount), DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			if after.Balance.String() != row.balance || len(tb.Payments) != 0 {
				t.Errorf("previewed balance %s, want %s; payments %d", after.Balance, row.balance, len(tb.Payments))
			}
			c := cmdAt(KindPayPropertyTax, "2027-01-20T10:00", 1)
			c.Payload = &PayPropertyTax{TaxBillID: tb.ID, Option: row.option, Amount: MustMoney(row.amount), Tender: Card}
			res, err := tx.run(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Receipt.Balance.Equal(after.Balance) {
				t.Errorf("posted balance %s, previewed %s", res.Receipt.Balance, after.Balance)
			}
		})
	}
}
