package purchasing

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// One purchase order's page: where it stands, its bids and notice, what
// `5.12/purchase` required at its award, the certification, the issue and
// each delivery; and the form of its next step.

func (m *Module) showOrder(w http.ResponseWriter, r *http.Request) {
	m.orderPage(w, r, http.StatusOK, "")
}

func (m *Module) orderPage(w http.ResponseWriter, r *http.Request, status int, problem string) {
	o, err := m.o.Reads().Order(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	a, _ := m.o.Reads().Appropriation(o.Year, o.Line)
	who := m.o.Who(r)
	params := m.o.Ledger().Params().At(m.o.Today())
	v := orderView{ID: o.ID, Year: o.Year, Line: o.Line, Unit: o.Unit, Description: o.Description, Category: strings.ReplaceAll(string(o.Category), "_", " "),
		Estimate: dollars(o.Estimate), Buyer: strings.ReplaceAll(string(o.Buyer), "_", " "), Status: string(o.Status), Emergency: o.Emergency, Explanation: o.Explanation,
		Requisition: o.Requisition, Solicited: o.Solicited, Available: dollars(a.Available()), Held: dollars(o.Held), Paid: dollars(o.Paid),
		Created: o.Created.String(), CreatedBy: o.CreatedBy, Error: problem, Today: m.o.Today().String(),
		CanAct: staff.Allowed(who.Role, staff.CapPurchasing), CanCertify: staff.Allowed(who.Role, staff.CapCertify),
		BoardThreshold: dollars(params.BoardApprovalThreshold), Class1Threshold: dollars(params.Class1NoticeThreshold), Class2Threshold: dollars(params.Class2NoticeThreshold)}
	switch {
	case o.Municipal:
		v.Ground = "a contract with another municipality (§5.13(3))"
	case o.OwnWork:
		v.Ground = "work done by the village itself (§5.13(5))"
	case o.EmergencyResolution != "":
		v.Ground = "an emergency declared by resolution " + o.EmergencyResolution + " (§5.13(4))"
	}
	for _, d := range o.Notices {
		v.Notices = append(v.Notices, d.String())
	}
	if !o.BidsOpen.IsZero() {
		v.BidsOpen = o.BidsOpen.String()
		first, second := domain.Class2Deadline(o.BidsOpen)
		v.NoticeFirstBy, v.NoticeSecondBy = first.String(), second.String()
		v.NoticeQualifies = domain.Class2Qualifies(o.Notices, o.BidsOpen)
	}
	if class, err := o.NoticeClass(m.o.Today(), m.o.Ledger().Params()); err == nil && (o.Status == domain.OrderDraft || len(o.Notices) > 0) {
		v.NoticeClass, v.NoticeAsksOpen = class, class == 2 && o.BidsOpen.IsZero()
	}
	for _, b := range o.Bids {
		v.Bids = append(v.Bids, bidView{Vendor: b.Vendor, Amount: dollars(b.Amount), Received: b.Received.String(), Notes: b.Notes})
	}
	if o.Award != nil {
		v.Award = &awardView{Vendor: o.Award.Vendor, Amount: dollars(o.Award.Amount), Basis: strings.ReplaceAll(o.Award.Basis, "_", " "), Reasons: o.Award.Reasons,
			On: o.Award.On.String(), BoardApproval: o.Award.BoardApproval, BoardApprovedOn: dateOf(o.Award.BoardApprovedOn), By: o.Award.By}
		if vt := o.Award.Vote; vt != nil {
			v.Award.Vote = &voteView{Meeting: vt.On.String(), Present: vt.Present, Ayes: vt.Ayes, Nays: vt.Nays}
		}
	}
	if pub, ok, err := m.publicRecord(o); err != nil {
		m.o.Fail(w, r, err)
		return
	} else if ok {
		v.Standing, v.PaidByCheck = strings.ReplaceAll(pub.Standing, "_", " "), dollars(pub.Paid)
	}
	v.Votes, v.Refusable = m.votes(), m.votes() && o.Refused == nil
	if o.Rule != nil {
		v.Rule = &ruleView{BoardApproval: o.Rule.BoardApprovalRequired, Bids: o.Rule.CompetitiveBidsRequired, Class2: o.Rule.Class2NoticeRequired,
			Funds: o.Rule.FundsCertified, Direct: o.Rule.EmergencyDirectPurchase, Record: strings.ReplaceAll(o.Rule.PublicRecord, "_", " ")}
	}
	if o.Certified != nil {
		v.Certified = actOf(*o.Certified)
	}
	if o.Refused != nil {
		v.Refused = actOf(*o.Refused)
	}
	if o.Issued != nil {
		v.Issued = actOf(*o.Issued)
	}
	if o.Cancelled != nil {
		v.Cancelled = actOf(*o.Cancelled)
	}
	for _, d := range o.Receipts {
		dv := deliveryView{On: d.On.String(), Inspector: d.Inspector, Conforms: d.Conforms, Notes: d.Notes, Invoice: d.Invoice, Invoiced: dollars(d.Invoiced), Final: d.Final, Expenses: d.Expenses}
		for _, t := range d.Tests {
			dv.Tests = append(dv.Tests, t.Description+" ("+dollars(t.Cost)+")")
		}
		v.Deliveries = append(v.Deliveries, dv)
	}
	v.Draft = o.Status == domain.OrderDraft
	v.Awarded = o.Status == domain.OrderAwarded
	v.Certifiable = o.Status == domain.OrderCertified && (o.Award == nil || o.Award.Basis != "emergency")
	v.Receivable = o.Status == domain.OrderIssued || (o.Status == domain.OrderCertified && o.Award != nil && o.Award.Basis == "emergency")
	v.Cancellable = o.Status != domain.OrderReceived && o.Status != domain.OrderCancelled && len(o.Receipts) == 0
	m.o.Render(w, r, status, orderPage(m.o.Frame(r, "Order "+o.ID), v))
}

// publicRecord is the order's public record (§5.12(5)), which says where
// it stands and what checks paid on its claims.
func (m *Module) publicRecord(o domain.Order) (domain.PublicPurchase, bool, error) {
	claims, err := m.o.Reads().Claims(o.Year)
	if err != nil {
		return domain.PublicPurchase{}, false, err
	}
	p, ok := o.PublicRecord(claims)
	return p, ok, nil
}

func dateOf(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}

func actOf(a domain.Act) *actView {
	v := &actView{By: a.By, At: a.At.String(), Reason: a.Reason}
	if !a.Available.IsZero() {
		v.Available = dollars(a.Available)
	}
	return v
}

// submitOrderOp serves POST /staff/orders/{id}/{op}: the next step of an
// order, read strictly from its form.
func (m *Module) submitOrderOp(w http.ResponseWriter, r *http.Request) {
	id, op := r.PathValue("id"), r.PathValue("op")
	var err error
	switch op {
	case "notice":
		err = m.orderNotice(r, id)
	case "bid":
		err = m.orderBid(r, id)
	case "award":
		err = m.orderAward(r, id)
	case "issue":
		_, err = m.o.Submit(r, &domain.OrderChange{Op: domain.OrderIssue, ID: id})
	case "cancel":
		_, err = m.o.Submit(r, &domain.OrderChange{Op: domain.OrderCancel, ID: id, Reason: m.o.Form(r, "reason")})
	case "receive":
		err = m.orderReceive(r, id)
	default:
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such step of an order."))
		return
	}
	m.afterOp(w, r, id, err)
}

func (m *Module) submitCertify(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	p := &domain.CertifyFunds{Order: id}
	if m.o.Form(r, "refuse") != "" {
		p.Refuse, p.Reason = true, m.o.Form(r, "reason")
	}
	_, err := m.o.Submit(r, p)
	m.afterOp(w, r, id, err)
}

func (m *Module) afterOp(w http.ResponseWriter, r *http.Request, id string, err error) {
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok && status != http.StatusNotFound {
			m.orderPage(w, r, status, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/orders/"+url.PathEscape(id))
}

func (m *Module) orderNotice(r *http.Request, id string) error {
	// A class 1 notice has no day of opening (Wis. Stat. 62.15(1)); the
	// ledger says whether a notice needs one.
	var open domain.Date
	if s := m.o.Form(r, "bids_open"); s != "" {
		var err error
		if open, err = staff.ParseDate("The day bids open", s); err != nil {
			return err
		}
	}
	var ins []domain.Date
	for _, name := range []string{"notice1", "notice2", "notice3"} {
		if s := m.o.Form(r, name); s != "" {
			d, err := staff.ParseDate("An insertion of the notice", s)
			if err != nil {
				return err
			}
			ins = append(ins, d)
		}
	}
	_, err := m.o.Submit(r, &domain.OrderChange{Op: domain.OrderNotice, ID: id, Notices: ins, BidsOpen: open})
	return err
}

func (m *Module) orderBid(r *http.Request, id string) error {
	amt, err := staff.ParseAmount("The bid", m.o.Form(r, "amount"))
	if err != nil {
		return err
	}
	on, err := staff.ParseDate("The day the bid was received", m.o.Form(r, "received"))
	if err != nil {
		return err
	}
	_, err = m.o.Submit(r, &domain.OrderChange{Op: domain.OrderBidOp, ID: id, Bid: &domain.OrderBid{Vendor: m.o.Form(r, "vendor"), Amount: amt, Received: on, Notes: m.o.Form(r, "notes")}})
	return err
}

func (m *Module) orderAward(r *http.Request, id string) error {
	amt, err := staff.ParseAmount("The amount awarded", m.o.Form(r, "amount"))
	if err != nil {
		return err
	}
	on, err := staff.ParseDate("The day of the award", m.o.Form(r, "on"))
	if err != nil {
		return err
	}
	aw := &domain.Award{Vendor: m.o.Form(r, "vendor"), Amount: amt, On: on, Reasons: m.o.Form(r, "reasons")}
	if m.votes() {
		if aw.Vote, err = m.boardVote(r); err != nil {
			return err
		}
	} else {
		aw.BoardApproval = m.o.Form(r, "board_approval")
		if s := m.o.Form(r, "board_approved_on"); s != "" {
			if aw.BoardApprovedOn, err = staff.ParseDate("The day of the board's approval", s); err != nil {
				return err
			}
		}
	}
	_, err = m.o.Submit(r, &domain.OrderChange{Op: domain.OrderAward, ID: id, Award: aw})
	return err
}

// boardVote reads the board's vote on an award from its form: the
// meeting's date and the count. A form without a meeting has no vote
// (the ledger says whether the award needs one); the counts are read
// strictly, a blank one as no count at all.
func (m *Module) boardVote(r *http.Request) (*domain.BudgetVoteRecord, error) {
	meeting := m.o.Form(r, "board_meeting")
	if meeting == "" {
		return nil, nil
	}
	on, err := staff.ParseDate("The day of the board's meeting", meeting)
	if err != nil {
		return nil, err
	}
	v := &domain.BudgetVoteRecord{On: on}
	for _, f := range []struct {
		name, label string
		n           *int
	}{{"board_present", "The members present", &v.Present}, {"board_ayes", "The ayes", &v.Ayes}, {"board_nays", "The nays", &v.Nays}} {
		s := m.o.Form(r, f.name)
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, domain.Errorf(domain.EINVALID, "§5.12(4)", "%s: a whole number, 0 or more, not %q.", f.label, s)
		}
		*f.n = n
	}
	return v, nil
}

// votes reports whether the ledger records the board's approval of an
// award as a vote at a meeting: from ledger format 6
// (domain.ReconciledFormat). Before, a node of an earlier release would
// not know the field, so the form asks for the motion in free text as it
// did. A ledger that does not say its format is this build's.
func (m *Module) votes() bool {
	return m.o.LedgerFormat() >= domain.ReconciledFormat
}

func (m *Module) orderReceive(r *http.Request, id string) error {
	on, err := staff.ParseDate("The day of the inspection", m.o.Form(r, "on"))
	if err != nil {
		return err
	}
	d := domain.Delivery{On: on, Inspector: m.o.Form(r, "inspector"), Conforms: m.o.Form(r, "conforms") == "yes", Notes: m.o.Form(r, "notes"), Invoice: m.o.Form(r, "invoice"),
		Final: r.PostForm.Get("final") != ""}
	if s := m.o.Form(r, "invoiced"); s != "" {
		if d.Invoiced, err = staff.ParseAmount("The amount invoiced", s); err != nil {
			return err
		}
	}
	if t := m.o.Form(r, "test"); t != "" {
		cost, err := staff.ParseAmount("The cost of the test", m.o.Form(r, "test_cost"))
		if err != nil {
			return err
		}
		d.Tests = []domain.TestCharge{{Description: t, Cost: cost}}
	}
	_, err = m.o.Submit(r, &domain.OrderReceipt{Order: id, Delivery: d})
	return err
}
