// Package window is the back office's window: the clerk's cash drawer,
// opened on a counted float and closed on a blind count; payments taken
// in cash or by check for a bill found by its number, its account, its
// address or its owner, with the change shown before they post; the
// receipts; the drawers and the treasurer's deposit slips (§5.06); the
// payments integrations post through the API; the start page's alert for
// money not deposited by the day's end and its note of the person's open
// drawer. It is a staff.Module; the rules are the domain's.
package window

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the window's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the window's routes, links, alert and open-drawer note.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/window", staff.CapWindow, m.showWindowPage)
	o.Page("POST /staff/window/open", staff.CapWindow, m.submitOpenDrawer)
	o.Page("POST /staff/window/pay", staff.CapWindow, m.submitWindowPayment)
	o.Page("GET /staff/window/close", staff.CapWindow, m.showCloseDrawerPage)
	o.Page("POST /staff/window/close", staff.CapWindow, m.submitCloseDrawer)
	o.Page("GET /staff/receipts/{number}", staff.CapReadCash, m.showReceiptPage)
	o.Page("GET /staff/drawers", staff.CapReadCash, m.showDrawersPage)
	o.Page("GET /staff/drawers/{id}", staff.CapReadCash, m.showDrawerPage)
	o.Page("GET /staff/deposits/{id}", staff.CapReadCash, m.showDepositPage)
	o.Page("POST /staff/deposits", staff.CapDeposit, m.submitDeposit)
	o.API("POST /api/v1/payments", staff.CapWindow, m.apiPayment)
	o.Nav(staff.CapWindow, "Window", "/staff/window")
	o.Nav(staff.CapReadCash, "Drawers", "/staff/drawers")
	o.Alert(m.alerts)
	o.OpenDrawer(m.openDrawerNote)
	return nil
}

// alerts is the start page's alert for drawers holding money not
// deposited by the end of the day (§5.06), for the people who read the
// cash records.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]staffview.Alert, error) {
	if !staff.Allowed(who.Role, staff.CapReadCash) {
		return nil, nil
	}
	pending, late, err := m.undeposited()
	if err != nil || !late {
		return nil, err
	}
	return []staffview.Alert{{TestID: "alert-undeposited", Text: fmt.Sprintf("%d drawer(s) hold money not deposited by the end of the day (§5.06).", len(pending)), URL: "/staff/drawers", Due: m.o.Today().String(), Count: len(pending)}}, nil
}

// openDrawerNote is the drawer the person has open at the window, for the
// start page's note; "" when none or when their role does not take
// payments.
func (m *Module) openDrawerNote(ctx context.Context, who staff.Who) (string, error) {
	if !staff.Allowed(who.Role, staff.CapWindow) {
		return "", nil
	}
	d, open, err := m.openDrawer(who.Username)
	if err != nil || !open {
		return "", err
	}
	return d.ID, nil
}

// openDrawer returns the drawer the person has open, if any.
func (m *Module) openDrawer(username string) (domain.Drawer, bool, error) {
	return m.o.Reads().OpenDrawer(username)
}

// showWindowPage is the window, with the bill the query names looked up.
// A room tax payment reference, keyed from the remittance slip that comes
// with an operator's check, leads to the room tax return it names, where
// the treasurer's office takes the check; the clerk is told whose window
// that is.
func (m *Module) showWindowPage(w http.ResponseWriter, r *http.Request) {
	f := PaymentForm{BillID: strings.TrimSpace(r.URL.Query().Get("bill")), Tender: "cash"}
	if ref, err := domain.ParsePaymentReference(f.BillID); err == nil {
		if staff.Allowed(m.o.Who(r).Role, staff.CapRoomTaxAdmin) {
			m.o.Redirect(w, r, "/staff/room-tax/remittance?"+url.Values{"ref": {ref}}.Encode())
			return
		}
		f.Error = "That is a room tax payment reference: the treasurer's office takes room tax at the window."
	}
	m.windowPage(w, r, http.StatusOK, f)
}

// windowPage shows the window: the open-drawer form, or the payment form
// with the bill looked up and its amount due today.
func (m *Module) windowPage(w http.ResponseWriter, r *http.Request, status int, f PaymentForm) {
	f = m.findWindowBill(f)
	who := m.o.Who(r)
	d, open, err := m.openDrawer(who.Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Window{Form: f, Open: open}
	if open {
		v.DrawerID, v.OpenedAt, v.Float, v.Count = d.ID, d.OpenedAt.String(), d.Float.String(), len(d.Payments)
		if n := len(d.Payments); n > 0 {
			v.LastReceipt = d.Payments[n-1].Receipt
		}
	}
	if f.BillID != "" {
		if b, err := m.o.Ledger().Bill(f.BillID); err == nil {
			if bv, err := m.billFigures(b); err == nil {
				v.Bill = &bv
				if v.Form.Amount == "" && bv.Balance != "0.00" {
					v.Form.Amount = bv.Balance
				}
			}
		} else if matches, lerr := m.windowLookup(f.BillID); lerr != nil {
			m.o.Fail(w, r, lerr)
			return
		} else if len(matches) > 0 {
			v.Matches, v.Form.BillID = matches, ""
			v.Query = f.BillID
		} else if f.Error == "" {
			v.Form.Error = fmt.Sprintf("There is no bill, account or address matching %q.", f.BillID)
		}
	}
	m.o.Render(w, r, status, WindowPage(m.o.Frame(r, "Window"), v))
}

// submitOpenDrawer opens the person's drawer on the float they counted.
func (m *Module) submitOpenDrawer(w http.ResponseWriter, r *http.Request) {
	float, err := domain.ParseMoney(strings.TrimPrefix(m.o.Form(r, "float"), "$"))
	if err != nil {
		m.windowPage(w, r, http.StatusUnprocessableEntity, PaymentForm{Error: "The opening float is not an amount like 100.00."})
		return
	}
	_, err = m.o.SubmitWith(r, domain.KindDrawerOpen, func(c *domain.Command) {
		c.Payload = &domain.DrawerOpen{DrawerID: fmt.Sprintf("D-%s-%s-%06d", c.At.Date, c.Node, c.Seq), Float: float}
	})
	if err != nil {
		m.windowPage(w, r, m.o.Status(err), PaymentForm{Error: domain.ErrorMessage(err)})
		return
	}
	m.o.Redirect(w, r, "/staff/window")
}

// submitWindowPayment takes cash or a check for a bill into the open
// drawer and shows the receipt with the change due.
func (m *Module) submitWindowPayment(w http.ResponseWriter, r *http.Request) {
	f := PaymentForm{BillID: m.o.Form(r, "bill"), Amount: m.o.Form(r, "amount"), Tender: m.o.Form(r, "tender"), Tendered: m.o.Form(r, "tendered"), Reference: m.o.Form(r, "reference"), Payer: m.o.Form(r, "payer")}
	who := m.o.Who(r)
	d, open, err := m.openDrawer(who.Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !open {
		f.Error = "Open your drawer before taking payments."
		m.windowPage(w, r, http.StatusConflict, f)
		return
	}
	in := domain.WindowPayment{DrawerID: d.ID, BillID: f.BillID, Tender: domain.Tender(f.Tender), Reference: f.Reference, Payer: f.Payer}
	if in.Amount, err = domain.ParseMoney(strings.TrimPrefix(f.Amount, "$")); err != nil {
		f.Error = "The amount is not an amount like 42.50."
		m.windowPage(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	in.Tendered = in.Amount
	if in.Tender == domain.Cash && f.Tendered != "" {
		if in.Tendered, err = domain.ParseMoney(strings.TrimPrefix(f.Tendered, "$")); err != nil {
			f.Error = "The cash handed over is not an amount like 50.00."
			m.windowPage(w, r, http.StatusUnprocessableEntity, f)
			return
		}
	}
	if m.o.Form(r, "confirm") != "yes" {
		q, err := m.quoteWindowPayment(in)
		if err != nil {
			f.Error = domain.ErrorMessage(err)
			m.windowPage(w, r, m.o.Status(err), f)
			return
		}
		if q.NeedsConfirm() {
			m.o.Render(w, r, http.StatusOK, WindowConfirmPage(m.o.Frame(r, "Confirm the payment"), windowConfirmView(f, q)))
			return
		}
		in.Amount, in.Tendered = q.Amount, q.Tendered
	}
	res, err := m.o.SubmitWith(r, domain.KindWindowPayment, func(c *domain.Command) { c.Payload = &in })
	if err != nil {
		f.Error = domain.ErrorMessage(err)
		m.windowPage(w, r, m.o.Status(err), f)
		return
	}
	m.o.Redirect(w, r, "/staff/receipts/"+res.Receipt.Number+"?drawer="+d.ID)
}

// quoteWindowPayment works out a window payment as it would post now
// (domain.Bill.QuoteWindowPayment): the change for cash, the refund an
// overpaying check leaves.
func (m *Module) quoteWindowPayment(in domain.WindowPayment) (domain.WindowQuote, error) {
	b, err := m.o.Ledger().Bill(in.BillID)
	if err != nil {
		return domain.WindowQuote{}, err
	}
	return b.QuoteWindowPayment(domain.DateTimeOf(m.o.Now().In(m.o.Location())), in.Tender, in.Amount, in.Tendered, m.o.Ledger().Params())
}

// windowConfirmView is the confirmation of a quoted payment: the form's
// fields as they will post.
func windowConfirmView(f PaymentForm, q domain.WindowQuote) WindowConfirm {
	f.Amount, f.Tendered = q.Amount.String(), q.Tendered.String()
	v := WindowConfirm{Form: f, Cash: q.Tender == domain.Cash, Amount: q.Amount.String(), Tendered: q.Tendered.String(), Change: q.Change.String(),
		Overpayment: q.Overpayment.String(), Balance: q.Balance.String()}
	if !q.RefundBy.IsZero() {
		v.RefundBy = q.RefundBy.String()
	}
	return v
}

// showReceiptPage shows a receipt, with the change due when it was taken
// at the window.
func (m *Module) showReceiptPage(w http.ResponseWriter, r *http.Request) {
	rc, err := m.o.Ledger().Receipt(r.PathValue("number"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Receipt{Number: rc.Number, BillID: rc.BillID, Account: rc.Account, Parcel: rc.Parcel, Payer: rc.Payer, At: rc.At.String(), Amount: rc.Amount.String(), Tender: string(rc.Tender), Reference: rc.Reference,
		Penalty: rc.Allocation.Penalty.String(), Interest: rc.Allocation.Interest.String(), Principal: rc.Allocation.Principal.String(), Overpayment: rc.Allocation.Overpayment.String(), Balance: rc.Balance.String(), CommandID: rc.CommandID, Status: string(rc.Status)}
	for _, l := range rc.Lines {
		v.Lines = append(v.Lines, ReceiptLine{BillID: l.BillID, Amount: staff.Dollars(l.Amount), Penalty: staff.Dollars(l.Allocation.Penalty), Interest: staff.Dollars(l.Allocation.Interest), Principal: staff.Dollars(l.Allocation.Principal), Balance: staff.Dollars(l.Balance)})
	}
	if rc.Card != nil {
		v.Card = rc.Card.String()
	}
	who := m.o.Who(r)
	v.CanReturn = staff.Allowed(who.Role, staff.CapReturns)
	v.Head = Letterhead(m.o.Letterhead())
	if id := r.URL.Query().Get("drawer"); id != "" {
		if d, err := m.o.Reads().Drawer(id); err == nil {
			for _, p := range d.Payments {
				if p.Receipt == rc.Number {
					v.Tendered, v.Change = p.Tendered.String(), p.Change.String()
				}
			}
		}
	}
	m.o.Render(w, r, http.StatusOK, ReceiptPage(m.o.Frame(r, "Receipt "+rc.Number), v))
}

// showCloseDrawerPage is the blind count of the person's open drawer.
func (m *Module) showCloseDrawerPage(w http.ResponseWriter, r *http.Request) {
	who := m.o.Who(r)
	d, open, err := m.openDrawer(who.Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !open {
		m.o.Redirect(w, r, "/staff/window")
		return
	}
	m.o.Render(w, r, http.StatusOK, CloseDrawerPage(m.o.Frame(r, "Close drawer"), CloseForm{DrawerID: d.ID}))
}

// submitCloseDrawer posts the blind count; the drawer page then shows what
// was expected and the over or short.
func (m *Module) submitCloseDrawer(w http.ResponseWriter, r *http.Request) {
	f := CloseForm{DrawerID: m.o.Form(r, "drawer"), Cash: m.o.Form(r, "cash"), Checks: m.o.Form(r, "checks"), CheckCount: m.o.Form(r, "check_count")}
	in := domain.DrawerClose{DrawerID: f.DrawerID}
	var err error
	if in.CountedCash, err = domain.ParseMoney(orZero(f.Cash)); err != nil {
		f.Error = "The counted cash is not an amount like 250.00."
	} else if in.CountedChecks, err = domain.ParseMoney(orZero(f.Checks)); err != nil {
		f.Error = "The checks total is not an amount like 120.00."
	} else if _, err = fmt.Sscanf(orZero(f.CheckCount), "%d", &in.CheckCount); err != nil {
		f.Error = "The number of checks is not a number."
	}
	if f.Error == "" {
		_, err = m.o.SubmitWith(r, domain.KindDrawerClose, func(c *domain.Command) { c.Payload = &in })
		if err != nil {
			f.Error = domain.ErrorMessage(err)
		}
	}
	if f.Error != "" {
		m.o.Render(w, r, http.StatusUnprocessableEntity, CloseDrawerPage(m.o.Frame(r, "Close drawer"), f))
		return
	}
	m.o.Redirect(w, r, "/staff/drawers/"+in.DrawerID)
}

// orZero reads an empty count as zero.
func orZero(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	if s == "" {
		return "0"
	}
	return s
}

// drawerView maps a drawer to its view model, with its totals.
func drawerView(d domain.Drawer) Drawer {
	cash, checks, n := d.Totals()
	v := Drawer{ID: d.ID, Cashier: d.Cashier, OpenedAt: d.OpenedAt.String(), Float: d.Float.String(), Closed: d.Closed, DepositID: d.DepositID, Cash: cash.String(), Checks: checks.String(), CheckCount: n}
	if d.Closed {
		v.ClosedAt, v.CountedCash, v.CountedChecks, v.ExpectedCash, v.ExpectedChecks, v.OverShort = d.ClosedAt.String(), d.CountedCash.String(), d.CountedChecks.String(), d.ExpectedCash.String(), d.ExpectedChecks.String(), d.OverShort.String()
		// Each tender on its own: a drawer closed before ledger format 2
		// has no stored split, and the split is this difference.
		v.CashOverShort, v.ChecksOverShort = d.CountedCash.Sub(d.ExpectedCash).String(), d.CountedChecks.Sub(d.ExpectedChecks).String()
	}
	for _, p := range d.Payments {
		v.Payments = append(v.Payments, DrawerPayment{Receipt: p.Receipt, BillID: p.BillID, At: p.At.String(), Tender: string(p.Tender), Amount: p.Amount.String(), Reference: p.Reference, CommandID: p.CommandID, Returned: p.ReturnID})
	}
	return v
}

// showDrawerPage shows a drawer. While it is open only its cashier's
// colleagues with cash rights see the running totals; its cashier counts
// blind on the close page, which shows none.
func (m *Module) showDrawerPage(w http.ResponseWriter, r *http.Request) {
	d, err := m.o.Reads().Drawer(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.o.Who(r)
	v := drawerView(d)
	if !d.Closed && d.Cashier == who.Username {
		// A blind count: the cashier does not see what the drawer should hold.
		v.Cash, v.Checks, v.Payments = "", "", nil
	}
	m.o.Render(w, r, http.StatusOK, DrawerPage(m.o.Frame(r, "Drawer "+d.ID), v))
}

// undeposited returns the drawers holding money not yet deposited, oldest
// first, and whether any is late: opened before today, or today after the
// office closed (§5.06: money is deposited by the day's end).
func (m *Module) undeposited() ([]domain.Drawer, bool, error) {
	drawers, err := m.o.Reads().UndepositedDrawers()
	if err != nil {
		return nil, false, err
	}
	today := m.o.Today()
	closes := m.o.Ledger().Params().At(today).OfficeCloses
	now := domain.DateTimeOf(m.o.Now().In(m.o.Location()))
	late := false
	var out []domain.Drawer
	for _, d := range drawers {
		if d.DepositID != "" {
			continue
		}
		if d.OpenedAt.Date.Before(today) || now.Clock() >= closes {
			late = true
		}
		out = append(out, d)
	}
	return out, late, nil
}

// showDrawersPage lists the drawers of recent days, the money waiting for
// the bank, and (for the treasurer) the deposit form.
func (m *Module) showDrawersPage(w http.ResponseWriter, r *http.Request) {
	pending, late, err := m.undeposited()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	recent, err := m.o.Reads().RecentDrawers(60)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	// A slip names a depository the board designated, as of today
	// (§5.06; domain/depository.go).
	banks, err := m.o.Reads().DepositoriesOn(m.o.Today())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.o.Who(r)
	v := Drawers{Late: late, CanDeposit: staff.Allowed(who.Role, staff.CapDeposit)}
	for _, b := range banks {
		v.Depositories = append(v.Depositories, staffview.Option{Value: b.ID, Label: b.Name + " (" + b.Institution + ")"})
	}
	for _, d := range pending {
		dv := drawerView(d)
		if !d.Closed {
			dv.Cash, dv.Checks = "", ""
		}
		v.Pending = append(v.Pending, dv)
	}
	for _, d := range recent {
		dv := drawerView(d)
		if !d.Closed {
			dv.Cash, dv.Checks = "", ""
		}
		v.Recent = append(v.Recent, dv)
	}
	m.o.Render(w, r, http.StatusOK, DrawersPage(m.o.Frame(r, "Drawers and deposits"), v))
}

// submitDeposit makes a deposit slip for the chosen closed drawers; the
// ledger refuses a depository the board has not designated (§5.06).
func (m *Module) submitDeposit(w http.ResponseWriter, r *http.Request) {
	in := domain.Deposit{Depository: m.o.Form(r, "depository"), Drawers: r.PostForm["drawer"]}
	res, err := m.o.SubmitWith(r, domain.KindDeposit, func(c *domain.Command) {
		in.DepositID = fmt.Sprintf("DEP-%s-%s-%06d", c.At.Date, c.Node, c.Seq)
		c.Payload = &in
	})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	_ = res
	m.o.Redirect(w, r, "/staff/deposits/"+in.DepositID)
}

// showDepositPage is a deposit slip.
func (m *Module) showDepositPage(w http.ResponseWriter, r *http.Request) {
	d, err := m.o.Reads().Deposit(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	name := d.Depository
	if d.DepositoryName != "" {
		name = d.DepositoryName
	}
	v := Deposit{ID: d.ID, Depository: name, At: d.At.String(), By: d.By, CommandID: d.CommandID, Drawers: d.Drawers, Cash: d.Cash.String(), CheckTotal: d.CheckTotal.String(), Total: d.Total.String()}
	for _, c := range d.Checks {
		v.Checks = append(v.Checks, DepositCheck{Receipt: c.Receipt, Reference: c.Reference, Payer: c.Payer, Amount: c.Amount.String()})
	}
	m.o.Render(w, r, http.StatusOK, DepositPage(m.o.Frame(r, "Deposit slip "+d.ID), v))
}

// billFigures maps a bill and its §5.10 figures today to the window's
// card of the bill.
func (m *Module) billFigures(b domain.Bill) (Bill, error) {
	fig, err := b.Figures(m.o.Today(), m.o.Ledger().Params())
	if err != nil {
		return Bill{}, err
	}
	return Bill{ID: b.ID, Shown: b.Shown(), Account: b.Account, Parcel: b.Parcel, Description: b.Description, BilledOn: b.BilledOn.String(), Principal: b.Principal.String(),
		DueOn: fig.DueOn.String(), Interest: fig.Interest.String(), Penalty: fig.Penalty.String(), Paid: fig.Paid.String(), Balance: fig.Balance.String(), Status: string(fig.Status)}, nil
}
