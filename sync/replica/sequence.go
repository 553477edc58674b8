package replica

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// Each node's receipt sequences and dates. A receipt number is
// "<node>-<sequence>", handed out by the node that took the command; from
// ledger format 4 the ledger holds every node to its numbers and its
// clock:
//
//   - a sequence is used once: a second command with the number of one
//     the ledger has seen is refused, so no receipt is ever replaced;
//   - the leader marks each node it is in touch with (KindNodeMark, every
//     Config.MarkEvery): the highest sequence the node had handed out and
//     the time by its clock, and the sequence below which the ledger had
//     answered every command it took. A command whose sequence is at or
//     below the answered mark came after its number was settled: refused.
//   - a command may not be dated before the time of the latest mark taken
//     before its sequence was handed out (the mark with the highest issued
//     sequence below it), nor before the date of the command with the
//     nearest lower sequence the ledger applied, less seqDateSlack: a
//     node's clock and its numbers move forward together, so a command
//     dated earlier is back-dated.
//
// Offline intake keeps working: a node cut off from the leader is not
// marked, and the commands it takes are dated after its last mark, as its
// clock says. A stolen kiosk can date what it signs no earlier than its
// last mark (a minute or two before it was taken away), and reuse no
// number. A mark about a node is taken only from another node's key (the
// leader's), so no node vouches for its own clock.
//
// The checks run after the command id's dedupe (a command delivered again
// is answered as before), before the kind's rule.
const (
	prefixSeqUsed    = "su/" // su/<node>/<sequence, 8 bytes BE> → the command's date (JSON)
	prefixMark       = "mk/" // mk/<node>/<issued, 8 bytes BE> → the mark's time (JSON)
	prefixMarkLatest = "ml/" // ml/<node> → the latest mark (markRecord)
)

// seqDateSlack is how far a node's commands may be dated out of the order
// of their sequences: two taken at once on one node read the clock and
// take their numbers in either order.
const seqDateSlack = time.Minute

// markRecord is a node's latest mark as the ledger keeps it.
type markRecord struct {
	Issued   uint64          `json:"issued"`
	Answered uint64          `json:"answered"`
	At       domain.DateTime `json:"at"`
}

func seqRecordKey(prefix, node string, seq uint64) []byte {
	k := make([]byte, 0, len(prefix)+len(node)+9)
	k = append(k, prefix...)
	k = append(k, node...)
	k = append(k, '/')
	return binary.BigEndian.AppendUint64(k, seq)
}

// checkSequence says why cmd breaks its node's sequence rules, if it does.
func (f *FSM) checkSequence(txn *badger.Txn, cmd domain.Command) (*domain.Error, error) {
	if cmd.Seq == 0 || f.Format() < signedFormat {
		return nil, nil
	}
	number := cmd.ReceiptNumber()
	if _, err := txn.Get(seqRecordKey(prefixSeqUsed, cmd.Node, cmd.Seq)); err == nil {
		return domain.Errorf(domain.ECONFLICT, "", "Receipt number %s is already used by another command: a node hands out each of its numbers once.", number), nil
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return nil, err
	}
	latest, _, err := getJSON[markRecord](txn, key(prefixMarkLatest, cmd.Node))
	if err != nil {
		return nil, err
	}
	if cmd.Seq <= latest.Answered {
		return domain.Errorf(domain.EINVALID, "", "Receipt number %s comes after node %s's numbers up to %d were settled: it was never taken there.", number, cmd.Node, latest.Answered), nil
	}
	var bound domain.DateTime
	why := ""
	if latest.Issued < cmd.Seq {
		bound, why = latest.At, "its node's latest mark"
	} else if at, ok, err := below(txn, prefixMark, cmd.Node, cmd.Seq); err != nil {
		return nil, err
	} else if ok {
		bound, why = at, "its node's mark before that number"
	}
	if at, ok, err := f.usedBelow(txn, cmd.Node, cmd.Seq); err != nil {
		return nil, err
	} else if ok && at.After(bound) {
		bound, why = at, "a command with a lower number from the same node"
	}
	if !bound.IsZero() && cmd.At.Time(time.UTC).Add(seqDateSlack).Before(bound.Time(time.UTC)) {
		return domain.Errorf(domain.EINVALID, "", "Command %s (receipt number %s) is dated %s, before %s (%s): a command may not be back-dated.", cmd.ID, number, cmd.At, why, bound), nil
	}
	return nil, nil
}

// usedBelow returns the date of the command with node's highest sequence
// below seq: from the node's highest sequence, when seq is above it (the
// usual case, one read), else by a seek.
func (f *FSM) usedBelow(txn *badger.Txn, node string, seq uint64) (domain.DateTime, bool, error) {
	var top uint64
	if item, err := txn.Get(key(prefixMeta, "seq/", node)); err == nil {
		if err := item.Value(func(v []byte) error {
			if len(v) == 8 {
				top = binary.BigEndian.Uint64(v)
			}
			return nil
		}); err != nil {
			return domain.DateTime{}, false, err
		}
	} else if !errors.Is(err, badger.ErrKeyNotFound) {
		return domain.DateTime{}, false, err
	}
	if top != 0 && top < seq {
		at, ok, err := getJSON[domain.DateTime](txn, seqRecordKey(prefixSeqUsed, node, top))
		if err != nil || ok {
			return at, ok, err
		}
	}
	return below(txn, prefixSeqUsed, node, seq)
}

// below returns the date kept under the highest key of prefix and node
// whose sequence is below seq.
func below(txn *badger.Txn, prefix, node string, seq uint64) (domain.DateTime, bool, error) {
	var at domain.DateTime
	if seq == 0 {
		return at, false, nil
	}
	p := key(prefix, node, "/")
	it := txn.NewIterator(badger.IteratorOptions{Prefix: p, Reverse: true})
	defer it.Close()
	it.Seek(seqRecordKey(prefix, node, seq-1))
	if !it.Valid() {
		return at, false, nil
	}
	if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &at) }); err != nil {
		return at, false, fmt.Errorf("read %s: %w", it.Item().Key(), err)
	}
	return at, true, nil
}

// seqUsedWrite records that cmd used its sequence.
func seqUsedWrite(cmd domain.Command) kv {
	at, _ := json.Marshal(cmd.At)
	return kv{seqRecordKey(prefixSeqUsed, cmd.Node, cmd.Seq), at}
}

// applyNodeMark records the marks of a node_mark entry: each mark only
// moves its node's forward (a later time, a higher sequence), is never
// dated after the entry itself, and a node's own marks are not taken.
func (f *FSM) applyNodeMark(ov *overlay, cmd domain.Command, index uint64) (domain.Result, error) {
	res := domain.Result{CommandID: cmd.ID, Kind: cmd.Kind, Index: index}
	n := 0
	for _, m := range cmd.Payload.(*domain.NodeMarks).Marks {
		if m.Node == cmd.Node {
			continue // no node vouches for its own clock
		}
		at := m.At
		if at.After(cmd.At) {
			at = cmd.At
		}
		cur, _, err := overlayGet[markRecord](ov, key(prefixMarkLatest, m.Node))
		if err != nil {
			return res, err
		}
		next := cur
		next.Answered = max(cur.Answered, min(m.Answered, m.Issued))
		if m.Issued >= cur.Issued && !at.Before(cur.At) {
			next.Issued, next.At = m.Issued, at
			if err := ov.put(seqRecordKey(prefixMark, m.Node, m.Issued), at); err != nil {
				return res, err
			}
		}
		if next != cur {
			if err := ov.put(key(prefixMarkLatest, m.Node), next); err != nil {
				return res, err
			}
			n++
		}
	}
	res.Note = fmt.Sprintf("%d nodes marked", n)
	return res, nil
}

// Answered returns the sequence up to which the ledger has settled node's
// numbers, as the leader last marked it: this node hands out numbers
// above it.
func (f *FSM) Answered(node string) uint64 { return f.Mark(node).Answered }

// Mark returns node's latest mark in the ledger: the highest sequence it
// had handed out, the highest it had settled, and when (zero when the
// leader never marked it).
func (f *FSM) Mark(node string) domain.NodeMark {
	var m markRecord
	f.view(func(txn *badger.Txn) error {
		var err error
		m, _, err = getJSON[markRecord](txn, key(prefixMarkLatest, node))
		return err
	})
	return domain.NodeMark{Node: node, Issued: m.Issued, Answered: m.Answered, At: m.At}
}
