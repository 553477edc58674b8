package replica

import "sync"

// Divergence detection. Replicas that applied the same log hold the same
// ledger; one that does not (a bug, a damaged disk, a bad restore) must be
// found by the nodes themselves, not by a resident whose payment is on one
// node's bill and not another's. The leader appends a checkpoint entry
// now and then (Node.watchLedger); every node, applying it, hashes its
// whole ledger as of exactly that index (a read transaction opened right
// after the entry commits) and keeps the hash. Nodes trade their recent
// hashes in their status (GET /cluster/status) and compare those of the
// same index: a node whose hash differs from the others' is diverged.

// Digest is the hash of a node's whole ledger at a checkpoint's index.
type Digest struct {
	Index uint64 `json:"index"`
	Hash  string `json:"hash"`
}

// digestRing keeps the most recent digests.
type digestRing struct {
	mu   sync.Mutex
	list []Digest // oldest first
}

const keepDigests = 16

func (r *digestRing) add(d Digest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, d)
	if len(r.list) > keepDigests {
		r.list = r.list[len(r.list)-keepDigests:]
	}
}

func (r *digestRing) all() []Digest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Digest(nil), r.list...)
}

// Digests returns this node's recent checkpoint hashes, oldest first.
func (f *FSM) Digests() []Digest { return f.digests.all() }

// hashCheckpoint hashes the ledger as it stands now (the checkpoint at
// index just committed) in the background. The caller holds f.mu, so no
// later entry has been written yet; the read transaction keeps seeing
// exactly this state while later entries commit.
func (f *FSM) hashCheckpoint(index uint64) {
	f.restoring.RLock()
	txn := f.db.NewTransaction(false)
	f.bg.Add(1)
	go func() {
		defer f.bg.Done()
		defer f.restoring.RUnlock()
		defer txn.Discard()
		h, err := hashState(txn)
		if err != nil {
			f.log.Error("hash ledger at checkpoint", "index", index, "err", err)
			return
		}
		f.digests.add(Digest{Index: index, Hash: h})
		if f.onDigest != nil {
			f.onDigest(index, h)
		}
	}()
}
