package domain

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestEncodingOfEarlierReleases: commands of every kind as the release
// before the kind table encoded them (testdata/commands-v1.golden.jsonl,
// written by that release) decode, and encode again to the same bytes. A
// replica on this build and one on that release therefore keep the same
// records for the same log entry, and hash the same state. Every kind
// added since has its encoding fixed the same way when it is added
// (testdata/commands-v2.golden.jsonl): a later change of its payload that
// would change the bytes of an entry already in a log fails here.
func TestEncodingOfEarlierReleases(t *testing.T) {
	seen := map[Kind]bool{}
	for _, name := range []string{"testdata/commands-v1.golden.jsonl", "testdata/commands-v2.golden.jsonl"} {
		checkGolden(t, name, seen)
	}
	for _, d := range Kinds.Descriptors() {
		if !seen[d.Kind] {
			t.Errorf("no golden encoding of %s: add one to testdata/commands-v2.golden.jsonl", d.Kind)
		}
	}
}

// checkGolden checks the encodings of the golden file name, and marks the
// kinds it holds in seen.
func checkGolden(t *testing.T, name string, seen map[Kind]bool) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		c, err := DecodeCommand(append([]byte{CommandVersion}, line...))
		if err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		seen[c.Kind] = true
		b, err := EncodeCommand(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b[1:], line) {
			t.Errorf("%s: %s encodes as\n%s\nwas\n%s", name, c.Kind, b[1:], line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestCommandHeaderFields: every field of a command's header decodes from
// its own JSON name and no other, so that a header field added later is
// read, and a name differing only in case is taken for a payload.
func TestCommandHeaderFields(t *testing.T) {
	var h header
	ht := reflect.TypeOf(h)
	if ht.NumField() != len(headerFields) {
		t.Fatalf("header has %d fields, headerFields names %d", ht.NumField(), len(headerFields))
	}
	for i := range ht.NumField() {
		name, _, _ := strings.Cut(ht.Field(i).Tag.Get("json"), ",")
		dst := h.field(name)
		if dst == nil || reflect.ValueOf(dst).Pointer() != reflect.ValueOf(&h).Elem().Field(i).Addr().Pointer() {
			t.Errorf("header field %s: its JSON name %q does not decode to it", ht.Field(i).Name, name)
		}
		if h.field(strings.ToUpper(name)) != nil {
			t.Errorf("%q decodes to a header field", strings.ToUpper(name))
		}
	}
	pay := `"pay_bill":{"bill_id":"B1","amount":"1.00","tender":"cash"}`
	for _, tt := range []struct {
		name, json string
		wantID     string // "" for refused
	}{
		{"well formed", `{"v":1,"id":"c1","kind":"pay_bill","at":"2026-04-10T10:00:00","node":"n1","seq":2,"actor":"clerk",` + pay + `}`, "c1"},
		{"a field given twice: the last", `{"id":"c0","id":"c1","kind":"pay_bill",` + pay + `}`, "c1"},
		{"null leaves a field empty", `{"id":"c1","node":null,"kind":"pay_bill",` + pay + `}`, "c1"},
		{"a number for the id", `{"id":7,"kind":"pay_bill",` + pay + `}`, ""},
		{"text for the sequence", `{"id":"c1","seq":"2","kind":"pay_bill",` + pay + `}`, ""},
		{"a moment that is not one", `{"id":"c1","at":"Tuesday","kind":"pay_bill",` + pay + `}`, ""},
		{"a header name in capitals", `{"id":"c1","ID":"c2","kind":"pay_bill",` + pay + `}`, ""},
	} {
		var c Command
		err := Kinds.unmarshal([]byte(tt.json), &c)
		switch {
		case tt.wantID == "" && err == nil:
			t.Errorf("%s: decoded: %+v", tt.name, c)
		case tt.wantID != "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantID != "" && c.ID != tt.wantID:
			t.Errorf("%s: id %q, want %q", tt.name, c.ID, tt.wantID)
		}
	}
}
