package staff

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// openDrawer returns the drawer the person has open, if any.
func (s *Server) openDrawer(username string) (domain.Drawer, bool, error) {
	return s.reads.OpenDrawer(username)
}

func (s *Server) showWindowPage(w http.ResponseWriter, r *http.Request) {
	f := view.PaymentForm{BillID: strings.TrimSpace(r.URL.Query().Get("bill")), Tender: "cash"}
	s.windowPage(w, r, http.StatusOK, f)
}

// windowPage shows the window: the open-drawer form, or the payment form
// with the bill looked up and its amount due today.
func (s *Server) windowPage(w http.ResponseWriter, r *http.Request, status int, f view.PaymentForm) {
	f = s.findWindowBill(f)
	pr, _ := principalFrom(r.Context())
	d, open, err := s.openDrawer(pr.user.Username)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := view.Window{Form: f, Open: open}
	if open {
		v.DrawerID, v.OpenedAt, v.Float, v.Count = d.ID, d.OpenedAt.String(), d.Float.String(), len(d.Payments)
		if n := len(d.Payments); n > 0 {
			v.LastReceipt = d.Payments[n-1].Receipt
		}
	}
	if f.BillID != "" {
		if b, err := s.ledger.Bill(f.BillID); err == nil {
			if bv, err := s.billView(b); err == nil {
				v.Bill = &bv
				if v.Form.Amount == "" && bv.Balance != "0.00" {
					v.Form.Amount = bv.Balance
				}
			}
		} else if matches, lerr := s.windowLookup(f.BillID); lerr != nil {
			s.fail(w, r, lerr)
			return
		} else if len(matches) > 0 {
			v.Matches, v.Form.BillID = matches, ""
			v.Query = f.BillID
		} else if f.Error == "" {
			v.Form.Error = fmt.Sprintf("There is no bill, account or address matching %q.", f.BillID)
		}
	}
	s.render(w, r, status, view.WindowPage(s.page(r, "Window"), v))
}

func (s *Server) submitOpenDrawer(w http.ResponseWriter, r *http.Request) {
	float, err := domain.ParseMoney(strings.TrimPrefix(formValue(r, "float"), "$"))
	if err != nil {
		s.windowPage(w, r, http.StatusUnprocessableEntity, view.PaymentForm{Error: "The opening float is not an amount like 100.00."})
		return
	}
	_, err = s.submit(r, domain.KindDrawerOpen, func(c *domain.Command) {
		c.Payload = &domain.DrawerOpen{DrawerID: fmt.Sprintf("D-%s-%s-%06d", c.At.Date, c.Node, c.Seq), Float: float}
	})
	if err != nil {
		s.windowPage(w, r, errorStatus(err), view.PaymentForm{Error: domain.ErrorMessage(err)})
		return
	}
	redirect(w, r, "/staff/window")
}

// submitWindowPayment takes cash or a check for a bill into the open
// drawer and shows the receipt with the change due.
func (s *Server) submitWindowPayment(w http.ResponseWriter, r *http.Request) {
	f := view.PaymentForm{BillID: formValue(r, "bill"), Amount: formValue(r, "amount"), Tender: formValue(r, "tender"), Tendered: formValue(r, "tendered"), Reference: formValue(r, "reference"), Payer: formValue(r, "payer")}
	pr, _ := principalFrom(r.Context())
	d, open, err := s.openDrawer(pr.user.Username)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !open {
		f.Error = "Open your drawer before taking payments."
		s.windowPage(w, r, http.StatusConflict, f)
		return
	}
	in := domain.WindowPayment{DrawerID: d.ID, BillID: f.BillID, Tender: domain.Tender(f.Tender), Reference: f.Reference, Payer: f.Payer}
	if in.Amount, err = domain.ParseMoney(strings.TrimPrefix(f.Amount, "$")); err != nil {
		f.Error = "The amount is not an amount like 42.50."
		s.windowPage(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	in.Tendered = in.Amount
	if in.Tender == domain.Cash && f.Tendered != "" {
		if in.Tendered, err = domain.ParseMoney(strings.TrimPrefix(f.Tendered, "$")); err != nil {
			f.Error = "The cash handed over is not an amount like 50.00."
			s.windowPage(w, r, http.StatusUnprocessableEntity, f)
			return
		}
	}
	if formValue(r, "confirm") != "yes" {
		q, err := s.quoteWindowPayment(in)
		if err != nil {
			f.Error = domain.ErrorMessage(err)
			s.windowPage(w, r, errorStatus(err), f)
			return
		}
		if q.NeedsConfirm() {
			s.render(w, r, http.StatusOK, view.WindowConfirmPage(s.page(r, "Confirm the payment"), windowConfirmView(f, q)))
			return
		}
		in.Amount, in.Tendered = q.Amount, q.Tendered
	}
	res, err := s.submit(r, domain.KindWindowPayment, func(c *domain.Command) { c.Payload = &in })
	if err != nil {
		f.Error = domain.ErrorMessage(err)
		s.windowPage(w, r, errorStatus(err), f)
		return
	}
	redirect(w, r, "/staff/receipts/"+res.Receipt.Number+"?drawer="+d.ID)
}

// quoteWindowPayment works out a window payment as it would post now
// (domain.Bill.QuoteWindowPayment): the change for cash, the refund an
// overpaying check leaves.
func (s *Server) quoteWindowPayment(in domain.WindowPayment) (domain.WindowQuote, error) {
	b, err := s.ledger.Bill(in.BillID)
	if err != nil {
		return domain.WindowQuote{}, err
	}
	return b.QuoteWindowPayment(domain.DateTimeOf(s.now().In(s.loc)), in.Tender, in.Amount, in.Tendered, s.ledger.Params())
}

// windowConfirmView is the confirmation of a quoted payment: the form's
// fields as they will post.
func windowConfirmView(f view.PaymentForm, q domain.WindowQuote) view.WindowConfirm {
	f.Amount, f.Tendered = q.Amount.String(), q.Tendered.String()
	v := view.WindowConfirm{Form: f, Cash: q.Tender == domain.Cash, Amount: q.Amount.String(), Tendered: q.Tendered.String(), Change: q.Change.String(),
		Overpayment: q.Overpayment.String(), Balance: q.Balance.String()}
	if !q.RefundBy.IsZero() {
		v.RefundBy = q.RefundBy.String()
	}
	return v
}

// showReceiptPage shows a receipt, with the change due when it was taken
// at the window.
func (s *Server) showReceiptPage(w http.ResponseWriter, r *http.Request) {
	rc, err := s.ledger.Receipt(r.PathValue("number"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := view.Receipt{Number: rc.Number, BillID: rc.BillID, Account: rc.Account, Parcel: rc.Parcel, Payer: rc.Payer, At: rc.At.String(), Amount: rc.Amount.String(), Tender: string(rc.Tender), Reference: rc.Reference,
		Penalty: rc.Allocation.Penalty.String(), Interest: rc.Allocation.Interest.String(), Principal: rc.Allocation.Principal.String(), Overpayment: rc.Allocation.Overpayment.String(), Balance: rc.Balance.String(), CommandID: rc.CommandID, Status: string(rc.Status)}
	for _, l := range rc.Lines {
		v.Lines = append(v.Lines, view.ReceiptLine{BillID: l.BillID, Amount: Dollars(l.Amount), Penalty: Dollars(l.Allocation.Penalty), Interest: Dollars(l.Allocation.Interest), Principal: Dollars(l.Allocation.Principal), Balance: Dollars(l.Balance)})
	}
	if rc.Card != nil {
		v.Card = rc.Card.String()
	}
	pr, _ := principalFrom(r.Context())
	v.CanReturn = Allowed(pr.user.Role, CapReturns)
	v.Head = view.Letterhead(s.head)
	if id := r.URL.Query().Get("drawer"); id != "" {
		if d, err := s.reads.Drawer(id); err == nil {
			for _, p := range d.Payments {
				if p.Receipt == rc.Number {
					v.Tendered, v.Change = p.Tendered.String(), p.Change.String()
				}
			}
		}
	}
	s.render(w, r, http.StatusOK, view.ReceiptPage(s.page(r, "Receipt "+rc.Number), v))
}

func (s *Server) showCloseDrawerPage(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	d, open, err := s.openDrawer(pr.user.Username)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !open {
		redirect(w, r, "/staff/window")
		return
	}
	s.render(w, r, http.StatusOK, view.CloseDrawerPage(s.page(r, "Close drawer"), view.CloseForm{DrawerID: d.ID}))
}

// submitCloseDrawer posts the blind count; the drawer page then shows what
// was expected and the over or short.
func (s *Server) submitCloseDrawer(w http.ResponseWriter, r *http.Request) {
	f := view.CloseForm{DrawerID: formValue(r, "drawer"), Cash: formValue(r, "cash"), Checks: formValue(r, "checks"), CheckCount: formValue(r, "check_count")}
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
		_, err = s.submit(r, domain.KindDrawerClose, func(c *domain.Command) { c.Payload = &in })
		if err != nil {
			f.Error = domain.ErrorMessage(err)
		}
	}
	if f.Error != "" {
		s.render(w, r, http.StatusUnprocessableEntity, view.CloseDrawerPage(s.page(r, "Close drawer"), f))
		return
	}
	redirect(w, r, "/staff/drawers/"+in.DrawerID)
}

func orZero(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	if s == "" {
		return "0"
	}
	return s
}

func drawerView(d domain.Drawer) view.Drawer {
	cash, checks, n := d.Totals()
	v := view.Drawer{ID: d.ID, Cashier: d.Cashier, OpenedAt: d.OpenedAt.String(), Float: d.Float.String(), Closed: d.Closed, DepositID: d.DepositID, Cash: cash.String(), Checks: checks.String(), CheckCount: n}
	if d.Closed {
		v.ClosedAt, v.CountedCash, v.CountedChecks, v.ExpectedCash, v.ExpectedChecks, v.OverShort = d.ClosedAt.String(), d.CountedCash.String(), d.CountedChecks.String(), d.ExpectedCash.String(), d.ExpectedChecks.String(), d.OverShort.String()
		// Each tender on its own: a drawer closed before ledger format 2
		// has no stored split, and the split is this difference.
		v.CashOverShort, v.ChecksOverShort = d.CountedCash.Sub(d.ExpectedCash).String(), d.CountedChecks.Sub(d.ExpectedChecks).String()
	}
	for _, p := range d.Payments {
		v.Payments = append(v.Payments, view.DrawerPayment{Receipt: p.Receipt, BillID: p.BillID, At: p.At.String(), Tender: string(p.Tender), Amount: p.Amount.String(), Reference: p.Reference, CommandID: p.CommandID, Returned: p.ReturnID})
	}
	return v
}

// showDrawerPage shows a drawer. While it is open only its cashier's
// colleagues with cash rights see the running totals; its cashier counts
// blind on the close page, which shows none.
func (s *Server) showDrawerPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.reads.Drawer(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr, _ := principalFrom(r.Context())
	v := drawerView(d)
	if !d.Closed && d.Cashier == pr.user.Username {
		// A blind count: the cashier does not see what the drawer should hold.
		v.Cash, v.Checks, v.Payments = "", "", nil
	}
	s.render(w, r, http.StatusOK, view.DrawerPage(s.page(r, "Drawer "+d.ID), v))
}

// undeposited returns the drawers holding money not yet deposited, oldest
// first, and whether any is late: opened before today, or today after the
// office closed (§5.06: money is deposited by the day's end).
func (s *Server) undeposited() ([]domain.Drawer, bool, error) {
	drawers, err := s.reads.UndepositedDrawers()
	if err != nil {
		return nil, false, err
	}
	today := s.today()
	closes := s.ledger.Params().At(today).OfficeCloses
	now := domain.DateTimeOf(s.now().In(s.loc))
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
func (s *Server) showDrawersPage(w http.ResponseWriter, r *http.Request) {
	pending, late, err := s.undeposited()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	recent, err := s.reads.RecentDrawers(60)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// A slip names a depository the board designated, as of today
	// (§5.06; domain/depository.go).
	banks, err := s.reads.DepositoriesOn(s.today())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr, _ := principalFrom(r.Context())
	v := view.Drawers{Late: late, CanDeposit: Allowed(pr.user.Role, CapDeposit)}
	for _, b := range banks {
		v.Depositories = append(v.Depositories, view.Option{Value: b.ID, Label: b.Name + " (" + b.Institution + ")"})
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
	s.render(w, r, http.StatusOK, view.DrawersPage(s.page(r, "Drawers and deposits"), v))
}

// submitDeposit makes a deposit slip for the chosen closed drawers; the
// ledger refuses a depository the board has not designated (§5.06).
func (s *Server) submitDeposit(w http.ResponseWriter, r *http.Request) {
	in := domain.Deposit{Depository: formValue(r, "depository"), Drawers: r.PostForm["drawer"]}
	res, err := s.submit(r, domain.KindDeposit, func(c *domain.Command) {
		in.DepositID = fmt.Sprintf("DEP-%s-%s-%06d", c.At.Date, c.Node, c.Seq)
		c.Payload = &in
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	_ = res
	redirect(w, r, "/staff/deposits/"+in.DepositID)
}

func (s *Server) showDepositPage(w http.ResponseWriter, r *http.Request) {
	d, err := s.reads.Deposit(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	name := d.Depository
	if d.DepositoryName != "" {
		name = d.DepositoryName
	}
	v := view.Deposit{ID: d.ID, Depository: name, At: d.At.String(), By: d.By, CommandID: d.CommandID, Drawers: d.Drawers, Cash: d.Cash.String(), CheckTotal: d.CheckTotal.String(), Total: d.Total.String()}
	for _, c := range d.Checks {
		v.Checks = append(v.Checks, view.DepositCheck{Receipt: c.Receipt, Reference: c.Reference, Payer: c.Payer, Amount: c.Amount.String()})
	}
	s.render(w, r, http.StatusOK, view.DepositPage(s.page(r, "Deposit slip "+d.ID), v))
}

// showDashboardPage is the start page: what needs attention today.
func (s *Server) showDashboardPage(w http.ResponseWriter, r *http.Request) {
	pr, _ := principalFrom(r.Context())
	v := view.Dashboard{Changed: r.URL.Query().Get("changed") == "password"}
	if s.cluster != nil {
		// Everyone who signs in sees these: whoever reads them first
		// calls the person who looks after the appliance.
		for _, p := range s.cluster.Problems() {
			v.Alerts = append(v.Alerts, view.Alert{TestID: "alert-ledger", Text: "The ledger needs attention: " + p, URL: "/staff/cluster"})
		}
	}
	if Allowed(pr.user.Role, CapReadCash) {
		pending, late, err := s.undeposited()
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if late {
			v.Alerts = append(v.Alerts, view.Alert{TestID: "alert-undeposited", Text: fmt.Sprintf("%d drawer(s) hold money not deposited by the end of the day (§5.06).", len(pending)), URL: "/staff/drawers"})
		}
	}
	who := Who{Username: pr.user.Username, Name: pr.user.Name, Role: pr.user.Role}
	for _, f := range s.alerts {
		as, err := f(r.Context(), who)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v.Alerts = append(v.Alerts, as...)
	}
	if Allowed(pr.user.Role, CapWindow) {
		if d, open, err := s.openDrawer(pr.user.Username); err == nil && open {
			v.OpenDrawer = d.ID
		}
	}
	s.render(w, r, http.StatusOK, view.DashboardPage(s.page(r, "Today"), v))
}

// windowLookup finds the bills a payer at the window may mean when what
// the clerk typed is not a bill number: the bills of an account number,
// or of the parcels whose address matches (domain.NormalizeAddress, so
// "141 w main street" finds 141 W Main St). Open bills come first.
func (s *Server) windowLookup(q string) ([]view.WindowMatch, error) {
	q = strings.TrimSpace(q)
	var bills []domain.Bill
	if a, err := s.ledger.Account(q); err == nil {
		if bills, err = s.ledger.BillsByAccount(a.Number); err != nil {
			return nil, err
		}
	} else if nq := domain.NormalizeAddress(q); nq != "" {
		parcels, err := s.ledger.Parcels()
		if err != nil {
			return nil, err
		}
		for _, pc := range parcels {
			if pc.ID != q && !strings.Contains(domain.NormalizeAddress(pc.Address), nq) {
				continue
			}
			more, err := s.ledger.BillsByParcel(pc.ID)
			if err != nil {
				return nil, err
			}
			bills = append(bills, more...)
		}
	}
	return s.windowMatches(bills)
}

// windowMatches lists bills to choose from at the window, those owing
// something first, each with its address and balance today.
func (s *Server) windowMatches(bills []domain.Bill) ([]view.WindowMatch, error) {
	var owing, settled []view.WindowMatch
	for _, b := range bills {
		fig, err := b.Figures(s.today(), s.ledger.Params())
		if err != nil {
			return nil, err
		}
		m := view.WindowMatch{BillID: b.ID, Account: b.Account, Description: b.Description, Balance: fig.Balance.String(), Status: string(fig.Status)}
		if pc, err := s.ledger.Parcel(b.Parcel); err == nil {
			m.Address = pc.Address
		}
		if fig.TakesPayment() {
			owing = append(owing, m)
		} else {
			settled = append(settled, m)
		}
	}
	return append(owing, settled...), nil
}
