package staff_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoHandlerSpellsAStorageKey: the clerk's office reads the ledger in
// the domain's words (domain.Reads); no file of it names a collection, an
// index or a key. A guard for the next page.
func TestNoHandlerSpellsAStorageKey(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"domain.Collection", "domain.Index", "domain.TaxBills", "domain.StatusRequests", "domain.Purchases", ".Keys(", ".List(", "ledger.Get("} {
			if strings.Contains(string(body), bad) {
				t.Errorf("%s uses %s: read through domain.Reads instead", f, bad)
			}
		}
	}
}
