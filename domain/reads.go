package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Reads answers the questions the kiosk, the clerk's office and the API ask
// of the ledger, in the domain's words: a staff account, the status letter
// queue from a date, a cashier's open drawer. It reads through Records
// (the replicated store, or a test's maps), so the records' collections and
// index keys stay the domain's business and no handler spells one.
type Reads struct{ r Records }

// ReadsOf returns the reads of r.
func ReadsOf(r Records) Reads { return Reads{r} }

// get reads one record; a missing one is (zero, false, nil).
func get[T any](r Records, collection, id string) (T, bool, error) {
	var v T
	err := r.Get(collection, id, &v)
	if ErrorCode(err) == ENOTFOUND {
		return v, false, nil
	}
	return v, err == nil, err
}

// must reads one record; a missing one is an ENOTFOUND error naming what.
func must[T any](r Records, collection, id, what string) (T, error) {
	v, ok, err := get[T](r, collection, id)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, "", "There is no %s %q.", what, id)
	}
	return v, err
}

// all decodes every record of a collection whose id starts with prefix, in
// id order.
func all[T any](r Records, collection, prefix string) ([]T, error) {
	var out []T
	err := r.List(collection, prefix, func(_ string, raw []byte) error {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// listFrom calls fn with every record of collection whose id starts with
// prefix and is not before from, in id order, until fn returns an error:
// through r's ListFrom when it has one (RecordsFrom), else through List,
// passing over the ids before from.
func listFrom(r Records, collection, prefix, from string, fn func(id string, raw []byte) error) error {
	if rf, ok := r.(RecordsFrom); ok {
		return rf.ListFrom(collection, prefix, from, fn)
	}
	return r.List(collection, prefix, func(id string, raw []byte) error {
		if id < from {
			return nil
		}
		return fn(id, raw)
	})
}

// errStopList ends a listing early: the callback of List returns it once
// the records it wants are behind it, and the caller reads it as success.
var errStopList = errors.New("the listing has what it wants")

// lastPart is the record id at the end of an index key ("<date>/<id>").
func lastPart(k string) string { return k[strings.LastIndexByte(k, '/')+1:] }

// byIndex reads the records whose ids end the keys of index under prefix,
// in key order.
func byIndex[T any](r Records, index, prefix, collection, what string) ([]T, error) {
	keys, err := r.Keys(index, prefix)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(keys))
	for _, k := range keys {
		v, err := must[T](r, collection, lastPart(k), what)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// StaffUser returns a staff account.
func (x Reads) StaffUser(username string) (StaffUser, error) {
	return must[StaffUser](x.r, CollectionStaffUsers, username, "staff account")
}

// StaffUsers returns every staff account, by username.
func (x Reads) StaffUsers() ([]StaffUser, error) {
	return all[StaffUser](x.r, CollectionStaffUsers, "")
}

// APIToken returns an API token's record (its secret's hash, never the
// secret).
func (x Reads) APIToken(id string) (APIToken, error) {
	return must[APIToken](x.r, CollectionAPITokens, id, "API token")
}

// APITokens returns every API token's record, by id.
func (x Reads) APITokens() ([]APIToken, error) { return all[APIToken](x.r, CollectionAPITokens, "") }

// BillOrigin returns who created a bill and with which command, if the
// clerk's office created it.
func (x Reads) BillOrigin(billID string) (BillOrigin, bool, error) {
	return get[BillOrigin](x.r, CollectionBillOrigins, billID)
}

// ChargesOfAccount returns the charges billed to an account (§5.19,
// §5.21), by charge id.
func (x Reads) ChargesOfAccount(account string) ([]Charge, error) {
	return byIndex[Charge](x.r, IndexChargesByAcc, account+"/", CollectionCharges, "charge")
}

// StatusQueue returns the status letter requests (§5.11) by ready-by date,
// from the given date on (the zero Date: all of them).
func (x Reads) StatusQueue(from Date) ([]StatusRequest, error) {
	reqs, err := byIndex[StatusRequest](x.r, StatusRequestsByReadyDate, "", StatusRequests, "status letter request")
	if err != nil || from.IsZero() {
		return reqs, err
	}
	return slices.DeleteFunc(reqs, func(r StatusRequest) bool { return r.ReadyBy.Before(from) }), nil
}

// StatusRequest returns a status letter request by its claim number.
func (x Reads) StatusRequest(claim string) (StatusRequest, error) {
	return must[StatusRequest](x.r, StatusRequests, claim, "status letter request")
}

// StatusLetter returns the completed letter of a claim.
func (x Reads) StatusLetter(claim string) (StatusLetterDoc, error) {
	return must[StatusLetterDoc](x.r, CollectionStatusLetters, claim, "status letter")
}

// NovemberRun returns the November run of a cycle year (§5.10), if any
// step of it ran.
func (x Reads) NovemberRun(year int) (NovemberRun, bool, error) {
	run, ok, err := get[NovemberRun](x.r, CollectionNovemberRuns, strconv.Itoa(year))
	run.Year = year // a run not begun is the year's all the same
	return run, ok, err
}

// NovemberItems returns the lines a step of run posted ("penalties" or
// "certify"): those the run's record holds, before ledger format 8, then
// those recorded one by one (RunPartsFormat), in bill id order.
func (x Reads) NovemberItems(run NovemberRun, step string) ([]RunItem, error) {
	items := run.Certified
	if step == "penalties" {
		items = run.Penalties
	}
	more, err := all[RunItem](x.r, CollectionNovemberItems, NovemberItemKey(run.Year, step, ""))
	return append(slices.Clip(items), more...), err
}

// NovemberItemsPage returns at most n of the lines a step of run posted,
// from the line from (counting from 0) in NovemberItems' order, and
// decodes only those: a page of a step of thousands of lines. The step's
// count and total are the run's (NovemberRun.Lines, PenaltyTotal,
// CertifiedTotal).
func (x Reads) NovemberItemsPage(run NovemberRun, step string, from, n int) ([]RunItem, error) {
	items := run.Certified
	if step == "penalties" {
		items = run.Penalties
	}
	var out []RunItem
	if from < len(items) {
		out = append(out, items[from:min(len(items), from+n)]...)
	}
	skip := max(0, from-len(items))
	err := x.r.List(CollectionNovemberItems, NovemberItemKey(run.Year, step, ""), func(id string, raw []byte) error {
		if len(out) >= n {
			return errStopList
		}
		if skip > 0 {
			skip--
			return nil
		}
		var it RunItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return fmt.Errorf("november line %s: %w", id, err)
		}
		out = append(out, it)
		return nil
	})
	if errors.Is(err, errStopList) {
		err = nil
	}
	return out, err
}

// NovemberPosted returns the bills (and installments) of a step of the
// year's run posted one by one (RunPartsFormat), by id.
func (x Reads) NovemberPosted(year int, step string) (map[string]bool, error) {
	prefix := NovemberItemKey(year, step, "")
	posted := map[string]bool{}
	err := x.r.List(CollectionNovemberItems, prefix, func(id string, _ []byte) error {
		posted[strings.TrimPrefix(id, prefix)] = true
		return nil
	})
	return posted, err
}

// RefundState returns what was done about the refund due of a payment
// (§5.07(1)): approved, paid by check, cancelled.
func (x Reads) RefundState(commandID string) (RefundState, bool, error) {
	return get[RefundState](x.r, CollectionRefundStates, commandID)
}

// Drawer returns a cash drawer.
func (x Reads) Drawer(id string) (Drawer, error) {
	return must[Drawer](x.r, CollectionDrawers, id, "drawer")
}

// OpenDrawer returns the drawer a cashier has open, if any.
func (x Reads) OpenDrawer(username string) (Drawer, bool, error) {
	cs, ok, err := get[CashierState](x.r, CollectionCashiers, username)
	if err != nil || !ok || cs.Open == "" {
		return Drawer{}, false, err
	}
	d, err := x.Drawer(cs.Open)
	return d, err == nil, err
}

// UndepositedDrawers returns the drawers whose money is not deposited yet,
// oldest first.
func (x Reads) UndepositedDrawers() ([]Drawer, error) {
	return byIndex[Drawer](x.r, IndexUndeposited, "", CollectionDrawers, "drawer")
}

// RecentDrawers returns at most n drawers, the most recently opened first.
func (x Reads) RecentDrawers(n int) ([]Drawer, error) {
	keys, err := x.r.Keys(IndexDrawersByDay, "")
	if err != nil {
		return nil, err
	}
	slices.Reverse(keys)
	keys = keys[:min(len(keys), n)]
	out := make([]Drawer, 0, len(keys))
	for _, k := range keys {
		d, err := x.Drawer(lastPart(k))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// TaxBill returns a property tax bill (Ch. 74).
func (x Reads) TaxBill(id string) (TaxBill, error) {
	return must[TaxBill](x.r, TaxBills, id, "tax bill")
}

// TaxBillsOfParcel returns a parcel's property tax bills, by tax year.
func (x Reads) TaxBillsOfParcel(parcel string) ([]TaxBill, error) {
	return TaxBillsOfParcel(x.r, parcel)
}

// Purchases returns the public purchasing records (§5.12(5), (7)),
// newest first: every purchase order awarded, with its bids, and the
// records an earlier release held in their own collection.
func (x Reads) Purchases() ([]PublicPurchase, error) {
	out, err := ListPurchases(x.r)
	if err != nil {
		return nil, err
	}
	orders, err := x.AllOrders()
	if err != nil {
		return nil, err
	}
	claims := map[int][]Claim{}
	for _, o := range orders {
		if _, ok := claims[o.Year]; !ok {
			if claims[o.Year], err = x.Claims(o.Year); err != nil {
				return nil, err
			}
		}
		if p, ok := o.PublicRecord(claims[o.Year]); ok {
			out = append(out, p)
		}
	}
	sortPurchases(out)
	return out, nil
}

// Purchase returns one public purchasing record.
func (x Reads) Purchase(id string) (PublicPurchase, error) {
	if o, ok, err := get[Order](x.r, CollectionOrders, id); err != nil || ok {
		if err != nil {
			return PublicPurchase{}, err
		}
		claims, err := x.Claims(o.Year)
		if err != nil {
			return PublicPurchase{}, err
		}
		if p, ok := o.PublicRecord(claims); ok {
			return p, nil
		}
		return PublicPurchase{}, Errorf(ENOTFOUND, sectionPurchasing, "There is no purchasing record %q.", id)
	}
	return must[PublicPurchase](x.r, Purchases, id, "purchasing record")
}

// Resolutions returns the resolutions that set the ledger's parameters, in
// the order they applied.
func (x Reads) Resolutions() ([]Resolution, error) {
	rs, err := all[Resolution](x.r, CollectionResolutions, "0")
	slices.SortFunc(rs, func(a, b Resolution) int { return a.Order - b.Order })
	return rs, err
}

// ReturnedCheck returns a returned check's record (§5.20).
func (x Reads) ReturnedCheck(id string) (ReturnedCheckRecord, error) {
	return must[ReturnedCheckRecord](x.r, CollectionReturnedChecks, id, "returned check")
}

// Deposit returns a deposit slip (§5.06).
func (x Reads) Deposit(id string) (DepositSlip, error) {
	return must[DepositSlip](x.r, CollectionDeposits, id, "deposit slip")
}
