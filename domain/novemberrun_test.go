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
