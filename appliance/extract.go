package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/villagehall/appliance/kiosk/staff/audit"
	"github.com/villagehall/appliance/sync/replica"
)

// verifyExtract checks an auditors' extract (kiosk/staff/audit): every
// file the manifest lists is in the archive with the SHA-256 and size the
// manifest gives, nothing else is, and the year's journal lines chain
// from the manifest's previous hash to its head, each link's hash
// matching its content. A changed byte anywhere fails it.
func verifyExtract(path string, stdout io.Writer) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("read the extract %s: %w", path, err)
	}
	defer zr.Close()
	read := func(f *zip.File) ([]byte, error) {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, 1<<30))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		return b, nil
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		if _, dup := files[f.Name]; dup {
			return fmt.Errorf("the extract holds %s twice", f.Name)
		}
		b, err := read(f)
		if err != nil {
			return fmt.Errorf("the extract is damaged: %w", err)
		}
		files[f.Name] = b
	}
	raw, ok := files[audit.ManifestName]
	if !ok {
		return fmt.Errorf("the extract has no %s", audit.ManifestName)
	}
	var m audit.Manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("the manifest does not read: %w", err)
	}
	var names []string
	for _, mf := range m.Files {
		b, ok := files[mf.Name]
		if !ok {
			return fmt.Errorf("%s is listed in the manifest but missing", mf.Name)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != mf.SHA256 || len(b) != mf.Bytes {
			return fmt.Errorf("%s does not match the manifest: SHA-256 %s, %d bytes; the manifest says %s, %d bytes", mf.Name, got, len(b), mf.SHA256, mf.Bytes)
		}
		names = append(names, mf.Name)
	}
	for name := range files {
		if name != audit.ManifestName && !slices.Contains(names, name) {
			return fmt.Errorf("%s is in the extract but not in the manifest", name)
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(files[audit.JournalLines], []byte("\n")), []byte("\n"))
	if len(files[audit.JournalLines]) == 0 {
		lines = nil
	}
	if len(lines) != m.Journal.Entries {
		return fmt.Errorf("the journal has %d entries; the manifest says %d", len(lines), m.Journal.Entries)
	}
	head, err := replica.VerifyChain(m.Journal.Prev, lines)
	if err != nil {
		return fmt.Errorf("the journal does not verify: %w", err)
	}
	if head != m.Journal.Head {
		return fmt.Errorf("the journal ends at %s; the manifest's head is %s", head, m.Journal.Head)
	}
	fmt.Fprintf(stdout, "extract %d: %d files verified; journal entries %d-%d chain to head %s\n", m.Year, len(m.Files), m.Journal.FirstSeq, m.Journal.LastSeq, m.Journal.Head)
	return nil
}
