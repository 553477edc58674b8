package replica

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/villagehall/appliance/domain"
)

// Reads of the ledger state. They run in their own read transaction on this
// node's replica; how current that replica is, Node.Consistency says.

func (f *FSM) get(k []byte, v any) (bool, error) {
	var ok bool
	err := f.view(func(txn *badger.Txn) error {
		item, err := txn.Get(k)
		if err == badger.ErrKeyNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		return item.Value(func(b []byte) error { return json.Unmarshal(b, v) })
	})
	if err != nil {
		return false, fmt.Errorf("read %s: %w", k, err)
	}
	return ok, nil
}

// Bill returns a bill by id.
func (f *FSM) Bill(id string) (domain.Bill, error) {
	var b domain.Bill
	ok, err := f.get(key(prefixBill, id), &b)
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "", "There is no bill %q.", id)
	}
	if err == nil {
		err = f.billPayments(&b)
	}
	return b, err
}

// billPayments fills in the payments of a bill stored at ledger format 3,
// which are records of their own (domain.ReadBillPayments). A bill's slots
// are written once, in the transaction that names them in its record, so
// a later read transaction finds every slot the record names, as it was.
func (f *FSM) billPayments(b *domain.Bill) error {
	if b.Summary == nil {
		return nil
	}
	if err := domain.ReadBillPayments(f, b); err != nil {
		return fmt.Errorf("read bill %s: %w", b.ID, err)
	}
	return nil
}

// withPayments fills in the payments of each bill (billPayments).
func (f *FSM) withPayments(bills []domain.Bill, err error) ([]domain.Bill, error) {
	if err != nil {
		return bills, err
	}
	for i := range bills {
		if err := f.billPayments(&bills[i]); err != nil {
			return nil, err
		}
	}
	return bills, nil
}

// Parcel returns a parcel by id.
func (f *FSM) Parcel(id string) (domain.Parcel, error) {
	var p domain.Parcel
	ok, err := f.get(key(prefixParcel, id), &p)
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "", "There is no parcel %q.", id)
	}
	return p, err
}

// Account returns an account by number.
func (f *FSM) Account(number string) (domain.Account, error) {
	var a domain.Account
	ok, err := f.get(key(prefixAccount, number), &a)
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "", "There is no account %q.", number)
	}
	return a, err
}

// Receipt returns a posted receipt by number, or by the number of a
// second delivery of its command (aliasWrites).
func (f *FSM) Receipt(number string) (domain.Receipt, error) {
	var r domain.Receipt
	ok, err := f.get(key(prefixReceipt, number), &r)
	if err == nil && !ok {
		var posted []byte
		f.view(func(txn *badger.Txn) error {
			item, err := txn.Get(key(prefixAlias, number))
			if err == nil {
				posted, err = item.ValueCopy(nil)
			}
			return err
		})
		if len(posted) > 0 {
			ok, err = f.get(key(prefixReceipt, string(posted)), &r)
		}
	}
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "", "There is no receipt %q.", number)
	}
	return r, err
}

// CommandResult returns the stored result of a command already applied.
func (f *FSM) CommandResult(id string) (domain.Result, bool, error) {
	var rec commandRecord
	ok, err := f.get(key(prefixCommand, id), &rec)
	return rec.Result, ok, err
}

// appliedCommand returns a command already applied, as the ledger keeps it
// (without its payload when it was too big to keep), and its result.
func (f *FSM) appliedCommand(id string) (*domain.Command, domain.Result, bool, error) {
	var rec commandRecord
	ok, err := f.get(key(prefixCommand, id), &rec)
	return rec.Command, rec.Result, ok, err
}

// sameRequest compares a command with one the ledger kept, which may lack
// its payload (keepable): then the kind and actor are compared.
func sameRequest(kept *domain.Command, cmd domain.Command) bool {
	if kept == nil {
		return true
	}
	if kept.PayloadKept() {
		return kept.SameRequest(cmd)
	}
	return kept.Kind == cmd.Kind && kept.Actor == cmd.Actor
}

// errReused is the answer to a command id reused for another request.
func errReused(id string) *domain.Error {
	return domain.Errorf(domain.ECONFLICT, "", "The command id %s was already used for a different request; use a new id for a new request.", id)
}

// list decodes every value under prefix, in key order.
func list[T any](f *FSM, prefix string) ([]T, error) {
	var out []T
	err := f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var v T
			if err := it.Item().Value(func(b []byte) error { return json.Unmarshal(b, &v) }); err != nil {
				return fmt.Errorf("decode %s: %w", it.Item().Key(), err)
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// billsUnder returns the bills whose ids end the index keys under prefix.
func (f *FSM) billsUnder(prefix string) ([]domain.Bill, error) {
	var out []domain.Bill
	err := f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := string(it.Item().Key())
			id := k[len(prefix):]
			if i := strings.LastIndexByte(id, '/'); i >= 0 {
				id = id[i+1:]
			}
			b, ok, err := getJSON[domain.Bill](txn, key(prefixBill, id))
			if err != nil {
				return err
			}
			if ok {
				out = append(out, b)
			}
		}
		return nil
	})
	return out, err
}

// BillsByAccount returns an account's bills by billing date.
func (f *FSM) BillsByAccount(number string) ([]domain.Bill, error) {
	return f.withPayments(f.billsUnder(prefixBillByAcc + number + "/"))
}

// BillsByParcel returns a parcel's bills.
func (f *FSM) BillsByParcel(id string) ([]domain.Bill, error) {
	bills, err := f.withPayments(f.billsUnder(prefixBillByPar + id + "/"))
	domain.SortBills(bills)
	return bills, err
}

// Parcels returns every parcel, by id.
func (f *FSM) Parcels() ([]domain.Parcel, error) { return list[domain.Parcel](f, prefixParcel) }

// Bills returns every bill, by id.
func (f *FSM) Bills() ([]domain.Bill, error) { return f.withPayments(list[domain.Bill](f, prefixBill)) }

// RefundsDue returns the overpayments to refund, by deadline.
func (f *FSM) RefundsDue() ([]domain.RefundDue, error) {
	return list[domain.RefundDue](f, prefixRefund)
}

// Get reads record id of collection into v.
func (f *FSM) Get(collection, id string, v any) error {
	if !validName(collection) {
		return domain.Errorf(domain.EINVALID, "", "bad collection name %q", collection)
	}
	ok, err := f.get(recordKey(collection, id), v)
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "", "There is no %s %q.", collection, id)
	}
	return err
}

// List calls fn with every record of collection whose id starts with
// prefix, in id order.
func (f *FSM) List(collection, prefix string, fn func(id string, raw []byte) error) error {
	if !validName(collection) {
		return domain.Errorf(domain.EINVALID, "", "bad collection name %q", collection)
	}
	return f.view(func(txn *badger.Txn) error { return txnRecords{txn}.List(collection, prefix, fn) })
}

// txnRecords lists records as one read transaction sees them: what a
// read already inside f.view uses, since f.view must not be entered again
// from within it (a restore waiting for the store would block the inner
// read for good).
type txnRecords struct{ txn *badger.Txn }

// List is FSM.List within the transaction; collection is checked by the
// caller.
func (r txnRecords) List(collection, prefix string, fn func(id string, raw []byte) error) error {
	base := recordKey(collection, "")
	it := r.txn.NewIterator(badger.IteratorOptions{Prefix: recordKey(collection, prefix), PrefetchValues: true, PrefetchSize: 64})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		id := string(it.Item().Key()[len(base):])
		if err := it.Item().Value(func(v []byte) error { return fn(id, v) }); err != nil {
			return err
		}
	}
	return nil
}

// ListFrom calls fn with every record of collection whose id starts with
// prefix and is not before from, in id order (domain.RecordsFrom): the
// listing seeks to from instead of walking the ids before it.
func (f *FSM) ListFrom(collection, prefix, from string, fn func(id string, raw []byte) error) error {
	if !validName(collection) {
		return domain.Errorf(domain.EINVALID, "", "bad collection name %q", collection)
	}
	base := recordKey(collection, "")
	return f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: recordKey(collection, prefix), PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Seek(recordKey(collection, max(prefix, from))); it.Valid(); it.Next() {
			id := string(it.Item().Key()[len(base):])
			if err := it.Item().Value(func(v []byte) error { return fn(id, v) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// Keys returns the keys of index that start with prefix, in order.
func (f *FSM) Keys(index, prefix string) ([]string, error) {
	if !validName(index) {
		return nil, domain.Errorf(domain.EINVALID, "", "bad index name %q", index)
	}
	base := indexKey(index, "")
	var out []string
	err := f.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: indexKey(index, prefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			out = append(out, string(it.Item().Key()[len(base):]))
		}
		return nil
	})
	return out, err
}
