// Package refunds is the back office's refunds and returned checks: the
// refund queue of overpayments by their §5.07(1) deadline, with the
// treasurer's approval, the refund check and the refund to the card; the
// returned check (§5.20) that reverses a payment and bills the fee, with
// its notice to the payer; and the start page's alert for refunds past
// their deadline. It is a staff.Module; the rules are the domain's.
package refunds

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// Module is the refunds' and returned checks' part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the refunds' and returned checks' routes, link and alert.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/returned-checks/new", staff.CapReturns, m.showReturnCheckPage)
	o.Page("POST /staff/returned-checks", staff.CapReturns, m.submitReturnCheck)
	o.Page("GET /staff/returned-checks/{id}", staff.CapReadCash, m.showReturnedCheckPage)
	o.Page("GET /staff/returned-checks/{id}/notice.pdf", staff.CapReadCash, m.showReturnedCheckPDF)
	o.Page("GET /staff/refunds", staff.CapReadCash, m.showRefundsPage)
	o.Page("POST /staff/refunds/{command}/approve", staff.CapRefundApprove, m.submitRefundApprove)
	o.Page("POST /staff/refunds/{command}/check", staff.CapRefundCheck, m.submitRefundCheck)
	o.Page("POST /staff/refunds/{command}/card", staff.CapRefundCheck, m.submitRefundCard)
	o.Nav(staff.CapReadCash, "Refunds", "/staff/refunds")
	o.Alert(m.alerts)
	return nil
}

// alerts is the start page's alert for refunds past their §5.07(1)
// deadline, for the people who read the cash records.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]staffview.Alert, error) {
	if !staff.Allowed(who.Role, staff.CapReadCash) || m.o.Refunds() == nil {
		return nil, nil
	}
	n, first, err := m.refundsOverdue()
	if err != nil || n == 0 {
		return nil, err
	}
	return []staffview.Alert{{TestID: "alert-refunds-late", Text: fmt.Sprintf("%d refund(s) are past their §5.07(1) deadline.", n), URL: "/staff/refunds", Due: first.String(), Count: n}}, nil
}

// showReturnCheckPage is the form to record a returned check (§5.20),
// reached from the check's receipt.
func (m *Module) showReturnCheckPage(w http.ResponseWriter, r *http.Request) {
	rc, err := m.o.Ledger().Receipt(r.URL.Query().Get("receipt"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if rc.Tender != domain.Check {
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "§5.20", "Receipt %s was not paid by check.", rc.Number))
		return
	}
	fee := m.o.Ledger().Params().At(m.o.Today()).ReturnedCheckFee
	m.o.Render(w, r, http.StatusOK, ReturnCheckPage(m.o.Frame(r, "Returned check"), ReturnCheckForm{Receipt: rc.Number, BillID: rc.BillID, Payer: rc.Payer, Amount: rc.Amount.String(), Reference: rc.Reference, Fee: fee.String()}))
}

func (m *Module) submitReturnCheck(w http.ResponseWriter, r *http.Request) {
	in := domain.ReturnCheck{BillID: m.o.Form(r, "bill"), Receipt: m.o.Form(r, "receipt"), Referral: m.o.Form(r, "referral")}
	_, err := m.o.SubmitWith(r, domain.KindReturnCheck, func(c *domain.Command) {
		in.ReturnID = fmt.Sprintf("RC-%s-%s-%06d", c.At.Date, c.Node, c.Seq)
		in.FeeBillID = staff.BillID(c, 0) + "-RCFEE"
		c.Payload = &in
	})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/returned-checks/"+in.ReturnID)
}

// showReturnedCheckPage is the returned check: the notice to the payer,
// whose PDF is mailed, and the office's internal referral note beside it.
func (m *Module) showReturnedCheckPage(w http.ResponseWriter, r *http.Request) {
	rec, err := m.o.Reads().ReturnedCheck(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v, _, _ := m.returnedCheckView(rec, m.o.Today())
	v.PDF = "/staff/returned-checks/" + rec.ID + "/notice.pdf"
	m.o.Render(w, r, http.StatusOK, ReturnedCheckPage(m.o.Frame(r, "Returned check "+rec.ID), v))
}

// returnedCheckView is a returned check's notice as of a day, with what
// is owed on the bill and in all that day (zero when the bill cannot be
// read: the record's check and fee are owed).
func (m *Module) returnedCheckView(rec domain.ReturnedCheckRecord, on domain.Date) (v ReturnedCheck, balance, owed domain.Money) {
	v = ReturnedCheck{ID: rec.ID, BillID: rec.BillID, Account: rec.Account, Reference: rec.Payment.Reference, PaidOn: rec.Payment.At.Date.String(), ReturnedOn: rec.ReturnedOn.String(), Amount: rec.Payment.Amount.String(), Fee: rec.Fee.String(), Owed: rec.Owed.String(), FeeBillID: rec.FeeBillID, Referral: rec.Referral, CommandID: rec.CommandID}
	if rc, err := m.o.Ledger().Receipt(rec.Payment.Receipt); err == nil {
		v.Payer = rc.Payer
	}
	var a domain.Account
	if x, err := m.o.Ledger().Account(rec.Account); err == nil {
		a = x
		v.AccountName = a.Name
	}
	var pc domain.Parcel
	if x, err := m.o.Ledger().Parcel(rec.Parcel); err == nil {
		pc = x
	}
	v.Addressee = v.AccountName
	if v.Payer != "" {
		v.Addressee = v.Payer
		v.Presenter = !presentedByHolder(v.Payer, a.Name, pc.Owner, a.Mailing.Name, pc.Mailing.Name)
	}
	if b, err := m.o.Ledger().Bill(rec.BillID); err == nil {
		var fee *domain.Bill
		if rec.FeeBillID != "" {
			if fb, err := m.o.Ledger().Bill(rec.FeeBillID); err == nil {
				fee = &fb
			}
		}
		if bal, total, err := domain.ReturnedCheckOwed(b, fee, on, m.o.Ledger().Params()); err == nil {
			// One figure, the interest in it: never "plus the interest" on
			// top of a figure that already holds it.
			v.BillBalance, v.Owed, v.OwedOn = bal.String(), total.String(), on.String()
			balance, owed = bal, total
		}
	}
	return v, balance, owed
}

// showReturnedCheckPDF is the notice to the payer as a letter dated
// ?date= (default today), to mail: what the page shows, without the
// office's referral note, which is internal.
func (m *Module) showReturnedCheckPDF(w http.ResponseWriter, r *http.Request) {
	on, err := m.o.LetterDate(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	rec, err := m.o.Reads().ReturnedCheck(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if on.Before(rec.ReturnedOn) {
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "§5.20", "The notice cannot be dated %s, before the check came back on %s.", on, rec.ReturnedOn))
		return
	}
	v, balance, total := m.returnedCheckView(rec, on)
	var a domain.Account
	if x, err := m.o.Ledger().Account(rec.Account); err == nil {
		a = x
	}
	var pc domain.Parcel
	if x, err := m.o.Ledger().Parcel(rec.Parcel); err == nil {
		pc = x
	}
	to, err := m.noticeTo(r, v, a, pc)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	l := m.o.NewLetter("Notice of returned check "+rec.ID, time.Date(on.Year(), on.Month(), on.Day(), 9, 0, 0, 0, m.o.Location()))
	owed := rec.Owed
	if v.OwedOn != "" {
		owed = total
	}
	refs := [][2]string{{"Account", rec.Account}, {"Bill", rec.BillID}, {"Amount owed", staff.Dollars(owed)}}
	stub := [][2]string{{"Account", rec.Account}, {"Bill", rec.BillID}}
	if rec.FeeBillID != "" {
		stub = append(stub, [2]string{"Fee bill", rec.FeeBillID})
	}
	stub = append(stub, [2]string{"Amount owed", staff.Dollars(owed)})
	l.Start(staff.LetterStart{Date: on, To: to, Refs: refs, Heading: "Notice of returned check",
		Stub: &staff.Stub{Rows: stub, PayTo: "Pay in cash, by money order or by cashier's check, payable to the " + m.o.Letterhead().VillageName() + "; a personal check is not taken for this debt."}})
	check := "Your check"
	if rec.Payment.Reference != "" {
		check += " no. " + rec.Payment.Reference
	}
	l.Para(fmt.Sprintf("%s for %s, received %s in payment of bill %s, was returned unpaid by your bank on or before %s.", check, staff.Dollars(rec.Payment.Amount), staff.LongDate(rec.Payment.At.Date), rec.BillID, staff.LongDate(rec.ReturnedOn)))
	fee := ""
	if rec.FeeBillID != "" {
		fee = " (bill " + rec.FeeBillID + ")"
	}
	l.Para(fmt.Sprintf("Under §5.20 of the Village Code the payment is reversed and a returned check fee of %s is charged%s.", staff.Dollars(rec.Fee), fee))
	if v.OwedOn != "" {
		l.Figures([][2]string{{"Bill " + rec.BillID + ", its interest counted as though the check had not been paid", staff.Dollars(balance)}, {"Returned check fee", staff.Dollars(rec.Fee)}, {"=Owed as of " + staff.LongDate(on), staff.Dollars(total)}})
		l.Para("Interest on the bill continues each month under §5.10 until it is paid.")
	} else {
		l.Figures([][2]string{{"The check", staff.Dollars(rec.Payment.Amount)}, {"Returned check fee", staff.Dollars(rec.Fee)}, {"=Owed", staff.Dollars(rec.Owed)}})
	}
	l.Para("Please pay in cash, by money order or by cashier's check, at the clerk's window or by mail with the stub below.")
	l.Sign("Clerk's office")
	var buf bytes.Buffer
	if err := l.Output(&buf); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	staff.ServePDF(w, "returned-check-"+rec.ID+".pdf", buf.Bytes())
}

// noticeTo is who the returned-check notice is mailed to. §5.20 holds
// liable the party who presented the check, who need not be the account's
// holder: a tenant pays the landlord's water bill, a relative pays a tax
// bill. A check the holder presented (or one whose receipt names no payer)
// goes where the account's mail goes (domain.MailTo), addressed to the
// payer by name when the village has no mailing address. Anyone else's
// goes to the address the clerk types from the check (the query's name,
// street, street2, city, state and zip), which is then required: the
// holder never learns of another's returned check from the village.
func (m *Module) noticeTo(r *http.Request, v ReturnedCheck, a domain.Account, pc domain.Parcel) ([]string, error) {
	q := r.URL.Query()
	get := func(k string) string { return q.Get(k) }
	typed := domain.MailingAddress{Name: get("name"), Street: get("street"), Street2: get("street2"), City: get("city"), State: get("state"), ZIP: get("zip")}.Clean()
	if !typed.IsZero() {
		if err := typed.Check("The notice's address"); err != nil {
			return nil, err
		}
		return typed.Lines(), nil
	}
	if v.Presenter {
		return nil, domain.Errorf(domain.EINVALID, "§5.20", "The check was presented by %s, not by the account's holder, and §5.20 holds %s liable: type %s's address, as printed on the check, to address the notice.", v.Payer, v.Payer, v.Payer)
	}
	to := domain.MailTo(a, pc, m.o.Letterhead().SiteCity())
	if v.Payer != "" && a.Mailing.IsZero() && pc.Mailing.IsZero() && len(to) > 0 {
		to[0] = v.Payer
	}
	return to, nil
}

// presentedByHolder reports whether payer names one of the holders:
// every word of the payer's name is a word of one of names, in any order
// and case ("Luis Ramirez" is the "RAMIREZ, LUIS" of the roll and one of
// "Luis & Maria Ramirez"). A payer of a single word must be the whole
// of a name.
func presentedByHolder(payer string, names ...string) bool {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
		})
	}
	pw := words(payer)
	if len(pw) == 0 {
		return false
	}
	for _, n := range names {
		nw := words(n)
		if len(nw) == 0 || len(pw) == 1 && len(nw) != 1 {
			continue
		}
		all := true
		for _, w := range pw {
			if !slices.Contains(nw, w) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// showRefundsPage is the refund queue (§5.07(1)): overpayments by their
// deadline, overdue ones flagged, with approval and the check.
func (m *Module) showRefundsPage(w http.ResponseWriter, r *http.Request) {
	if m.o.Refunds() == nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node runs without a refund queue."))
		return
	}
	due, err := m.o.Refunds().RefundsDue()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].RefundBy.Before(due[j].RefundBy) })
	who := m.o.Who(r)
	v := Refunds{CanApprove: staff.Allowed(who.Role, staff.CapRefundApprove), CanCheck: staff.Allowed(who.Role, staff.CapRefundCheck)}
	today := m.o.Today()
	for _, d := range due {
		st, _, err := m.o.Reads().RefundState(d.CommandID)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		state := st.State
		if state == "" {
			state = "due"
		}
		open := state == "due" || state == domain.RefundApproved
		row := Refund{CommandID: d.CommandID, Receipt: d.Receipt, BillID: d.BillID, Account: d.Account, PaidAt: d.PaidAt.String(), Amount: d.Amount.String(), RefundBy: d.RefundBy.String(),
			Overdue: open && today.After(d.RefundBy), State: state, CheckNumber: st.CheckNumber, ApprovedBy: st.ApprovedBy, Note: st.Note,
			Card: m.o.CardRefunds() != nil && state == domain.RefundApproved && m.paidByCard(d.Receipt)}
		row.Payee, row.Address = m.refundPayee(d)
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, http.StatusOK, RefundsPage(m.o.Frame(r, "Refunds"), v))
}

// refundsOverdue counts the refunds due or approved but not paid after
// their deadline, and says the earliest of those deadlines.
func (m *Module) refundsOverdue() (n int, first domain.Date, err error) {
	due, err := m.o.Refunds().RefundsDue()
	if err != nil {
		return 0, first, err
	}
	for _, d := range due {
		if !m.o.Today().After(d.RefundBy) {
			continue
		}
		st, _, err := m.o.Reads().RefundState(d.CommandID)
		if err != nil {
			return 0, first, err
		}
		if st.State == "" || st.State == domain.RefundApproved {
			n++
			if first.IsZero() || d.RefundBy.Before(first) {
				first = d.RefundBy
			}
		}
	}
	return n, first, nil
}

func (m *Module) refundOp(w http.ResponseWriter, r *http.Request, op string) {
	in := domain.IssueRefund{Op: op, BillID: m.o.Form(r, "bill"), CommandID: r.PathValue("command"), CheckNumber: m.o.Form(r, "check_number")}
	if op == "check" {
		// A refund check is drawn like a claim's (§5.07(1), §5.18): on
		// an account, from its check stock, to the payer, signed.
		in.Account = m.o.Form(r, "account")
		in.Signatures = strings.FieldsFunc(m.o.Form(r, "signatures"), func(c rune) bool { return c == ',' || c == ' ' })
		if due, err := m.o.Refunds().RefundsDue(); err == nil {
			for _, d := range due {
				if d.CommandID == in.CommandID {
					in.Payee, _ = m.refundPayee(d)
				}
			}
		}
	}
	if _, err := m.o.SubmitWith(r, domain.KindIssueRefund, func(c *domain.Command) { c.Payload = &in }); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/refunds")
}

// submitRefundApprove approves a refund once the treasurer has seen whom
// the check goes to and for how much: the queue's Approve button opens
// the confirmation, whose button approves.
func (m *Module) submitRefundApprove(w http.ResponseWriter, r *http.Request) {
	if m.o.Form(r, "confirm") == "yes" {
		m.refundOp(w, r, "approve")
		return
	}
	cmd := r.PathValue("command")
	due, err := m.o.Refunds().RefundsDue()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, d := range due {
		if d.CommandID != cmd {
			continue
		}
		v := Refund{CommandID: d.CommandID, Receipt: d.Receipt, BillID: d.BillID, Account: d.Account, PaidAt: d.PaidAt.String(), Amount: staff.Dollars(d.Amount), RefundBy: d.RefundBy.String()}
		v.Payee, v.Address = m.refundPayee(d)
		m.o.Render(w, r, http.StatusOK, RefundApprovePage(m.o.Frame(r, "Approve a refund"), v))
		return
	}
	m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.07(1)", "There is no refund due for payment %s.", cmd))
}

// refundPayee is who a refund check is made out and mailed to: the payer
// named on the payment's receipt (else the account's name), at the
// address of the bill's parcel. A refund of a special assessment (an
// overpayment, or what was paid above an assessment the board reduced or
// cancelled, §5.14(10)) names no account: it goes to the parcel's owner.
func (m *Module) refundPayee(d domain.RefundDue) (name, address string) {
	if rc, err := m.o.Ledger().Receipt(d.Receipt); err == nil {
		name = rc.Payer
	}
	if a, err := m.o.Ledger().Account(d.Account); err == nil && name == "" {
		name = a.Name
	}
	if b, err := m.o.Ledger().Bill(d.BillID); err == nil {
		if pc, err := m.o.Ledger().Parcel(b.Parcel); err == nil {
			address = pc.Address
		}
		return name, address
	}
	// A special assessment's refund names no receipt (what an owner paid
	// above a reduced assessment may come from several payments, by
	// several payers): it is made out to the parcel's owner, at the
	// owner's mailing address when the village has one.
	if a, err := m.o.Reads().Assessment(d.BillID); err == nil {
		if pc, err := m.o.Ledger().Parcel(a.Parcel); err == nil {
			name, address = pc.Owner, pc.Address
			if lines := pc.Mailing.Lines(); len(lines) > 1 {
				name, address = lines[0], strings.Join(lines[1:], ", ")
			}
		}
	}
	return name, address
}

// submitRefundCheck records the refund check drawn for an approved
// refund.
func (m *Module) submitRefundCheck(w http.ResponseWriter, r *http.Request) { m.refundOp(w, r, "check") }

// paidByCard reports whether receipt number was paid by card with an
// approval reference the terminal can refund.
func (m *Module) paidByCard(number string) bool {
	rc, err := m.o.Ledger().Receipt(number)
	return err == nil && rc.Tender == domain.Card && rc.Reference != ""
}

// submitRefundCard sends an approved refund of a card payment back to the
// card through the node's terminal, keyed by the
// refund's command id so a retry refunds once, then records it in the
// ledger as the refund's payment, with the processor's refund reference
// where a check's number goes ("card re_…").
func (m *Module) submitRefundCard(w http.ResponseWriter, r *http.Request) {
	id, bill := r.PathValue("command"), m.o.Form(r, "bill")
	if m.o.CardRefunds() == nil || m.o.Refunds() == nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "This node has no card terminal to refund through."))
		return
	}
	st, ok, err := m.o.Reads().RefundState(id)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !ok || st.State != domain.RefundApproved || st.BillID != bill {
		m.o.Fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.07(1)", "Only an approved refund goes back to the card."))
		return
	}
	due, err := m.o.Refunds().RefundsDue()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var rc domain.Receipt
	for _, d := range due {
		if d.CommandID == id {
			if rc, err = m.o.Ledger().Receipt(d.Receipt); err != nil {
				m.o.Fail(w, r, err)
				return
			}
		}
	}
	if rc.Tender != domain.Card || rc.Reference == "" {
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "§5.07(1)", "This payment was not made by card; refund it by check."))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	done, err := m.o.CardRefunds().Refund(ctx, terminal.RefundRequest{Key: "refund-" + id, ChargeKey: id, Reference: rc.Reference, Amount: st.Amount, Reason: "overpayment refunded (§5.07(1))"})
	if err != nil {
		m.o.Log().Warn("card refund failed", "command", id, "receipt", rc.Number, "err", err)
		m.o.Fail(w, r, domain.Errorf(domain.EUNAVAILABLE, "§5.07(1)", "The card terminal could not refund the card now (%v); try again, or refund by check.", err))
		return
	}
	in := domain.IssueRefund{Op: "check", BillID: bill, CommandID: id, CheckNumber: "card " + done.Reference}
	if _, err := m.o.SubmitWith(r, domain.KindIssueRefund, func(c *domain.Command) { c.Payload = &in }); err != nil {
		m.o.Log().Error("card refunded but not recorded", "command", id, "refund", done.Reference, "err", err)
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/refunds")
}
