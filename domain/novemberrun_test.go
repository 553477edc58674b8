package domain

import "testing"

func TestNovemberStep(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-01"), Principal: MustMoney("200.00")}
	tx.bills["B-NOV"] = Bill{ID: "B-NOV", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-10-20"), Principal: MustMoney("20.00")}
	early := staffCmd(KindNovemberRun, "treasurer", "2026-11-01T09:00")
	early.Payload = &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-1"}}
	if _, err := tx.run(t, early); ErrorCode(err) != ECONFLICT {
		t.Fatalf("penalties on Nov 1: %v", err)
	}
	wrong := staffCmd(KindNovemberRun, "treasurer", "2026-11-02T09:00")
	wrong.Payload = &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-1", "B-NOV"}}
	if _, err := tx.run(t, wrong); ErrorCode(err) != ECONFLICT {
		t.Fatalf("a bill of the next cycle in the run: %v", err)
	}
	pen := staffCmd(KindNovemberRun, "treasurer", "2026-11-02T09:01")
	pen.Payload = &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-1"}}
	if _, err := tx.run(t, pen); err != nil {
		t.Fatal(err)
	}
	cert := staffCmd(KindNovemberRun, "treasurer", "2026-11-15T16:00")
	cert.Payload = &NovemberStep{Op: "certify", Year: 2026, Bills: []string{"B-1"}}
	if _, err := tx.run(t, cert); ErrorCode(err) != ECONFLICT {
		t.Fatalf("certify before closing on Nov 15: %v", err)
	}
	cert.At = mustDT("2026-11-15T16:30")
	if _, err := tx.run(t, cert); err != nil {
		t.Fatal(err)
	}
	var run NovemberRun
	tx.Get(CollectionNovemberRuns, "2026", &run)
	// 200.00: interest months start Apr 1 … Nov 1 (8 × 3.00), penalty 3.00.
	if len(run.Certified) != 1 || run.CertifiedTotal.String() != "227.00" || run.PenaltyTotal.String() != "3.00" || run.Certified[0].County != Dane {
		t.Fatalf("run = %+v", run)
	}
	var item RunItem
	if ok, _ := tx.Get(CollectionTaxRoll, "B-1", &item); !ok || item.Balance.String() != "227.00" {
		t.Fatalf("tax roll item %+v", item)
	}
}

// TestTaxRollIsWhatTheLedgerCertified (§5.10): a bill's
// place on the tax roll is what the November run recorded, not the
// calendar. Past November 15 and not yet certified it is pending and
// still takes payments, which lower what is certified; the roll's date is
// the day of certification; a payment taken after it is refused, one
// taken before it (an offline node's, posting late) is not lost. At
// ledger format 1 the calendar's old answer stands.
func TestTaxRollIsWhatTheLedgerCertified(t *testing.T) {
	p := DefaultParams()
	bill := Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-01"), Principal: MustMoney("200.00")}
	tx := newStaffTx()
	tx.bills["B-1"] = bill
	fig, err := bill.Figures(MustDate("2026-12-01"), p)
	if err != nil {
		t.Fatal(err)
	}
	if fig.Status != BillRollPending || !fig.TakesPayment() || fig.Balance.String() != "227.00" {
		t.Fatalf("uncertified on December 1: status %s, takes payment %v, balance %s", fig.Status, fig.TakesPayment(), fig.Balance)
	}
	pay := func(at, amount string) Command {
		c := staffCmd(KindPayBill, "kiosk", at)
		c.Payload = &PayBill{BillID: "B-1", Amount: MustMoney(amount), Tender: Card}
		return c
	}
	if _, err := tx.run(t, pay("2026-11-20T10:00", "100.00")); err != nil {
		t.Fatalf("a payment while certification is pending: %v", err)
	}
	pen := staffCmd(KindNovemberRun, "treasurer", "2026-11-02T09:00")
	pen.Payload = &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-1"}}
	mustRun(t, tx, pen)
	cert := staffCmd(KindNovemberRun, "treasurer", "2026-12-01T10:00")
	cert.Payload = &NovemberStep{Op: "certify", Year: 2026, Bills: []string{"B-1"}}
	mustRun(t, tx, cert)
	var run NovemberRun
	tx.Get(CollectionNovemberRuns, "2026", &run)
	if run.CertifiedTotal.String() != "127.00" {
		t.Fatalf("certified %s, want 127.00 (227.00 less the November 20 payment)", run.CertifiedTotal)
	}
	b := tx.bill(t, "B-1")
	if b.Certified == nil || b.Certified.At.Date.String() != "2026-12-01" || b.Certified.Amount.String() != "127.00" || b.Certified.Command != cert.ID {
		t.Fatalf("bill's certification %+v", b.Certified)
	}
	for _, r := range []struct {
		on   string
		want BillStatus
	}{{"2026-11-30", BillRollPending}, {"2026-12-01", BillTaxRoll}, {"2027-01-10", BillTaxRoll}} {
		if fig, _ := b.Figures(MustDate(r.on), p); fig.Status != r.want || fig.TakesPayment() != (r.want == BillRollPending) {
			t.Errorf("as of %s: %s, want %s", r.on, fig.Status, r.want)
		}
	}
	if _, ok, _ := NovemberItemOn(b, "certify", 2026, MustDate("2026-12-02"), p); ok {
		t.Error("a certified bill offered for certification again")
	}
	if _, err := tx.run(t, pay("2026-12-02T10:00", "10.00")); ErrorCode(err) != ECONFLICT {
		t.Fatalf("a payment after certification: %v", err)
	}
	if _, err := b.PreviewPayment(mustDT("2026-12-02T10:00"), MustMoney("10.00"), p); ErrorCode(err) != ECONFLICT {
		t.Fatalf("preview after certification: %v", err)
	}
	if _, err := tx.run(t, pay("2026-12-01T09:30", "10.00")); err != nil {
		t.Fatalf("a payment taken before certification, posting after it: %v", err)
	}

	old := &staffFormatTx{newStaffTx(), 1}
	old.bills["B-1"] = bill
	if _, err := Apply(old, pay("2026-11-20T10:00", "100.00"), 9, p); ErrorCode(err) != ECONFLICT {
		t.Fatalf("format 1: a payment after November 15: %v", err)
	}
}
