package domain

import (
	"bufio"
	"bytes"
	"os"
	"testing"
)

// TestEncodingOfEarlierReleases: commands of every kind as the release
// before the kind table encoded them (testdata/commands-v1.golden.jsonl,
// written by that release) decode, and encode again to the same bytes. A
// replica on this build and one on that release therefore keep the same
// records for the same log entry, and hash the same state.
func TestEncodingOfEarlierReleases(t *testing.T) {
	f, err := os.Open("testdata/commands-v1.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[Kind]bool{}
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
			t.Errorf("%s encodes as\n%s\nwas\n%s", c.Kind, b[1:], line)
		}
	}
	for _, d := range Kinds.Descriptors() {
		// Every kind the earlier release knew; kinds added since have no
		// earlier encoding to keep.
		if !seen[d.Kind] && d.Kind != KindResolution {
			t.Errorf("no golden encoding of %s", d.Kind)
		}
	}
}
