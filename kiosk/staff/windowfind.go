package staff

import (
	"fmt"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/search"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// findWindowBill reads what the clerk typed in the window's bill box: a
// bill number as residents say it ("B 2026 0113", "2026-0113") becomes
// the bill's number, and an owner's name ("Gutierrez") finds the bills of
// the parcels that owner holds: one bill is taken as typed, several are
// listed for the clerk to choose from. Owner names are searched here, at
// the window, and never at the public kiosk.
func (s *Server) findWindowBill(f view.PaymentForm) view.PaymentForm {
	q := strings.TrimSpace(f.BillID)
	if q == "" {
		return f
	}
	for _, id := range search.BillIDs(q) {
		if _, err := s.ledger.Bill(id); err == nil {
			f.BillID = id
			return f
		}
	}
	parcels, err := s.ledger.Parcels()
	if err != nil {
		return f
	}
	var bills []domain.Bill
	var owners []string
	for _, pc := range parcels {
		if !search.OwnerMatches(q, pc.Owner) {
			continue
		}
		bs, err := s.ledger.BillsByParcel(pc.ID)
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
