package badgerstore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// killChildEnv names the folder a child process of TestOpenDBAfterKill
// writes to; TestMain runs runKillChild instead of the tests when it is
// set.
const killChildEnv = "BADGERSTORE_KILL_CHILD_DIR"

// killOptions are the options of the store TestOpenDBAfterKill kills
// writers of: PiOptions with 1 MiB memtables, so that within a few hundred
// transactions memtables fill, are flushed and compacted, and a kill lands
// in any of these too.
func killOptions(dir string) badger.Options {
	return PiOptions(dir).WithMemTableSize(1 << 20).
		WithValueThreshold(64 << 10). // at most 15% of a memtable
		WithLogger(NewLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
}

// killTxn returns the keys and values of transaction i of the kill test:
// between 1 and 40 keys, with values of 10 to 2,009 bytes, so that
// transactions span pages of the write-ahead log.
func killTxn(i uint64) [][2]string {
	n := 1 + i*7%40
	txn := make([][2]string, n)
	for j := range n {
		v := fmt.Sprintf("%d/%d/", i, j)
		txn[j] = [2]string{
			fmt.Sprintf("t/%08d/%02d", i, j),
			v + strings.Repeat(string(rune('a'+(i+j)%26)), int(10+(i*31+j*17)%2000)),
		}
	}
	return txn
}

// runKillChild opens the store in dir and commits the kill test's
// transactions, continuing after those already there, and prints the number
// of each as soon as it is acknowledged, until it is killed.
func runKillChild(dir string) int {
	db, err := OpenDB(killOptions(dir), testWhat)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var next uint64
	err = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("next"))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			next = binary.BigEndian.Uint64(v)
			return nil
		})
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("open", next)
	for i := next; ; i++ {
		err := db.Update(func(txn *badger.Txn) error {
			for _, kv := range killTxn(i) {
				if err := txn.Set([]byte(kv[0]), []byte(kv[1])); err != nil {
					return err
				}
			}
			return txn.Set([]byte("next"), binary.BigEndian.AppendUint64(nil, i+1))
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(i)
	}
}

// TestOpenDBAfterKill kills a process writing to a store with kill -9, at
// random moments (while it opens, writes, flushes or compacts), and checks
// each time that OpenDB opens the store, with every acknowledged
// transaction whole and the one in flight whole or absent: none of OpenDB's
// checks mistakes what a crash leaves for damage.
func TestOpenDBAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 12 writer processes")
	}
	dir := filepath.Join(t.TempDir(), "store")
	r := rand.New(rand.NewPCG(2207, 10))
	var acked int64 = -1 // the last transaction acknowledged
	const rounds = 12
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		// Kill either after a random time from the start, which may be
		// while OpenDB or Badger opens, or after a random number of
		// acknowledged transactions.
		var deadline <-chan time.Time
		var afterAcks = -1
		if round%3 == 0 {
			deadline = time.After(time.Duration(r.IntN(150)) * time.Millisecond)
		} else {
			afterAcks = 30 + r.IntN(270)
		}
		acks := 0
	read:
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					cmd.Wait()
					t.Fatalf("round %d: the writer stopped by itself:\n%s", round, stderr.String())
				}
				if strings.HasPrefix(line, "open ") {
					continue
				}
				i, err := strconv.ParseInt(line, 10, 64)
				if err != nil {
					t.Fatalf("round %d: writer said %q", round, line)
				}
				if i != acked+1 {
					t.Fatalf("round %d: writer acknowledged transaction %d after %d", round, i, acked)
				}
				acked = i
				if acks++; acks == afterAcks {
					break read
				}
			case <-deadline:
				break read
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		for line := range lines {
			// Transactions acknowledged before the kill, still in the pipe.
			if i, err := strconv.ParseInt(line, 10, 64); err == nil {
				acked = i
			}
		}
		cmd.Wait()
		left := crashLeft(t, dir)

		db, err := OpenDB(killOptions(dir), testWhat)
		if err != nil {
			t.Fatalf("round %d: OpenDB after kill -9 at transaction %d: %v\nwriter's log:\n%s", round, acked, err, stderr.String())
		}
		// Each round checks the transactions since the last kill; the last
		// round checks them all.
		from := uint64(max(acked-500, 0))
		if round == rounds-1 {
			from = 0
		}
		next := checkKillStore(t, db, from, acked)
		closeDB(t, db)
		t.Logf("round %d: killed after transaction %d acknowledged, leaving %s; %d committed", round, acked, left, next)
		acked = int64(next) - 1
	}
}

// crashLeft describes what a crash left in dir: table files the MANIFEST
// does not list (a flush or compaction was under way), and write-ahead logs.
func crashLeft(t *testing.T, dir string) string {
	t.Helper()
	f, err := listFolder(killOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	if fp, err := os.Open(filepath.Join(dir, badger.ManifestFilename)); err == nil {
		m, _, err := badger.ReplayManifestFile(fp, 0, killOptions(dir))
		fp.Close()
		if err != nil {
			t.Fatal(err)
		}
		listed = len(m.Tables)
	}
	return fmt.Sprintf("%d tables (%d not in the MANIFEST), %d write-ahead logs, %d empty logs",
		len(f.tables), len(f.tables)-listed, len(f.mems), len(f.emptyLogs))
}

// checkKillStore checks the store after a kill: the counter says how many
// transactions are there, at least up to acked, and those from from on
// are there whole, with none after them. It returns the counter.
func checkKillStore(t *testing.T, db *badger.DB, from uint64, acked int64) uint64 {
	t.Helper()
	var next uint64
	err := db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("next"))
		if err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		if err == nil {
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			next = binary.BigEndian.Uint64(v)
		}
		if int64(next) <= acked {
			return fmt.Errorf("the store holds %d transactions; %d were acknowledged", next, acked+1)
		}
		for i := from; i <= next; i++ {
			for _, kv := range killTxn(i) {
				item, err := txn.Get([]byte(kv[0]))
				if i == next {
					if err == nil {
						return fmt.Errorf("key %s of transaction %d is there, but the counter says %d", kv[0], i, next)
					}
					continue
				}
				if err != nil {
					return fmt.Errorf("transaction %d, key %s: %w", i, kv[0], err)
				}
				v, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				if string(v) != kv[1] {
					return fmt.Errorf("transaction %d, key %s holds %.20q…", i, kv[0], v)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return next
}

// TestScanWALTornWrites builds, from a real write-ahead log, the images a
// power cut can leave: the transactions before the one in flight whole, and
// of the one in flight any mix of sectors written, never written (zeros),
// written in part, or garbage (a failing card). scanWAL must never call one
// damaged. It then damages a transaction that committed transactions
// follow, and scanWAL must call each of those damaged.
func TestScanWALTornWrites(t *testing.T) {
	fixtures.build(t)
	wal := readFile(t, filepath.Join(fixtures.crashed, "00001.mem"))
	txns := walTxns(t, wal)
	if len(txns) != len(fixtures.crashedHist)+1 { // and the marker's
		t.Fatalf("the log holds %d transactions; want %d", len(txns), len(fixtures.crashedHist)+1)
	}
	// The file is preallocated; past its entries it holds only zeros.
	if tail := wal[txns[len(txns)-1].end:]; !bytes.Equal(tail, make([]byte, len(tail))) {
		t.Fatal("the log holds data after its last transaction")
	}
	r := rand.New(rand.NewPCG(1, 2207))
	// image returns the log as it was with transaction k the last written,
	// and 4 KiB of the zeros after it.
	image := func(k int) []byte {
		b := make([]byte, txns[k].end+4096)
		copy(b, wal[:txns[k].end])
		return b
	}

	for trial := range 1000 {
		k := r.IntN(len(txns)) // the transaction in flight
		b := image(k)
		sector := []int{512, 4096}[r.IntN(2)]
		in := txns[k]
		for s := in.start &^ (sector - 1); s < in.end; s += sector {
			from, to := max(s, in.start), min(s+sector, in.end)
			switch r.IntN(4) {
			case 0: // written
			case 1: // never written
				clear(b[from:to])
			case 2: // written up to some point before an earlier flush
				clear(b[from+r.IntN(to-from) : to])
			case 3: // garbage
				for i := from; i < to; i++ {
					b[i] = byte(r.Uint32())
				}
			}
		}
		rep := scanWAL(b)
		if rep.damaged != "" {
			t.Fatalf("trial %d: transaction %d torn in %d-byte sectors: scanWAL says %s", trial, k, sector, rep.damaged)
		}
		if rep.replayEnd < in.start {
			t.Fatalf("trial %d: replay stops at %d, before the end %d of the last acknowledged transaction", trial, rep.replayEnd, in.start)
		}
	}

	// Damage within one transaction j is seen when two committed
	// transactions follow it, or one and the damage spares j's first
	// entry, which tells the replay which transaction it was inside.
	for trial := range 1000 {
		j := r.IntN(len(txns) - 1) // the damaged transaction
		k := j + 1 + r.IntN(len(txns)-j-1)
		from := txns[j].start
		if k == j+1 {
			first, ok := decodeWALEntry(wal, from)
			if !ok {
				t.Fatal("no first entry")
			}
			from = first.end
		}
		if from >= txns[j].end {
			continue
		}
		b := image(k)
		at := from + r.IntN(txns[j].end-from)
		n := 1 + r.IntN(64)
		for i := at; i < min(at+n, txns[j].end); i++ {
			b[i] ^= byte(1 + r.IntN(255))
		}
		if rep := scanWAL(b); rep.damaged == "" {
			t.Fatalf("trial %d: %d bytes changed at %d in transaction %d of %d: scanWAL sees no damage", trial, n, at, j, k)
		}
	}
}

// FuzzScanWAL checks that scanWAL never panics on any file, and that what it
// replays ends within the file.
func FuzzScanWAL(f *testing.F) {
	dir := f.TempDir()
	db, err := badger.Open(PiOptions(dir).WithLogger(nil))
	if err != nil {
		f.Fatal(err)
	}
	for i := range 3 {
		err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(fmt.Appendf(nil, "key%d", i), fmt.Appendf(nil, "value%d", i))
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "00001.mem"))
	if err != nil {
		f.Fatal(err)
	}
	db.Close()
	b = bytes.TrimRight(b, "\x00")
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:walFileHeader+3])
	f.Fuzz(func(t *testing.T, b []byte) {
		r := scanWAL(b)
		if r.replayEnd > max(len(b), walFileHeader) || r.stop < r.replayEnd {
			t.Fatalf("scanWAL of %d bytes: replay ends at %d, stops at %d", len(b), r.replayEnd, r.stop)
		}
	})
}
