package domain

import (
	"fmt"
	"strings"
	"testing"
)

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
	if run.Lines("certify") != 1 || run.CertifiedTotal.String() != "227.00" || run.PenaltyTotal.String() != "3.00" || runLine(t, tx, 2026, "certify", "B-1").County != Dane {
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

// runLine returns the line a step of the year's November run posted for
// id, as the ledger records it: a record of its own (ledger format 8).
func runLine(t *testing.T, tx Tx, year int, step, id string) RunItem {
	t.Helper()
	var it RunItem
	if ok, err := tx.Get(CollectionNovemberItems, NovemberItemKey(year, step, id), &it); err != nil || !ok {
		t.Fatalf("the %d %s line of %s: found %v, %v", year, step, id, ok, err)
	}
	return it
}

// TestNovemberStepInParts (§5.10, ledger format 8): a step posts in parts
// of at most RunPartBills bills. The step stays open until the part that
// says no more follow: a bill is posted by one part only, the roll is not
// certified while penalties remain, each line is a record of its own and
// the run adds the parts' counts and totals. A part over the size is
// refused before anything is read.
func TestNovemberStepInParts(t *testing.T) {
	tx := newStaffTx()
	for _, id := range []string{"B-1", "B-2", "B-3"} {
		tx.bills[id] = Bill{ID: id, Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-01"), Principal: MustMoney("200.00")}
	}
	step := func(op, at string, more bool, bills ...string) Command {
		c := staffCmd(KindNovemberRun, "treasurer", at)
		c.Payload = &NovemberStep{Op: op, Year: 2026, Bills: bills, More: more}
		return c
	}
	run := func() NovemberRun {
		var r NovemberRun
		tx.Get(CollectionNovemberRuns, "2026", &r)
		return r
	}
	first := step("penalties", "2026-11-02T09:00", true, "B-1", "B-2")
	if res := mustRun(t, tx, first); !strings.Contains(res.Note, "2 penalties posted, 6.00; more parts of this step follow") {
		t.Fatalf("first part: %q", res.Note)
	}
	if r := run(); r.PenaltiesPosted() || !r.PenaltiesOpen || r.Lines("penalties") != 2 || r.PenaltiesCommand != first.ID {
		t.Fatalf("after the first part: %+v", r)
	}
	refused(t, tx, step("certify", "2026-11-16T09:00", false, "B-1"), ECONFLICT, "Finish posting the 2026 penalties (2 lines posted so far)")
	refused(t, tx, step("penalties", "2026-11-02T09:05", false, "B-3", "B-2"), ECONFLICT, "Bill B-2's 2026 penalty was posted in an earlier part")
	var big []string
	for i := range RunPartBills + 1 {
		big = append(big, fmt.Sprintf("B-%d", 100+i))
	}
	refused(t, tx, step("penalties", "2026-11-02T09:05", false, big...), EINVALID, "at most 200 bills")
	if res := mustRun(t, tx, step("penalties", "2026-11-02T09:10", false, "B-3")); !strings.Contains(res.Note, "the step is complete: 3 lines, 9.00") {
		t.Fatalf("last part: %q", res.Note)
	}
	if r := run(); !r.PenaltiesPosted() || r.PenaltyTotal.String() != "9.00" || r.Lines("penalties") != 3 || len(r.Penalties) != 0 {
		t.Fatalf("after the last part: %+v", r)
	}
	if it := runLine(t, tx, 2026, "penalties", "B-3"); it.Penalty.String() != "3.00" || it.County != Dane {
		t.Fatalf("the penalty line of B-3: %+v", it)
	}
	refused(t, tx, step("penalties", "2026-11-03T09:00", false), ECONFLICT, "already posted")

	cert := step("certify", "2026-11-16T09:00", true, "B-1")
	mustRun(t, tx, cert)
	if b := tx.bill(t, "B-1"); b.Certified == nil || b.Certified.Command != cert.ID {
		t.Fatalf("B-1 after the first certify part: %+v", b.Certified)
	}
	if b := tx.bill(t, "B-2"); b.Certified != nil {
		t.Fatalf("B-2 certified by a part that did not list it: %+v", b.Certified)
	}
	refused(t, tx, step("certify", "2026-11-16T09:05", false, "B-1", "B-2"), ECONFLICT, "Bill B-1 does not belong in this step any more")
	mustRun(t, tx, step("certify", "2026-11-16T09:10", false, "B-2", "B-3"))
	r := run()
	if !r.RollCertified() || r.Lines("certify") != 3 || r.CertifiedTotal.String() != "681.00" || r.CertifyCommand != cert.ID {
		t.Fatalf("after certification: %+v", r)
	}
	refused(t, tx, step("certify", "2026-11-17T09:00", false), ECONFLICT, "already certified")
	checkItemsPages(t, tx, r, "penalties")
	checkItemsPages(t, tx, r, "certify")
	var item RunItem
	if ok, _ := tx.Get(CollectionTaxRoll, "B-3", &item); !ok || item.Balance.String() != "227.00" {
		t.Fatalf("B-3 on the tax roll: %+v", item)
	}
}

// TestNovemberStepBeforeParts: at ledger format 7 a command is the whole
// step whatever it says of more parts (a field the format does not read),
// and the run's record holds its lines, as the ledger was written then.
func TestNovemberStepBeforeParts(t *testing.T) {
	tx := newStaffTx()
	tx.format = DocumentsFormat
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-03-01"), Principal: MustMoney("200.00")}
	c := staffCmd(KindNovemberRun, "treasurer", "2026-11-02T09:00")
	c.Payload = &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-1"}, More: true}
	mustRun(t, tx, c)
	var run NovemberRun
	tx.Get(CollectionNovemberRuns, "2026", &run)
	if !run.PenaltiesPosted() || run.PenaltiesOpen || run.PenaltyCount != 0 || len(run.Penalties) != 1 {
		t.Fatalf("format 7 run: %+v", run)
	}
	var it RunItem
	if ok, _ := tx.Get(CollectionNovemberItems, NovemberItemKey(2026, "penalties", "B-1"), &it); ok {
		t.Fatal("format 7 wrote a line record of its own")
	}
	checkItemsPages(t, tx, run, "penalties")
}

// checkItemsPages checks that the pages of a posted step
// (Reads.NovemberItemsPage), of every size and from every line, are its
// lines as NovemberItems lists them, and that the run counts them all.
func checkItemsPages(t *testing.T, tx *staffTx, run NovemberRun, step string) {
	t.Helper()
	x := ReadsOf(txRecords{tx})
	all, err := x.NovemberItems(run, step)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != run.Lines(step) || len(all) == 0 {
		t.Fatalf("%s: %d lines, the run counts %d", step, len(all), run.Lines(step))
	}
	for n := 1; n <= len(all)+1; n++ {
		for from := 0; from <= len(all); from++ {
			page, err := x.NovemberItemsPage(run, step, from, n)
			if err != nil {
				t.Fatal(err)
			}
			want := all[from:min(len(all), from+n)]
			if js(page) != js(want) && !(len(page) == 0 && len(want) == 0) {
				t.Fatalf("%s from %d, %d a page: %s, want %s", step, from, n, js(page), js(want))
			}
		}
	}
}
