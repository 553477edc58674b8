package replica

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// Revocation. A node removed from the cluster must not come back with the
// certificate it had: the cluster revokes it (command revoke_node, in the
// replicated ledger, prefixRevoked), and every node's TLS refuses it from
// then on, on the peer port and on raft's streams, both ways. A revocation
// names the node's last known certificate serial and a time: every
// certificate of that node issued before it is refused, so one issued
// afterwards, to rejoin on purpose, is accepted.

// revocation is what the ledger keeps of a node's revoked certificates.
type revocation struct {
	Serials []string  `json:"serials,omitempty"`
	Before  time.Time `json:"before"`
}

// revocations is the FSM's copy of the revocations in its state, read at
// open and after a restore, and kept current by every apply.
type revocations struct {
	mu sync.RWMutex
	by map[string]revocation // node id → revocation
}

func (f *FSM) loadRevocations(txn *badger.Txn) error {
	by := map[string]revocation{}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixRevoked), PrefetchValues: true})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		var r revocation
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &r) }); err != nil {
			return fmt.Errorf("read revocation %s: %w", it.Item().Key(), err)
		}
		by[string(it.Item().Key()[len(prefixRevoked):])] = r
	}
	f.revoked.mu.Lock()
	f.revoked.by = by
	f.revoked.mu.Unlock()
	return nil
}

// applyRevokeNode records a revocation.
func (f *FSM) applyRevokeNode(ov *overlay, cmd domain.Command, index uint64) (domain.Result, error) {
	in := cmd.Payload.(*domain.RevokeNode)
	res := domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index}
	r, _, err := overlayGet[revocation](ov, key(prefixRevoked, in.Node))
	if err != nil {
		return res, err
	}
	if in.Serial != "" {
		r.Serials = append(r.Serials, in.Serial)
	}
	if in.Before.After(r.Before) {
		r.Before = in.Before
	}
	if err := ov.put(key(prefixRevoked, in.Node), r); err != nil {
		return res, err
	}
	f.revoked.mu.Lock()
	if f.revoked.by == nil {
		f.revoked.by = map[string]revocation{}
	}
	f.revoked.by[in.Node] = r
	f.revoked.mu.Unlock()
	res.Note = fmt.Sprintf("certificates of %s issued before %s revoked", in.Node, in.Before.UTC().Format(time.RFC3339))
	return res, nil
}

// CheckCertificate returns an error wrapping pki.ErrRevoked when the
// ledger revoked cert: its serial is one revoked for its node, or it was
// issued before its node's revocation.
func (f *FSM) CheckCertificate(cert *x509.Certificate) error {
	id, err := pki.NodeIDOf(cert)
	if err != nil {
		return err
	}
	f.revoked.mu.RLock()
	r, ok := f.revoked.by[id]
	f.revoked.mu.RUnlock()
	if !ok {
		return nil
	}
	serial := cert.SerialNumber.String()
	for _, s := range r.Serials {
		if s == serial {
			return fmt.Errorf("node %s's certificate %s: %w when the node was removed from the cluster", id, serial, pki.ErrRevoked)
		}
	}
	if cert.NotBefore.Before(r.Before) {
		return fmt.Errorf("node %s's certificate of %s: %w: it was issued before the node was removed from the cluster; issue it a new one to rejoin", id, cert.NotBefore.Format(time.DateOnly), pki.ErrRevoked)
	}
	return nil
}
