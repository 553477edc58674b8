package kiosk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoHandlerSpellsAKey is a guard for the next person: the kiosk reads
// the ledger's records through domain.Reads, questions in the domain's
// words, and no file of the package (tests aside) names a collection or an
// index of the ledger, or lists or scans one itself.
func TestNoHandlerSpellsAKey(t *testing.T) {
	forbidden := []string{"domain.Collection", "domain.Index", "domain.TaxBills", "domain.StatusRequests", "domain.Purchases", ".Keys(", ".List("}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(".", name))
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i, line := range strings.Split(string(b), "\n") {
			for _, f := range forbidden {
				if strings.Contains(line, f) {
					t.Errorf("%s:%d mentions %s: ask domain.Reads instead (s.reads)", name, i+1, f)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source files found: the guard guards nothing")
	}
}
