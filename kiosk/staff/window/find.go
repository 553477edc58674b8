package window

import (
	"fmt"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/search"
	"github.com/villagehall/appliance/kiosk/staff"
)

// maxWindowParcels bounds the parcels a name or address typed at the
// window lists bills for: more than that is not one payer.
const maxWindowParcels = 50

// findWindowBill reads what the clerk typed in the window's bill box: a
// bill number as residents say it ("B 2026 0113", "2026-0113") becomes
// the bill's number, and an owner's name ("Gutierrez") finds the bills of
// the parcels that owner holds: one bill is taken as typed, several are
// listed for the clerk to choose from. Owner names are searched here, at
// the window, and never at the public kiosk.
func (m *Module) findWindowBill(f PaymentForm) PaymentForm {
	q := strings.TrimSpace(f.BillID)
	if q == "" {
		return f
	}
	if b, ok := m.o.NumberedBill(q); ok {
		f.BillID = b.ID
		return f
	}
	for _, id := range search.BillIDs(q) {
		if _, err := m.o.Ledger().Bill(id); err == nil {
			f.BillID = id
			return f
		}
	}
	parcels, err := m.o.Ledger().FindParcels(domain.ParcelQuery{Field: domain.ParcelOwner, Words: domain.NameWords(q), Prefix: true, Limit: maxWindowParcels})
	if err != nil {
		return f
	}
	var bills []domain.Bill
	var owners []string
	for _, pc := range parcels {
		if !search.OwnerMatches(q, pc.Owner) {
			continue
		}
		bs, err := m.o.Ledger().BillsByParcel(pc.ID)
		if err != nil {
			return f
		}
		owners = append(owners, pc.Owner)
		bills = append(bills, bs...)
	}
	switch {
	case len(owners) == 0:
	case len(bills) == 0:
		f.Error = fmt.Sprintf("%s has no bills.", strings.Join(owners, ", "))
	case len(bills) == 1:
		f.BillID = bills[0].ID
	default:
		domain.SortBills(bills)
		ids := make([]string, len(bills))
		for i, b := range bills {
			ids[i] = b.ID
		}
		f.Error = fmt.Sprintf("%s: %d bills, %s. Enter the one to pay.", strings.Join(owners, ", "), len(bills), strings.Join(ids, ", "))
	}
	return f
}

// windowLookup finds the bills a payer at the window may mean when what
// the clerk typed is not a bill number: the bills of an account number,
// or of the parcel numbered q or the parcels whose address has every word
// of q, whole or its start (staff.FindParcels, so "141 w main street"
// finds 141 W Main St). Open bills come first.
func (m *Module) windowLookup(q string) ([]WindowMatch, error) {
	q = strings.TrimSpace(q)
	var bills []domain.Bill
	if a, err := m.o.Ledger().Account(q); err == nil {
		if bills, err = m.o.Ledger().BillsByAccount(a.Number); err != nil {
			return nil, err
		}
	} else if domain.NormalizeAddress(q) != "" {
		parcels, _, err := staff.FindParcels(m.o.Ledger(), q, maxWindowParcels, domain.ParcelAddress)
		if err != nil {
			return nil, err
		}
		for _, pc := range parcels {
			more, err := m.o.Ledger().BillsByParcel(pc.ID)
			if err != nil {
				return nil, err
			}
			bills = append(bills, more...)
		}
	}
	return m.windowMatches(bills)
}

// windowMatches lists bills to choose from at the window, those owing
// something first, each with its address and balance today.
func (m *Module) windowMatches(bills []domain.Bill) ([]WindowMatch, error) {
	var owing, settled []WindowMatch
	for _, b := range bills {
		fig, err := b.Figures(m.o.Today(), m.o.Ledger().Params())
		if err != nil {
			return nil, err
		}
		match := WindowMatch{BillID: b.ID, Account: b.Account, Description: b.Description, Balance: fig.Balance.String(), Status: string(fig.Status)}
		if pc, err := m.o.Ledger().Parcel(b.Parcel); err == nil {
			match.Address = pc.Address
		}
		if fig.TakesPayment() {
			owing = append(owing, match)
		} else {
			settled = append(settled, match)
		}
	}
	return append(owing, settled...), nil
}
