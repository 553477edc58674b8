package audit_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/audit"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// spanJournal is a journal of entries given by the test, which answers
// the year's span from a walk (as stafftest's does) and counts what the
// extract reads; a walk of the whole journal fails the test.
type spanJournal struct {
	t       *testing.T
	entries []staff.JournalEntry
	read    int
}

func (j *spanJournal) Journal(func(staff.JournalEntry) error) error {
	j.t.Fatal("the extract walked the whole journal")
	return nil
}

func (j *spanJournal) JournalEntries(staff.JournalQuery, func(staff.JournalEntry) bool) (staff.JournalScan, error) {
	j.t.Fatal("the extract searched the journal")
	return staff.JournalScan{}, nil
}

func (j *spanJournal) JournalYear(year int) (staff.JournalYear, error) {
	var out staff.JournalYear
	before := ""
	for _, e := range j.entries {
		if y := e.At.Date.Year(); y >= year && out.First == 0 {
			out.First, out.Prev = e.Seq, before
		}
		if e.At.Date.Year() <= year {
			out.Last = e.Seq
		}
		before = e.Hash
	}
	if out.First == 0 {
		out.Prev = before
	}
	return out, nil
}

func (j *spanJournal) JournalRange(from, to uint64, fn func(staff.JournalEntry) error) error {
	for _, e := range j.entries {
		if e.Seq >= from && e.Seq <= to {
			j.read++
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// chainOf is the year's part of the journal as the extract chains it,
// worked out from a walk of every entry: each entry of the year with the
// hash of the one before it among the entries of that year or earlier,
// and the span's figures.
func chainOf(entries []staff.JournalEntry, year int) ([]string, audit.JournalSpan) {
	var lines []string
	var js audit.JournalSpan
	prev := ""
	for _, e := range entries {
		switch y := e.At.Date.Year(); {
		case y < year:
			prev, js.Prev = e.Hash, e.Hash
			continue
		case y > year:
			continue
		}
		if js.Entries == 0 {
			js.FirstSeq = e.Seq
		}
		lines = append(lines, fmt.Sprintf("%d %s", e.Seq, prev))
		js.Entries++
		js.LastSeq, js.Head, prev = e.Seq, e.Hash, e.Hash
	}
	if js.Entries == 0 {
		js.Head = js.Prev
	}
	return lines, js
}

// TestExtractReadsTheYearsPartOfTheJournal: a journal of three years in
// which a node's offline commands reach it weeks late, so that entries of
// one year come among the next year's: the extract of each year, and of
// the years before and after, chains the year's entries with the hashes
// a walk of the whole journal gives, and reads only the part of the
// journal the year's span names, a few thousand entries at a time.
func TestExtractReadsTheYearsPartOfTheJournal(t *testing.T) {
	var entries []staff.JournalEntry
	day := domain.MustDate("2025-10-01")
	for i := range 5000 {
		day = day.AddDays(i % 3 / 2)
		at := day
		if i%11 == 0 {
			at = day.AddDays(-20) // a node that was offline
		}
		seq := uint64(i + 1)
		entries = append(entries, staff.JournalEntry{Seq: seq, Index: seq + 10, CommandID: fmt.Sprintf("c%d", seq), Kind: domain.KindPayBill, Actor: "kiosk", Node: "n1",
			At: domain.NewDateTime(at, 10, 0, 0), Outcome: "applied", Hash: fmt.Sprintf("h%05d", seq)})
	}
	if last := entries[len(entries)-1].At.Date.Year(); last < 2029 {
		t.Fatalf("the journal ends in %d: too few years to test with", last)
	}
	h := stafftest.New(t)
	for year := 2024; year <= 2031; year++ {
		j := &spanJournal{t: t, entries: entries}
		var buf bytes.Buffer
		if err := audit.WriteExtract(&buf, domain.ReadsOf(h.Ledger), j, year, time.Date(2032, 1, 5, 9, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		files := unzipBytes(t, buf.Bytes())
		var m audit.Manifest
		if err := json.Unmarshal(files[audit.ManifestName], &m); err != nil {
			t.Fatal(err)
		}
		wantLines, wantSpan := chainOf(entries, year)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(files[audit.JournalLines])), "\n") {
			if line == "" {
				continue
			}
			var e struct {
				Seq  uint64 `json:"seq"`
				Prev string `json:"prev"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d %s", e.Seq, e.Prev))
		}
		if strings.Join(got, "|") != strings.Join(wantLines, "|") {
			t.Fatalf("%d: the extract chains %d entries, a walk %d", year, len(got), len(wantLines))
		}
		if m.Journal != wantSpan {
			t.Fatalf("%d: the manifest's span %+v, a walk's %+v", year, m.Journal, wantSpan)
		}
		if j.read > 2*(len(wantLines)+100) {
			t.Fatalf("%d: the extract read %d entries for %d of the year", year, j.read, len(wantLines))
		}
	}
}

func unzipBytes(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}
