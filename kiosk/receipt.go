package kiosk

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// showReceiptPage shows a receipt, on screen and printable on 80 mm paper:
// its number, intake time, bill, amount, how it was applied, the balance
// left and whether it has posted or is provisional. A receipt this kiosk
// just issued shows even if the ledger cannot read it back yet.
func (s *Server) showReceiptPage(w http.ResponseWriter, r *http.Request) {
	number := r.PathValue("number")
	rc, err := s.ledger.Receipt(number)
	if err != nil {
		kept, ok := s.recalled(number)
		if !ok {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				s.showProblem(w, r, http.StatusNotFound, "receipt.error.none", "receipt.error.none_hint", "/", "layout.start_over", "number", number)
				return
			}
			s.fail(w, r, err)
			return
		}
		rc = kept
	}
	p := s.page(r, selfURL(r), "title.receipt", "number", rc.Number)
	v := view.Receipt{
		Number:     rc.Number,
		Status:     rc.Status,
		At:         rc.At.Time(s.loc),
		BillID:     rc.BillID,
		Account:    rc.Account,
		Parcel:     rc.Parcel,
		Amount:     rc.Amount,
		Tender:     rc.Tender,
		Reference:  rc.Reference,
		Allocation: rc.Allocation,
		Balance:    rc.Balance,
		Node:       rc.Node,
		Index:      rc.Index,
		DoneURL:    "/reset",
		BillURL:    billURL(rc.BillID),
	}
	if b, err := s.ledger.Bill(rc.BillID); err == nil {
		v.Description = b.Description
	}
	s.render(w, r, http.StatusOK, view.ReceiptPage(p, v))
}
