package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

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
	if err != nil || !strings.Contains(out, "extract 2026: 10 files verified") {
		t.Fatalf("the extract does not verify: %q %v", out, err)
	}

	// rewrite returns the archive with change applied to the named file's
	// bytes, and the manifest given by fix.
	files := unzip(t, buf.Bytes())
	if !bytes.Contains(files["journal.csv"], []byte("ccpa")) && !bytes.Contains(files["journal.csv"], []byte("operator")) {
		t.Fatalf("the journal CSV lacks the day's commands:\n%s", files["journal.csv"])
	}
	if !bytes.Contains(files["budget-to-actual.csv"], []byte("100-53300")) || !bytes.Contains(files["check-register.csv"], []byte("date,check_number")) {
		t.Fatalf("budget to actual:\n%s", files["budget-to-actual.csv"])
	}
	checkExtractBooks(t, domain.ReadsOf(m.Node.FSM()), files, 2026)
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

// checkExtractBooks checks the books' files of an extract of year against
// the ledger: the trial balance is the books' of December 31 and
// balances, the general ledger's lines sum account by account to the
// trial balance's movement in the year, and each line's actual in the
// budget against actual is the year's actual the ledger reads.
func checkExtractBooks(t *testing.T, reads domain.Reads, files map[string][]byte, year int) {
	t.Helper()
	records := func(name string) (map[string]int, [][]string) {
		t.Helper()
		recs, err := csv.NewReader(bytes.NewReader(files[name])).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%s: %v\n%s", name, err, files[name])
		}
		cols := map[string]int{}
		for i, h := range recs[0] {
			cols[h] = i
		}
		return cols, recs[1:]
	}
	amount := func(s string) domain.Money {
		t.Helper()
		if s == "" {
			return domain.Money{}
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			t.Fatalf("amount %q: %v", s, err)
		}
		return domain.MoneyFromDecimal(d)
	}
	end, err := reads.TrialBalance(domain.NewDate(year, 12, 31))
	if err != nil {
		t.Fatal(err)
	}
	before, err := reads.TrialBalance(domain.NewDate(year-1, 12, 31))
	if err != nil {
		t.Fatal(err)
	}
	if len(end.Rows) == 0 || !end.Balanced() {
		t.Fatalf("the demo's books of %d: %d accounts, debits %s, credits %s", year, len(end.Rows), end.Debit, end.Credit)
	}
	cols, tb := records("trial-balance.csv")
	if len(tb) != len(end.Rows)+1 {
		t.Fatalf("trial-balance.csv has %d rows for %d accounts", len(tb), len(end.Rows))
	}
	for i, r := range end.Rows {
		rec := tb[i]
		if rec[cols["account"]] != r.Account.Code || !amount(rec[cols["debit"]]).Equal(r.Debit) || !amount(rec[cols["credit"]]).Equal(r.Credit) || !amount(rec[cols["balance"]]).Equal(r.Balance()) {
			t.Errorf("trial balance %v; the books %s %s %s", rec, r.Account.Code, r.Debit, r.Credit)
		}
	}
	total := tb[len(tb)-1]
	if total[cols["account"]] != "total" || !amount(total[cols["debit"]]).Equal(end.Debit) || !amount(total[cols["credit"]]).Equal(end.Debit) {
		t.Errorf("the trial balance's totals %v; the books %s", total, end.Debit)
	}

	movement := map[string]domain.Money{}
	for _, r := range end.Rows {
		movement[r.Account.Code] = r.Debit.Sub(r.Credit)
	}
	for _, r := range before.Rows {
		movement[r.Account.Code] = movement[r.Account.Code].Sub(r.Debit.Sub(r.Credit))
	}
	cols, gl := records("general-ledger.csv")
	sums := map[string]domain.Money{}
	for _, rec := range gl {
		sums[rec[cols["account"]]] = sums[rec[cols["account"]]].Add(amount(rec[cols["debit"]])).Sub(amount(rec[cols["credit"]]))
	}
	for _, code := range slices.Sorted(maps.Keys(movement)) {
		if !sums[code].Equal(movement[code]) {
			t.Errorf("%s: the general ledger moves it %s, the trial balances %s", code, sums[code], movement[code])
		}
	}

	acts, err := reads.YearActuals(year)
	if err != nil {
		t.Fatal(err)
	}
	cols, bta := records("budget-to-actual.csv")
	for _, rec := range bta {
		received, spent := acts.Total(rec[cols["account"]])
		want := spent
		if rec[cols["type"]] == string(domain.AccountRevenue) {
			want = received
		}
		if !amount(rec[cols["actual"]]).Equal(want) || rec[cols["actual_from"]] != acts.From {
			t.Errorf("budget to actual %v; the year's actual %s from %s", rec, want, acts.From)
		}
	}
	if ok, _ := reads.BooksHoldYear(year); ok {
		ch, _ := reads.Chart()
		var lines []domain.ChartAccount
		for _, a := range ch.Accounts {
			if a.Type.Line() {
				lines = append(lines, a)
			}
		}
		books, err := reads.LineActivity(lines, year, domain.NewDate(year, 12, 31))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range bta {
			if want := books[rec[cols["account"]]]; !amount(rec[cols["actual"]]).Equal(want) {
				t.Errorf("budget to actual %v; the books %s", rec, want)
			}
		}
	}
}
