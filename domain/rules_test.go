package domain

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// ruleRow is a row of a rule's edge table: the section and a short name, an
// input as the conformance cases write it, and either the output fields it
// must produce or the error code it must fail with.
type ruleRow struct {
	section, name string
	input         string
	want          map[string]any
	err           Code
}

// caseHolidays is the holiday list the conformance cases pass.
const caseHolidays = `["2026-01-01","2026-05-25","2026-07-03","2026-09-07","2026-11-26","2026-11-27","2026-12-24","2026-12-25",
	"2027-01-01","2027-05-31","2027-07-05","2027-09-06","2027-11-25","2027-11-26","2027-12-23","2027-12-24"]`

// caseFees is the fee schedule the conformance cases pass.
const caseFees = `[{"effective":"2025-01-01","status_letter":"35.00","returned_check":"25.00"},
	{"effective":"2026-07-01","status_letter":"45.00","returned_check":"30.00"}]`

// runRuleTable evaluates each row through Evaluate, as `appliance rules`
// does, and compares the named output fields as JSON.
func runRuleTable(t *testing.T, rule string, p *Params, rows []ruleRow) {
	t.Helper()
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			out, err := Evaluate(rule, json.RawMessage(row.input), p)
			if row.err != "" {
				if err == nil {
					t.Fatalf("want a %s error, got %s", row.err, mustJSON(t, out))
				}
				if got := ErrorCode(err); got != row.err {
					t.Fatalf("error code %s (%v), want %s", got, err, row.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			var got map[string]any
			if err := json.Unmarshal(mustJSON(t, out), &got); err != nil {
				t.Fatal(err)
			}
			for k, w := range row.want {
				var want any
				if err := json.Unmarshal(mustJSON(t, w), &want); err != nil {
					t.Fatal(err)
				}
				if g, ok := got[k]; !ok || !reflect.DeepEqual(g, want) {
					t.Errorf("%s = %v, want %v", k, g, want)
				}
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRulesList(t *testing.T) {
	want := []string{"5.10/receivable", "5.22/room-tax-return", "5.11/status-letter", "5.07/refund", "5.12/purchase",
		"5.03/budget-vote", "5.14/apportion", "5.14/adjust", "5.14/hearing-window", "5.14/repair-notice",
		"5.08/legal-claim", "5.20/returned-check", "ch74/first-installment"}
	if got := Rules(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Rules() = %v", got)
	}
}

// TestEvaluateStrict checks the decoding every rule shares: unknown fields,
// missing required fields, nulls, wrong types and non-objects are EINVALID
// errors with a plain message naming the field.
func TestEvaluateStrict(t *testing.T) {
	p := DefaultParams()
	tests := []struct {
		name, rule, input, msg string
	}{
		{"unknown rule", "5.99/x", `{}`, `Unknown rule "5.99/x"`},
		{"not an object", "5.10/receivable", `[1]`, "must be a JSON object"},
		{"null", "5.10/receivable", `null`, "must be a JSON object"},
		{"not json", "5.10/receivable", `{"billed_on":`, "not valid JSON"},
		{"unknown field", "5.10/receivable", `{"billed_on":"2026-01-01","principal":"1","as_of":"2026-01-01","note":1}`, `unknown field "note"`},
		{"missing field", "5.10/receivable", `{"billed_on":"2026-01-01","principal":"1"}`, `needs "as_of"`},
		{"null required field", "5.10/receivable", `{"billed_on":"2026-01-01","principal":null,"as_of":"2026-01-01"}`, `needs "principal"`},
		{"nested unknown field", "5.10/receivable", `{"billed_on":"2026-01-01","principal":"1","as_of":"2026-01-01","payments":[{"on":"2026-01-01","amount":"1","by":"x"}]}`, `unknown field "by"`},
		{"nested missing field", "5.10/receivable", `{"billed_on":"2026-01-01","principal":"1","as_of":"2026-01-01","payments":[{"amount":"1"}]}`, `needs "on"`},
		{"bad money", "5.10/receivable", `{"billed_on":"2026-01-01","principal":"1e3","as_of":"2026-01-01"}`, `"1e3"`},
		{"bad date", "5.10/receivable", `{"billed_on":"2026-02-30","principal":"1","as_of":"2026-01-01"}`, `"2026-02-30"`},
		{"wrong type int", "5.03/budget-vote", `{"action":"adopt","present":"5","ayes":5}`, "whole number"},
		{"wrong type bool", "5.12/purchase", `{"amount":"1","category":"supplies","available_appropriation":"1","emergency":"yes"}`, "true or false"},
		{"fractional count", "5.03/budget-vote", `{"action":"adopt","present":5.5,"ayes":5}`, "whole number"},
		{"bad fee row", "5.20/returned-check", `{"returned_on":"2026-01-01","check_amount":"1","fee_schedule":[{"effective":"2025-01-01","status_letter":"1"}]}`, `needs "returned_check"`},
		{"empty buyer", "5.12/purchase", `{"amount":"1","category":"supplies","available_appropriation":"1","buyer":""}`, "buyer is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Evaluate(tt.rule, json.RawMessage(tt.input), p)
			if err == nil {
				t.Fatal("no error")
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v (%s), want EINVALID containing %q", err, ErrorCode(err), tt.msg)
			}
		})
	}
}

// FuzzEvaluate decodes arbitrary bytes as the input of each rule: Evaluate
// must never panic, every error must be a domain error (not an internal
// one), and every output must marshal to valid JSON.
func FuzzEvaluate(f *testing.F) {
	ids := Rules()
	for _, c := range loadConformance(f) {
		f.Add(uint8(slices.Index(ids, c.Rule)), []byte(c.Input))
	}
	p := DefaultParams()
	f.Fuzz(func(t *testing.T, rule uint8, input []byte) {
		id := ids[int(rule)%len(ids)]
		out, err := Evaluate(id, input, p)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code == EINTERNAL || e.Message == "" {
				t.Fatalf("%s: error %v is not a plain domain error", id, err)
			}
			return
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("%s: output does not marshal: %v", id, err)
		}
		if !json.Valid(b) {
			t.Fatalf("%s: invalid JSON %s", id, b)
		}
	})
}

// BenchmarkRules evaluates the first conformance case of each rule.
func BenchmarkRules(b *testing.B) {
	p := DefaultParams()
	cases := loadConformance(b)
	for _, id := range Rules() {
		i := slices.IndexFunc(cases, func(c conformanceCase) bool { return c.Rule == id && !c.ExpectError })
		if i < 0 {
			b.Fatalf("no case for %s", id)
		}
		input := cases[i].Input
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				if _, err := Evaluate(id, input, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConformanceFile evaluates every case of the conformance file.
func BenchmarkConformanceFile(b *testing.B) {
	p := DefaultParams()
	cases := loadConformance(b)
	for b.Loop() {
		for _, c := range cases {
			Evaluate(c.Rule, c.Input, p)
		}
	}
}

func BenchmarkDefaultParams(b *testing.B) {
	for b.Loop() {
		DefaultParams()
	}
}
