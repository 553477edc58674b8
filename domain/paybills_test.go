package domain

import (
	"strings"
	"testing"
)

// cartBills are three bills of account 100101 (one past due, with interest
// and a payment already on it) and one of another account.
func cartBills() []Bill {
	return []Bill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-01"), Principal: MustMoney("120.00"), Revenue: "100-46410",
			Payments: []BillPayment{{CommandID: "old", Receipt: "hall-kiosk-000001", At: mustDateTime("2026-03-20T10:00"), Amount: MustMoney("20.00"), Tender: Card}}},
		{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-06-01"), Principal: MustMoney("64.10"), Revenue: "100-46420"},
		{ID: "B-3", Account: "100101", Parcel: "0601-141-2005", BilledOn: MustDate("2026-07-01"), Principal: MustMoney("33.33")},
		{ID: "B-9", Account: "200202", Parcel: "0601-141-2005", BilledOn: MustDate("2026-07-01"), Principal: MustMoney("50.00")},
	}
}

func cartTx(format int) formatTx {
	tx := formatTx{newResidentTx(), format}
	for _, b := range cartBills() {
		tx.bills[b.ID] = b
	}
	return tx
}

func payBills(at string, parts ...BillAmount) Command {
	c := cmdAt(KindPayBills, at, 12)
	c.Payload = &PayBills{Account: "100101", Bills: parts, Tender: Card, Reference: "SIM-7"}
	return c
}

func sameAllocation(a, b Allocation) bool {
	return a.Penalty.Equal(b.Penalty) && a.Interest.Equal(b.Interest) && a.Principal.Equal(b.Principal) && a.Overpayment.Equal(b.Overpayment)
}

func balanceOn(t *testing.T, b Bill, on Date) Money {
	t.Helper()
	fig, err := b.Figures(on, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	return fig.Balance
}

// TestPayBillsIsEachBillsPayment: a payment of several bills posts on
// each bill exactly what a payment of that amount on that bill alone
// would (the same §5.10 allocation and balance after), under one receipt
// number and one command id, and the receipt lists every bill with its
// part and sums them. Each bill's part counts in its own revenue account.
func TestPayBillsIsEachBillsPayment(t *testing.T) {
	const at = "2026-09-15T11:00"
	on := MustDate("2026-09-15")
	base := cartTx(2)
	var parts []BillAmount
	for _, id := range []string{"B-1", "B-2", "B-3"} {
		parts = append(parts, BillAmount{BillID: id, Amount: balanceOn(t, base.bills[id], on)})
	}
	parts[2].Amount = MustMoney("10.00") // part of the last one
	if parts[0].Amount.Cmp(MustMoney("100.00")) <= 0 {
		t.Fatalf("B-1 owes %s: the fixture should have interest on it", parts[0].Amount)
	}

	tx := cartTx(2)
	cmd := payBills(at, parts...)
	res, err := Apply(tx, cmd, 40, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	rc := res.Receipt
	if rc == nil || rc.Number != cmd.ReceiptNumber() || rc.Kind != KindPayBills || rc.BillID != "" || rc.Account != "100101" {
		t.Fatalf("receipt %+v", rc)
	}
	if stored, ok := tx.receipts[rc.Number]; !ok || len(stored.Lines) != 3 {
		t.Fatalf("stored receipt %+v", stored)
	}
	total, sum := Money{}, Allocation{}
	for i, part := range parts {
		alone := cartTx(2)
		single := cmdAt(KindPayBill, at, 12)
		single.Payload = &PayBill{BillID: part.BillID, Amount: part.Amount, Tender: Card, Reference: "SIM-7"}
		want, err := Apply(alone, single, 40, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		line := rc.Lines[i]
		if line.BillID != part.BillID || !line.Amount.Equal(part.Amount) || !sameAllocation(line.Allocation, want.Receipt.Allocation) || !line.Balance.Equal(want.Receipt.Balance) {
			t.Errorf("line %d = %+v, want the lone payment's %+v / %s", i, line, want.Receipt.Allocation, want.Receipt.Balance)
		}
		b := tx.bills[part.BillID]
		last := b.Payments[len(b.Payments)-1]
		if last.CommandID != cmd.ID || last.Receipt != rc.Number || !last.Amount.Equal(part.Amount) || !sameAllocation(last.Allocation, line.Allocation) {
			t.Errorf("bill %s's payment %+v", b.ID, last)
		}
		total = total.Add(part.Amount)
		sum = sum.plus(line.Allocation)
	}
	if !rc.Amount.Equal(total) || !sameAllocation(rc.Allocation, sum) {
		t.Errorf("receipt total %s / %+v, want %s / %+v", rc.Amount, rc.Allocation, total, sum)
	}
	if got := balanceOn(t, tx.bills["B-1"], on); !got.IsZero() {
		t.Errorf("B-1 owes %s after being paid in full", got)
	}
	if got, want := balanceOn(t, tx.bills["B-3"], on), balanceOn(t, base.bills["B-3"], on).Sub(parts[2].Amount); !got.Equal(want) {
		t.Errorf("B-3 owes %s, want %s", got, want)
	}
	if len(tx.refunds) != 0 {
		t.Errorf("refunds due %+v", tx.refunds)
	}
	for _, c := range []struct {
		account string
		amount  Money
	}{{"100-46410", parts[0].Amount}, {"100-46420", parts[1].Amount}} {
		var a Actual
		if _, err := tx.Get(CollectionActuals, actualID(2026, 9, c.account), &a); err != nil || !a.Receipts.Equal(c.amount) {
			t.Errorf("actuals of %s: %+v (%v), want receipts %s", c.account, a, err, c.amount)
		}
	}
}

// TestPayBillsRefusesWhole: whatever is wrong with one bill refuses the
// payment of all of them, with a message naming the bill, and no bill,
// receipt or refund changes.
func TestPayBillsRefusesWhole(t *testing.T) {
	const at = "2026-09-15T11:00"
	ok1 := BillAmount{BillID: "B-2", Amount: MustMoney("10.00")}
	cases := []struct {
		name  string
		cmd   func() Command
		setup func(formatTx)
		code  Code
		want  string
	}{
		{"a bill of another account", func() Command { return payBills(at, ok1, BillAmount{"B-9", MustMoney("5.00")}) }, nil, EINVALID, "B-9 is not on account 100101"},
		{"no such bill", func() Command { return payBills(at, ok1, BillAmount{"B-404", MustMoney("5.00")}) }, nil, ENOTFOUND, "B-404"},
		{"dated before a bill", func() Command { return payBills("2026-06-15T09:00", ok1, BillAmount{"B-3", MustMoney("5.00")}) }, nil, EINVALID, "before bill B-3"},
		{"a bill named twice", func() Command { return payBills(at, ok1, ok1) }, nil, EINVALID, "named twice"},
		{"no bill", func() Command { return payBills(at) }, nil, EINVALID, "at least one bill"},
		{"a zero part", func() Command { return payBills(at, ok1, BillAmount{"B-3", Money{}}) }, nil, EINVALID, "more than $0.00"},
		{"cash", func() Command {
			c := payBills(at, ok1)
			c.Payload.(*PayBills).Tender = Cash
			return c
		}, nil, EINVALID, "clerk's window"},
		{"too many bills", func() Command {
			var parts []BillAmount
			for i := range MaxBillsPerPayment + 1 {
				parts = append(parts, BillAmount{BillID: "B-" + string(rune('a'+i)), Amount: MustMoney("1.00")})
			}
			return payBills(at, parts...)
		}, nil, EINVALID, "at most"},
		{"over the payment limit in all", func() Command {
			return payBills(at, BillAmount{"B-2", MustMoney("30000.00")}, BillAmount{"B-3", MustMoney("30000.00")})
		}, func(tx formatTx) {
			for _, id := range []string{"B-2", "B-3"} {
				b := tx.bills[id]
				b.Principal = MustMoney("40000.00")
				tx.bills[id] = b
			}
		}, EINVALID, "single payment"},
		{"a bill certified to the tax roll", func() Command { return payBills(at, ok1, BillAmount{"B-3", MustMoney("5.00")}) }, func(tx formatTx) {
			b := tx.bills["B-3"]
			b.Certified = &Certification{Year: 2026, At: mustDateTime("2026-09-01T09:00"), Command: "run", Amount: MustMoney("33.33")}
			tx.bills["B-3"] = b
		}, ECONFLICT, "tax roll"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := cartTx(2)
			if c.setup != nil {
				c.setup(tx)
			}
			before := tx.clone()
			cmd := c.cmd()
			err := Kinds.Validate(cmd)
			if err == nil {
				_, err = Apply(tx, cmd, 40, DefaultParams())
			}
			if err == nil || ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v (%s), want %s containing %q", err, ErrorCode(err), c.code, c.want)
			}
			for id, b := range before.bills {
				if len(tx.bills[id].Payments) != len(b.Payments) {
					t.Errorf("bill %s changed", id)
				}
			}
			if len(tx.receipts) != len(before.receipts) || len(tx.refunds) != 0 {
				t.Errorf("receipts %v refunds %v", tx.receipts, tx.refunds)
			}
		})
	}
}

// TestPayBillsProvisionalReceipt: queued offline, the receipt lists the
// bills and their parts, numbered as the posted one will be.
func TestPayBillsProvisionalReceipt(t *testing.T) {
	cmd := payBills("2026-09-15T11:00", BillAmount{"B-2", MustMoney("10.00")}, BillAmount{"B-3", MustMoney("2.50")})
	rc := cmd.ProvisionalReceipt()
	if rc == nil || rc.Status != Provisional || rc.Number != cmd.ReceiptNumber() || !rc.Amount.Equal(MustMoney("12.50")) || len(rc.Lines) != 2 || rc.Lines[1].BillID != "B-3" || rc.Account != "100101" {
		t.Fatalf("provisional receipt %+v", rc)
	}
}

// TestPayBillsOverpaidBill: a part more than its bill owes (the bill paid
// meanwhile, or while the kiosk was offline) is not refused, since the
// card was charged: it posts, the excess is an overpayment, and one refund
// due under §5.07(1) names the bill; the other bills are paid as asked.
func TestPayBillsOverpaidBill(t *testing.T) {
	const at = "2026-09-15T11:00"
	on := MustDate("2026-09-15")
	tx := cartTx(2)
	owes := balanceOn(t, tx.bills["B-3"], on)
	over := MustMoney("5.00")
	res, err := Apply(tx, payBills(at, BillAmount{"B-2", MustMoney("10.00")}, BillAmount{"B-3", owes.Add(over)}), 40, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Receipt.Allocation.Overpayment.Equal(over) || !res.Receipt.Lines[1].Allocation.Overpayment.Equal(over) || !res.Receipt.Lines[0].Allocation.Overpayment.IsZero() {
		t.Fatalf("allocation %+v / lines %+v", res.Receipt.Allocation, res.Receipt.Lines)
	}
	if len(tx.refunds) != 1 || tx.refunds[0].BillID != "B-3" || !tx.refunds[0].Amount.Equal(over) || tx.refunds[0].Receipt != res.Receipt.Number || res.Refund == nil {
		t.Fatalf("refunds due %+v", tx.refunds)
	}
	if !balanceOn(t, tx.bills["B-3"], on).IsZero() || len(tx.bills["B-2"].Payments) != 1 {
		t.Errorf("bills after: %+v", tx.bills)
	}
}

// TestPayBillsCard: the card that paid is on the receipt from ledger
// format 3, and not before.
func TestPayBillsCard(t *testing.T) {
	for _, format := range []int{2, 3} {
		tx := cartTx(format)
		cmd := payBills("2026-09-15T11:00", BillAmount{"B-2", MustMoney("10.00")})
		cmd.Payload.(*PayBills).Card = &CardShown{Brand: "visa", Last4: "4242"}
		res, err := Apply(tx, cmd, 40, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Receipt.Card != nil; got != (format >= CardShownSince) {
			t.Errorf("format %d: card on the receipt %v", format, res.Receipt.Card)
		}
	}
}
