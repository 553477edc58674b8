package domain

import (
	"fmt"
	"strings"
)

const sectionDeposit = "§5.06"

// Collections of the clerk's window.
const (
	CollectionDrawers  = "drawers"         // id: drawer id → Drawer
	CollectionCashiers = "drawer-cashiers" // id: username → CashierState (the drawer open now)
	CollectionDeposits = "deposits"        // id: deposit id → DepositSlip
	IndexUndeposited   = "drawers-to-bank" // key: "<opened on>/<drawer id>" while its money is not deposited
	IndexDrawersByDay  = "drawers-by-day"  // key: "<opened on>/<drawer id>"
	IndexDepositsByDay = "deposits-by-day" // key: "<date>/<deposit id>"
)

// Drawer is one cashier's cash drawer for one sitting at the window: the
// opening float, every payment taken into it, and at close the blind count
// and the over or short it revealed.
type Drawer struct {
	ID       string          `json:"id"`
	Cashier  string          `json:"cashier"`
	Node     string          `json:"node"`
	OpenedAt DateTime        `json:"opened_at"`
	Float    Money           `json:"float"`
	Payments []DrawerPayment `json:"payments,omitempty"`

	Closed         bool     `json:"closed,omitempty"`
	ClosedAt       DateTime `json:"closed_at,omitzero"`
	CountedCash    Money    `json:"counted_cash"`
	CountedChecks  Money    `json:"counted_checks"`
	CheckCount     int      `json:"check_count,omitempty"`
	ExpectedCash   Money    `json:"expected_cash"`
	ExpectedChecks Money    `json:"expected_checks"`
	OverShort      Money    `json:"over_short"` // counted − expected: positive over, negative short
	// CashOverShort and ChecksOverShort are the over or short of each
	// tender (ledger format 2): a short in the cash is not hidden by, or
	// blamed on, the checks.
	CashOverShort   Money `json:"cash_over_short,omitzero"`
	ChecksOverShort Money `json:"checks_over_short,omitzero"`

	DepositID string `json:"deposit_id,omitempty"`
}

// DrawerPayment is a payment taken at the window into a drawer.
type DrawerPayment struct {
	CommandID string   `json:"command_id"`
	Receipt   string   `json:"receipt"`
	BillID    string   `json:"bill_id"`
	At        DateTime `json:"at"`
	Tender    Tender   `json:"tender"`
	Amount    Money    `json:"amount"`
	Tendered  Money    `json:"tendered"` // cash handed over
	Change    Money    `json:"change"`   // cash handed back
	Reference string   `json:"reference,omitempty"`
	Payer     string   `json:"payer,omitempty"`
	// ReturnID names the returned check record when this check came back
	// unpaid before the drawer went to the bank (§5.20, ledger format
	// 2): the drawer no longer holds it, so it is not expected at the
	// count nor put on the deposit slip.
	ReturnID   string `json:"return_id,omitempty"`
	ReturnedOn Date   `json:"returned_on,omitzero"`
}

// Returned reports whether the payment is a check that came back unpaid.
func (p DrawerPayment) Returned() bool { return p.ReturnID != "" }

// Totals returns the cash and the checks the payments brought in that the
// drawer still holds: a returned check is not among them.
func (d Drawer) Totals() (cash, checks Money, nChecks int) {
	for _, p := range d.Payments {
		switch {
		case p.Tender == Cash:
			cash = cash.Add(p.Amount)
		case p.Tender == Check && !p.Returned():
			checks = checks.Add(p.Amount)
			nChecks++
		}
	}
	return cash, checks, nChecks
}

// markCheckReturned takes a returned check's payment out of the drawer it
// went into, while that drawer's money is not yet deposited (§5.20): the
// cashier cannot count a check the bank sent back. A closed drawer keeps
// the count and over or short it closed with; its deposit slip leaves the
// check out. A deposited check came back through the bank: nothing to do.
func markCheckReturned(tx Tx, pay BillPayment, returnID string, on Date) error {
	if pay.Drawer == "" {
		return nil
	}
	d, err := getDrawer(tx, pay.Drawer)
	if err != nil {
		return err
	}
	if d.DepositID != "" {
		return nil
	}
	for i, p := range d.Payments {
		if p.CommandID == pay.CommandID && p.Tender == Check {
			d.Payments[i].ReturnID, d.Payments[i].ReturnedOn = returnID, on
			return tx.Put(CollectionDrawers, d.ID, d)
		}
	}
	return nil
}

// ToDeposit returns what the drawer sends to the bank: the counted cash
// less the float, which stays in the drawer, and the counted checks.
func (d Drawer) ToDeposit() (cash, checks Money) {
	return d.CountedCash.Sub(d.Float), d.CountedChecks
}

// CashierState is which drawer a cashier has open, if any.
type CashierState struct {
	Open string `json:"open,omitempty"`
}

// DrawerOpen opens a drawer for the command's actor with a counted float.
type DrawerOpen struct {
	DrawerID string `json:"drawer_id"`
	Float    Money  `json:"float"`
}

// WindowPayment is a cash or check payment on a village bill taken at the
// clerk's window into the cashier's open drawer. For cash, Tendered is what
// the payer handed over and the change is Tendered − Amount.
type WindowPayment struct {
	DrawerID  string `json:"drawer_id"`
	BillID    string `json:"bill_id"`
	Amount    Money  `json:"amount"`
	Tender    Tender `json:"tender"`
	Tendered  Money  `json:"tendered"`
	Reference string `json:"reference,omitempty"` // check number
	Payer     string `json:"payer,omitempty"`
}

// DrawerClose closes a drawer with a blind count: the cashier counts before
// seeing what the drawer should hold.
type DrawerClose struct {
	DrawerID      string `json:"drawer_id"`
	CountedCash   Money  `json:"counted_cash"`
	CountedChecks Money  `json:"counted_checks"`
	CheckCount    int    `json:"check_count"`
}

// Deposit takes closed drawers to a public depository (§5.06).
type Deposit struct {
	DepositID  string   `json:"deposit_id"`
	Depository string   `json:"depository"`
	Drawers    []string `json:"drawers"`
}

// DepositItem is one check on a deposit slip.
type DepositItem struct {
	Receipt   string `json:"receipt"`
	Reference string `json:"reference"`
	Payer     string `json:"payer,omitempty"`
	Amount    Money  `json:"amount"`
}

// DepositSlip is a deposit of the village's money in a designated public
// depository (§5.06; depositories are designated under Wis. Stat. 34.05,
// which replaced the repealed statutes the text cites).
type DepositSlip struct {
	ID         string        `json:"id"`
	Depository string        `json:"depository"`
	At         DateTime      `json:"at"`
	By         string        `json:"by"`
	CommandID  string        `json:"command_id"`
	Drawers    []string      `json:"drawers"`
	Cash       Money         `json:"cash"`
	Checks     []DepositItem `json:"checks"`
	CheckTotal Money         `json:"check_total"`
	Total      Money         `json:"total"`
	// DepositoryName is the designated depository's name (ledger format
	// 2, where Depository is its code; depository.go).
	DepositoryName string `json:"depository_name,omitempty"`
}

func validRecordID(what, id string) error {
	if id == "" || len(id) > 64 || strings.ContainsAny(id, "/ ") {
		return Errorf(EINVALID, "", "The %s id is missing or malformed.", what)
	}
	return nil
}

func getDrawer(tx Tx, id string) (Drawer, error) {
	var d Drawer
	ok, err := tx.Get(CollectionDrawers, id, &d)
	if err != nil {
		return d, err
	}
	if !ok {
		return d, Errorf(ENOTFOUND, "", "There is no drawer %q.", id)
	}
	return d, nil
}

func applyDrawerOpen(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*DrawerOpen)
	if err := validRecordID("drawer", in.DrawerID); err != nil {
		return err
	}
	if in.Float.IsNegative() {
		return Errorf(EINVALID, "", "The opening float cannot be negative.")
	}
	var cs CashierState
	if _, err := tx.Get(CollectionCashiers, c.Actor, &cs); err != nil {
		return err
	}
	if cs.Open != "" {
		return Errorf(ECONFLICT, "", "You already have drawer %s open; close it first.", cs.Open)
	}
	var old Drawer
	if ok, err := tx.Get(CollectionDrawers, in.DrawerID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "", "Drawer %s already exists.", in.DrawerID)
	}
	d := Drawer{ID: in.DrawerID, Cashier: c.Actor, Node: c.Node, OpenedAt: c.At, Float: in.Float}
	if err := tx.Put(CollectionDrawers, d.ID, d); err != nil {
		return err
	}
	if err := tx.Index(IndexDrawersByDay, c.At.Date.String()+"/"+d.ID); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("drawer %s opened with %s", d.ID, d.Float)
	return tx.Put(CollectionCashiers, c.Actor, CashierState{Open: d.ID})
}

// applyWindowPayment posts a cash or check payment exactly as a payment at
// the kiosk (§5.10 allocation, §5.07(1) refund of any excess) and records
// it in the cashier's open drawer.
func applyWindowPayment(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	in := c.Payload.(*WindowPayment)
	d, dp, err := windowTake(tx, c, in.DrawerID, in.Tender, in.Amount, in.Tendered, in.Reference, in.Payer, in.BillID, p)
	if err != nil {
		return err
	}
	pay := c
	pay.Payload = nil
	pay.Payload = &PayBill{BillID: in.BillID, Amount: in.Amount, Tender: in.Tender, Reference: in.Reference, Payer: in.Payer}
	drawer := ""
	if RulesFormat(tx) >= 2 {
		drawer = d.ID
	}
	if err := postBillPayment(tx, pay, index, p, res, drawer); err != nil {
		return err
	}
	return recordWindowTake(tx, d, dp, res)
}

// windowTake checks a cash or check payment at the window into the
// cashier's own open drawer, and returns the drawer with the drawer's line
// for the payment (ref names what it pays: a bill, an assessment). The
// payment itself is posted by the caller; recordWindowTake then adds the
// line to the drawer.
func windowTake(tx Tx, c Command, drawerID string, tender Tender, amount, tendered Money, reference, payer, ref string, p *Params) (Drawer, DrawerPayment, error) {
	if tender != Cash && tender != Check {
		return Drawer{}, DrawerPayment{}, Errorf(EINVALID, "", "The window takes cash or checks.")
	}
	if err := checkPaymentAmount(tx, amount, c.At.Date, p); err != nil {
		return Drawer{}, DrawerPayment{}, err
	}
	d, err := getDrawer(tx, drawerID)
	if err != nil {
		return Drawer{}, DrawerPayment{}, err
	}
	if d.Closed {
		return Drawer{}, DrawerPayment{}, Errorf(ECONFLICT, "", "Drawer %s is closed.", d.ID)
	}
	if d.Cashier != c.Actor {
		return Drawer{}, DrawerPayment{}, Errorf(EFORBIDDEN, "", "Drawer %s belongs to %s.", d.ID, d.Cashier)
	}
	dp := DrawerPayment{CommandID: c.ID, Receipt: c.ReceiptNumber(), BillID: ref, At: c.At, Tender: tender, Amount: amount, Tendered: amount, Change: Cents(0), Reference: reference, Payer: payer}
	switch tender {
	case Cash:
		if tendered.LessThan(amount) {
			return Drawer{}, DrawerPayment{}, Errorf(EINVALID, "", "The cash handed over (%s) is less than the payment (%s).", tendered, amount)
		}
		dp.Tendered, dp.Change = tendered, tendered.Sub(amount)
	case Check:
		if strings.TrimSpace(reference) == "" {
			return Drawer{}, DrawerPayment{}, Errorf(EINVALID, "", "The check number is required.")
		}
	}
	return d, dp, nil
}

// recordWindowTake adds a window payment's line to its drawer.
func recordWindowTake(tx Tx, d Drawer, dp DrawerPayment, res *Result) error {
	d.Payments = append(d.Payments, dp)
	if len(d.Payments) == 1 {
		if err := tx.Index(IndexUndeposited, d.OpenedAt.Date.String()+"/"+d.ID); err != nil {
			return err
		}
	}
	res.Note = fmt.Sprintf("change due %s", dp.Change)
	return tx.Put(CollectionDrawers, d.ID, d)
}

// applyDrawerClose closes a drawer on its cashier's blind count and posts
// the over or short: counted cash and checks less the float and what the
// payments brought in.
func applyDrawerClose(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*DrawerClose)
	if in.CountedCash.IsNegative() || in.CountedChecks.IsNegative() || in.CheckCount < 0 {
		return Errorf(EINVALID, "", "Counted amounts cannot be negative.")
	}
	d, err := getDrawer(tx, in.DrawerID)
	if err != nil {
		return err
	}
	if d.Closed {
		return Errorf(ECONFLICT, "", "Drawer %s is already closed.", d.ID)
	}
	if d.Cashier != c.Actor {
		return Errorf(EFORBIDDEN, "", "Drawer %s belongs to %s; only they can count it.", d.ID, d.Cashier)
	}
	cash, checks, _ := d.Totals()
	d.Closed, d.ClosedAt = true, c.At
	d.CountedCash, d.CountedChecks, d.CheckCount = in.CountedCash, in.CountedChecks, in.CheckCount
	d.ExpectedCash, d.ExpectedChecks = d.Float.Add(cash), checks
	d.OverShort = in.CountedCash.Add(in.CountedChecks).Sub(d.ExpectedCash).Sub(d.ExpectedChecks)
	if RulesFormat(tx) >= 2 {
		d.CashOverShort, d.ChecksOverShort = in.CountedCash.Sub(d.ExpectedCash), in.CountedChecks.Sub(d.ExpectedChecks)
	}
	if err := tx.Put(CollectionDrawers, d.ID, d); err != nil {
		return err
	}
	if len(d.Payments) == 0 && d.CountedCash.Equal(d.Float) {
		// Nothing to take to the bank.
		if err := tx.Unindex(IndexUndeposited, d.OpenedAt.Date.String()+"/"+d.ID); err != nil {
			return err
		}
	} else if err := tx.Index(IndexUndeposited, d.OpenedAt.Date.String()+"/"+d.ID); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("drawer %s closed; over/short %s", d.ID, d.OverShort)
	return tx.Put(CollectionCashiers, c.Actor, CashierState{})
}

// applyDeposit makes a deposit slip for closed drawers not yet deposited
// (§5.06): their counted cash less the floats, and every check.
func applyDeposit(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*Deposit)
	if err := validRecordID("deposit", in.DepositID); err != nil {
		return err
	}
	if strings.TrimSpace(in.Depository) == "" {
		return Errorf(EINVALID, sectionDeposit, "Name the public depository the money goes to.")
	}
	if len(in.Drawers) == 0 {
		return Errorf(EINVALID, sectionDeposit, "Choose at least one closed drawer to deposit.")
	}
	var old DepositSlip
	if ok, err := tx.Get(CollectionDeposits, in.DepositID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "", "Deposit %s already exists.", in.DepositID)
	}
	slip := DepositSlip{ID: in.DepositID, Depository: strings.TrimSpace(in.Depository), At: c.At, By: c.Actor, CommandID: c.ID, Cash: Cents(0), CheckTotal: Cents(0)}
	if RulesFormat(tx) >= 2 {
		// §5.06: only a depository the board designated, on the day of
		// the deposit (format 2; format 1 slips named any bank).
		d, err := checkDepository(tx, slip.Depository, c.At.Date)
		if err != nil {
			return err
		}
		slip.DepositoryName = d.Name
	}
	seen := map[string]bool{}
	for _, id := range in.Drawers {
		if seen[id] {
			continue
		}
		seen[id] = true
		d, err := getDrawer(tx, id)
		if err != nil {
			return err
		}
		if !d.Closed {
			return Errorf(ECONFLICT, sectionDeposit, "Drawer %s is still open; close it before the deposit.", id)
		}
		if d.DepositID != "" {
			return Errorf(ECONFLICT, sectionDeposit, "Drawer %s was deposited on slip %s.", id, d.DepositID)
		}
		cash, _ := d.ToDeposit()
		slip.Cash = slip.Cash.Add(cash)
		for _, p := range d.Payments {
			if p.Tender == Check && !p.Returned() {
				slip.Checks = append(slip.Checks, DepositItem{Receipt: p.Receipt, Reference: p.Reference, Payer: p.Payer, Amount: p.Amount})
				slip.CheckTotal = slip.CheckTotal.Add(p.Amount)
			}
		}
		slip.Drawers = append(slip.Drawers, id)
		d.DepositID = slip.ID
		if err := tx.Put(CollectionDrawers, d.ID, d); err != nil {
			return err
		}
		if err := tx.Unindex(IndexUndeposited, d.OpenedAt.Date.String()+"/"+d.ID); err != nil {
			return err
		}
	}
	slip.Total = slip.Cash.Add(slip.CheckTotal)
	if err := tx.Put(CollectionDeposits, slip.ID, slip); err != nil {
		return err
	}
	if err := tx.Index(IndexDepositsByDay, c.At.Date.String()+"/"+slip.ID); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("deposit %s: %s", slip.ID, slip.Total)
	return nil
}

// Kinds of the clerk's window.
const (
	KindDrawerOpen    Kind = "drawer_open"    // open a cash drawer at the window
	KindWindowPayment Kind = "window_payment" // a cash or check payment at the window (§5.10)
	KindDrawerClose   Kind = "drawer_close"   // close a drawer on a blind count; over/short posted
	KindDeposit       Kind = "deposit"        // a deposit slip to a public depository (§5.06)
)

// Kind names the payload's kind.
func (*DrawerOpen) Kind() Kind { return KindDrawerOpen }

// Kind names the payload's kind.
func (*WindowPayment) Kind() Kind { return KindWindowPayment }

// Kind names the payload's kind.
func (*DrawerClose) Kind() Kind { return KindDrawerClose }

// Kind names the payload's kind.
func (*Deposit) Kind() Kind { return KindDeposit }

// The window works offline: a drawer, its cash and checks are counted on
// this node and post when the network returns.
var (
	drawerOpenKind = &Descriptor{
		Kind: KindDrawerOpen, Offline: true, Roles: []Role{RoleClerk, RoleTreasurer},
		New:   func() Payload { return new(DrawerOpen) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyDrawerOpen(tx, c, res) },
	}
	windowPaymentKind = &Descriptor{
		Kind: KindWindowPayment, Section: sectionReceivable, Offline: true, Roles: []Role{RoleClerk, RoleTreasurer},
		New: func() Payload { return new(WindowPayment) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error {
			return applyWindowPayment(tx, c, e.Index, e.Params, res)
		},
		Books: func(l *Lines, tx Tx, c Command, res Result) string {
			receiptLines(l, tx, res.Receipt, SourceBills)
			return "window payment " + res.Receipt.Number
		},
		Receipt: func(c Command) *Receipt {
			p := c.Payload.(*WindowPayment)
			rc := provisional(c)
			rc.Kind = "" // a bill payment's receipt, as at the kiosk
			rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference = p.BillID, p.Payer, p.Amount, p.Tender, p.Reference
			return rc
		},
	}
	drawerCloseKind = &Descriptor{
		Kind: KindDrawerClose, Offline: true, Roles: []Role{RoleClerk, RoleTreasurer},
		New:   func() Payload { return new(DrawerClose) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyDrawerClose(tx, c, res) },
		Books: drawerCloseLines,
	}
	depositKind = &Descriptor{
		Kind: KindDeposit, Section: "§5.06", Offline: true, Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(Deposit) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyDeposit(tx, c, res) },
		Books: depositLines,
	}
)

// drawerCloseLines post a drawer's over or short at its close: the
// counted money differs from what the payments brought in by that much,
// which the general fund takes as revenue (over) or gives up (short).
func drawerCloseLines(l *Lines, tx Tx, c Command, res Result) string {
	d, err := getDrawer(tx, c.Payload.(*DrawerClose).DrawerID)
	if err != nil {
		l.err = err
		return ""
	}
	if d.OverShort.IsZero() {
		return ""
	}
	gf := l.chart.GeneralFund()
	l.Debit(l.Control(gf, ControlUndeposited), d.OverShort, "", "drawer "+d.ID+" over or short")
	l.Credit(l.unclassified(gf), d.OverShort, "", "drawer "+d.ID+" over or short")
	return "drawer " + d.ID + " closed over or short"
}

// depositLines move a deposit's money from the receipts not yet deposited
// into cash in the depository (§5.06), fund by fund: each payment in the
// drawers counts in its bill's fund, and a drawer's over or short in the
// general fund, as its close posted it.
func depositLines(l *Lines, tx Tx, c Command, res Result) string {
	in := c.Payload.(*Deposit)
	by := map[string]Money{}
	var funds []string
	add := func(fund string, m Money) {
		if _, ok := by[fund]; !ok {
			funds = append(funds, fund)
		}
		by[fund] = by[fund].Add(m)
	}
	seen := map[string]bool{}
	for _, id := range in.Drawers {
		if seen[id] {
			continue
		}
		seen[id] = true
		d, err := getDrawer(tx, id)
		if err != nil {
			l.err = err
			return ""
		}
		for _, p := range d.Payments {
			if p.Returned() || (p.Tender != Cash && p.Tender != Check) {
				continue
			}
			fund, err := takenFund(l, tx, p.BillID)
			if err != nil {
				l.err = err
				return ""
			}
			add(fund, p.Amount)
		}
		add(l.chart.GeneralFund(), d.OverShort)
	}
	for _, fund := range funds {
		l.Debit(l.Control(fund, ControlCash), by[fund], "§5.06", "deposit "+in.DepositID+" at "+in.Depository)
		l.Credit(l.Control(fund, ControlUndeposited), by[fund], "§5.06", "deposit "+in.DepositID)
	}
	return "deposit " + in.DepositID
}

// takenFund returns the fund whose receipts not yet deposited a payment in
// a drawer went to: a bill's revenue line's, a room tax return's or a
// special assessment's (their lines, roomtaxbooks.go, assessmentbooks.go).
func takenFund(l *Lines, tx Tx, id string) (string, error) {
	b, ok, err := tx.Bill(id)
	switch {
	case err != nil:
		return "", err
	case ok:
		return l.FundOf(l.RevenueOf(b.Revenue, SourceBills)), nil
	}
	if op, q, err := ParseQuarterlyReturnID(id); err == nil {
		if _, found, err := getReturn(tx, QuarterlyReturnID(op, q)); err != nil {
			return "", err
		} else if found {
			return l.FundOf(l.RevenueOf("", SourceRoomTax)), nil
		}
	}
	var a Assessment
	if found, err := tx.Get(CollectionAssessments, id, &a); err != nil {
		return "", err
	} else if found {
		_, fund := assessmentRevenue(l)
		return fund, nil
	}
	return l.FundOf(l.RevenueOf("", SourceBills)), nil
}

// WindowQuote is what a cash or check payment at the window would do,
// worked out before it posts, so the cashier sees the change to hand back
// or the refund an overpaying check leaves behind.
type WindowQuote struct {
	Tender   Tender `json:"tender"`
	Amount   Money  `json:"amount"`   // what posts to the bill
	Tendered Money  `json:"tendered"` // cash handed over (a check: its amount)
	Change   Money  `json:"change"`   // cash handed back
	// Overpayment is what a check pays beyond the balance: a refund due
	// under §5.07(1), by RefundBy. Cash over the balance is change instead.
	Overpayment Money `json:"overpayment"`
	RefundBy    Date  `json:"refund_by,omitzero"`
	Balance     Money `json:"balance"` // what the bill owes after the payment
}

// NeedsConfirm reports whether the cashier should see the quote before
// it posts: change to hand back, or an excess that becomes a refund.
func (q WindowQuote) NeedsConfirm() bool {
	return q.Change.IsPositive() || q.Overpayment.IsPositive()
}

// QuoteWindowPayment works out a payment of amount at the window at `at`
// (§5.10, §5.07(1)). Cash over the bill's balance is not an overpayment:
// the bill takes its balance and the rest of what was handed over is
// change (the clerk who typed 100.00 for an 82.37 balance, the payer
// handing over a 100 bill, owes 17.63 in change, not a refund). A check
// cannot give change: what it pays beyond the balance is an overpayment,
// refunded by the day §5.07(1) sets. It refuses what posting refuses on
// the bill (PreviewPayment); cash handed over short of the payment is left
// for posting to refuse.
func (b Bill) QuoteWindowPayment(at DateTime, tender Tender, amount, tendered Money, p *Params) (WindowQuote, error) {
	q := WindowQuote{Tender: tender, Amount: amount, Tendered: amount, Change: Cents(0), Overpayment: Cents(0)}
	pv, err := b.PreviewPayment(at, amount, p)
	if err != nil {
		return q, err
	}
	q.Balance = pv.Balance
	switch tender {
	case Cash:
		if tendered.LessThan(amount) {
			// Posting refuses it, and the refusal is journaled.
			q.Tendered = tendered
			return q, nil
		}
		if over := pv.Allocation.Overpayment; over.IsPositive() {
			q.Amount = amount.Sub(over)
			if !q.Amount.IsPositive() {
				return q, Errorf(ECONFLICT, sectionReceivable, "Bill %s owes nothing today: hand the cash back.", b.ID)
			}
		}
		q.Tendered, q.Change = tendered, tendered.Sub(q.Amount)
	case Check:
		q.Overpayment = pv.Allocation.Overpayment
		if q.Overpayment.IsPositive() {
			r, err := ComputeRefund(RefundInput{PaidOn: at.Date, AmountPaid: amount, AmountDue: amount.Sub(q.Overpayment)}, p)
			if err != nil {
				return q, err
			}
			q.RefundBy = r.RefundBy
		}
	default:
		return q, Errorf(EINVALID, "", "The window takes cash or checks.")
	}
	return q, nil
}
