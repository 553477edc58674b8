package domain

import "testing"

// TestFiguresAsOfCountOnlyWhatWasRecordedThen: a bill billed 2026-03-02
// (100.00, due 2026-04-01) was paid 60.00 on 2026-05-31 and 20.00 by check
// on 2026-06-15; the check came back on 2026-08-20. Its figures as of each
// date where §5.10 turns count only the payments made by then, and the
// check as it stood then (before the day it came back). The values are
// worked by hand from RULES.md (1.5% a month of the unpaid principal at
// each month's start, each rounded half-up; the penalty on November 2; the
// tax roll after November 15).
func TestFiguresAsOfCountOnlyWhatWasRecordedThen(t *testing.T) {
	at := func(d string) DateTime { return NewDateTime(MustDate(d), 10, 0, 0) }
	check := BillPayment{CommandID: "c2", Receipt: "r2", At: at("2026-06-15"), Amount: MustMoney("20.00"), Tender: Check}
	b := Bill{ID: "B", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("100.00"),
		Payments: []BillPayment{{CommandID: "c1", Receipt: "r1", At: at("2026-05-31"), Amount: MustMoney("60.00"), Tender: Card}},
		Reversed: []ReversedPayment{{BillPayment: check, ReversedOn: MustDate("2026-08-20"), ReturnID: "RC-1"}}}
	rows := []struct {
		name, asOf              string
		paid, interest, penalty string
		balance                 string
		status                  BillStatus
	}{
		{"before billing", "2026-03-01", "0.00", "0.00", "0.00", "100.00", BillCurrent},
		{"due date", "2026-04-01", "0.00", "0.00", "0.00", "100.00", BillCurrent},
		{"first month starts", "2026-04-02", "0.00", "1.50", "0.00", "101.50", BillPastDue},
		{"April first: nothing paid yet", "2026-04-30", "0.00", "1.50", "0.00", "101.50", BillPastDue},
		{"second month", "2026-05-02", "0.00", "3.00", "0.00", "103.00", BillPastDue},
		{"the day of the first payment", "2026-05-31", "60.00", "3.00", "0.00", "43.00", BillPastDue},
		{"third month, on what is left", "2026-06-02", "60.00", "3.65", "0.00", "43.65", BillPastDue},
		{"the day of the check", "2026-06-15", "80.00", "3.65", "0.00", "23.65", BillPastDue},
		{"fourth month", "2026-07-02", "80.00", "4.00", "0.00", "24.00", BillPastDue},
		{"the eve of the return", "2026-08-19", "80.00", "4.35", "0.00", "24.35", BillPastDue},
		{"the day the check came back", "2026-08-20", "60.00", "4.95", "0.00", "44.95", BillPastDue},
		{"November 1", "2026-11-01", "60.00", "6.25", "0.00", "46.25", BillPastDue},
		{"November 2: penalty", "2026-11-02", "60.00", "6.90", "0.65", "47.55", BillPastDue},
		{"November 15", "2026-11-15", "60.00", "6.90", "0.65", "47.55", BillPastDue},
		{"November 16: the tax roll, not certified yet", "2026-11-16", "60.00", "6.90", "0.65", "47.55", BillRollPending},
	}
	p := DefaultParams()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			fig, err := b.Figures(MustDate(r.asOf), p)
			if err != nil {
				t.Fatal(err)
			}
			got := [5]string{fig.Paid.String(), fig.Interest.String(), fig.Penalty.String(), fig.Balance.String(), string(fig.Status)}
			want := [5]string{r.paid, r.interest, r.penalty, r.balance, string(r.status)}
			if got != want {
				t.Errorf("as of %s: paid, interest, penalty, balance, status = %v, want %v", r.asOf, got, want)
			}
		})
	}
}
