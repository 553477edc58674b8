package kiosk

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/view"
)

// showReceiptPage shows a receipt, on screen and printable on 80 mm paper:
// its number, intake time, what was paid, the amount, how it was applied,
// the balance left and whether it has posted or is provisional. The ledger
// reads back provisional receipts from this node's outbox, so a payment
// taken offline shows too. A status letter's receipt is its claim: the
// claim number and the day the letter is ready; a property tax receipt
// names the roll year, county and installment.
func (s *Server) showReceiptPage(w http.ResponseWriter, r *http.Request) {
	number := r.PathValue("number")
	rc, err := s.ledger.Receipt(number)
	if err != nil {
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			s.showProblem(w, r, http.StatusNotFound, "receipt.error.none", "receipt.error.none_hint", "/", "layout.start_over", "number", number)
			return
		}
		s.fail(w, r, err)
		return
	}
	s.renderReceipt(w, r, rc)
}

// renderReceipt shows rc: from its page, or in the answer to the charge
// that made it when the ledger cannot read it back yet.
func (s *Server) renderReceipt(w http.ResponseWriter, r *http.Request, rc domain.Receipt) {
	p := s.page(r, receiptURL(rc.Number), "title.receipt", "number", rc.Number)
	v := view.Receipt{
		Number:     rc.Number,
		Kind:       rc.Kind,
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
	}
	switch rc.Kind {
	case domain.KindRequestStatusLetter:
		if err := s.letterClaim(&v, rc); err != nil {
			s.fail(w, r, err)
			return
		}
	case domain.KindPayPropertyTax:
		s.taxReceipt(&v, rc)
	default:
		v.BillURL = billURL(rc.BillID)
		if b, err := s.ledger.Bill(rc.BillID); err == nil {
			v.Description = b.Description
		}
	}
	s.render(w, r, http.StatusOK, view.ReceiptPage(p, v))
}

// letterClaim fills in a status letter's claim: from the stored request
// once it has posted, else from the rule itself on the receipt's intake
// time, which gives the same dates.
func (s *Server) letterClaim(v *view.Receipt, rc domain.Receipt) error {
	v.Requester = rc.Payer
	var sr domain.StatusRequest
	if err := s.ledger.Get(domain.StatusRequests, rc.Number, &sr); err == nil {
		v.Address, v.ReceivedOn, v.ReadyBy, v.Requester = sr.Address, sr.ReceivedOn, sr.ReadyBy, sr.Requester
		return nil
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: rc.At}, s.ledger.Params())
	if err != nil {
		return err
	}
	v.ReceivedOn, v.ReadyBy = sl.ReceivedOn, sl.ReadyBy
	if pc, err := s.ledger.Parcel(rc.Parcel); err == nil {
		v.Address = pc.Address
	}
	return nil
}

// taxReceipt fills in the roll year, county and option of a property tax
// receipt from its bill.
func (s *Server) taxReceipt(v *view.Receipt, rc domain.Receipt) {
	var t domain.TaxBill
	if err := s.ledger.Get(domain.TaxBills, rc.BillID, &t); err != nil {
		return
	}
	v.TaxYear, v.County, v.Parcel = t.TaxYear, t.County.Title(), t.Parcel
	v.BillURL = taxBillURL(t.ID)
	for _, pay := range t.Payments {
		if pay.CommandID == rc.CommandID {
			v.Option = pay.Option
		}
	}
}
