package domain

import (
	"fmt"
	"slices"
	"strings"
)

// The Purchasing Agent's other records (§5.12(3), (9), (10)): the
// departments' requisitions and estimates of their requirements, their
// reports of surplus stock and its transfer or sale, and the rules and
// regulations of purchasing with the board's approval of each version.

// Kinds of the purchasing records.
const (
	KindRequisition     Kind = "requisition"      // §5.12(3)
	KindSurplus         Kind = "surplus"          // §5.12(9)
	KindPurchasingRules Kind = "purchasing_rules" // §5.12(10)
)

// Collections of the purchasing records.
const (
	CollectionRequisitions    = "requisitions"     // id → Requisition
	CollectionSurplus         = "surplus"          // id → SurplusReport
	CollectionPurchasingRules = "purchasing-rules" // id "<version>" → RulesVersion
)

// Requisition is a department's detailed estimate of its requirements for
// a period, or a requisition for something not foreseen when the
// estimates were filed (§5.12(3)).
type Requisition struct {
	ID       string            `json:"id,omitempty"` // numbered by the ledger, "RQ-2026-004"
	Unit     string            `json:"unit"`
	Type     string            `json:"type"`             // estimate | requisition
	Period   string            `json:"period,omitempty"` // an estimate's period, "2027 Q1"
	Category Category          `json:"category"`
	Items    []RequisitionItem `json:"items"`
	NeededBy Date              `json:"needed_by,omitzero"`
	Filed    DateTime          `json:"filed,omitzero"`
	FiledBy  string            `json:"filed_by,omitempty"`
}

// RequisitionItem is one thing required.
type RequisitionItem struct {
	Description string `json:"description"`
	Quantity    int    `json:"quantity"`
	Estimated   Money  `json:"estimated"` // the estimated cost of the quantity
}

// Total is the requisition's estimated cost.
func (r Requisition) Total() Money {
	var m Money
	for _, it := range r.Items {
		m = m.Add(it.Estimated)
	}
	return m
}

// Kind names the payload's kind.
func (*Requisition) Kind() Kind { return KindRequisition }

func (p *Requisition) textFields() []textField {
	f := []textField{oneLine("The unit", p.Unit), oneLine("The period", p.Period)}
	for _, it := range p.Items {
		f = append(f, oneLine("An item", it.Description))
	}
	return f
}

var requisitionKind = &Descriptor{
	Kind: KindRequisition, Section: "§5.12(3)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleDepartmentHead},
	New:   func() Payload { return new(Requisition) },
	Apply: func(tx Tx, c Command, env Env, res *Result) error {
		r := *c.Payload.(*Requisition)
		const sec = "§5.12(3)"
		chart, err := loadChart(tx)
		if err != nil {
			return err
		}
		if u, ok := chart.Account(r.Unit); !ok || !u.Type.Unit() || u.Closed {
			return Errorf(EINVALID, sec, "There is no department, committee, commission or board %q in the chart of accounts.", r.Unit)
		}
		if err := mayActFor(tx, c, r.Unit, "file requisitions for"); err != nil {
			return err
		}
		switch {
		case r.Type != "estimate" && r.Type != "requisition":
			return Errorf(EINVALID, sec, "A requisition is an estimate of requirements or a requisition, not %q.", r.Type)
		case r.Type == "estimate" && strings.TrimSpace(r.Period) == "":
			return Errorf(EINVALID, sec, "An estimate of requirements names the period it covers.")
		case len(r.Items) == 0:
			return Errorf(EINVALID, sec, "A requisition lists at least one item.")
		}
		switch r.Category {
		case CategorySupplies, CategoryMaterials, CategoryEquipment, CategoryContractualServices:
		default:
			return Errorf(EINVALID, sec, "The category %q is not supplies, materials, equipment or contractual_services.", r.Category)
		}
		for _, it := range r.Items {
			if strings.TrimSpace(it.Description) == "" || it.Quantity < 1 || it.Estimated.IsNegative() {
				return Errorf(EINVALID, sec, "Each item needs a description, a quantity of 1 or more and an estimated cost of $0.00 or more.")
			}
		}
		n, err := nextNumber(tx, "requisitions/"+yearID(c.At.Date.Year()))
		if err != nil {
			return err
		}
		r.ID = fmt.Sprintf("RQ-%d-%03d", c.At.Date.Year(), n)
		r.Filed, r.FiledBy = c.At, c.Actor
		res.Ref, res.Note = r.ID, "requisition "+r.ID
		return tx.Put(CollectionRequisitions, r.ID, r)
	},
}

// Requisitions returns the requisitions of year, by number.
func (x Reads) Requisitions(year int) ([]Requisition, error) {
	return all[Requisition](x.r, CollectionRequisitions, fmt.Sprintf("RQ-%d-", year))
}

// SurplusReport is a department's report of stock on hand awaiting use
// (§5.12(9)), and what became of each item: kept, transferred to another
// unit that needs it, or sold on competitive bids as the board
// authorized.
type SurplusReport struct {
	ID       string        `json:"id"` // "SR-2026-002"
	Unit     string        `json:"unit"`
	Items    []SurplusItem `json:"items"`
	Reported DateTime      `json:"reported"`
	By       string        `json:"by"`
}

// SurplusItem is one item of stock reported.
type SurplusItem struct {
	Description string       `json:"description"`
	Quantity    int          `json:"quantity"`
	Condition   string       `json:"condition"`
	Transfer    *Transfer    `json:"transfer,omitempty"`
	Sale        *SurplusSale `json:"sale,omitempty"`
}

// Transfer is a transfer of surplus stock to another unit.
type Transfer struct {
	To string   `json:"to"`
	At DateTime `json:"at"`
	By string   `json:"by"`
}

// SurplusSale is the sale of surplus on competitive bids, as the board
// authorized it.
type SurplusSale struct {
	Authorization string     `json:"authorization"` // the board's motion or resolution
	Bids          []OrderBid `json:"bids"`
	Buyer         string     `json:"buyer"`
	Price         Money      `json:"price"`
	On            Date       `json:"on"`
	By            string     `json:"by"`
}

// SurplusChange reports surplus stock, or transfers or sells an item of a
// report.
type SurplusChange struct {
	Op     string        `json:"op"`               // report | transfer | sell
	Unit   string        `json:"unit,omitempty"`   // report
	Items  []SurplusItem `json:"items,omitempty"`  // report
	Report string        `json:"report,omitempty"` // transfer, sell
	Item   int           `json:"item,omitempty"`   // transfer, sell: the item's index, from 0
	To     string        `json:"to,omitempty"`     // transfer
	Sale   *SurplusSale  `json:"sale,omitempty"`   // sell
}

// Kind names the payload's kind.
func (*SurplusChange) Kind() Kind { return KindSurplus }

func (p *SurplusChange) textFields() []textField {
	f := []textField{oneLine("The unit", p.Unit), oneLine("The report", p.Report), oneLine("The unit it goes to", p.To)}
	for _, it := range p.Items {
		f = append(f, oneLine("An item", it.Description), oneLine("Its condition", it.Condition))
	}
	if p.Sale != nil {
		f = append(f, oneLine("The authorization", p.Sale.Authorization), oneLine("The buyer", p.Sale.Buyer))
		for _, b := range p.Sale.Bids {
			f = append(f, oneLine("A bidder", b.Vendor))
		}
	}
	return f
}

var surplusKind = &Descriptor{
	Kind: KindSurplus, Section: "§5.12(9)", Since: 2,
	Roles: []Role{RoleAdministrator, RoleDepartmentHead},
	New:   func() Payload { return new(SurplusChange) },
	Apply: applySurplus,
}

func applySurplus(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*SurplusChange)
	const sec = "§5.12(9)"
	chart, err := loadChart(tx)
	if err != nil {
		return err
	}
	isUnit := func(code string) bool { u, ok := chart.Account(code); return ok && u.Type.Unit() && !u.Closed }
	if p.Op == "report" {
		if !isUnit(p.Unit) {
			return Errorf(EINVALID, sec, "There is no department, committee, commission or board %q in the chart of accounts.", p.Unit)
		}
		if err := mayActFor(tx, c, p.Unit, "report the stock of"); err != nil {
			return err
		}
		if len(p.Items) == 0 {
			return Errorf(EINVALID, sec, "A report of surplus stock lists at least one item.")
		}
		for _, it := range p.Items {
			if strings.TrimSpace(it.Description) == "" || it.Quantity < 1 || strings.TrimSpace(it.Condition) == "" || it.Transfer != nil || it.Sale != nil {
				return Errorf(EINVALID, sec, "Each item needs a description, a quantity of 1 or more and its condition.")
			}
		}
		n, err := nextNumber(tx, "surplus/"+yearID(c.At.Date.Year()))
		if err != nil {
			return err
		}
		r := SurplusReport{ID: fmt.Sprintf("SR-%d-%03d", c.At.Date.Year(), n), Unit: p.Unit, Items: p.Items, Reported: c.At, By: c.Actor}
		res.Ref, res.Note = r.ID, "surplus report "+r.ID
		return tx.Put(CollectionSurplus, r.ID, r)
	}
	u, _, err := actor(tx, c)
	if err != nil {
		return err
	}
	if u.Role == RoleDepartmentHead {
		return Errorf(EFORBIDDEN, sec, "The Purchasing Agent transfers and sells surplus stock.")
	}
	var r SurplusReport
	ok, err := tx.Get(CollectionSurplus, p.Report, &r)
	switch {
	case err != nil:
		return err
	case !ok:
		return Errorf(ENOTFOUND, sec, "There is no surplus report %q.", p.Report)
	case p.Item < 0 || p.Item >= len(r.Items):
		return Errorf(EINVALID, sec, "Report %s has no item %d.", r.ID, p.Item+1)
	case r.Items[p.Item].Transfer != nil || r.Items[p.Item].Sale != nil:
		return Errorf(ECONFLICT, sec, "Item %d of report %s was transferred or sold already.", p.Item+1, r.ID)
	}
	it := &r.Items[p.Item]
	switch p.Op {
	case "transfer":
		if !isUnit(p.To) || p.To == r.Unit {
			return Errorf(EINVALID, sec, "Surplus goes to another department, committee, commission or board of the chart; %q is not one.", p.To)
		}
		it.Transfer = &Transfer{To: p.To, At: c.At, By: c.Actor}
	case "sell":
		s := p.Sale
		if s == nil || strings.TrimSpace(s.Authorization) == "" {
			return Errorf(EINVALID, sec, "A sale of surplus needs the board's authorization.")
		}
		if len(s.Bids) == 0 {
			return Errorf(EINVALID, sec, "A sale of surplus is based on competitive bids: record them.")
		}
		best := s.Bids[0]
		for _, b := range s.Bids {
			if strings.TrimSpace(b.Vendor) == "" || !b.Amount.IsPositive() {
				return Errorf(EINVALID, sec, "Each bid needs the bidder and an amount over $0.00.")
			}
			if b.Amount.GreaterThan(best.Amount) {
				best = b
			}
		}
		i := slices.IndexFunc(s.Bids, func(b OrderBid) bool { return strings.EqualFold(b.Vendor, s.Buyer) })
		if i < 0 || !s.Bids[i].Amount.Equal(s.Price) {
			return Errorf(EINVALID, sec, "The buyer and price must be one of the bids.")
		}
		if s.Price.LessThan(best.Amount) {
			return Errorf(EINVALID, sec, "%s bid %s, more than %s's %s: surplus is sold to the highest bid.", best.Vendor, dollarsIn(tx, best.Amount), s.Buyer, dollarsIn(tx, s.Price))
		}
		if s.On.IsZero() || s.On.After(c.At.Date) {
			return Errorf(EINVALID, sec, "A sale needs its date, today or before.")
		}
		sale := *s
		sale.By = c.Actor
		it.Sale = &sale
	default:
		return Errorf(EINVALID, sec, "A surplus change is a report, a transfer or a sale, not %q.", p.Op)
	}
	res.Ref, res.Note = r.ID, fmt.Sprintf("surplus %s item %d: %s", r.ID, p.Item+1, p.Op)
	return tx.Put(CollectionSurplus, r.ID, r)
}

// SurplusReports returns the surplus reports of year.
func (x Reads) SurplusReports(year int) ([]SurplusReport, error) {
	return all[SurplusReport](x.r, CollectionSurplus, fmt.Sprintf("SR-%d-", year))
}

// RulesVersion is one version of the rules and regulations of purchasing
// (§5.12(10)): prepared by the Purchasing Agent, in force once the board
// approves it.
type RulesVersion struct {
	Version    int      `json:"version"`
	Text       string   `json:"text"`
	Drafted    DateTime `json:"drafted"`
	DraftedBy  string   `json:"drafted_by"`
	Approval   string   `json:"approval,omitempty"` // the board's motion or resolution
	ApprovedOn Date     `json:"approved_on,omitzero"`
	Recorded   DateTime `json:"recorded,omitzero"`
	By         string   `json:"by,omitempty"`
}

// PurchasingRulesChange drafts a new version of the rules, or records the
// board's approval of a draft.
type PurchasingRulesChange struct {
	Op         string `json:"op"` // draft | approve
	Text       string `json:"text,omitempty"`
	Version    int    `json:"version,omitempty"` // approve
	Approval   string `json:"approval,omitempty"`
	ApprovedOn Date   `json:"approved_on,omitzero"`
}

// Kind names the payload's kind.
func (*PurchasingRulesChange) Kind() Kind { return KindPurchasingRules }

func (p *PurchasingRulesChange) textFields() []textField {
	return []textField{manyLines("The rules", p.Text), oneLine("The approval", p.Approval)}
}

var purchasingRulesKind = &Descriptor{
	Kind: KindPurchasingRules, Section: "§5.12(10)", Since: 2,
	Roles: []Role{RoleAdministrator},
	New:   func() Payload { return new(PurchasingRulesChange) },
	Apply: func(tx Tx, c Command, env Env, res *Result) error {
		p := c.Payload.(*PurchasingRulesChange)
		const sec = "§5.12(10)"
		var count int
		if _, err := tx.Get(CollectionPurchasingRules, "count", &count); err != nil {
			return err
		}
		switch p.Op {
		case "draft":
			if strings.TrimSpace(p.Text) == "" {
				return Errorf(EINVALID, sec, "The rules need their text.")
			}
			count++
			v := RulesVersion{Version: count, Text: p.Text, Drafted: c.At, DraftedBy: c.Actor}
			if err := tx.Put(CollectionPurchasingRules, "count", count); err != nil {
				return err
			}
			res.Note = fmt.Sprintf("purchasing rules: version %d drafted", count)
			return tx.Put(CollectionPurchasingRules, fmt.Sprintf("%04d", count), v)
		case "approve":
			var v RulesVersion
			ok, err := tx.Get(CollectionPurchasingRules, fmt.Sprintf("%04d", p.Version), &v)
			switch {
			case err != nil:
				return err
			case !ok:
				return Errorf(ENOTFOUND, sec, "There is no version %d of the rules.", p.Version)
			case !v.ApprovedOn.IsZero():
				return Errorf(ECONFLICT, sec, "Version %d was approved on %s.", v.Version, v.ApprovedOn)
			case strings.TrimSpace(p.Approval) == "" || p.ApprovedOn.IsZero() || p.ApprovedOn.After(c.At.Date):
				return Errorf(EINVALID, sec, "The approval names the board's motion or resolution and its date, today or before.")
			case p.ApprovedOn.Before(v.Drafted.Date):
				return Errorf(EINVALID, sec, "Version %d was drafted on %s; the board cannot have approved it on %s.", v.Version, v.Drafted.Date, p.ApprovedOn)
			}
			v.Approval, v.ApprovedOn, v.Recorded, v.By = p.Approval, p.ApprovedOn, c.At, c.Actor
			res.Note = fmt.Sprintf("purchasing rules: version %d approved", v.Version)
			return tx.Put(CollectionPurchasingRules, fmt.Sprintf("%04d", v.Version), v)
		}
		return Errorf(EINVALID, sec, "A change of the rules is a draft or an approval, not %q.", p.Op)
	},
}

// PurchasingRules returns every version of the rules, oldest first.
func (x Reads) PurchasingRules() ([]RulesVersion, error) {
	vs, err := all[RulesVersion](x.r, CollectionPurchasingRules, "0")
	return vs, err
}

// InForce returns the rules in force: the latest approved version.
func InForce(vs []RulesVersion) (RulesVersion, bool) {
	for _, v := range slices.Backward(vs) {
		if !v.ApprovedOn.IsZero() {
			return v, true
		}
	}
	return RulesVersion{}, false
}
