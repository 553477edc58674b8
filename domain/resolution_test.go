package domain

import (
	"strings"
	"testing"
)

// TestResolutions: the seed sets every parameter; a resolution changes a
// fee from its effective date on, and the fee of a date before it stays as
// it was; a resolution before the seed, a second seed, a retroactive row,
// a failed vote and a duplicate number are refused.
func TestResolutions(t *testing.T) {
	tx := newResidentTx()
	run := func(r *Resolution, at string) error {
		c := cmdAt(KindResolution, at, 0)
		c.Actor = "admin"
		c.Payload = r
		_, err := tx.run(t, c)
		return err
	}
	fee := &Resolution{Number: "2026-14", Title: "Fee schedule", AdoptedOn: MustDate("2026-11-10"), Ayes: 5, Nays: 1, Present: 6,
		Rows: []ParamRow{{Effective: MustDate("2027-01-01"), Name: "status_letter", Value: "50.00", Note: "fee schedule 2027"}}}
	if err := run(fee, "2026-11-10T19:00"); ErrorCode(err) != EUNAVAILABLE {
		t.Fatalf("a resolution before the seed: %v", err)
	}
	seed := SeedResolution(DefaultParams(), MustDate("2026-01-02"))
	if err := run(seed, "2026-01-02T08:00"); err != nil {
		t.Fatal(err)
	}
	if err := run(SeedResolution(DefaultParams(), MustDate("2026-01-03")), "2026-01-03T08:00"); ErrorCode(err) != ECONFLICT {
		t.Fatalf("a second seed: %v", err)
	}
	if err := run(fee, "2026-11-10T19:00"); err != nil {
		t.Fatal(err)
	}
	if err := run(fee, "2026-11-11T19:00"); ErrorCode(err) != ECONFLICT {
		t.Fatalf("the same number again: %v", err)
	}
	back := &Resolution{Number: "2026-15", AdoptedOn: MustDate("2026-11-12"), Ayes: 4, Present: 5,
		Rows: []ParamRow{{Effective: MustDate("2026-06-01"), Name: "returned_check", Value: "40.00"}}}
	if err := run(back, "2026-11-12T19:00"); err == nil || !strings.Contains(err.Error(), "before today") {
		t.Fatalf("a retroactive row: %v", err)
	}
	failed := &Resolution{Number: "2026-16", AdoptedOn: MustDate("2026-11-12"), Ayes: 2, Nays: 2, Present: 4,
		Rows: []ParamRow{{Effective: MustDate("2027-01-01"), Name: "returned_check", Value: "40.00"}}}
	if err := run(failed, "2026-11-12T19:00"); err == nil || !strings.Contains(err.Error(), "did not pass") {
		t.Fatalf("a failed vote: %v", err)
	}
	var rs []Resolution
	for i := 1; ; i++ {
		var r Resolution
		if ok, _ := tx.Get(CollectionResolutions, ResolutionID(i), &r); !ok {
			break
		}
		rs = append(rs, r)
	}
	p, err := ParamsOf(rs)
	if err != nil || len(rs) != 2 {
		t.Fatalf("params of %d resolutions: %v", len(rs), err)
	}
	if got := p.At(MustDate("2026-12-31")).StatusLetterFee.String(); got != "45.00" {
		t.Errorf("the fee on 2026-12-31 = %s, want 45.00 (as before the resolution)", got)
	}
	if got := p.At(MustDate("2027-01-01")).StatusLetterFee.String(); got != "50.00" {
		t.Errorf("the fee on 2027-01-01 = %s, want 50.00", got)
	}
	if len(p.Holidays()) != len(DefaultParams().Holidays()) {
		t.Errorf("holidays %d, want %d", len(p.Holidays()), len(DefaultParams().Holidays()))
	}
	changes, err := fee.Changes(ParamsOfMust(t, rs[:1]))
	if err != nil || len(changes) != 1 || changes[0].Old != "45.00" || changes[0].New != "50.00" {
		t.Fatalf("preview: %+v, %v", changes, err)
	}
}

func ParamsOfMust(t *testing.T, rs []Resolution) *Params {
	t.Helper()
	p, err := ParamsOf(rs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
