package kiosk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readers are the folders of the kiosk's packages that read the ledger:
// the root and the capabilities moved out of it.
var readers = []string{".", "find", "records"}

// TestNoHandlerSpellsAKey is a guard for the next person: the kiosk reads
// the ledger's records through domain.Reads, questions in the domain's
// words, and no file of the package or of its capabilities' packages
// (tests aside) names a collection or an index of the ledger, or lists or
// scans one itself.
func TestNoHandlerSpellsAKey(t *testing.T) {
	forbidden := []string{"domain.Collection", "domain.Index", "domain.TaxBills", "domain.StatusRequests", "domain.Purchases", ".Keys(", ".List("}
	for _, dir := range readers {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(dir, name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for i, line := range strings.Split(string(b), "\n") {
				for _, f := range forbidden {
					if strings.Contains(line, f) {
						t.Errorf("%s:%d mentions %s: ask domain.Reads instead (s.reads)", path, i+1, f)
					}
				}
			}
		}
		if checked == 0 {
			t.Fatalf("no source files found in %s: the guard guards nothing", dir)
		}
	}
}
