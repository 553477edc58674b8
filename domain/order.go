package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Purchase orders (§5.12, §5.13, §5.16). The Purchasing Agent (the
// administrator) buys for every department: an order is drawn against one
// appropriation of the year, takes bids in the open market (at least three
// wherever possible, §5.12(4)), is awarded on the bid most advantageous to
// the village — or to the lowest responsible bidder when a class 2 notice
// was required (§5.13(1)-(2)) — with the board's approval from 3,000.00;
// the treasurer certifies that the appropriation covers it, which
// encumbers it (§5.12(6)); only then is it issued. Its delivery is
// inspected and invoiced (§5.12(8)), which charges the appropriation. In an
// emergency the buyer buys directly within their limit (§5.12(7)), the
// certification waived; the invoice and the explanation are a permanent
// public record. `5.12/purchase` (ComputePurchase) decides every one of
// these questions; the order records its answer.

// Kinds of purchasing.
const (
	KindOrder        Kind = "order"         // §5.12: create, notice, bid, award, issue or cancel an order
	KindCertifyFunds Kind = "certify_funds" // §5.12(6): the treasurer's certification of funds
	KindOrderReceipt Kind = "order_receipt" // §5.12(8): a delivery inspected and invoiced
)

// CollectionOrders holds the purchase orders by number.
const CollectionOrders = "orders"

// OrderStatus is where an order stands.
type OrderStatus string

// Order statuses, in their order.
const (
	OrderDraft     OrderStatus = "draft"     // taking bids
	OrderAwarded   OrderStatus = "awarded"   // a bid chosen; waits for the certification of funds
	OrderCertified OrderStatus = "certified" // funds certified and encumbered
	OrderIssued    OrderStatus = "issued"    // sent to the vendor
	OrderReceived  OrderStatus = "received"  // delivered, inspected and invoiced in full
	OrderCancelled OrderStatus = "cancelled"
)

// Order is a purchase order.
type Order struct {
	ID          string   `json:"id"` // "PO-2026-0007", numbered by the ledger
	Year        int      `json:"year"`
	Line        string   `json:"line"`
	Unit        string   `json:"unit"`
	Description string   `json:"description"`
	Category    Category `json:"category"`
	Estimate    Money    `json:"estimate"`
	Buyer       Buyer    `json:"buyer"`
	Requisition string   `json:"requisition,omitempty"`
	// Solicited says how bids were sought (mail, electronic means,
	// telephone, a published notice, §5.12(4)).
	Solicited string `json:"solicited,omitempty"`
	// Emergency: the buyer buys directly (§5.12(7)); Explanation is the
	// full explanation of the circumstances.
	Emergency   bool   `json:"emergency,omitempty"`
	Explanation string `json:"explanation,omitempty"`
	// The grounds on which §5.13 does not apply: a contract with another
	// municipality (§5.13(3)), an emergency declared by resolution of the
	// board, until it declares the emergency over (§5.13(4)), work done by
	// the village itself (§5.13(5)).
	Municipal           bool   `json:"municipal,omitempty"`
	OwnWork             bool   `json:"own_work,omitempty"`
	EmergencyResolution string `json:"emergency_resolution,omitempty"`
	EmergencyEnded      Date   `json:"emergency_ended,omitzero"`
	// Notices are the insertions of the class 2 notice (Ch. 985) and
	// BidsOpen the day bids are opened.
	Notices  []Date     `json:"notices,omitempty"`
	BidsOpen Date       `json:"bids_open,omitzero"`
	Bids     []OrderBid `json:"bids,omitempty"`
	Award    *Award     `json:"award,omitempty"`
	// Rule is what `5.12/purchase` required, as of the award.
	Rule      *Purchase `json:"rule,omitempty"`
	Certified *Act      `json:"certified,omitempty"`
	// Refused is the treasurer's refusal to certify the funds of the
	// award (§5.12(6), ledger format 6): the order is not issued. A later
	// certification (after an amendment of the budget, say) still may.
	Refused   *Act        `json:"refused,omitempty"`
	Issued    *Act        `json:"issued,omitempty"`
	Receipts  []Delivery  `json:"receipts,omitempty"`
	Cancelled *Act        `json:"cancelled,omitempty"`
	Status    OrderStatus `json:"status"`
	Held      Money       `json:"held"` // what it encumbers now
	Paid      Money       `json:"paid"` // what expenses charged against it
	// Claimed is what claims were entered for against its deliveries
	// (§5.07): at most what they invoiced.
	Claimed   Money    `json:"claimed,omitzero"`
	Created   DateTime `json:"created"`
	CreatedBy string   `json:"created_by"`
}

// OpenEncumbrance is what the order still holds of its appropriation.
func (o Order) OpenEncumbrance() Money { return o.Held }

// Amount is the order's amount: the award's, else the estimate.
func (o Order) Amount() Money {
	if o.Award != nil {
		return o.Award.Amount
	}
	return o.Estimate
}

// OrderBid is one bid received.
type OrderBid struct {
	Vendor   string `json:"vendor"`
	Amount   Money  `json:"amount"`
	Received Date   `json:"received"`
	Notes    string `json:"notes,omitempty"`
}

// Award is the choice of a bid (or, in an emergency under the limit, of
// the vendor bought from).
type Award struct {
	Vendor string `json:"vendor"`
	Amount Money  `json:"amount"`
	Basis  string `json:"basis"` // most_advantageous | lowest_responsible_bidder | emergency
	// Reasons: why a lower bid was passed over, or why fewer than three
	// bids were had.
	Reasons string `json:"reasons,omitempty"`
	On      Date   `json:"on"`
	// BoardApproval and BoardApprovedOn are the board's approval as a
	// ledger before format 6 recorded it: the motion or resolution in
	// free text and its date. From format 6 the approval is Vote.
	BoardApproval   string `json:"board_approval,omitempty"`
	BoardApprovedOn Date   `json:"board_approved_on,omitzero"`
	// Vote is the board's approval from ledger format 6 (§5.12(4)): the
	// meeting's date (On) and the count (Present, Ayes, Nays), recorded
	// as the budget's votes are; the ledger fills in the outcome
	// (approvalVote).
	Vote *BudgetVoteRecord `json:"vote,omitempty"`
	By   string            `json:"by"`
}

// Act is who did something and when; Available is what the
// appropriation had available when funds were certified.
type Act struct {
	By        string   `json:"by"`
	At        DateTime `json:"at"`
	Available Money    `json:"available,omitzero"`
	Reason    string   `json:"reason,omitempty"`
}

// Delivery is a delivery inspected (§5.12(8)) and what it invoiced.
type Delivery struct {
	On        Date         `json:"on"`
	Inspector string       `json:"inspector"`
	Conforms  bool         `json:"conforms"`
	Notes     string       `json:"notes,omitempty"`
	Invoice   string       `json:"invoice,omitempty"`
	Invoiced  Money        `json:"invoiced"`
	Tests     []TestCharge `json:"tests,omitempty"`
	Final     bool         `json:"final,omitempty"`
	Expenses  []string     `json:"expenses,omitempty"` // the expenses it charged
}

// TestCharge is a chemical or physical test of a sample, charged to the
// appropriation of the department it was made for (§5.12(8)).
type TestCharge struct {
	Description string `json:"description"`
	Cost        Money  `json:"cost"`
}

// Order operations.
const (
	OrderCreate = "create"
	OrderNotice = "notice"
	OrderBidOp  = "bid"
	OrderAward  = "award"
	OrderIssue  = "issue"
	OrderCancel = "cancel"
)

// OrderChange creates an order or takes it a step further.
type OrderChange struct {
	Op string `json:"op"`
	ID string `json:"id,omitempty"` // every op but create
	// create
	Line                string   `json:"line,omitempty"`
	Description         string   `json:"description,omitempty"`
	Category            Category `json:"category,omitempty"`
	Estimate            Money    `json:"estimate,omitzero"`
	Requisition         string   `json:"requisition,omitempty"`
	Solicited           string   `json:"solicited,omitempty"`
	Emergency           bool     `json:"emergency,omitempty"`
	Explanation         string   `json:"explanation,omitempty"`
	Municipal           bool     `json:"municipal,omitempty"`
	OwnWork             bool     `json:"own_work,omitempty"`
	EmergencyResolution string   `json:"emergency_resolution,omitempty"`
	// notice
	Notices  []Date `json:"notices,omitempty"`
	BidsOpen Date   `json:"bids_open,omitzero"`
	// bid
	Bid *OrderBid `json:"bid,omitempty"`
	// award
	Award *Award `json:"award,omitempty"`
	// cancel
	Reason string `json:"reason,omitempty"`
}

// Kind names the payload's kind.
func (*OrderChange) Kind() Kind { return KindOrder }

func (p *OrderChange) textFields() []textField {
	f := []textField{oneLine("The order", p.ID), oneLine("The line", p.Line), oneLine("The description", p.Description),
		oneLine("The requisition", p.Requisition), oneLine("How bids were sought", p.Solicited), manyLines("The explanation", p.Explanation),
		oneLine("The emergency resolution", p.EmergencyResolution), manyLines("The reason", p.Reason)}
	if p.Bid != nil {
		f = append(f, oneLine("The bidder", p.Bid.Vendor), oneLine("The bid's notes", p.Bid.Notes))
	}
	if p.Award != nil {
		f = append(f, oneLine("The vendor", p.Award.Vendor), manyLines("The reasons", p.Award.Reasons), oneLine("The board's approval", p.Award.BoardApproval))
	}
	return f
}

var orderKind = &Descriptor{
	Kind: KindOrder, Section: sectionPurchasing, Since: 2,
	Roles: []Role{RoleAdministrator, RoleDepartmentHead},
	New:   func() Payload { return new(OrderChange) },
	Check: func(c Command) error { return c.Payload.(*OrderChange).check() },
	Apply: applyOrder,
	// An emergency purchase's award encumbers (§5.12(7)); a cancellation
	// releases what the order held.
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		commitmentLines(l, tx, res.Ref)
		return "order " + res.Ref + " " + c.Payload.(*OrderChange).Op
	},
}

// check checks what an order change must hold whatever the ledger says.
func (p *OrderChange) check() error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionPurchasing, format, args...) }
	switch p.Op {
	case OrderCreate:
		switch {
		case strings.TrimSpace(p.Description) == "":
			return bad("An order needs a description of what it buys.")
		case !p.Estimate.IsPositive():
			return bad("An order needs its estimated cost, more than $0.00.")
		case p.Emergency && strings.TrimSpace(p.Explanation) == "":
			return Errorf(EINVALID, "§5.12(7)", "An emergency purchase needs a full explanation of the circumstances of the emergency.")
		case !p.Emergency && p.Explanation != "":
			return bad("Only an emergency purchase carries an explanation.")
		}
		switch p.Category {
		case CategorySupplies, CategoryMaterials, CategoryEquipment, CategoryContractualServices:
		default:
			return bad("The category %q is not supplies, materials, equipment or contractual_services.", p.Category)
		}
	case OrderNotice, OrderBidOp, OrderAward, OrderIssue, OrderCancel:
		if p.ID == "" {
			return bad("Name the order (its number, like PO-2027-0001).")
		}
	default:
		return bad("Unknown order operation %q (create, notice, bid, award, issue, cancel).", p.Op)
	}
	return nil
}

func loadOrder(tx Tx, id string) (Order, error) {
	var o Order
	ok, err := tx.Get(CollectionOrders, id, &o)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, sectionPurchasing, "There is no purchase order %q.", id)
	}
	return o, err
}

func putOrder(tx Tx, o Order) error { return tx.Put(CollectionOrders, o.ID, o) }

func applyOrder(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*OrderChange)
	if p.Op == OrderCreate {
		return createOrder(tx, c, p, res)
	}
	o, err := loadOrder(tx, p.ID)
	if err != nil {
		return err
	}
	if err := mayActFor(tx, c, o.Unit, "act on the orders of"); err != nil {
		return err
	}
	u, _, err := actor(tx, c)
	if err != nil {
		return err
	}
	if u.Role == RoleDepartmentHead && !o.Emergency {
		return Errorf(EFORBIDDEN, sectionPurchasing, "The Purchasing Agent takes bids on, awards and issues an order; a department head files a requisition or makes an emergency purchase.")
	}
	res.Ref = o.ID
	switch p.Op {
	case OrderNotice:
		err = noticeOrder(tx, &o, p)
	case OrderBidOp:
		err = bidOrder(tx, env, &o, p)
	case OrderAward:
		err = awardOrder(tx, c, env, &o, p)
	case OrderIssue:
		err = issueOrder(&o, c)
	case OrderCancel:
		err = cancelOrder(tx, c, &o, p)
	default:
		return Errorf(EINVALID, sectionPurchasing, "Unknown order operation %q.", p.Op)
	}
	if err != nil {
		return err
	}
	res.Note = fmt.Sprintf("order %s: %s", o.ID, p.Op)
	return putOrder(tx, o)
}

func createOrder(tx Tx, c Command, p *OrderChange, res *Result) error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionPurchasing, format, args...) }
	if err := p.check(); err != nil {
		return err
	}
	year := c.At.Date.Year()
	a, err := loadAppropriation(tx, year, p.Line)
	if err != nil {
		return err
	}
	if err := mayActFor(tx, c, a.Unit, "order for"); err != nil {
		return err
	}
	u, _, err := actor(tx, c)
	if err != nil {
		return err
	}
	buyer := BuyerPurchasingAgent
	if u.Role == RoleDepartmentHead {
		if !p.Emergency {
			return Errorf(EFORBIDDEN, "§5.12(3)", "A department head files a requisition with the Purchasing Agent; only in an emergency does a department head buy directly.")
		}
		buyer = BuyerDepartmentHead
	}
	if p.Requisition != "" {
		var rq Requisition
		ok, err := tx.Get(CollectionRequisitions, p.Requisition, &rq)
		if err != nil {
			return err
		}
		if !ok {
			return bad("There is no requisition %q.", p.Requisition)
		}
	}
	n, err := nextNumber(tx, "orders/"+yearID(year))
	if err != nil {
		return err
	}
	o := Order{ID: fmt.Sprintf("PO-%d-%04d", year, n), Year: year, Line: p.Line, Unit: a.Unit, Description: strings.TrimSpace(p.Description),
		Category: p.Category, Estimate: p.Estimate, Buyer: buyer, Requisition: p.Requisition, Solicited: p.Solicited,
		Emergency: p.Emergency, Explanation: p.Explanation, Municipal: p.Municipal, OwnWork: p.OwnWork, EmergencyResolution: p.EmergencyResolution,
		Status: OrderDraft, Created: c.At, CreatedBy: c.Actor}
	res.Ref, res.Note = o.ID, "order "+o.ID+" created"
	return putOrder(tx, o)
}

// Class2Qualifies reports whether the insertions of a class 2 notice
// qualify it for bids opened on open (Wis. Stat. 985.07(2), 985.01(1m)):
// two insertions, once each week in consecutive weeks, the last at least
// a week before the bids are opened.
func Class2Qualifies(insertions []Date, open Date) bool {
	if len(insertions) < 2 || open.IsZero() {
		return false
	}
	ds := slices.Clone(insertions)
	slices.SortFunc(ds, func(a, b Date) int { return a.Compare(b) })
	last, prev := ds[len(ds)-1], ds[len(ds)-2]
	gap := prev.DaysUntil(last)
	return gap >= 1 && gap <= 13 && weekOf(prev)+1 == weekOf(last) && !last.After(open.AddDays(-7))
}

// Class2Deadline is the last day the second insertion of a class 2 notice
// may be published for bids opened on open, and the first insertion's
// latest day, a week before it.
func Class2Deadline(open Date) (first, second Date) {
	return open.AddDays(-14), open.AddDays(-7)
}

// weekOf numbers the weeks (Sunday to Saturday) since a fixed Sunday.
func weekOf(d Date) int {
	base := NewDate(2000, 1, 2) // a Sunday
	return base.DaysUntil(d) / 7
}

// noticeOrder records the insertions of an order's notice and the day
// bids open. Before ledger format 6 only a class 2 notice was recorded,
// and it needed the day bids open; from format 6 a class 1 notice (Wis.
// Stat. 62.15(1), Class1NoticeRequired) is recorded too, with no day of
// opening, so the day is optional (a class 2 notice without it does not
// qualify at the award, Class2Qualifies).
func noticeOrder(tx Tx, o *Order, p *OrderChange) error {
	if o.Status != OrderDraft {
		return Errorf(ECONFLICT, "§5.13(1)", "Order %s is %s: its notice is recorded before the award.", o.ID, o.Status)
	}
	if RulesFormat(tx) >= ReconciledFormat {
		if len(p.Notices) == 0 || slices.ContainsFunc(p.Notices, Date.IsZero) {
			return Errorf(EINVALID, "§5.13(1)", "A notice needs the date of each of its insertions.")
		}
	} else if len(p.Notices) == 0 || p.BidsOpen.IsZero() {
		return Errorf(EINVALID, "§5.13(1)", "A class 2 notice needs the dates of its insertions and the day bids are opened.")
	}
	for _, b := range o.Bids {
		if !p.BidsOpen.IsZero() && b.Received.After(p.BidsOpen) {
			return Errorf(ECONFLICT, "§5.13(1)", "Order %s has a bid received %s, after %s.", o.ID, b.Received, p.BidsOpen)
		}
	}
	o.Notices, o.BidsOpen = p.Notices, p.BidsOpen
	return nil
}

// NoticeClass says which notice the order needs (§5.13(1), Wis. Stat.
// 62.15(1)) with the thresholds in force on day on: 2 for a class 2
// notice, published before its bids are taken; 1 for a class 1 notice,
// published before the contract is let; 0 for none. It reads what the
// order is expected to cost (the amount awarded, once it is), as the
// ledger does when it takes a bid (noticeBeforeBid) and an award
// (class1Notice).
func (o Order) NoticeClass(on Date, p *Params) (int, error) {
	in := o.rulesInput(o.Amount(), on, Money{})
	rule, err := ComputePurchase(in, p)
	if err != nil {
		return 0, err
	}
	if rule.Class2NoticeRequired {
		return 2, nil
	}
	class1, err := Class1NoticeRequired(in, p)
	if err != nil || !class1 {
		return 0, err
	}
	return 1, nil
}

// firstInsertion is the day an order's notice was first published; ok is
// false when no notice is recorded.
func (o Order) firstInsertion() (Date, bool) {
	if len(o.Notices) == 0 {
		return Date{}, false
	}
	return slices.MinFunc(o.Notices, func(a, b Date) int { return a.Compare(b) }), true
}

// rulesInput is the order's question to `5.12/purchase` for amount on
// day on: its category, buyer and the grounds on which §5.13 does not
// apply, an emergency resolution counting until the board declared the
// emergency over (§5.13(4)).
func (o Order) rulesInput(amount Money, on Date, available Money) PurchaseInput {
	resolution := o.EmergencyResolution != "" && (o.EmergencyEnded.IsZero() || o.EmergencyEnded.After(on))
	return PurchaseInput{Amount: amount, Category: o.Category, Emergency: o.Emergency, Buyer: o.Buyer, CounterpartyMunicipal: o.Municipal,
		VillageOwnWork: o.OwnWork, EmergencyResolution: resolution, AvailableAppropriation: available, On: on}
}

// noticeBeforeBid refuses, from ledger format 6, a bid on an order that
// needs a class 2 notice (§5.13(1)) until the notice's publication is
// recorded, its first insertion on or before the day the bid was
// received: the village advertises for proposals before it takes them.
// Whether the order needs the notice is read from its estimate, as
// §5.13(1) asks it of purchases "expected to cost" more than the
// threshold; the award checks it again on the amount awarded.
func noticeBeforeBid(tx Tx, env Env, o *Order, b *OrderBid) error {
	if RulesFormat(tx) < ReconciledFormat {
		return nil
	}
	rule, err := ComputePurchase(o.rulesInput(o.Estimate, b.Received, Money{}), env.Params)
	if err != nil || !rule.Class2NoticeRequired {
		return err
	}
	first, ok := o.firstInsertion()
	switch {
	case !ok:
		return Errorf(EINVALID, "§5.13(1)", "Order %s is expected to cost %s, over %s: record the publication of its class 2 notice before its bids.", o.ID, dollarsIn(tx, o.Estimate), dollarsIn(tx, env.Params.At(b.Received).Class2NoticeThreshold))
	case first.After(b.Received):
		return Errorf(EINVALID, "§5.13(1)", "The class 2 notice of order %s was first published on %s, after the bid of %s was received on %s: bids are taken once the notice is published.", o.ID, first, b.Vendor, b.Received)
	}
	return nil
}

func bidOrder(tx Tx, env Env, o *Order, p *OrderChange) error {
	b := p.Bid
	switch {
	case o.Status != OrderDraft:
		return Errorf(ECONFLICT, "§5.12(4)", "Order %s was awarded on %s: no bid is taken after the award.", o.ID, awardDay(o))
	case b == nil || strings.TrimSpace(b.Vendor) == "" || !b.Amount.IsPositive() || b.Received.IsZero():
		return Errorf(EINVALID, "§5.12(4)", "A bid needs the bidder, an amount over $0.00 and the day it was received.")
	case !o.BidsOpen.IsZero() && b.Received.After(o.BidsOpen):
		return Errorf(EINVALID, "§5.13(1)", "The bid of %s was received %s, after the bids were opened on %s.", b.Vendor, b.Received, o.BidsOpen)
	case slices.ContainsFunc(o.Bids, func(x OrderBid) bool { return strings.EqualFold(x.Vendor, b.Vendor) }):
		return Errorf(ECONFLICT, "§5.12(4)", "Order %s has a bid of %s already.", o.ID, b.Vendor)
	}
	if err := noticeBeforeBid(tx, env, o, b); err != nil {
		return err
	}
	o.Bids = append(o.Bids, *b)
	return nil
}

func awardDay(o *Order) Date {
	if o.Award != nil {
		return o.Award.On
	}
	return Date{}
}

// awardOrder chooses a bid by the rule `5.12/purchase`, with the
// appropriation's available balance from the ledger.
func awardOrder(tx Tx, c Command, env Env, o *Order, p *OrderChange) error {
	if o.Status != OrderDraft {
		return Errorf(ECONFLICT, sectionPurchasing, "Order %s is %s: it was awarded on %s.", o.ID, o.Status, awardDay(o))
	}
	aw := p.Award
	if aw == nil || strings.TrimSpace(aw.Vendor) == "" || !aw.Amount.IsPositive() || aw.On.IsZero() {
		return Errorf(EINVALID, sectionPurchasing, "An award needs the vendor, the amount and its date.")
	}
	if aw.On.After(c.At.Date) {
		return Errorf(EINVALID, sectionPurchasing, "The award is dated %s, after today.", aw.On)
	}
	a, err := loadAppropriation(tx, o.Year, o.Line)
	if err != nil {
		return err
	}
	rule, err := ComputePurchase(o.rulesInput(aw.Amount, aw.On, a.Available()), env.Params)
	if err != nil {
		return err
	}
	award := *aw
	award.By, award.Basis = c.Actor, rule.AwardBasis
	if rule.EmergencyDirectPurchase {
		award.Basis = "emergency"
	} else {
		if o.Emergency && o.Buyer == BuyerDepartmentHead {
			limit := env.Params.At(aw.On).EmergencyLimitDepartmentHead
			return Errorf(EFORBIDDEN, "§5.12(7)", "A department head buys directly in an emergency only under %s; %s goes through the Purchasing Agent, with bids and the certification of funds.", dollarsIn(tx, limit), dollarsIn(tx, aw.Amount))
		}
		i := slices.IndexFunc(o.Bids, func(b OrderBid) bool { return strings.EqualFold(b.Vendor, aw.Vendor) })
		switch {
		case len(o.Bids) == 0:
			return Errorf(EINVALID, "§5.12(4)", "Order %s has no bids: record the bids before the award (an emergency purchase over the buyer's limit follows the ordinary rules).", o.ID)
		case i < 0:
			return Errorf(EINVALID, "§5.12(4)", "%s did not bid on order %s.", aw.Vendor, o.ID)
		case !o.Bids[i].Amount.Equal(aw.Amount):
			return Errorf(EINVALID, "§5.12(4)", "%s bid %s, not %s.", aw.Vendor, dollarsIn(tx, o.Bids[i].Amount), dollarsIn(tx, aw.Amount))
		case len(o.Bids) < 3 && strings.TrimSpace(aw.Reasons) == "":
			return Errorf(EINVALID, "§5.12(4)", "Open-market purchases are based on at least three bids wherever possible; with %d, give the reasons.", len(o.Bids))
		}
		lowest := o.Bids[0]
		for _, b := range o.Bids[1:] {
			if b.Amount.LessThan(lowest.Amount) {
				lowest = b
			}
		}
		if rule.Class2NoticeRequired {
			first, second := Class2Deadline(o.BidsOpen)
			switch {
			case !Class2Qualifies(o.Notices, o.BidsOpen):
				if o.BidsOpen.IsZero() {
					return Errorf(EINVALID, "§5.13(1)", "A contract for materials or supplies over %s needs a class 2 notice before bids open: record its two insertions and the day bids open.", dollarsIn(tx, env.Params.At(aw.On).Class2NoticeThreshold))
				}
				return Errorf(EINVALID, "§5.13(1)", "The class 2 notice does not qualify for bids opened %s: two insertions in consecutive weeks, the first by %s and the second by %s.", o.BidsOpen, first, second)
			case aw.On.Before(o.BidsOpen):
				return Errorf(EINVALID, "§5.13(1)", "The bids open on %s; the award cannot come before.", o.BidsOpen)
			case aw.Amount.GreaterThan(lowest.Amount) && strings.TrimSpace(aw.Reasons) == "":
				return Errorf(EINVALID, "§5.13(2)", "The contract goes to the lowest responsible bidder: %s bid %s, less than %s; give the reasons %s is passed over.", lowest.Vendor, dollarsIn(tx, lowest.Amount), aw.Vendor, lowest.Vendor)
			}
		}
		if err := class1Notice(tx, env, o, aw); err != nil {
			return err
		}
		if err := approveAward(tx, c, env, &award, rule.BoardApprovalRequired); err != nil {
			return err
		}
	}
	o.Award, o.Rule, o.Status = &award, &rule, OrderAwarded
	if rule.EmergencyDirectPurchase {
		// The certification of funds is waived for an emergency purchase
		// under the buyer's limit; it still draws on the appropriation.
		if err := encumber(tx, o.Year, o.Line, o.ID, "order", aw.On, aw.Amount, o.Description, true); err != nil {
			return err
		}
		o.Held, o.Status = aw.Amount, OrderCertified
		o.Certified = &Act{By: c.Actor, At: c.At, Available: a.Available(), Reason: "waived: emergency purchase under the buyer's limit (§5.12(7))"}
	}
	return nil
}

// class1Notice refuses, from ledger format 6, the award of a contract
// that needs a class 1 notice (Class1NoticeRequired: Wis. Stat. 62.15(1)
// via 61.54, the class1_notice_threshold parameter) unless the notice was
// published on or before the award: the statute asks it before the
// contract is let, not before the bids.
func class1Notice(tx Tx, env Env, o *Order, aw *Award) error {
	if RulesFormat(tx) < ReconciledFormat {
		return nil
	}
	need, err := Class1NoticeRequired(o.rulesInput(aw.Amount, aw.On, Money{}), env.Params)
	if err != nil || !need {
		return err
	}
	v := env.Params.At(aw.On)
	first, ok := o.firstInsertion()
	switch {
	case !ok:
		return Errorf(EINVALID, "§5.13(1)", "A contract for materials or supplies over %s, up to %s, needs a class 1 notice before it is let (Wis. Stat. 62.15): record its publication first.", dollarsIn(tx, v.Class1NoticeThreshold), dollarsIn(tx, v.Class2NoticeThreshold))
	case first.After(aw.On):
		return Errorf(EINVALID, "§5.13(1)", "The class 1 notice of order %s was published on %s, after the award on %s.", o.ID, first, aw.On)
	}
	return nil
}

// approveAward checks the board's approval of an award that needs it
// (§5.12(4): 3,000.00 or more). Before ledger format 6 the approval is the
// board's motion or resolution in free text with its date, as earlier
// releases took it. From format 6 it is the board's vote at a meeting,
// dated on or before the award (approvalVote); the free text is refused
// then, so that the record says when the board met and how it voted. A
// vote on an award that does not need one is checked and kept all the
// same.
func approveAward(tx Tx, c Command, env Env, aw *Award, required bool) error {
	const sec = "§5.12(4)"
	threshold := env.Params.At(aw.On).BoardApprovalThreshold
	if RulesFormat(tx) < ReconciledFormat {
		switch {
		case aw.Vote != nil:
			return Errorf(EINVALID, sec, "The board's vote on an award is recorded from ledger format 6; name the motion or resolution and its date.")
		case !required:
			return nil
		case strings.TrimSpace(aw.BoardApproval) == "" || aw.BoardApprovedOn.IsZero():
			return Errorf(EINVALID, sec, "A purchase of %s or more needs the board's approval: name the motion or resolution and its date.", dollarsIn(tx, threshold))
		case aw.BoardApprovedOn.After(aw.On):
			return Errorf(EINVALID, sec, "The board's approval (%s) comes before the award (%s).", aw.BoardApprovedOn, aw.On)
		}
		return nil
	}
	if strings.TrimSpace(aw.BoardApproval) != "" || !aw.BoardApprovedOn.IsZero() {
		return Errorf(EINVALID, sec, "The board's approval is recorded as the meeting's date and the vote (ayes, nays, members present), not as a description.")
	}
	if aw.Vote == nil {
		if required {
			return Errorf(EINVALID, sec, "A purchase of %s or more needs the board's approval: record the meeting's date and the vote (ayes, nays, members present).", dollarsIn(tx, threshold))
		}
		return nil
	}
	v, err := approvalVote(*aw.Vote, env.Params, c.At.Date)
	if err != nil {
		return err
	}
	switch {
	case v.On.After(aw.On):
		return Errorf(EINVALID, sec, "The board's approval (%s) comes before the award (%s).", v.On, aw.On)
	case !v.Passed:
		return Errorf(EINVALID, sec, "The board did not approve the purchase on %s: %d ayes and %d nays with %d members present; it needs %d members present and %d ayes.", v.On, v.Ayes, v.Nays, v.Present, v.Board/2+1, v.Required)
	}
	v.Recorded, v.By = c.At, c.Actor
	aw.Vote = &v
	return nil
}

// approvalVote is the outcome of the board's vote on a purchase
// (§5.12(4)), validated as the budget's votes are (ComputeBudgetVote,
// with the board_size in force on the meeting's day): 0 ≤ ayes ≤ present
// ≤ the board, and the ayes and nays together at most the members
// present. The ordinance sets no majority for the approval of a purchase,
// so the reading is the board's ordinary one: the quorum of §5.03 present
// (a majority of the board) and a majority of the votes cast, ayes more
// than nays (Required is the ayes that takes).
func approvalVote(in BudgetVoteRecord, p *Params, today Date) (BudgetVoteRecord, error) {
	const sec = "§5.12(4)"
	switch {
	case in.On.IsZero() || in.On.After(today):
		return in, Errorf(EINVALID, sec, "The board's vote needs the date of the meeting, today or before.")
	case in.Action != "" || len(in.Votes) > 0 || len(in.Changes) > 0 || in.Amendment != 0 || in.Purpose != "":
		return in, Errorf(EINVALID, sec, "The board's approval of a purchase records the meeting's date and the count of the vote: ayes, nays and members present.")
	case in.Nays < 0 || in.Ayes+in.Nays > in.Present:
		return in, Errorf(EINVALID, sec, "The vote does not add up: %d ayes and %d nays, but %d members present.", in.Ayes, in.Nays, in.Present)
	}
	size := p.At(in.On).BoardSize
	outcome, err := ComputeBudgetVote(BudgetVoteInput{Action: BudgetAdopt, BoardSize: size, Present: in.Present, Ayes: in.Ayes, On: in.On}, p)
	if err != nil {
		return in, err
	}
	need := (in.Ayes+in.Nays)/2 + 1
	return BudgetVoteRecord{On: in.On, Present: in.Present, Ayes: in.Ayes, Nays: in.Nays, Board: size, Required: need,
		Passed: in.Present >= outcome.Quorum && in.Ayes >= need}, nil
}

func issueOrder(o *Order, c Command) error {
	switch o.Status {
	case OrderCertified:
	case OrderAwarded:
		return Errorf(ECONFLICT, "§5.12(6)", "Order %s waits for the treasurer to certify the funds; it is not issued before.", o.ID)
	default:
		return Errorf(ECONFLICT, sectionPurchasing, "Order %s is %s: only a certified order is issued.", o.ID, o.Status)
	}
	o.Issued, o.Status = &Act{By: c.Actor, At: c.At}, OrderIssued
	return nil
}

func cancelOrder(tx Tx, c Command, o *Order, p *OrderChange) error {
	if o.Status == OrderReceived || o.Status == OrderCancelled {
		return Errorf(ECONFLICT, sectionPurchasing, "Order %s is %s.", o.ID, o.Status)
	}
	if len(o.Receipts) > 0 {
		return Errorf(ECONFLICT, sectionPurchasing, "Order %s has deliveries; close it with its final delivery instead.", o.ID)
	}
	if strings.TrimSpace(p.Reason) == "" {
		return Errorf(EINVALID, sectionPurchasing, "A cancellation needs its reason.")
	}
	if err := release(tx, o.Year, o.Line, o.Held); err != nil {
		return err
	}
	o.Held, o.Status, o.Cancelled = Money{}, OrderCancelled, &Act{By: c.Actor, At: c.At, Reason: p.Reason}
	return nil
}

// CertifyFunds is the treasurer's certification that the appropriation
// of an awarded order has a balance, in excess of all unpaid obligations,
// to defray it (§5.12(6)): it encumbers the order. From ledger format 6
// the treasurer may instead refuse it (Refuse, with the Reason): the
// refusal is recorded on the order, which stays unissued, and the public
// record shows it as such, not as awarded.
type CertifyFunds struct {
	Order  string `json:"order"`
	Refuse bool   `json:"refuse,omitempty"` // format 6
	Reason string `json:"reason,omitempty"` // why it is refused
}

// Kind names the payload's kind.
func (*CertifyFunds) Kind() Kind { return KindCertifyFunds }

func (p *CertifyFunds) textFields() []textField {
	return []textField{oneLine("The order", p.Order), manyLines("The reason", p.Reason)}
}

var certifyFundsKind = &Descriptor{
	Kind: KindCertifyFunds, Section: "§5.12(6)", Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CertifyFunds) },
	Apply: applyCertifyFunds,
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		commitmentLines(l, tx, res.Ref)
		if c.Payload.(*CertifyFunds).Refuse {
			return "funds not certified for " + res.Ref
		}
		return "funds certified for " + res.Ref
	},
}

func applyCertifyFunds(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*CertifyFunds)
	const sec = "§5.12(6)"
	format := RulesFormat(tx)
	if (p.Refuse || p.Reason != "") && format < ReconciledFormat {
		return Errorf(EINVALID, sec, "A refusal to certify the funds is recorded from ledger format 6.")
	}
	o, err := loadOrder(tx, p.Order)
	if err != nil {
		return err
	}
	if o.Status != OrderAwarded {
		return Errorf(ECONFLICT, sec, "Order %s is %s: funds are certified for an awarded order.", o.ID, o.Status)
	}
	a, err := loadAppropriation(tx, o.Year, o.Line)
	if err != nil {
		return err
	}
	if p.Refuse {
		switch {
		case o.Refused != nil:
			return Errorf(ECONFLICT, sec, "The funds of order %s were refused at %s.", o.ID, o.Refused.At)
		case strings.TrimSpace(p.Reason) == "":
			return Errorf(EINVALID, sec, "Say why the funds are not certified.")
		}
		o.Refused = &Act{By: c.Actor, At: c.At, Available: a.Available(), Reason: strings.TrimSpace(p.Reason)}
		res.Ref, res.Note = o.ID, fmt.Sprintf("funds not certified for %s: %s of %s available", o.ID, dollarsIn(tx, o.Award.Amount), dollarsIn(tx, a.Available()))
		return putOrder(tx, o)
	}
	if p.Reason != "" {
		return Errorf(EINVALID, sec, "A certification carries no reason; a refusal does.")
	}
	if err := encumber(tx, o.Year, o.Line, o.ID, "order", c.At.Date, o.Award.Amount, o.Description, false); err != nil {
		return err
	}
	o.Held, o.Status = o.Award.Amount, OrderCertified
	o.Certified = &Act{By: c.Actor, At: c.At, Available: a.Available()}
	res.Ref, res.Note = o.ID, fmt.Sprintf("funds certified for %s: %s of %s available", o.ID, dollarsIn(tx, o.Award.Amount), dollarsIn(tx, a.Available()))
	return putOrder(tx, o)
}

// OrderReceipt records a delivery inspected and what it invoiced.
type OrderReceipt struct {
	Order    string `json:"order"`
	Delivery `json:"delivery"`
}

// Kind names the payload's kind.
func (*OrderReceipt) Kind() Kind { return KindOrderReceipt }

func (p *OrderReceipt) textFields() []textField {
	f := []textField{oneLine("The order", p.Order), oneLine("The inspector", p.Inspector), manyLines("The notes", p.Notes), oneLine("The invoice", p.Invoice)}
	for _, t := range p.Tests {
		f = append(f, oneLine("A test", t.Description))
	}
	return f
}

var orderReceiptKind = &Descriptor{
	Kind: KindOrderReceipt, Section: "§5.12(8)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleDepartmentHead},
	New:   func() Payload { return new(OrderReceipt) },
	Apply: applyOrderReceipt,
	Books: orderReceiptLines,
}

// orderReceiptLines post a delivery as its rule charged it (§5.12(8)):
// each expense it charged (the invoice, each test) debited to the order's
// line and credited to invoices payable of the line's fund, owed until
// the claim for it is allowed (§5.07(3)); and what the order held of its
// appropriation released as far as the delivery liquidated or closed it.
func orderReceiptLines(l *Lines, tx Tx, c Command, res Result) string {
	o, err := loadOrder(tx, res.Ref)
	if err != nil || len(o.Receipts) == 0 {
		l.err = err
		return ""
	}
	d := o.Receipts[len(o.Receipts)-1]
	for _, id := range d.Expenses {
		var e Expense
		if _, err := tx.Get(CollectionExpenses, id, &e); err != nil {
			l.err = err
			return ""
		}
		memo := "delivery on " + o.ID + ": " + e.Description
		l.Debit(e.Line, e.Amount, "§5.12(8)", memo)
		l.Credit(l.Control(l.FundOf(e.Line), ControlInvoiced), e.Amount, "§5.12(8)", memo)
	}
	commitmentLines(l, tx, o.ID)
	return "delivery on " + o.ID
}

// applyOrderReceipt records a delivery: a conforming one charges its
// invoice to the order's appropriation (what the order held becomes
// expended), and every test to the same appropriation; the final delivery
// releases what the order still holds and closes it. A delivery that does
// not conform is recorded and charges nothing.
func applyOrderReceipt(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*OrderReceipt)
	const sec = "§5.12(8)"
	o, err := loadOrder(tx, p.Order)
	if err != nil {
		return err
	}
	if err := mayActFor(tx, c, o.Unit, "receive the deliveries of"); err != nil {
		return err
	}
	d := p.Delivery
	switch {
	case o.Status != OrderIssued && !(o.Status == OrderCertified && o.Award != nil && o.Award.Basis == "emergency"):
		return Errorf(ECONFLICT, sec, "Order %s is %s: deliveries are received on an issued order.", o.ID, o.Status)
	case d.On.IsZero() || d.On.After(c.At.Date):
		return Errorf(EINVALID, sec, "A delivery needs the day it was inspected, today or before.")
	case strings.TrimSpace(d.Inspector) == "":
		return Errorf(EINVALID, sec, "A delivery names who inspected it.")
	case d.Invoiced.IsNegative() || (d.Conforms && !d.Invoiced.IsPositive() && len(d.Tests) == 0):
		return Errorf(EINVALID, sec, "A conforming delivery needs the amount invoiced.")
	case d.Conforms && strings.TrimSpace(d.Invoice) == "":
		return Errorf(EINVALID, sec, "A conforming delivery needs the vendor's invoice number.")
	case !d.Conforms && strings.TrimSpace(d.Notes) == "":
		return Errorf(EINVALID, sec, "A delivery that does not conform needs notes on how it differs from the order.")
	case o.Emergency && o.Award != nil && o.Award.Basis == "emergency" && d.Conforms && strings.TrimSpace(d.Invoice) == "":
		return Errorf(EINVALID, "§5.12(7)", "An emergency purchase files a copy of its invoice.")
	}
	for _, t := range d.Tests {
		if strings.TrimSpace(t.Description) == "" || !t.Cost.IsPositive() {
			return Errorf(EINVALID, sec, "Each test needs what was tested and its cost, over $0.00.")
		}
	}
	d.Expenses = nil
	if d.Conforms && d.Invoiced.IsPositive() {
		id, err := chargeExpense(tx, c, Expense{Line: o.Line, On: d.On, Amount: d.Invoiced, Payee: o.Award.Vendor, Description: o.Description + ", invoice " + d.Invoice, Against: o.ID})
		if err != nil {
			return err
		}
		d.Expenses = append(d.Expenses, id)
		if o, err = loadOrder(tx, o.ID); err != nil {
			return err
		}
	}
	for _, t := range d.Tests {
		id, err := chargeExpense(tx, c, Expense{Line: o.Line, On: d.On, Amount: t.Cost, Payee: "tests", Description: "test for " + o.ID + ": " + t.Description})
		if err != nil {
			return err
		}
		d.Expenses = append(d.Expenses, id)
	}
	if d.Final {
		if err := release(tx, o.Year, o.Line, o.Held); err != nil {
			return err
		}
		o.Held, o.Status = Money{}, OrderReceived
	}
	o.Receipts = append(o.Receipts, d)
	res.Ref, res.Note = o.ID, fmt.Sprintf("delivery on %s: %s invoiced", o.ID, dollarsIn(tx, d.Invoiced))
	return putOrder(tx, o)
}

// Order returns a purchase order.
func (x Reads) Order(id string) (Order, error) {
	return must[Order](x.r, CollectionOrders, id, "purchase order")
}

// Orders returns the purchase orders of year, by number.
func (x Reads) Orders(year int) ([]Order, error) {
	return all[Order](x.r, CollectionOrders, fmt.Sprintf("PO-%d-", year))
}

// AllOrders returns every purchase order, by number.
func (x Reads) AllOrders() ([]Order, error) { return all[Order](x.r, CollectionOrders, "PO-") }

// PublicRecord returns what the public may inspect of an order (§5.12(5),
// §5.12(7)): an awarded order with its bids, or an emergency purchase with
// its invoice and explanation, and where it stands. claims are the claims
// of the order's year (any others are passed over): what checks paid on
// the order's claims is what the record shows as paid, never the award
// nor what deliveries invoiced. ok is false for an order still taking bids
// or cancelled before its award.
func (o Order) PublicRecord(claims []Claim) (PublicPurchase, bool) {
	if o.Award == nil {
		return PublicPurchase{}, false
	}
	p := PublicPurchase{ID: o.ID, Date: o.Award.On, Description: o.Description, Vendor: o.Award.Vendor, Amount: o.Award.Amount,
		Category: o.Category, Emergency: o.Award.Basis == "emergency", Explanation: o.Explanation, Status: string(o.Status),
		Basis: o.Award.Basis, Reasons: o.Award.Reasons, Notices: o.Notices, BidsOpen: o.BidsOpen, BoardApproval: o.Award.BoardApproval,
		Vote: o.Award.Vote}
	for _, b := range o.Bids {
		p.Bids = append(p.Bids, Bid{Vendor: b.Vendor, Amount: b.Amount})
	}
	var invoiced Money
	for _, d := range o.Receipts {
		if d.Invoice != "" {
			p.Invoice = d.Invoice
		}
		if d.Conforms {
			invoiced = invoiced.Add(d.Invoiced)
		}
	}
	for _, cl := range claims {
		if cl.Order != o.ID || cl.Status != ClaimPaid {
			continue
		}
		p.Paid = p.Paid.Add(cl.Amount)
	}
	p.Standing = o.standing(p.Paid, invoiced)
	if p.Standing == StandingFundsRefused {
		p.Refusal = o.Refused.Reason
	}
	switch {
	case o.Municipal:
		p.Ground = "§5.13(3): a contract with another municipality"
	case o.OwnWork:
		p.Ground = "§5.13(5): work done by the village itself"
	case o.EmergencyResolution != "":
		p.Ground = "§5.13(4): emergency declared by resolution " + o.EmergencyResolution
	}
	return p, true
}

// standing is where an awarded order stands (the Standing… constants),
// given what checks paid on its claims and what its conforming deliveries
// invoiced.
func (o Order) standing(paid, invoiced Money) string {
	switch {
	case paid.IsPositive() && (!paid.LessThan(o.Award.Amount) || (o.Status == OrderReceived && !paid.LessThan(invoiced))):
		return StandingPaid
	case paid.IsPositive():
		return StandingPaidInPart
	case o.Status == OrderCancelled:
		return StandingCancelled
	case o.Certified != nil:
		return StandingAwarded
	case o.Refused != nil:
		return StandingFundsRefused
	}
	return StandingAwaitingFunds
}
