// Package backup is the appliance's backup file: a snapshot of the ledger
// (replica's framed format) with a manifest that says whose ledger it is
// and what it holds, the whole checksummed, and all of it encrypted to
// the village's backup key, which is not on the backup drive: whoever
// holds the drive holds staff password hashes, token hashes and the room
// tax returns §5.22(8) keeps confidential, and must not be able to read
// them.
//
// A backup file is a short line in the clear and an age file:
//
//	"VHBACKUP2\n" ‖ header (JSON, one line, "\n") ‖ age (X25519 recipient) of the inner file
//
// The header says only what the node's status page needs and what a
// restore needs to explain itself without the key: the format, the
// backup key's public half (the age recipient) it was encrypted to and
// when it was taken. The inner file is the format of the release before
// encryption, which Open still reads on its own (with a warning of the
// caller's):
//
//	magic "VHBACKUP1\n" ‖ snapshot ‖ manifest (JSON) ‖ manifest length (4 bytes BE) ‖ SHA-256 of all before
//
// The manifest names the cluster (the SHA-256 fingerprint of the village
// CA's certificate, so a backup of another village's cluster is refused),
// the node that was backed up, when, and the snapshot's applied index,
// ledger format, journal length and state hash. Open authenticates the
// encryption (age's chunks are authenticated: a truncated or altered file
// does not decrypt), checks the inner file's checksum, the snapshot's own
// frame and records, and that the snapshot is what the manifest says,
// before anything is restored from it.
//
// age encrypts to a public key: anyone who knows the recipient (it is in
// every header) could write a backup the key opens. The encryption keeps
// the ledger secret and makes tampering with a file evident; it does not
// prove which node wrote a file.
package backup

import (
	"bufio"
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

	"filippo.io/age"

	"github.com/villagehall/appliance/sync/replica"
)

var (
	magic          = []byte("VHBACKUP1\n") // the inner file, and the whole file before encryption
	encryptedMagic = []byte("VHBACKUP2\n")
)

const (
	trailer     = 4 + sha256.Size
	maxManifest = 64 << 10
	maxHeader   = 4 << 10
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

// Header is what a backup says in the clear: nothing of the ledger.
type Header struct {
	Format int `json:"format"` // 2: encrypted; 1: a plain backup of an earlier release
	// Recipient is the public half of the backup key the file is
	// encrypted to (age1…), "" for a plain backup.
	Recipient string    `json:"recipient,omitempty"`
	TakenAt   time.Time `json:"taken_at"`
}

// Encrypted says whether the backup is encrypted.
func (h Header) Encrypted() bool { return h.Format >= 2 }

// ErrNoKey is the error of opening an encrypted backup without a backup
// key.
var ErrNoKey = errors.New("the backup is encrypted and no backup key was given to open it")

// ErrWrongKey is the error of opening an encrypted backup with keys none
// of which it was encrypted to.
var ErrWrongKey = errors.New("the backup key given does not open this backup")

// ErrDamaged is the error of a backup that is truncated, corrupted or not
// a backup at all.
var ErrDamaged = errors.New("the backup is damaged")

// Write writes an encrypted backup file at path from a snapshot stream.
// The snapshot is first kept in a temporary file on this machine's own
// disk (os.TempDir, unlinked at once, so it has no name and is gone when
// the process ends), summarized into the manifest, then encrypted to the
// backup key's recipient into path.partial, which is synced and read back
// against the digest of what was written (so a backup that reached the
// disk damaged is never kept) and renamed into place, its folder synced.
// m gives the cluster, node, time and release; Write fills in the rest
// and returns it. Nothing of the ledger reaches path's folder
// unencrypted.
func Write(path string, snapshot io.Reader, m Manifest, to *age.X25519Recipient) (Manifest, error) {
	if to == nil {
		return m, errors.New("a backup is encrypted to the village's backup key, and none was given")
	}
	spool, err := os.CreateTemp("", "appliance-backup-*")
	if err != nil {
		return m, fmt.Errorf("make a temporary file for the snapshot: %w", err)
	}
	defer spool.Close()
	if err := os.Remove(spool.Name()); err != nil {
		return m, fmt.Errorf("unlink the snapshot's temporary file: %w", err)
	}
	n, err := io.Copy(spool, snapshot)
	if err != nil {
		return m, fmt.Errorf("copy the snapshot: %w", err)
	}
	if m, err = summarize(m, spool, n); err != nil {
		return m, err
	}

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
	hdr, _ := json.Marshal(Header{Format: 2, Recipient: to.String(), TakenAt: m.TakenAt})
	if _, err := w.Write(append(append(append([]byte{}, encryptedMagic...), hdr...), '\n')); err != nil {
		return m, err
	}
	enc, err := age.Encrypt(w, to)
	if err != nil {
		return m, fmt.Errorf("encrypt the backup: %w", err)
	}
	if err := writeInner(enc, io.NewSectionReader(spool, 0, n), m); err != nil {
		return m, err
	}
	if err := enc.Close(); err != nil {
		return m, fmt.Errorf("encrypt the backup: %w", err)
	}
	if err := f.Sync(); err != nil {
		return m, err
	}
	back := sha256.New()
	if _, err := io.Copy(back, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		return m, fmt.Errorf("read the backup back: %w", err)
	}
	if !bytes.Equal(back.Sum(nil), h.Sum(nil)) {
		return m, fmt.Errorf("%s does not read back as it was written: the drive may be failing", tmp)
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

// summarize checks the snapshot of n bytes at r and fills in m from it.
func summarize(m Manifest, r io.ReaderAt, n int64) (Manifest, error) {
	sum, err := replica.SummarizeSnapshot(r, n)
	if err != nil {
		return m, fmt.Errorf("the snapshot the node sent does not check: %w", err)
	}
	m.Version, m.Snapshot = 1, n
	m.Applied, m.LedgerFormat, m.Journal, m.Records, m.StateHash = sum.Applied, sum.Format, sum.Journal, sum.Records, sum.StateHash
	return m, nil
}

// writeInner writes the inner file, the format of the release before
// encryption, to w: magic, snapshot, manifest, its length, and the SHA-256
// of all before.
func writeInner(w io.Writer, snapshot io.Reader, m Manifest) error {
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	if _, err := mw.Write(magic); err != nil {
		return err
	}
	if _, err := io.Copy(mw, snapshot); err != nil {
		return fmt.Errorf("write the snapshot: %w", err)
	}
	body, _ := json.Marshal(m)
	var size [4]byte
	binary.BigEndian.PutUint32(size[:], uint32(len(body)))
	if _, err := mw.Write(append(body, size[:]...)); err != nil {
		return err
	}
	_, err := w.Write(h.Sum(nil))
	return err
}

// File is a backup that checked.
type File struct {
	Manifest Manifest
	// Header is what the file says in the clear; Header.Encrypted() is
	// false for a plain backup of an earlier release.
	Header Header
	f      *os.File
	inner  io.ReaderAt // the inner file: f itself, or its decryption
}

// Open opens and checks the backup at path with the backup keys given
// (an earlier key's backups open with it): the encryption's
// authentication, the inner file's checksum, its manifest, and its
// snapshot's frame and records against the manifest. A plain backup of an
// earlier release opens without a key; File.Header says it was plain. An
// encrypted backup without a key fails with ErrNoKey, with keys it was not
// encrypted to with ErrWrongKey, and a truncated, altered or damaged file
// with ErrDamaged.
func Open(path string, keys ...*age.X25519Identity) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	b, err := open(f, keys)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func open(f *os.File, keys []*age.X25519Identity) (*File, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	head := make([]byte, len(magic))
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, damaged("it is truncated (%d bytes)", size)
	}
	if bytes.Equal(head, magic) {
		m, err := check(f, size)
		if err != nil {
			return nil, err
		}
		return &File{Manifest: m, Header: Header{Format: 1, TakenAt: m.TakenAt}, f: f, inner: f}, nil
	}
	if !bytes.Equal(head, encryptedMagic) {
		return nil, damaged("it is not a ledger backup (it does not begin as one)")
	}
	hdr, off, err := readHeader(f)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w (it was encrypted to the backup key whose public half is %s)", ErrNoKey, hdr.Recipient)
	}
	ids := make([]age.Identity, len(keys))
	for i, k := range keys {
		ids[i] = k
	}
	inner, innerSize, err := age.DecryptReaderAt(io.NewSectionReader(f, off, size-off), size-off, ids...)
	var nomatch *age.NoIdentityMatchError
	switch {
	case errors.As(err, &nomatch):
		for _, k := range keys {
			if k.Recipient().String() == hdr.Recipient {
				return nil, damaged("its encryption header was altered: the backup key it names (%s) was given and does not open it", hdr.Recipient)
			}
		}
		return nil, fmt.Errorf("%w: it was encrypted to the backup key whose public half is %s, and the key given is %s",
			ErrWrongKey, hdr.Recipient, publicHalves(keys))
	case err != nil:
		return nil, damaged("its encryption does not authenticate: it is truncated or was altered (%v)", err)
	}
	ar := authenticated{inner}
	m, err := check(ar, innerSize)
	if err != nil {
		return nil, err
	}
	if !m.TakenAt.Equal(hdr.TakenAt) {
		return nil, damaged("its header says it was taken %s and its manifest %s: the header was altered", hdr.TakenAt.Format(time.RFC3339), m.TakenAt.Format(time.RFC3339))
	}
	return &File{Manifest: m, Header: hdr, f: f, inner: ar}, nil
}

// publicHalves lists the keys' recipients.
func publicHalves(keys []*age.X25519Identity) string {
	var b bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.Recipient().String())
	}
	return b.String()
}

// authenticated reports a chunk of the age payload that does not decrypt
// (read after Open's first pass, or a file changed since) as damage, and
// a read that ends exactly at the end as a whole read, as os.File does
// (age's ReaderAt says io.EOF with it, which io.ReaderAt allows).
type authenticated struct{ r io.ReaderAt }

func (a authenticated) ReadAt(p []byte, off int64) (int, error) {
	n, err := a.r.ReadAt(p, off)
	if errors.Is(err, io.EOF) && n == len(p) {
		return n, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		err = damaged("its encryption does not authenticate: it is truncated or was altered (%v)", err)
	}
	return n, err
}

// readHeader reads the clear header of an encrypted backup and returns it
// with the offset of the age file after it.
func readHeader(r io.ReaderAt) (Header, int64, error) {
	var h Header
	line, err := bufio.NewReaderSize(io.NewSectionReader(r, int64(len(encryptedMagic)), maxHeader), maxHeader).ReadSlice('\n')
	if err != nil {
		return h, 0, damaged("its header is truncated or too long")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, 0, damaged("its header does not read: %v", err)
	}
	if h.Format != 2 {
		return h, 0, fmt.Errorf("it is a backup of format %d, which this build does not read (2)", h.Format)
	}
	if _, err := age.ParseX25519Recipient(h.Recipient); err != nil {
		return h, 0, damaged("its header names no backup key: %v", err)
	}
	return h, int64(len(encryptedMagic) + len(line)), nil
}

func damaged(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
}

// check checks the inner file (a plain backup) of size bytes at f.
func check(f io.ReaderAt, size int64) (Manifest, error) {
	var m Manifest
	head := make([]byte, len(magic))
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, magic) {
		if errors.Is(err, ErrDamaged) {
			return m, err
		}
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
	return io.NopCloser(io.NewSectionReader(b.inner, int64(len(magic)), b.Manifest.Snapshot))
}

// Close closes the file.
func (b *File) Close() error { return b.f.Close() }

// ReadHeader reads what a backup says in the clear without the backup key
// and without checking the rest of the file (for listings and the age of
// the newest backup; Open checks). For a plain backup of an earlier
// release it reads the manifest's time.
func ReadHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	head := make([]byte, len(magic))
	if _, err := f.ReadAt(head, 0); err != nil {
		return Header{}, damaged("it is truncated")
	}
	if bytes.Equal(head, encryptedMagic) {
		h, _, err := readHeader(f)
		return h, err
	}
	m, err := readPlainManifest(f)
	return Header{Format: 1, TakenAt: m.TakenAt}, err
}

// readPlainManifest reads a plain backup's manifest without checking the
// rest of the file.
func readPlainManifest(f *os.File) (Manifest, error) {
	var m Manifest
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
