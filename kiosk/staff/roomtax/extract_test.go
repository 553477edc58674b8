package roomtax_test

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/audit"
)

// TestAuditExtractHoldsNoReturnFigures: the auditors' yearly extract
// (kiosk/staff/audit, §5.15) carries the journal's public columns and
// totals; no file in it holds a room tax return's figures, its exempt
// sales or the operator it is whose (§5.22(8)).
func TestAuditExtractHoldsNoReturnFigures(t *testing.T) {
	o := newOffice(t)
	o.at("2026-04-10 09:00")
	o.fileQ1(o.as("innkeeper"))
	o.h.Submit("kiosk", &domain.PayRoomTax{Return: "belle-inn_2026-Q1", Amount: domain.MustMoney("1000.00"), Reference: "SIM-1"})
	o.as("innkeeper").Get("/staff/room-tax/returns/belle-inn_2026-Q1")
	var buf bytes.Buffer
	if err := audit.WriteExtract(&buf, domain.ReadsOf(o.h.Ledger), o.h.Ledger, 2026, time.Date(2027, 1, 15, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	kinds := 0
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"20000.00", "20,000.00", "1330.00", "1,330.00", "US Forest Service", "Green County 4-H", "PO-7731", "belle-inn", "Belle Inn"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds %q", f.Name, secret)
			}
		}
		kinds += strings.Count(string(b), string(domain.KindRoomTaxRead))
	}
	if kinds == 0 {
		t.Error("the extract's journal does not list the reads of the return")
	}
}
