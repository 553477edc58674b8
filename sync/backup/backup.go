// Package backup is the appliance's backup file: a snapshot of the ledger
// (replica's framed format) with a manifest that says whose ledger it is
// and what it holds, the whole file checksummed:
//
//	magic "VHBACKUP1\n" ‖ snapshot ‖ manifest (JSON) ‖ manifest length (4 bytes BE) ‖ SHA-256 of all before
//
// The manifest names the cluster (the SHA-256 fingerprint of the village
// CA's certificate, so a backup of another village's cluster is refused),
// the node that was backed up, when, and the snapshot's applied index,
// ledger format, journal length and state hash. Open checks the file's
// checksum, the snapshot's own frame and records, and that the snapshot
// is what the manifest says, before anything is restored from it.
package backup

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/villagehall/appliance/sync/replica"
)

var magic = []byte("VHBACKUP1\n")

const (
	trailer     = 4 + sha256.Size
	maxManifest = 64 << 10
)

// Manifest describes a backup.
type Manifest struct {
	Version int    `json:"version"` // 1
	Cluster string `json:"cluster"` // SHA-256 fingerprint of the village CA certificate
	Node    string `json:"node"`
	// TakenAt is when the node wrote the snapshot (UTC).
	TakenAt      time.Time `json:"taken_at"`
	Release      string    `json:"release,omitempty"`
	Applied      uint64    `json:"applied_index"`
	LedgerFormat int       `json:"ledger_format"`
	Journal      uint64    `json:"journal_entries"`
	Records      int       `json:"records"`
	StateHash    string    `json:"state_hash"`
	Snapshot     int64     `json:"snapshot_bytes"`
}

// ErrDamaged is the error of a backup that is truncated, corrupted or not
// a backup at all.
var ErrDamaged = errors.New("the backup is damaged")

// Write writes a backup file at path from a snapshot stream: first to
// path.partial, synced; the snapshot is read back from the disk and
// summarized into the manifest (so a backup that reached the disk damaged
// is never kept); then the file is renamed into place and its folder
// synced. m gives the cluster, node, time and release; Write fills in the
// rest and returns it.
func Write(path string, snapshot io.Reader, m Manifest) (Manifest, error) {
	tmp := path + ".partial"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return m, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	h := sha256.New()
	w := io.MultiWriter(f, h)
	if _, err := w.Write(magic); err != nil {
		return m, err
	}
	n, err := io.Copy(w, snapshot)
	if err != nil {
		return m, fmt.Errorf("copy the snapshot: %w", err)
	}
	if err := f.Sync(); err != nil {
		return m, err
	}
	sum, err := replica.SummarizeSnapshot(io.NewSectionReader(f, int64(len(magic)), n), n)
	if err != nil {
		return m, fmt.Errorf("the snapshot the node sent does not check: %w", err)
	}
	m.Version, m.Snapshot = 1, n
	m.Applied, m.LedgerFormat, m.Journal, m.Records, m.StateHash = sum.Applied, sum.Format, sum.Journal, sum.Records, sum.StateHash
	body, _ := json.Marshal(m)
	var size [4]byte
	binary.BigEndian.PutUint32(size[:], uint32(len(body)))
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return m, err
	}
	if _, err := w.Write(body); err != nil {
		return m, err
	}
	if _, err := w.Write(size[:]); err != nil {
		return m, err
	}
	if _, err := f.Write(h.Sum(nil)); err != nil {
		return m, err
	}
	if err := f.Sync(); err != nil {
		return m, err
	}
	if err := f.Close(); err != nil {
		return m, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return m, err
	}
	ok = true
	return m, syncDir(filepath.Dir(path))
}

// File is a backup that checked.
type File struct {
	Manifest Manifest
	f        *os.File
}

// Open opens and checks the backup at path: its checksum, its manifest,
// and its snapshot's frame and records against the manifest. A damaged
// file's error wraps ErrDamaged.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	m, err := check(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{Manifest: m, f: f}, nil
}

func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
}

func check(f *os.File) (Manifest, error) {
	var m Manifest
	st, err := f.Stat()
	if err != nil {
		return m, err
	}
	size := st.Size()
	head := make([]byte, len(magic))
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, magic) {
		if size >= int64(len(magic)) && err == nil {
			return m, damaged("it is not a ledger backup (it does not begin as one)")
		}
		return m, damaged("it is truncated (%d bytes)", size)
	}
	if size < int64(len(magic))+trailer {
		return m, damaged("it is truncated (%d bytes)", size)
	}
	tail := make([]byte, trailer)
	if _, err := f.ReadAt(tail, size-trailer); err != nil {
		return m, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, size-sha256.Size)); err != nil {
		return m, err
	}
	if !bytes.Equal(h.Sum(nil), tail[4:]) {
		return m, damaged("its checksum does not match: it is truncated or corrupted")
	}
	mlen := int64(binary.BigEndian.Uint32(tail[:4]))
	snapLen := size - trailer - mlen - int64(len(magic))
	if mlen > maxManifest || snapLen <= 0 {
		return m, damaged("its manifest length (%d) does not fit the file", mlen)
	}
	body := make([]byte, mlen)
	if _, err := f.ReadAt(body, int64(len(magic))+snapLen); err != nil {
		return m, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, damaged("its manifest does not read: %v", err)
	}
	if m.Version != 1 {
		return m, fmt.Errorf("it is a backup of version %d, newer than this build reads (1)", m.Version)
	}
	if m.Snapshot != snapLen {
		return m, damaged("its manifest says %d bytes of snapshot, the file holds %d", m.Snapshot, snapLen)
	}
	sum, err := replica.SummarizeSnapshot(io.NewSectionReader(f, int64(len(magic)), snapLen), snapLen)
	if err != nil {
		return m, damaged("its snapshot does not check: %v", err)
	}
	if sum.StateHash != m.StateHash || sum.Applied != m.Applied || sum.Journal != m.Journal || sum.Records != m.Records {
		return m, damaged("its snapshot is not the one its manifest describes")
	}
	return m, nil
}

// Snapshot returns the snapshot inside the backup, to restore.
func (b *File) Snapshot() io.ReadCloser {
	return io.NopCloser(io.NewSectionReader(b.f, int64(len(magic)), b.Manifest.Snapshot))
}

// Close closes the file.
func (b *File) Close() error { return b.f.Close() }

// ReadManifest reads a backup's manifest without checking the rest of
// the file (for listings and the age of the newest backup; Open checks).
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return m, err
	}
	if st.Size() < int64(len(magic))+trailer {
		return m, damaged("it is truncated (%d bytes)", st.Size())
	}
	tail := make([]byte, 4)
	if _, err := f.ReadAt(tail, st.Size()-trailer); err != nil {
		return m, err
	}
	mlen := int64(binary.BigEndian.Uint32(tail))
	if mlen > maxManifest || mlen > st.Size()-trailer-int64(len(magic)) {
		return m, damaged("its manifest length (%d) does not fit the file", mlen)
	}
	body := make([]byte, mlen)
	if _, err := f.ReadAt(body, st.Size()-trailer-mlen); err != nil {
		return m, err
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return m, damaged("its manifest does not read: %v", err)
	}
	return m, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
