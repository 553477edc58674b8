package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

const casesFile = "../domain/testdata/chapter5.jsonl"

type ruleCase struct {
	ID          string          `json:"id"`
	Rule        string          `json:"rule"`
	Input       json.RawMessage `json:"input"`
	Expect      map[string]any  `json:"expect"`
	ExpectError bool            `json:"expect_error"`
}

func loadCases(t testing.TB) ([]ruleCase, []byte) {
	t.Helper()
	data, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []ruleCase
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c ruleCase
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("bad case line %q: %v", line, err)
		}
		cases = append(cases, c)
	}
	return cases, data
}

// TestRulesConformance feeds the whole conformance file through runRules,
// as `appliance rules` does, and checks every case as conformance.py does:
// every field of expect equal, or an error line for expect_error.
func TestRulesConformance(t *testing.T) {
	cases, data := loadCases(t)
	var out bytes.Buffer
	if err := runRules(bytes.NewReader(data), &out, domain.DefaultParams()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("got %d answer lines for %d cases", len(lines), len(cases))
	}
	for i, c := range cases {
		var got struct {
			ID     string         `json:"id"`
			Output map[string]any `json:"output"`
			Error  *string        `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatalf("%s: answer %q is not JSON: %v", c.ID, lines[i], err)
		}
		if got.ID != c.ID {
			t.Fatalf("answer %d has id %q, want %q (answers out of order)", i, got.ID, c.ID)
		}
		if c.ExpectError {
			if got.Error == nil {
				t.Errorf("%s %s: want an error, got %s", c.ID, c.Rule, lines[i])
			}
			continue
		}
		if got.Error != nil {
			t.Errorf("%s %s: unexpected error %q", c.ID, c.Rule, *got.Error)
			continue
		}
		for k, want := range c.Expect {
			if g, ok := got.Output[k]; !ok || !reflect.DeepEqual(g, want) {
				t.Errorf("%s %s: %s = %v, want %v", c.ID, c.Rule, k, g, want)
			}
		}
	}
}

// TestRulesRobust checks that bad lines get error lines, blank lines are
// skipped, ids are echoed whatever their type and long lines are read.
func TestRulesRobust(t *testing.T) {
	var parcels strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&parcels, `{"id":"p%d","units":"1"},`, i)
	}
	long := `{"id":"long","rule":"5.14/apportion","input":{"total_cost":"100.00","parcels":[` +
		parcels.String() + `{"id":"last","units":"1"}]}}`
	tests := []struct {
		name, in string
		want     []string // each answer line must contain this
	}{
		{"not json", "{nope\n", []string{`{"id":null,"error":`}},
		{"not an object", "[1,2]\n", []string{`{"id":null,"error":`}},
		{"blank lines skipped", "\n  \n\r\n", nil},
		{"no rule", `{"id":7,"input":{}}` + "\n", []string{`{"id":7,"error":`}},
		{"unknown rule", `{"id":"a","rule":"9.99/x","input":{}}` + "\n", []string{`{"id":"a","error":"Unknown rule`}},
		{"no input", `{"id":"a","rule":"5.10/receivable"}` + "\n", []string{`{"id":"a","error":`}},
		{"null input", `{"id":"a","rule":"5.10/receivable","input":null}` + "\n", []string{`{"id":"a","error":`}},
		{"unknown field", `{"id":"a","rule":"5.14/hearing-window","input":{"notice_on":"2026-01-01","x":1}}` + "\n", []string{`"error":"§5.14: `}},
		{"extra case fields ignored", `{"id":"a","rule":"5.14/hearing-window","input":{"notice_on":"2026-12-20"},"expect":{},"note":"x"}` + "\n",
			[]string{`{"id":"a","output":{"earliest_hearing":"2026-12-30","latest_hearing":"2027-01-29"}}`}},
		{"no final newline", `{"id":{"n":1},"rule":"5.14/hearing-window","input":{"notice_on":"2026-12-20"}}`, []string{`{"id":{"n":1},"output":`}},
		{"bad then good", "garbage\n" + `{"id":"b","rule":"5.14/hearing-window","input":{"notice_on":"2026-12-20"}}` + "\n",
			[]string{`"error"`, `{"id":"b","output":`}},
		{"duplicate ids kept", `{"id":"d","rule":"5.20/returned-check","input":{}}` + "\n" + `{"id":"d","rule":"5.20/returned-check","input":{}}` + "\n",
			[]string{`{"id":"d","error"`, `{"id":"d","error"`}},
		{"long line", long + "\n", []string{`{"id":"long","output":`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := runRules(strings.NewReader(tt.in), &out, domain.DefaultParams()); err != nil {
				t.Fatal(err)
			}
			var lines []string
			sc := bufio.NewScanner(&out)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d lines %q, want %d", len(lines), lines, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("line %d = %.300s, want it to contain %s", i, lines[i], w)
				}
				if !json.Valid([]byte(lines[i])) {
					t.Errorf("line %d is not valid JSON", i)
				}
			}
		})
	}
}

// BenchmarkRulesFile runs the whole conformance file through runRules.
func BenchmarkRulesFile(b *testing.B) {
	_, data := loadCases(b)
	p := domain.DefaultParams()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := runRules(bytes.NewReader(data), io.Discard, p); err != nil {
			b.Fatal(err)
		}
	}
}
