package replica

import (
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// The node-local indexes are rebuilt from the whole ledger when a node
// first opens it with a release that indexes otherwise (an upgrade, at
// most once a release) and after a snapshot is restored: on five years
// of a village's books that is half a million journal entries and some
// two and a half million index keys, on a Raspberry Pi whose Go heap is
// held to 64 MiB. A rebuild therefore reads the ledger in batches of
// rebuildBatch records, each in a read transaction of its own, and
// writes what a batch makes in transactions committed one after another
// (indexWriter), each before the next is begun: what it holds is one
// batch, whatever the size of the books. (A Badger WriteBatch commits
// asynchronously, up to 16 transactions in flight; when compaction fell
// behind, its queued transactions held up to 80 MiB of the heap.)

// rebuildBatch is how many records a rebuild reads in one transaction.
const rebuildBatch = 1024

// walkBatches calls fn with every item under prefix, in key order, in
// read transactions of at most rebuildBatch items each (fewer when a
// test sets FSM.rebuildN); after each transaction it calls done. The
// item is fn's only while it runs, and its value is read in place (no
// prefetch, no copy).
func (f *FSM) walkBatches(prefix []byte, fn func(txn *badger.Txn, item *badger.Item) error, done func() error) error {
	batch := rebuildBatch
	if f.rebuildN > 0 {
		batch = f.rebuildN
	}
	from := prefix
	for from != nil {
		err := f.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
			defer it.Close()
			n := 0
			for it.Seek(from); it.Valid(); it.Next() {
				if n == batch {
					from = it.Item().KeyCopy(nil)
					return nil
				}
				if err := fn(txn, it.Item()); err != nil {
					return err
				}
				n++
			}
			from = nil
			return nil
		})
		if err != nil {
			return err
		}
		if err := done(); err != nil {
			return err
		}
	}
	return nil
}

// indexWriter writes a rebuild's keys in write transactions committed
// one at a time: a transaction is committed when it is full (Badger's
// ErrTxnTooBig, at 15% of a memtable) and at the end of every batch
// (commit).
type indexWriter struct {
	db  *badger.DB
	txn *badger.Txn
}

// set writes k = v, committing the transaction first if it is full.
func (w *indexWriter) set(k, v []byte) error {
	if w.txn == nil {
		w.txn = w.db.NewTransaction(true)
	}
	err := w.txn.Set(k, v)
	if errors.Is(err, badger.ErrTxnTooBig) {
		if err := w.commit(); err != nil {
			return err
		}
		w.txn = w.db.NewTransaction(true)
		err = w.txn.Set(k, v)
	}
	return err
}

// get reads k as the writer sees it: what it has committed, and what
// its open transaction holds.
func (w *indexWriter) get(k []byte) ([]byte, bool, error) {
	if w.txn == nil {
		w.txn = w.db.NewTransaction(true)
	}
	return txnRead(w.txn)(k)
}

// commit commits the open transaction, if any.
func (w *indexWriter) commit() error {
	if w.txn == nil {
		return nil
	}
	err := w.txn.Commit()
	w.txn = nil
	return err
}

// discard drops what the open transaction holds (after an error).
func (w *indexWriter) discard() {
	if w.txn != nil {
		w.txn.Discard()
		w.txn = nil
	}
}
