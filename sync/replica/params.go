package replica

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// The parameters a replica computes with are its ledger's: the rows of the
// resolutions it holds (domain.ParamsOf), read at open and after a restore
// and read again whenever a resolution applies. A ledger not yet seeded
// (one of an earlier release, before its cluster's format was raised)
// computes with the parameters the node was started with, as every node
// did then; the leader seeds it as soon as the format allows
// (Node.seedParams).

// Params returns the parameters this replica computes with: its ledger's,
// or the node's own until the ledger is seeded.
func (f *FSM) Params() *domain.Params {
	if p := f.ledgerParams.Load(); p != nil {
		return p
	}
	return f.params
}

// Seeded reports whether the ledger holds its parameters.
func (f *FSM) Seeded() bool { return f.ledgerParams.Load() != nil }

// loadParams reads the resolutions txn sees and makes their parameters the
// replica's. A ledger whose resolutions do not make complete parameters is
// a bug or damage: the FSM must not compute with them.
func (f *FSM) loadParams(txn *badger.Txn) error {
	var rs []domain.Resolution
	prefix := recordKey(domain.CollectionResolutions, "")
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix, PrefetchValues: true})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		id := string(it.Item().Key()[len(prefix):])
		if id == "count" {
			continue
		}
		var r domain.Resolution
		if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &r) }); err != nil {
			return fmt.Errorf("read resolution %s: %w", id, err)
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		f.ledgerParams.Store(nil)
		return nil
	}
	slices.SortFunc(rs, func(a, b domain.Resolution) int { return a.Order - b.Order })
	p, err := domain.ParamsOf(rs)
	if err != nil {
		return fmt.Errorf("the ledger's parameters: %w", err)
	}
	f.ledgerParams.Store(p)
	return nil
}

// ParamRowsDiffer returns the rows of file that the ledger's parameters do
// not hold (nil when the ledger is not seeded): a node started with a
// --params file on a seeded ledger would be asking to compute with values
// the ledger does not have.
func (f *FSM) ParamRowsDiffer(file *domain.Params) []domain.ParamRow {
	ledger := f.ledgerParams.Load()
	if ledger == nil || file == nil {
		return nil
	}
	held := map[domain.ParamRow]bool{}
	for _, r := range ledger.Rows() {
		held[domain.ParamRow{Effective: r.Effective, Name: r.Name, Value: r.Value}] = true
	}
	var out []domain.ParamRow
	for _, r := range file.Rows() {
		if !held[domain.ParamRow{Effective: r.Effective, Name: r.Name, Value: r.Value}] {
			out = append(out, r)
		}
	}
	return out
}

// seedParams has the leader seed its ledger's parameters with the node's
// own (the embedded defaults and the --params file it started with), once:
// when the ledger has none and its format allows resolutions. Every node
// computes with the ledger's from then on.
func (n *Node) seedParams() {
	if n.fsm.Seeded() || n.fsm.Format() < n.kinds.Since(domain.KindResolution) {
		return
	}
	cmd, err := n.internalCommand(domain.KindResolution)
	if err != nil {
		n.log.Warn("seed the ledger's parameters", "err", err)
		return
	}
	cmd.Payload = domain.SeedResolution(n.cfg.Params, cmd.At.Date)
	if err := n.applyInternal(cmd); err != nil {
		if domain.ErrorCode(err) != domain.ECONFLICT {
			n.log.Warn("seed the ledger's parameters", "err", err)
		}
		return
	}
	n.log.Info("the ledger's parameters are seeded from this node's")
}
