package roomtax

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// The operator's portal: a hotel operator's login lands on its room tax
// home (its establishments, every quarter due or on record with what it
// owes today, the annual return, its receipts) and pays a return from
// there: by card, through the node's card terminal (the one the kiosk
// charges through, kiosk/terminal), or by check at the window with a
// printed remittance slip that the treasurer's window finds by its
// reference. A card payment is the kiosk's pay_room_tax, in the
// operator's name: the same kind, the same books. The ledger takes it
// only toward the operator's own returns (domain.checkOperatorPays), and
// the pages refuse another operator's returns before that, as the forms
// of a return do.

// portalRows lists the operator's quarters for its home: every return on
// record and every ended quarter due and not filed, with what it owes
// today and what the operator may do with it.
func (m *Module) portalRows(op domain.RoomTaxOperator, returns []domain.QuarterlyReturn, due []domain.Quarter, today domain.Date) ([]PortalRow, error) {
	p := m.o.Ledger().Params()
	byPeriod := map[domain.Quarter]*domain.QuarterlyReturn{}
	var periods []domain.Quarter
	for i := range returns {
		byPeriod[returns[i].Period] = &returns[i]
		periods = append(periods, returns[i].Period)
	}
	for _, q := range due {
		if byPeriod[q] == nil {
			periods = append(periods, q)
		}
	}
	slices.SortFunc(periods, domain.Quarter.Compare)
	var rows []PortalRow
	for _, q := range periods {
		ret := byPeriod[q]
		if ret == nil {
			ret = &domain.QuarterlyReturn{ID: domain.QuarterlyReturnID(op.ID, q), Operator: op.ID, Period: q}
		}
		row, err := portalRow(*ret, today, p)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// portalRow describes one quarter for its operator: its status in the
// words of the home page (due, late, filed, amended, paid, balance due),
// the figures today when the return has any, and the actions it offers.
func portalRow(ret domain.QuarterlyReturn, today domain.Date, p *domain.Params) (PortalRow, error) {
	q := ret.Period
	due := q.DueOn()
	if ret.Extension != nil {
		due = ret.Extension.To
	}
	row := PortalRow{ID: ret.ID, Period: q.String(), DueOn: due.String(), Tax: "—", Paid: "—", Balance: "—"}
	_, filed := ret.Filed(domain.Date{})
	var words []string
	switch {
	case len(ret.Determinations) > 0:
		d := ret.Determinations[len(ret.Determinations)-1]
		words = append(words, strings.ToLower(domain.DeterminationTitle(d.Kind))+" by the treasurer")
	case !filed && today.After(due):
		words, row.Late = append(words, "late: not filed"), true
	case !filed:
		words = append(words, "due by "+row.DueOn)
	}
	row.File = !filed && len(ret.Determinations) == 0
	row.FileURL = "/staff/room-tax/operators/" + url.PathEscape(ret.Operator) + "/file?period=" + q.String()
	row.Amend, row.View = filed, filed || len(ret.Determinations) > 0
	if in, ok := ret.Input(today); ok {
		f, err := domain.ComputeRoomTaxReturn(in, p)
		if err != nil {
			return row, err
		}
		row.Tax, row.Paid, row.Balance, row.Delinquent = money(f.Tax), money(f.Paid), money(f.Balance), f.Delinquent
		row.DueOn = f.EffectiveDueOn.String()
		if filed {
			if f.LateFilingFee.IsPositive() {
				words, row.Late = append(words, "filed late"), true
			} else {
				words = append(words, "filed")
			}
			if len(ret.Filings) > 1 {
				words = append(words, "amended")
			}
		}
		switch {
		case f.Balance.IsPositive():
			words, row.Pay = append(words, "balance due"), true
		case f.Paid.IsPositive() || f.Tax.IsPositive():
			words = append(words, "paid")
		default:
			words = append(words, "nothing due")
		}
	}
	row.Status = strings.Join(words, " · ")
	return row, nil
}

// receiptRows lists the payments toward an operator's returns, newest
// first.
func receiptRows(returns []domain.QuarterlyReturn) []ReceiptRow {
	type paid struct {
		at  domain.DateTime
		row ReceiptRow
	}
	var all []paid
	for _, r := range returns {
		for _, x := range r.Payments {
			all = append(all, paid{x.At, ReceiptRow{Number: x.Receipt, At: x.At.String(), Period: r.Period.String(), Amount: staff.Dollars(x.Amount), Tender: tenderTitle(x.Tender)}})
		}
	}
	slices.SortStableFunc(all, func(a, b paid) int { return b.at.Compare(a.at) })
	out := make([]ReceiptRow, len(all))
	for i, p := range all {
		out[i] = p.row
	}
	return out
}

func tenderTitle(t domain.Tender) string {
	switch t {
	case domain.Card:
		return "card"
	case domain.Check:
		return "check"
	case domain.Cash:
		return "cash"
	}
	return string(t)
}

// ownReturn returns the return the path's {id} names and its operator,
// for the operator's own login only (another operator's is refused, as its
// forms are), once the read is recorded (§5.22(8)) with why.
func (m *Module) ownReturn(r *http.Request, why string) (domain.RoomTaxOperator, domain.QuarterlyReturn, error) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		return domain.RoomTaxOperator{}, domain.QuarterlyReturn{}, domain.Errorf(domain.ENOTFOUND, "", "There is no such return.")
	}
	op, err := m.operatorFor(r, opID)
	if err != nil {
		return op, domain.QuarterlyReturn{}, err
	}
	id := domain.QuarterlyReturnID(opID, q)
	if _, err := m.record(r, domain.ReadReturn, opID, []string{id}, filerReason+" ("+why+")"); err != nil {
		return op, domain.QuarterlyReturn{}, err
	}
	ret, err := m.o.Reads().RoomTaxReturn(id)
	return op, ret, err
}

// owed returns a return's figures today; a return with nothing to compute
// them from (not filed, not determined) has nothing to pay yet.
func (m *Module) owed(ret domain.QuarterlyReturn) (domain.RoomTaxReturn, error) {
	in, ok := ret.Input(m.o.Today())
	if !ok {
		return domain.RoomTaxReturn{}, domain.Errorf(domain.ECONFLICT, "§5.22(3)(b)", "The return for %s is not filed yet: file it first, then pay what it computes.", ret.Period)
	}
	return domain.ComputeRoomTaxReturn(in, m.o.Ledger().Params())
}

// sectionPay is the section the portal's payments answer under.
const sectionPay = "§5.22"

// chargeTimeout bounds a charge or a refund at the terminal.
const chargeTimeout = 2 * time.Minute

// payView is the pay page of a return, with its balance today.
func (m *Module) payView(op domain.RoomTaxOperator, ret domain.QuarterlyReturn, f domain.RoomTaxReturn) Pay {
	v := Pay{ID: ret.ID, Period: ret.Period.String(), OperatorName: op.LegalName, Tax: money(f.Tax), Paid: money(f.Paid), Balance: money(f.Balance),
		BalanceDollars: staff.Dollars(f.Balance), DueOn: f.EffectiveDueOn.String(), Ref: ret.PaymentReference(), Cards: m.o.CardTerminal() != nil}
	if f.Balance.IsPositive() {
		v.Amount = money(f.Balance)
	}
	return v
}

// showPayPage shows how the operator may pay a return: by card now, or
// by check at the window with a remittance slip.
func (m *Module) showPayPage(w http.ResponseWriter, r *http.Request) {
	op, ret, err := m.ownReturn(r, "to pay it")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f, err := m.owed(ret)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, http.StatusOK, PayPage(m.o.Frame(r, "Pay room tax for "+ret.Period.String()), m.payView(op, ret, f)))
}

// payAmount reads the amount the operator pays: an amount of money, more
// than nothing and within the payment limit in force today.
func (m *Module) payAmount(r *http.Request) (domain.Money, error) {
	amount, err := staff.ParseAmount("The amount", form(r, "amount"))
	if err != nil {
		return amount, err
	}
	return amount, domain.CheckPaymentAmount(amount, m.o.Today(), m.o.Ledger().Params())
}

// submitPay reads the pay page's form: by card, it shows what the
// terminal will charge, under a command id fixed now so that the charge
// and its payment are made once however often the form is sent; by
// check, it leads to the remittance slip for the amount.
func (m *Module) submitPay(w http.ResponseWriter, r *http.Request) {
	op, ret, err := m.ownReturn(r, "to pay it")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f, err := m.owed(ret)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := m.payView(op, ret, f)
	v.Amount = form(r, "amount")
	amount, err := m.payAmount(r)
	if err == nil && form(r, "method") == "card" && !v.Cards {
		err = domain.Errorf(domain.EUNAVAILABLE, sectionPay, "This node has no card terminal: print a remittance slip and pay by check at the window.")
	}
	if err != nil {
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		v.Error = msg
		m.o.Render(w, r, status, PayPage(m.o.Frame(r, "Pay room tax for "+ret.Period.String()), v))
		return
	}
	switch form(r, "method") {
	case "card":
		c := Charge{ID: ret.ID, Period: ret.Period.String(), OperatorName: op.LegalName, Amount: money(amount), AmountDollars: staff.Dollars(amount), CommandID: newPayCommand()}
		c.Signature = m.o.Seal(r, chargeSeal, c.ID, c.Amount, c.CommandID)
		m.o.Render(w, r, http.StatusOK, ChargePage(m.o.Frame(r, "Pay by card"), c))
	case "check":
		m.o.Redirect(w, r, returnURL(ret.ID)+"/slip.pdf?"+url.Values{"amount": {money(amount)}}.Encode())
	default:
		m.fail(w, r, domain.Errorf(domain.EINVALID, "", "Choose to pay by card or by check."), returnURL(ret.ID)+"/pay")
	}
}

// payCommandPrefix begins the command id of a card payment on the portal.
const payCommandPrefix = "rtpay-"

// newPayCommand returns a fresh command id for a card payment: the key of
// its charge at the terminal and the id of its pay_room_tax command.
func newPayCommand() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return payCommandPrefix + hex.EncodeToString(b)
}

// validPayCommand reports whether s is a command id newPayCommand made.
func validPayCommand(s string) bool {
	h, ok := strings.CutPrefix(s, payCommandPrefix)
	if !ok || len(h) != 32 || strings.ToLower(h) != h {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// chargeSeal names what a card confirmation's seal (Office.Seal) covers:
// the return, the amount and the command id it charges, for the operator
// and session it was made for. A confirmation changed, carried to another
// session, or made up from a command id the operator saw elsewhere (to
// have that payment's charge refunded when the ledger refuses the reuse)
// is refused before the terminal is asked.
const chargeSeal = "room-tax-portal-charge"

// submitCharge charges the card at the terminal, keyed by the command id
// the confirmation fixed, and records the payment as the kiosk does
// (pay_room_tax, applied to the tax first). A payment this command id
// already made leads to its receipt. A card declined, timed out or
// cancelled comes back to the confirmation with nothing recorded; a
// payment the ledger refuses once the card is charged is refunded to the
// card.
func (m *Module) submitCharge(w http.ResponseWriter, r *http.Request) {
	op, ret, err := m.ownReturn(r, "to pay it")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cmdID := form(r, "command_id")
	if !validPayCommand(cmdID) || !m.o.Sealed(r, form(r, "sig"), chargeSeal, ret.ID, form(r, "amount"), cmdID) {
		m.fail(w, r, domain.Errorf(domain.EINVALID, "", "This payment form is not one the office made for you: start again from the return."), returnURL(ret.ID)+"/pay")
		return
	}
	for _, x := range ret.Payments {
		if x.CommandID == cmdID {
			m.o.Redirect(w, r, receiptURL(x.Receipt))
			return
		}
	}
	back := returnURL(ret.ID) + "/pay"
	if m.commandKnown(cmdID) {
		m.fail(w, r, domain.Errorf(domain.ECONFLICT, "", "This payment form was used for another payment: start again from the return."), back)
		return
	}
	amount, err := m.payAmount(r)
	if err == nil {
		_, err = m.owed(ret)
	}
	if err != nil {
		m.fail(w, r, err, back)
		return
	}
	card := m.o.CardTerminal()
	if card == nil {
		m.fail(w, r, domain.Errorf(domain.EUNAVAILABLE, sectionPay, "This node has no card terminal: print a remittance slip and pay by check at the window."), back)
		return
	}
	c := Charge{ID: ret.ID, Period: ret.Period.String(), OperatorName: op.LegalName, Amount: money(amount), AmountDollars: staff.Dollars(amount), CommandID: cmdID, Signature: form(r, "sig")}
	// The charge ends with the request: an operator who leaves the page
	// stops the terminal asking for the card.
	ctx, cancel := context.WithTimeout(r.Context(), chargeTimeout)
	defer cancel()
	approval, err := card.Charge(ctx, cmdID, amount)
	if err != nil {
		if errors.Is(err, terminal.ErrUnavailable) {
			m.o.Log().Warn("card payments unavailable on the portal", "command", cmdID, "err", err)
			c.Error = "Card payments are not available now: print a remittance slip and pay by check at the window, or try again later."
			m.o.Render(w, r, http.StatusServiceUnavailable, ChargePage(m.o.Frame(r, "Pay by card"), c))
			return
		}
		m.o.Log().Info("card not charged on the portal", "command", cmdID, "err", err)
		c.Error = "The card was not charged: " + chargeProblem(err) + " Nothing was recorded; try again or use another card."
		m.o.Render(w, r, http.StatusPaymentRequired, ChargePage(m.o.Frame(r, "Pay by card"), c))
		return
	}
	res, err := m.o.SubmitWith(r, domain.KindPayRoomTax, func(cmd *domain.Command) {
		cmd.ID = cmdID
		cmd.Payload = &domain.PayRoomTax{Return: ret.ID, Amount: amount, Reference: approval.Reference, Payer: op.LegalName, Card: m.cardShown(approval)}
	})
	if err != nil {
		var refused *domain.Error
		if errors.As(err, &refused) && refused.Code != domain.EUNAVAILABLE && !m.commandKnown(cmdID) {
			m.refund(w, r, c, approval, refused)
			return
		}
		// Not known to be refused (it may still post from this node's
		// outbox): the treasurer resolves it with the approval reference.
		m.o.Log().Error("card charged on the portal but payment not recorded", "command", cmdID, "amount", amount, "approval", approval.Reference, "err", err)
		m.fail(w, r, domain.Errorf(domain.EUNAVAILABLE, sectionPay, "Your card was charged (approval %s) but the payment is not confirmed yet: it posts when the network returns. Do not pay again; ask the treasurer's office if it does not show on the return.", approval.Reference), returnURL(ret.ID))
		return
	}
	number := approval.Reference
	if res.Receipt != nil {
		number = res.Receipt.Number
	}
	m.o.Log().Info("room tax paid on the portal", "command", cmdID, "receipt", number, "amount", amount, "approval", approval.Reference, "return", ret.ID)
	m.o.Redirect(w, r, receiptURL(number))
}

// commandKnown reports whether a room tax payment of the ledger holds
// this command id already, on any return: the terminal's approval for the
// id is that payment's, which this request must neither reuse nor refund.
// A read that fails counts as known: no refund is given on a guess.
func (m *Module) commandKnown(id string) bool {
	known, err := m.o.Reads().RoomTaxPaymentRecorded(id)
	return known || err != nil
}

// refund gives back a charge whose payment the ledger refused, and says
// so; a refund that fails leaves the charge to the treasurer, with its
// approval reference.
func (m *Module) refund(w http.ResponseWriter, r *http.Request, c Charge, a terminal.Approval, refused *domain.Error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), chargeTimeout)
	defer cancel()
	_, err := m.o.CardTerminal().Refund(ctx, terminal.RefundRequest{Key: a.Key + "-void", ChargeKey: a.Key, Reference: a.Reference, Amount: a.Amount, Reason: "the ledger refused the payment: " + refused.Message})
	if err != nil {
		m.o.Log().Error("card charged on the portal, payment refused, refund failed", "command", a.Key, "approval", a.Reference, "refused", refused.Message, "err", err)
		m.fail(w, r, domain.Errorf(domain.ECONFLICT, sectionPay, "The payment was refused (%s) and the refund to your card failed: the treasurer's office will refund charge %s.", refused.Message, a.Reference), returnURL(c.ID))
		return
	}
	m.o.Log().Warn("payment refused on the portal; the card was refunded", "command", a.Key, "approval", a.Reference, "refused", refused.Message)
	m.fail(w, r, domain.Errorf(domain.ECONFLICT, sectionPay, "The payment was not recorded (%s); the %s charged was given back to your card.", refused.Message, staff.Dollars(a.Amount)), returnURL(c.ID))
}

// chargeProblem says in a sentence why the terminal did not charge.
func chargeProblem(err error) string {
	switch {
	case errors.Is(err, terminal.ErrTimeout):
		return "the terminal did not answer in time."
	case errors.Is(err, terminal.ErrCancelled):
		return "the payment was cancelled at the terminal."
	}
	if reason := terminal.DeclineReason(err); reason != "" {
		return "the card was declined. " + reason
	}
	return "the card was declined."
}

// cardShown returns what the receipt shows of the card (brand and last
// four digits), or nil while the cluster's ledger is below the format
// that records it, as the kiosk does.
func (m *Module) cardShown(a terminal.Approval) *domain.CardShown {
	if a.Card == nil || a.Card.Check() != nil {
		return nil
	}
	if m.o.LedgerFormat() < domain.CardShownSince {
		return nil
	}
	return &domain.CardShown{Brand: a.Card.Brand, Last4: a.Card.Last4}
}

func receiptURL(number string) string { return "/staff/room-tax/receipts/" + url.PathEscape(number) }

// showReceipt shows a receipt of a payment toward one of the operator's
// own returns. A number that is not one of them is not found, whoever's
// it is.
func (m *Module) showReceipt(w http.ResponseWriter, r *http.Request) {
	who := m.who(r)
	op, ok, err := m.o.Reads().RoomTaxOperatorOf(who.Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	notFound := domain.Errorf(domain.ENOTFOUND, sectionPay, "None of your returns has a receipt with that number.")
	if !ok {
		m.o.Fail(w, r, notFound)
		return
	}
	returns, err := m.o.Reads().RoomTaxReturnsOf(op.ID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	number := r.PathValue("number")
	for _, ret := range returns {
		for _, x := range ret.Payments {
			if x.Receipt != number || number == "" {
				continue
			}
			readID, err := m.record(r, domain.ReadReturn, op.ID, []string{ret.ID}, filerReason+" (a receipt)")
			if err != nil {
				m.o.Fail(w, r, err)
				return
			}
			v := Receipt{Number: x.Receipt, At: x.At.String(), OperatorName: op.LegalName, Operator: op.ID, Period: ret.Period.String(), ReturnID: ret.ID,
				Amount: staff.Dollars(x.Amount), Tender: tenderTitle(x.Tender), Reference: x.Reference, Payer: x.Payer, ReadID: readID, Village: m.o.Village()}
			if x.Tender == domain.Card {
				if rc, err := m.o.Ledger().Receipt(x.Receipt); err == nil && rc.Card != nil {
					v.Card = rc.Card.Brand + " ending " + rc.Card.Last4
				}
			}
			m.o.Render(w, r, http.StatusOK, ReceiptPage(m.o.Frame(r, "Receipt "+x.Receipt), v))
			return
		}
	}
	m.o.Fail(w, r, notFound)
}

// showRemittance finds a return by the reference on its remittance slip
// (or on the return), for the treasurer's window: it opens the return,
// where the window takes the check into the cashier's drawer, with the
// read recorded as a payment at the window.
func (m *Module) showRemittance(w http.ResponseWriter, r *http.Request) {
	typed := strings.TrimSpace(r.URL.Query().Get("ref"))
	v := Remittance{Ref: typed}
	if typed != "" {
		ret, err := m.o.Reads().RoomTaxReturnByPaymentReference(typed)
		switch code := domain.ErrorCode(err); {
		case err == nil:
			m.o.Redirect(w, r, returnURL(ret.ID)+"?"+url.Values{"reason": {"payment"}, "note": {"remittance slip " + typed}}.Encode())
			return
		case code == domain.EINVALID || code == domain.ENOTFOUND:
			v.Error = domain.ErrorMessage(err)
		default:
			m.o.Fail(w, r, err)
			return
		}
	}
	status := http.StatusOK
	if v.Error != "" {
		status = http.StatusNotFound
	}
	m.o.Render(w, r, status, RemittancePage(m.o.Frame(r, "Find a remittance slip"), v))
}

// slipAmount reads the amount a remittance slip is printed for: the
// query's, or the balance today.
func (m *Module) slipAmount(r *http.Request, f domain.RoomTaxReturn) (domain.Money, error) {
	s := strings.TrimSpace(r.URL.Query().Get("amount"))
	if s == "" {
		if !f.Balance.IsPositive() {
			return f.Balance, domain.Errorf(domain.ECONFLICT, sectionPay, "Nothing is owed on this return today.")
		}
		return f.Balance, nil
	}
	amount, err := staff.ParseAmount("The amount", s)
	if err != nil {
		return amount, err
	}
	return amount, domain.CheckPaymentAmount(amount, m.o.Today(), m.o.Ledger().Params())
}

// showSlipPDF prints the remittance slip of a return: the operator, the
// period, the amount enclosed and the reference the window finds it by.
func (m *Module) showSlipPDF(w http.ResponseWriter, r *http.Request) {
	op, ret, err := m.ownReturn(r, "a remittance slip")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f, err := m.owed(ret)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	amount, err := m.slipAmount(r, f)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	head := m.o.Letterhead()
	s := slip{village: m.o.Village(), address: head.Address, phone: head.Phone, operator: op.LegalName, operatorID: op.ID, permit: op.SellersPermit,
		period: ret.Period.String(), due: f.EffectiveDueOn.String(), tax: staff.Dollars(f.Tax), paid: staff.Dollars(f.Paid), balance: staff.Dollars(f.Balance),
		amount: staff.Dollars(amount), ref: ret.PaymentReference(), today: m.o.Today().String()}
	for _, e := range op.Establishments {
		s.establishments = append(s.establishments, e.Name+", "+e.Address)
	}
	pdf, err := slipPDF(s, m.o.Now())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="room-tax-remittance-%s.pdf"`, ret.ID))
	_, _ = w.Write(pdf)
}
