package domain

import "testing"

// TestOperatorPaysOnlyItsOwnReturns: on the operator's portal a hotel
// operator's login pays room tax by card (pay_room_tax with its own
// account as the actor). From DocumentsFormat the ledger takes such a
// payment only toward a return of the login's own operator; the kiosk's
// payments and the treasurer's are not the portal's and pass as before;
// at format 6 the old rule gives the old answer, so a log written then
// replays exactly.
func TestOperatorPaysOnlyItsOwnReturns(t *testing.T) {
	l := newRoomTaxLedger(t)
	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	pay := func(ref string) *PayRoomTax {
		return &PayRoomTax{Return: "belle-inn_2026-Q1", Amount: MustMoney("100.00"), Reference: ref}
	}
	cases := []struct {
		section, name, actor string
		format               int
		refused              bool
	}{
		{"§5.22(8)", "the operator's own login", "innkeeper", DocumentsFormat, false},
		{"§5.22(8)", "another operator's login", "rival", DocumentsFormat, true},
		{"§5.22(8)", "a login linked to no operator", "unlinked", DocumentsFormat, true},
		{"§5.22", "the kiosk", "kiosk", DocumentsFormat, false},
		{"§5.22", "the treasurer's office", "treas", DocumentsFormat, false},
		{"§5.22(8)", "another operator's login at format 6", "rival", DocumentsFormat - 1, false},
	}
	for i, c := range cases {
		t.Run(c.section+"/"+c.name, func(t *testing.T) {
			tx := formatTx{l.tx.clone(), c.format}
			cmd := l.cmd(c.actor, "2026-04-20T10:00", pay("SIM-"+string(rune('A'+i))))
			_, err := Apply(tx, cmd, 50, DefaultParams())
			if c.refused {
				if ErrorCode(err) != EFORBIDDEN {
					t.Fatalf("refused with %v, want %s", err, EFORBIDDEN)
				}
				var r QuarterlyReturn
				if _, err := tx.Get(CollectionRoomTaxReturns, "belle-inn_2026-Q1", &r); err != nil || len(r.Payments) != 0 {
					t.Fatalf("a refused payment changed the return: %+v %v", r.Payments, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}
