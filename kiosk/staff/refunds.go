package staff

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// showReturnCheckPage is the form to record a returned check (§5.20),
// reached from the check's receipt.
func (s *Server) showReturnCheckPage(w http.ResponseWriter, r *http.Request) {
	rc, err := s.ledger.Receipt(r.URL.Query().Get("receipt"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rc.Tender != domain.Check {
		s.fail(w, r, domain.Errorf(domain.EINVALID, "§5.20", "Receipt %s was not paid by check.", rc.Number))
		return
	}
	fee := s.ledger.Params().At(s.today()).ReturnedCheckFee
	s.render(w, r, http.StatusOK, view.ReturnCheckPage(s.page(r, "Returned check"), view.ReturnCheckForm{Receipt: rc.Number, BillID: rc.BillID, Payer: rc.Payer, Amount: rc.Amount.String(), Reference: rc.Reference, Fee: fee.String()}))
}

func (s *Server) submitReturnCheck(w http.ResponseWriter, r *http.Request) {
	in := domain.ReturnCheck{BillID: formValue(r, "bill"), Receipt: formValue(r, "receipt"), Referral: formValue(r, "referral")}
	_, err := s.submit(r, domain.KindReturnCheck, func(c *domain.Command) {
		in.ReturnID = fmt.Sprintf("RC-%s-%s-%06d", c.At.Date, c.Node, c.Seq)
		in.FeeBillID = billID(c, 0) + "-RCFEE"
		c.Payload = &in
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/returned-checks/"+in.ReturnID)
}

// showReturnedCheckPage is the notice to the payer, to print and mail.
func (s *Server) showReturnedCheckPage(w http.ResponseWriter, r *http.Request) {
	rec, err := s.reads.ReturnedCheck(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := view.ReturnedCheck{ID: rec.ID, BillID: rec.BillID, Account: rec.Account, Reference: rec.Payment.Reference, PaidOn: rec.Payment.At.Date.String(), ReturnedOn: rec.ReturnedOn.String(), Amount: rec.Payment.Amount.String(), Fee: rec.Fee.String(), Owed: rec.Owed.String(), FeeBillID: rec.FeeBillID, Referral: rec.Referral, CommandID: rec.CommandID}
	if rc, err := s.ledger.Receipt(rec.Payment.Receipt); err == nil {
		v.Payer = rc.Payer
	}
	if a, err := s.ledger.Account(rec.Account); err == nil {
		v.AccountName = a.Name
	}
	if b, err := s.ledger.Bill(rec.BillID); err == nil {
		var fee *domain.Bill
		if rec.FeeBillID != "" {
			if fb, err := s.ledger.Bill(rec.FeeBillID); err == nil {
				fee = &fb
			}
		}
		if bal, total, err := domain.ReturnedCheckOwed(b, fee, s.today(), s.ledger.Params()); err == nil {
			// One figure, the interest in it: never "plus the interest" on
			// top of a figure that already holds it.
			v.BillBalance, v.Owed, v.OwedOn = bal.String(), total.String(), s.today().String()
		}
	}
	s.render(w, r, http.StatusOK, view.ReturnedCheckPage(s.page(r, "Returned check "+rec.ID), v))
}

// showRefundsPage is the refund queue (§5.07(1)): overpayments by their
// deadline, overdue ones flagged, with approval and the check.
func (s *Server) showRefundsPage(w http.ResponseWriter, r *http.Request) {
	if s.refunds == nil {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a refund queue."))
		return
	}
	due, err := s.refunds.RefundsDue()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].RefundBy.Before(due[j].RefundBy) })
	pr, _ := principalFrom(r.Context())
	v := view.Refunds{CanApprove: Allowed(pr.user.Role, CapRefundApprove), CanCheck: Allowed(pr.user.Role, CapRefundCheck)}
	today := s.today()
	for _, d := range due {
		st, _, err := s.reads.RefundState(d.CommandID)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		state := st.State
		if state == "" {
			state = "due"
		}
		open := state == "due" || state == domain.RefundApproved
		row := view.Refund{CommandID: d.CommandID, Receipt: d.Receipt, BillID: d.BillID, Account: d.Account, PaidAt: d.PaidAt.String(), Amount: d.Amount.String(), RefundBy: d.RefundBy.String(),
			Overdue: open && today.After(d.RefundBy), State: state, CheckNumber: st.CheckNumber, ApprovedBy: st.ApprovedBy, Note: st.Note,
			Card: s.cards != nil && state == domain.RefundApproved && s.paidByCard(d.Receipt)}
		row.Payee, row.Address = s.refundPayee(d)
		v.Rows = append(v.Rows, row)
	}
	s.render(w, r, http.StatusOK, view.RefundsPage(s.page(r, "Refunds"), v))
}

// refundsOverdue counts the refunds due or approved but not paid after
// their deadline.
func (s *Server) refundsOverdue() (int, error) {
	due, err := s.refunds.RefundsDue()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range due {
		if !s.today().After(d.RefundBy) {
			continue
		}
		st, _, err := s.reads.RefundState(d.CommandID)
		if err != nil {
			return 0, err
		}
		if st.State == "" || st.State == domain.RefundApproved {
			n++
		}
	}
	return n, nil
}

func (s *Server) refundOp(w http.ResponseWriter, r *http.Request, op string) {
	in := domain.IssueRefund{Op: op, BillID: formValue(r, "bill"), CommandID: r.PathValue("command"), CheckNumber: formValue(r, "check_number")}
	if op == "check" {
		// A refund check is drawn like a claim's (§5.07(1), §5.18): on
		// an account, from its check stock, to the payer, signed.
		in.Account = formValue(r, "account")
		in.Signatures = strings.FieldsFunc(formValue(r, "signatures"), func(c rune) bool { return c == ',' || c == ' ' })
		if due, err := s.refunds.RefundsDue(); err == nil {
			for _, d := range due {
				if d.CommandID == in.CommandID {
					in.Payee, _ = s.refundPayee(d)
				}
			}
		}
	}
	if _, err := s.submit(r, domain.KindIssueRefund, func(c *domain.Command) { c.Payload = &in }); err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/refunds")
}

// submitRefundApprove approves a refund once the treasurer has seen whom
// the check goes to and for how much: the queue's Approve button opens
// the confirmation, whose button approves.
func (s *Server) submitRefundApprove(w http.ResponseWriter, r *http.Request) {
	if formValue(r, "confirm") == "yes" {
		s.refundOp(w, r, "approve")
		return
	}
	cmd := r.PathValue("command")
	due, err := s.refunds.RefundsDue()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, d := range due {
		if d.CommandID != cmd {
			continue
		}
		v := view.Refund{CommandID: d.CommandID, Receipt: d.Receipt, BillID: d.BillID, Account: d.Account, PaidAt: d.PaidAt.String(), Amount: Dollars(d.Amount), RefundBy: d.RefundBy.String()}
		v.Payee, v.Address = s.refundPayee(d)
		s.render(w, r, http.StatusOK, view.RefundApprovePage(s.page(r, "Approve a refund"), v))
		return
	}
	s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.07(1)", "There is no refund due for payment %s.", cmd))
}

// refundPayee is who a refund check is made out and mailed to: the payer
// named on the payment's receipt (else the account's name), at the
// address of the bill's parcel.
func (s *Server) refundPayee(d domain.RefundDue) (name, address string) {
	if rc, err := s.ledger.Receipt(d.Receipt); err == nil {
		name = rc.Payer
	}
	if a, err := s.ledger.Account(d.Account); err == nil && name == "" {
		name = a.Name
	}
	if b, err := s.ledger.Bill(d.BillID); err == nil {
		if pc, err := s.ledger.Parcel(b.Parcel); err == nil {
			address = pc.Address
		}
	}
	return name, address
}
func (s *Server) submitRefundCheck(w http.ResponseWriter, r *http.Request) { s.refundOp(w, r, "check") }

// paidByCard reports whether receipt number was paid by card with an
// approval reference the terminal can refund.
func (s *Server) paidByCard(number string) bool {
	rc, err := s.ledger.Receipt(number)
	return err == nil && rc.Tender == domain.Card && rc.Reference != ""
}

// submitRefundCard sends an approved refund of a card payment back to the
// card through the node's terminal, keyed by the
// refund's command id so a retry refunds once, then records it in the
// ledger as the refund's payment, with the processor's refund reference
// where a check's number goes ("card re_…").
func (s *Server) submitRefundCard(w http.ResponseWriter, r *http.Request) {
	id, bill := r.PathValue("command"), formValue(r, "bill")
	if s.cards == nil || s.refunds == nil {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node has no card terminal to refund through."))
		return
	}
	st, ok, err := s.reads.RefundState(id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok || st.State != domain.RefundApproved || st.BillID != bill {
		s.fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.07(1)", "Only an approved refund goes back to the card."))
		return
	}
	due, err := s.refunds.RefundsDue()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var rc domain.Receipt
	for _, d := range due {
		if d.CommandID == id {
			if rc, err = s.ledger.Receipt(d.Receipt); err != nil {
				s.fail(w, r, err)
				return
			}
		}
	}
	if rc.Tender != domain.Card || rc.Reference == "" {
		s.fail(w, r, domain.Errorf(domain.EINVALID, "§5.07(1)", "This payment was not made by card; refund it by check."))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	done, err := s.cards.Refund(ctx, terminal.RefundRequest{Key: "refund-" + id, ChargeKey: id, Reference: rc.Reference, Amount: st.Amount, Reason: "overpayment refunded (§5.07(1))"})
	if err != nil {
		s.log.Warn("card refund failed", "command", id, "receipt", rc.Number, "err", err)
		s.fail(w, r, domain.Errorf(domain.EUNAVAILABLE, "§5.07(1)", "The card terminal could not refund the card now (%v); try again, or refund by check.", err))
		return
	}
	in := domain.IssueRefund{Op: "check", BillID: bill, CommandID: id, CheckNumber: "card " + done.Reference}
	if _, err := s.submit(r, domain.KindIssueRefund, func(c *domain.Command) { c.Payload = &in }); err != nil {
		s.log.Error("card refunded but not recorded", "command", id, "refund", done.Reference, "err", err)
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/refunds")
}
