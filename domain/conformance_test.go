package domain

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// conformanceCase is one line of testdata/chapter5.jsonl.
type conformanceCase struct {
	ID          string          `json:"id"`
	Rule        string          `json:"rule"`
	Input       json.RawMessage `json:"input"`
	Expect      map[string]any  `json:"expect"`
	ExpectError bool            `json:"expect_error"`
}

func loadConformance(t testing.TB) []conformanceCase {
	t.Helper()
	data, err := os.ReadFile("testdata/chapter5.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var cases []conformanceCase
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c conformanceCase
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("bad case %q: %v", line, err)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestConformance runs every case of RULES.md's conformance file through
// Evaluate, the code path of `appliance rules`.
func TestConformance(t *testing.T) {
	p := DefaultParams()
	cases := loadConformance(t)
	if len(cases) < 239 {
		t.Fatalf("only %d cases in testdata/chapter5.jsonl", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Rule+"/"+c.ID, func(t *testing.T) {
			out, err := Evaluate(c.Rule, c.Input, p)
			if c.ExpectError {
				if err == nil {
					t.Fatalf("want an error, got %+v", out)
				}
				if ErrorCode(err) == EINTERNAL {
					t.Fatalf("error %v is not a domain error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for k, want := range c.Expect {
				if g, ok := got[k]; !ok || !reflect.DeepEqual(g, want) {
					t.Errorf("%s = %v, want %v", k, g, want)
				}
			}
		})
	}
}
