package replica

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/raft"
)

// A snapshot is a Badger backup stream framed so that a truncated or
// corrupted copy is detected before anything is restored:
//
//	magic "VHSNAP1\n" ‖ Badger backup ‖ body length (8 bytes BE) ‖ SHA-256 of magic+body
//
// The backup is taken at its own read timestamp when Persist runs, so it may
// hold a few entries past the snapshot's index. That is safe: the applied
// index travels inside the backup, and after a restore the FSM skips every
// replayed entry at or below it.
var snapshotMagic = []byte("VHSNAP1\n")

const snapshotTrailer = 8 + sha256.Size

type snapshot struct{ f *FSM }

// Snapshot returns a snapshot of the ledger state; the work happens in
// Persist, concurrently with Apply.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) { return snapshot{f}, nil }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Persist writes the framed backup to the sink.
func (s snapshot) Persist(sink raft.SnapshotSink) error {
	if err := s.f.WriteSnapshot(sink); err != nil {
		sink.Cancel()
		return fmt.Errorf("persist snapshot: %w", err)
	}
	return sink.Close()
}

// Release does nothing; the backup holds no resources after Persist.
func (snapshot) Release() {}

// WriteSnapshot writes the framed backup of the ledger state to w. It is
// also what `appliance backup` writes.
func (f *FSM) WriteSnapshot(w io.Writer) error {
	f.restoring.RLock()
	defer f.restoring.RUnlock()
	bw := bufio.NewWriterSize(w, 256<<10)
	h := sha256.New()
	body := &countingWriter{w: io.MultiWriter(bw, h)}
	if _, err := body.Write(snapshotMagic); err != nil {
		return err
	}
	if _, err := f.db.Backup(body, 0); err != nil {
		return fmt.Errorf("badger backup: %w", err)
	}
	var trailer [8]byte
	binary.BigEndian.PutUint64(trailer[:], uint64(body.n-int64(len(snapshotMagic))))
	if _, err := bw.Write(trailer[:]); err != nil {
		return err
	}
	if _, err := bw.Write(h.Sum(nil)); err != nil {
		return err
	}
	return bw.Flush()
}

// Restore replaces the ledger state with a snapshot. The snapshot is first
// copied to disk and verified (length and checksum); only a whole, intact
// snapshot discards the old state and is loaded.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	tmp, err := os.CreateTemp(filepath.Dir(f.dir), "restore-*.snap")
	if err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	size, err := io.Copy(tmp, rc)
	if err != nil {
		return fmt.Errorf("restore snapshot: read: %w", err)
	}
	bodyLen, err := verifySnapshot(tmp, size)
	if err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restoring.Lock()
	defer f.restoring.Unlock()
	if err := f.db.DropAll(); err != nil {
		return fmt.Errorf("restore snapshot: drop old state: %w", err)
	}
	body := io.NewSectionReader(tmp, int64(len(snapshotMagic)), bodyLen)
	if err := f.db.Load(bufio.NewReaderSize(body, 256<<10), 64); err != nil {
		return fmt.Errorf("restore snapshot: load: %w", err)
	}
	if err := f.loadMeta(); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.restores.Add(1)
	f.log.Info("restored snapshot", "applied", f.applied.Load(), "bytes", size)
	return nil
}

// verifySnapshot checks the frame of a snapshot of size bytes in r and
// returns the length of the Badger backup inside it.
func verifySnapshot(r io.ReaderAt, size int64) (int64, error) {
	min := int64(len(snapshotMagic) + snapshotTrailer)
	if size < min {
		return 0, fmt.Errorf("snapshot is truncated (%d bytes)", size)
	}
	head := make([]byte, len(snapshotMagic))
	if _, err := r.ReadAt(head, 0); err != nil {
		return 0, err
	}
	if !bytes.Equal(head, snapshotMagic) {
		return 0, fmt.Errorf("not a ledger snapshot")
	}
	trailer := make([]byte, snapshotTrailer)
	if _, err := r.ReadAt(trailer, size-snapshotTrailer); err != nil {
		return 0, err
	}
	bodyLen := int64(binary.BigEndian.Uint64(trailer[:8]))
	if bodyLen != size-min {
		return 0, fmt.Errorf("snapshot is truncated or padded: header says %d bytes of data, file has %d", bodyLen, size-min)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size-snapshotTrailer)); err != nil {
		return 0, err
	}
	if !bytes.Equal(h.Sum(nil), trailer[8:]) {
		return 0, fmt.Errorf("snapshot checksum does not match: the file is damaged")
	}
	return bodyLen, nil
}

// CheckSnapshotFile verifies the frame and checksum of a snapshot file, as
// Restore does before it touches any state.
func CheckSnapshotFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	_, err = verifySnapshot(f, st.Size())
	return err
}
