package domain

import (
	"strings"
	"testing"
)

func TestDefaultParams(t *testing.T) {
	p := DefaultParams() // panics if the embedded file is broken
	if err := p.Complete(); err != nil {
		t.Fatal(err)
	}
	v := p.At(MustDate("2026-06-30"))
	checks := []struct {
		name      string
		got, want string
	}{
		{"receivable_interest", v.ReceivableInterest.String(), "0.015"},
		{"receivable_penalty", v.ReceivablePenalty.String(), "0.015"},
		{"status_letter", v.StatusLetterFee.String(), "35.00"},
		{"returned_check", v.ReturnedCheckFee.String(), "25.00"},
		{"office_closes", v.OfficeCloses.String(), "16:30"},
		{"room_tax_rate", v.RoomTaxRate.String(), "0.07"},
		{"room_tax_interest_monthly", v.RoomTaxInterestMonthly.String(), "0.01"},
		{"room_tax_late_filing_fee", v.RoomTaxLateFilingFee.String(), "100.00"},
		{"board_approval_threshold", v.BoardApprovalThreshold.String(), "3000.00"},
		{"emergency_limit_purchasing_agent", v.EmergencyLimitPurchasingAgent.String(), "2500.00"},
		{"emergency_limit_department_head", v.EmergencyLimitDepartmentHead.String(), "500.00"},
		{"class1_notice_threshold", v.Class1NoticeThreshold.String(), "5000.00"},
		{"class2_notice_threshold", v.Class2NoticeThreshold.String(), "25000.00"},
		{"installment_threshold", v.InstallmentThreshold.String(), "100.00"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if v.ReceivableDueDays != 30 || v.StatusLetterBusinessDays != 2 || v.RefundBusinessDays != 15 || v.BoardSize != 7 {
		t.Errorf("counts = %+v", v)
	}
	if n := len(p.Holidays()); n != 16 {
		t.Errorf("%d holidays, want 16", n)
	}
	if !p.Calendar().IsHoliday(MustDate("2026-11-26")) {
		t.Error("Thanksgiving 2026 is not a holiday")
	}
}

// TestParamsAtLatestRow checks that At takes the latest row on or before a
// date, not the first, whatever the order of the rows in the file.
func TestParamsAtLatestRow(t *testing.T) {
	p, err := ParseParams("t.txt", []byte(`
2027-01-01 status_letter 50.00 later row listed first
2025-01-01 status_letter 35.00
2026-07-01 status_letter 45.00
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ on, want string }{
		{"2024-12-31", ""},
		{"2025-01-01", "35.00"},
		{"2026-06-30", "35.00"},
		{"2026-07-01", "45.00"},
		{"2026-12-31", "45.00"},
		{"2027-01-01", "50.00"},
		{"2099-01-01", "50.00"},
	} {
		v := p.At(MustDate(tt.on))
		got := ""
		if v.Has("status_letter") {
			got = v.StatusLetterFee.String()
		}
		if got != tt.want {
			t.Errorf("At(%s) = %q, want %q", tt.on, got, tt.want)
		}
	}
}

func TestParseParamsErrors(t *testing.T) {
	for _, tt := range []struct{ name, file, want string }{
		{"unknown", "# c\n\n2025-01-01 foo 1", `p.txt:3: unknown parameter "foo"`},
		{"bad date", "2025-13-01 status_letter 1.00", `p.txt:1: bad effective date "2025-13-01"`},
		{"short", "2025-01-01 status_letter", `p.txt:1: want "EFFECTIVE NAME VALUE [NOTE]"`},
		{"bad money", "2025-01-01 status_letter 1.234", `p.txt:1: status_letter: want an amount`},
		{"negative money", "2025-01-01 status_letter -1", `p.txt:1: status_letter: want an amount`},
		{"bad rate", "2025-01-01 receivable_interest x", `p.txt:1: receivable_interest: want a rate`},
		{"count out of range", "2025-01-01 refund_business_days 0", `p.txt:1: refund_business_days: want a whole number from 1 to 365`},
		{"bad clock", "2025-01-01 office_closes 25:00", `p.txt:1: office_closes: want a time of day`},
		{"duplicate row", "2025-01-01 status_letter 1\n2025-01-01 status_letter 2", `p.txt:2: status_letter already has a row effective 2025-01-01 on line 1`},
		{"bad holiday", "holiday 2026-02-30 x", `p.txt:1: bad holiday date "2026-02-30"`},
		{"holiday no date", "holiday", `p.txt:1: holiday without a date`},
		{"duplicate holiday", "holiday 2026-01-01\nholiday 2026-01-01", `p.txt:2: holiday 2026-01-01 already listed on line 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseParams("p.txt", []byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if ErrorCode(err) != EINVALID {
				t.Errorf("code = %s", ErrorCode(err))
			}
		})
	}
}

func TestParamsMerge(t *testing.T) {
	o, err := ParseParams("override.txt", []byte(`
2025-01-01 status_letter 40.00 replaces the default row of that date
2028-01-01 receivable_interest 1%  a new resolution
holiday 2027-12-31 New Year's Eve
`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Complete() == nil {
		t.Error("a partial override reports complete")
	}
	d := DefaultParams()
	p := d.Merge(o)
	if got := p.At(MustDate("2025-06-01")).StatusLetterFee.String(); got != "40.00" {
		t.Errorf("status_letter 2025 = %s, want 40.00", got)
	}
	if got := p.At(MustDate("2026-07-01")).StatusLetterFee.String(); got != "45.00" {
		t.Errorf("status_letter 2026-07 = %s, want 45.00", got)
	}
	if got := p.At(MustDate("2027-12-31")).ReceivableInterest.String(); got != "0.015" {
		t.Errorf("interest 2027 = %s", got)
	}
	if got := p.At(MustDate("2028-01-01")).ReceivableInterest.String(); got != "0.01" {
		t.Errorf("interest 2028 = %s", got)
	}
	cal := p.Calendar()
	if !cal.IsHoliday(MustDate("2027-12-31")) || cal.IsHoliday(MustDate("2027-12-24")) || !cal.IsHoliday(MustDate("2026-12-25")) {
		t.Error("a year of override holidays must replace that year's defaults only")
	}
	// The defaults are untouched.
	if d.At(MustDate("2025-06-01")).StatusLetterFee.String() != "35.00" || !d.Calendar().IsHoliday(MustDate("2027-12-24")) {
		t.Error("Merge changed its receiver")
	}
}

func TestWithFeeSchedule(t *testing.T) {
	d := DefaultParams()
	p := d.WithFeeSchedule([]FeeRow{
		{Effective: MustDate("2026-01-01"), StatusLetter: MustMoney("10.00"), ReturnedCheck: MustMoney("20.00")},
		{Effective: MustDate("2020-01-01"), StatusLetter: MustMoney("5.00"), ReturnedCheck: MustMoney("6.00")},
	})
	if v := p.At(MustDate("2025-12-31")); v.StatusLetterFee.String() != "5.00" || v.ReturnedCheckFee.String() != "6.00" {
		t.Errorf("2025 = %s %s", v.StatusLetterFee, v.ReturnedCheckFee)
	}
	if v := p.At(MustDate("2027-01-01")); v.StatusLetterFee.String() != "10.00" || v.ReturnedCheckFee.String() != "20.00" {
		t.Errorf("2027 = %s %s", v.StatusLetterFee, v.ReturnedCheckFee)
	}
	if v := p.At(MustDate("2019-12-31")); v.Has("status_letter") {
		t.Error("a fee before the first row of the schedule")
	}
	if d.At(MustDate("2027-01-01")).StatusLetterFee.String() != "45.00" {
		t.Error("WithFeeSchedule changed its receiver")
	}
}

// FuzzParseParams checks that a parameter file of any content never panics
// the parser, that errors name the file and a line, and that a parsed file
// merges over the defaults and answers At for any date.
func FuzzParseParams(f *testing.F) {
	f.Add(defaultParams)
	f.Add([]byte("2025-01-01 status_letter 35.00 Res. 2025-01\nholiday 2026-11-26 Thanksgiving\n"))
	f.Add([]byte("2025-01-01 foo 1\n"))
	f.Add([]byte("2025-01-01 office_closes 16:30\r\n# comment\n\n2026-01-01 receivable_interest 1.5%\n"))
	d := DefaultParams()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseParams("f.txt", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		m := d.Merge(p)
		for _, day := range []string{"1900-01-01", "2026-06-30", "9999-12-31"} {
			m.At(MustDate(day))
		}
		if err := m.Complete(); err != nil {
			t.Fatalf("merging over complete defaults: %v", err)
		}
	})
}

// TestReceivableParamsComeFirst: the receivable's account reads only the
// first receivableParams parameters (receivableAt), so they must be
// §5.10's, and the values it gets must be At's for them.
func TestReceivableParamsComeFirst(t *testing.T) {
	for i, d := range paramDefs {
		if got := strings.HasPrefix(d.name, "receivable_"); got != (i < receivableParams) {
			t.Fatalf("parameter %d is %s: §5.10's are the first %d", i, d.name, receivableParams)
		}
	}
	p := DefaultParams()
	for _, d := range []Date{MustDate("2020-01-01"), MustDate("2026-11-02"), MustDate("2031-06-30")} {
		all, some := p.At(d), p.receivableAt(d)
		if some.ReceivableDueDays != all.ReceivableDueDays || !some.ReceivableInterest.Decimal().Equal(all.ReceivableInterest.Decimal()) || !some.ReceivablePenalty.Decimal().Equal(all.ReceivablePenalty.Decimal()) || some.has != all.has&(1<<receivableParams-1) {
			t.Fatalf("on %s: receivableAt %+v, At %+v", d, some, all)
		}
	}
}

// TestReceivableRatesByDay: the fingerprint of the §5.10 rows looked up by
// the days they take effect is the one worked out from the rows, on those
// days, the days either side and between, before them all and far after,
// for the defaults and for parameters with rows of their own dates.
func TestReceivableRatesByDay(t *testing.T) {
	o, err := ParseParams("override.txt", []byte(`
2026-03-15 receivable_interest 1%     a resolution
2026-03-16 receivable_penalty 2%      another the next day
2027-07-01 receivable_due_days 45     and a later one
2027-07-01 receivable_interest 1.25%  the same day
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Params{"defaults": DefaultParams(), "merged": DefaultParams().Merge(o)} {
		days := []Date{{}, MustDate("1899-12-31"), MustDate("1900-01-01"), MustDate("9999-12-31")}
		for d := MustDate("2026-01-01"); d.Before(MustDate("2028-01-01")); d = d.AddDays(1) {
			days = append(days, d)
		}
		seen := map[string]bool{}
		for _, d := range days {
			got, want := p.receivableRates(d), p.ratesOn(d)
			if got != want {
				t.Errorf("%s on %s: %s, worked out from the rows %s", name, d, got, want)
			}
			seen[want] = true
		}
		if want := map[string]int{"defaults": 2, "merged": 5}[name]; len(seen) != want {
			t.Errorf("%s: %d fingerprints over the days, want %d", name, len(seen), want)
		}
	}
}
