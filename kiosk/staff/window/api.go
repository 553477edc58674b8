package window

import (
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// PaymentRequest is the body of POST /api/v1/payments (DESIGN.md, "HTTP
// API"): a payment on a village bill posted by an integration, for
// instance card payments taken by a payment processor, with the
// processor's approval as the reference.
type PaymentRequest struct {
	CommandID string        `json:"command_id"`
	BillID    string        `json:"bill_id"`
	Amount    string        `json:"amount"`
	Tender    domain.Tender `json:"tender"`
	Reference string        `json:"reference"`
	Payer     string        `json:"payer,omitempty"`
}

// PaymentResponse answers a PaymentRequest.
type PaymentResponse struct {
	Receipt     *domain.Receipt      `json:"receipt"`
	Status      domain.ReceiptStatus `json:"status"`
	Consistency domain.Consistency   `json:"consistency"`
}

// apiPayment serves POST /api/v1/payments. The client makes the command id,
// so a retry of a request whose answer was lost sends the same id and gets
// the first result back, never a second payment; the same id with another
// body (or from another account) is a conflict (409), never the first
// result. A single payment is at most the payment limit in force; cash and
// checks go into the caller's open drawer, as at the window. A payment the cluster has
// not confirmed in time is answered as provisional: it is recorded on this
// node and posts when the network returns.
func (m *Module) apiPayment(w http.ResponseWriter, r *http.Request) {
	var req PaymentRequest
	if err := m.o.DecodeJSON(w, r, &req, "a payment"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	amount, err := domain.ParseMoney(req.Amount)
	switch {
	case strings.TrimSpace(req.CommandID) == "" || len(req.CommandID) > 64:
		err = domain.Errorf(domain.EINVALID, "", "command_id is required (at most 64 characters); make it unique, and send the same one when you retry.")
	case req.BillID == "":
		err = domain.Errorf(domain.EINVALID, "", "bill_id is required.")
	case err != nil:
		err = domain.Errorf(domain.EINVALID, "", "amount must be a decimal string like \"42.50\".")
	case !req.Tender.Valid():
		err = domain.Errorf(domain.EINVALID, "", "tender must be card, cash or check.")
	case req.Tender != domain.Cash && strings.TrimSpace(req.Reference) == "":
		err = domain.Errorf(domain.EINVALID, "", "reference (the card approval or check number) is required.")
	}
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	who := m.o.Who(r)
	kind := domain.KindPayBill
	var in *domain.WindowPayment
	if req.Tender != domain.Card {
		// Cash and checks through the API follow the window's rule: they
		// go into the caller's open drawer, to be counted at its close.
		d, open, err := m.openDrawer(who.Username)
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		if !open {
			m.o.WriteAPIError(w, domain.Errorf(domain.ECONFLICT, "", "A %s payment goes into an open drawer: open one at the window for %s first.", req.Tender, who.Username))
			return
		}
		kind = domain.KindWindowPayment
		in = &domain.WindowPayment{DrawerID: d.ID, BillID: req.BillID, Amount: amount, Tender: req.Tender, Tendered: amount, Reference: req.Reference, Payer: req.Payer}
	}
	cmd, err := m.o.Ledger().NewCommand(kind, who.Username)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	cmd.ID = "api-" + req.CommandID
	if in != nil {
		cmd.Payload = in
	} else {
		cmd.Payload = &domain.PayBill{BillID: req.BillID, Amount: amount, Tender: req.Tender, Reference: req.Reference, Payer: req.Payer}
	}
	if err := cmd.CheckText(); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitProvisional(r, cmd)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if res.Receipt == nil {
		m.o.WriteAPIError(w, domain.Errorf(domain.EINTERNAL, "", "the ledger returned no receipt"))
		return
	}
	m.o.WriteJSON(w, http.StatusOK, PaymentResponse{Receipt: res.Receipt, Status: res.Receipt.Status, Consistency: m.o.Ledger().Consistency()})
}
