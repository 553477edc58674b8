package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/audit"
)

// TestAuditExtractVerifies writes the auditors' extract of 2026 from a
// real node's ledger and journal and checks it with `appliance verify
// --extract`; then the same archive with one byte changed in a file, in
// the journal (with the file's checksum fixed in the manifest, as a forger
// would), and in the raw zip: each fails.
func TestAuditExtractVerifies(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	if out, code := userCLI(t, m, "add", "--username", "ccpa", "--name", "Casey CPA", "--role", "auditor"); code != 0 {
		t.Fatalf("user add: %s", out)
	}
	var buf bytes.Buffer
	if err := audit.WriteExtract(&buf, domain.ReadsOf(m.Node.FSM()), nodeJournal{m.Node}, 2026, villageNow); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	verify := func(path string) (string, error) {
		var out bytes.Buffer
		err := verifyCommand([]string{"--extract", path}, &out, io.Discard)
		return out.String(), err
	}
	out, err := verify(write("good.zip", buf.Bytes()))
	if err != nil || !strings.Contains(out, "extract 2026: 8 files verified") {
		t.Fatalf("the extract does not verify: %q %v", out, err)
	}

	// rewrite returns the archive with change applied to the named file's
	// bytes, and the manifest given by fix.
	files := unzip(t, buf.Bytes())
	if !bytes.Contains(files["journal.csv"], []byte("ccpa")) && !bytes.Contains(files["journal.csv"], []byte("operator")) {
		t.Fatalf("the journal CSV lacks the day's commands:\n%s", files["journal.csv"])
	}
	if !bytes.Contains(files["trial-balance.csv"], []byte("100-53300")) || !bytes.Contains(files["check-register.csv"], []byte("date,check_number")) {
		t.Fatalf("trial balance:\n%s", files["trial-balance.csv"])
	}
	rewrite := func(name string, change func([]byte) []byte, fixManifest bool) []byte {
		t.Helper()
		var out bytes.Buffer
		zw := zip.NewWriter(&out)
		changed := change(bytes.Clone(files[name]))
		for _, n := range sortedKeys(files) {
			b := files[n]
			if n == name {
				b = changed
			}
			if n == audit.ManifestName && fixManifest {
				old, neu := sha(files[name]), sha(changed)
				b = bytes.ReplaceAll(b, []byte(old), []byte(neu))
			}
			w, _ := zw.Create(n)
			w.Write(b)
		}
		zw.Close()
		return out.Bytes()
	}
	flip := func(b []byte) []byte { b[len(b)/2] ^= 0x01; return b }
	for _, tc := range []struct {
		name, file string
		fix        bool
		want       string
	}{
		{"a byte of the claims", "claims.csv", false, "claims.csv does not match the manifest"},
		{"a byte of the trial balance", "trial-balance.csv", false, "trial-balance.csv does not match"},
		{"a journal entry, its checksum fixed", audit.JournalLines, true, "the journal does not verify"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := verify(write(tc.file+".zip", rewrite(tc.file, flip, tc.fix))); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	raw := bytes.Clone(buf.Bytes())
	raw[len(raw)/3] ^= 0xff
	if _, err := verify(write("raw.zip", raw)); err == nil {
		t.Fatal("an extract with a changed byte verified")
	}
	if _, err := verify(write("short.zip", buf.Bytes()[:len(buf.Bytes())/2])); err == nil {
		t.Fatal("a truncated extract verified")
	}
}

func unzip(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

func sortedKeys(m map[string][]byte) []string { return slices.Sorted(maps.Keys(m)) }

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
