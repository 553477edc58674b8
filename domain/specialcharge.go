package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Special charges for current services (§5.14(13), Wis. Stat. 66.0809):
// snow and ice removal, weed elimination, street sprinkling, oiling or
// tarring, repair of sidewalks, curb and gutter, garbage and refuse
// disposal, sewer service and tree care, billed to the property served.
//
// A special charge is billed the way charges.go bills the charges of
// §5.19 and §5.21: as a village bill under §5.10 on the account of the
// property served, recorded as a Charge of its category. So it is paid at
// the kiosk and the window like any bill, never in installments, and when
// it is not paid it becomes a lien and goes on the tax roll in the
// November run, as §5.14(13) asks ("as provided in Section 5.14(12)"),
// through §5.10's own periods: the reading taken is that the period the
// board fixes for paying a special charge is §5.10's.
//
// For street, sidewalk, curb or gutter repair, notice is required: 20
// days' notice published or posted in three places, and a copy mailed to
// every interested person at least 10 days before the hearing on whether
// the work is done (5.14/repair-notice). The charge is billed only after
// that hearing decided to do the work.

// Collections of special charges.
const (
	CollectionRepairNotices       = "repair-notices"            // id: notice id → RepairHearingNotice
	IndexSpecialChargesByParcel   = "special-charges-by-parcel" // key: "<parcel>/<charge id>" (the Charge is in CollectionCharges)
	sectionSpecialCharge          = "§5.14(13)"
	maxSpecialChargeNoticeParcels = 500
)

// Categories of special charge (§5.14(13)).
const (
	ChargeSnowIce     = "snow_ice"    // snow and ice removal
	ChargeWeeds       = "weeds"       // weed elimination
	ChargeStreetOil   = "street_oil"  // street sprinkling, oiling or tarring
	ChargeStreet      = "street"      // street repair (notice required)
	ChargeSidewalk    = "sidewalk"    // sidewalk repair (notice required)
	ChargeCurbGutter  = "curb_gutter" // curb and gutter repair (notice required)
	ChargeRefuse      = "refuse"      // garbage and refuse disposal
	ChargeSewer       = "sewer"       // sewer service
	ChargeTreeCare    = "tree_care"   // tree care and removal
	specialTitlePrefx = "Special charge: "
)

// SpecialChargeCategories are the categories, in the order forms list
// them.
func SpecialChargeCategories() []string {
	return []string{ChargeSnowIce, ChargeWeeds, ChargeStreetOil, ChargeStreet, ChargeSidewalk, ChargeCurbGutter, ChargeRefuse, ChargeSewer, ChargeTreeCare}
}

// RepairCategory reports whether a category is a street, sidewalk, curb or
// gutter repair, whose charge needs notice and a hearing first.
func RepairCategory(c string) bool {
	return c == ChargeStreet || c == ChargeSidewalk || c == ChargeCurbGutter
}

// specialChargeTitle names a category of special charge for people, or ""
// for another kind of charge.
func specialChargeTitle(c string) string {
	t := map[string]string{
		ChargeSnowIce: "snow and ice removal", ChargeWeeds: "weed elimination", ChargeStreetOil: "street sprinkling, oiling or tarring",
		ChargeStreet: "street repair", ChargeSidewalk: "sidewalk repair", ChargeCurbGutter: "curb and gutter repair",
		ChargeRefuse: "garbage and refuse disposal", ChargeSewer: "sewer service", ChargeTreeCare: "tree care and removal",
	}[c]
	if t == "" {
		return ""
	}
	return specialTitlePrefx + t + " (§5.14(13))"
}

// RepairHearingNotice is the notice of a hearing on whether street, sidewalk,
// curb or gutter repair is done at the cost of the properties served, and
// the hearing's decision.
type RepairHearingNotice struct {
	ID          string   `json:"id"`
	Category    string   `json:"category"`
	Parcels     []string `json:"parcels"`
	Description string   `json:"description"`
	Method      string   `json:"method"`
	Newspaper   string   `json:"newspaper,omitempty"`
	Places      []string `json:"places,omitempty"`
	PublishedOn Date     `json:"published_on"` // published or posted
	MailedOn    Date     `json:"mailed_on"`
	Mailed      int      `json:"mailed"`
	HearingOn   Date     `json:"hearing_on"`
	HearingAt   string   `json:"hearing_at"`
	HeldOn      Date     `json:"held_on,omitzero"`
	Decision    string   `json:"decision,omitempty"` // RepairPerform | RepairDecline
	CommandID   string   `json:"command_id"`
	By          string   `json:"by"`
	At          DateTime `json:"at"`
}

// Decisions of a repair hearing.
const (
	RepairPerform = "perform" // the work is done and charged to the properties served
	RepairDecline = "decline"
)

// RepairNoticeCmd records a repair charge's notice, or its hearing.
type RepairNoticeCmd struct {
	Op          string   `json:"op"` // "notice" | "hearing"
	ID          string   `json:"id"`
	Category    string   `json:"category,omitempty"`
	Parcels     []string `json:"parcels,omitempty"`
	Description string   `json:"description,omitempty"`
	Method      string   `json:"method,omitempty"`
	Newspaper   string   `json:"newspaper,omitempty"`
	Places      []string `json:"places,omitempty"`
	PublishedOn Date     `json:"published_on,omitzero"`
	MailedOn    Date     `json:"mailed_on,omitzero"`
	HearingOn   Date     `json:"hearing_on,omitzero"`
	HearingAt   string   `json:"hearing_at,omitempty"`
	HeldOn      Date     `json:"held_on,omitzero"`
	Decision    string   `json:"decision,omitempty"`
}

// KindRepairNotice records the notice or the hearing of a repair charge
// (§5.14(13)).
const KindRepairNotice Kind = "repair_notice"

// Kind names the payload's kind.
func (*RepairNoticeCmd) Kind() Kind { return KindRepairNotice }

func (p *RepairNoticeCmd) textFields() []textField {
	fields := []textField{oneLine("The operation", p.Op), oneLine("The notice id", p.ID), oneLine("The category", p.Category), manyLines("The description", p.Description),
		oneLine("The method", p.Method), oneLine("The newspaper", p.Newspaper), manyLines("The place and time of the hearing", p.HearingAt), oneLine("The decision", p.Decision)}
	for _, s := range p.Places {
		fields = append(fields, oneLine("A public place", s))
	}
	for _, s := range p.Parcels {
		fields = append(fields, oneLine("A parcel number", s))
	}
	return fields
}

// applyRepairNotice records a repair charge's notice, checked against
// 5.14/repair-notice (ComputeRepairNotice): published or posted in not
// less than three places at least 20 days before the hearing, and a copy
// mailed at least 10 days before it; or records the hearing held on that
// day and its decision.
func applyRepairNotice(tx Tx, c Command, params *Params, res *Result) error {
	in := c.Payload.(*RepairNoticeCmd)
	if err := validRecordID("notice", in.ID); err != nil {
		return err
	}
	var n RepairHearingNotice
	exists, err := tx.Get(CollectionRepairNotices, in.ID, &n)
	if err != nil {
		return err
	}
	switch in.Op {
	case "notice":
		if exists {
			return Errorf(ECONFLICT, sectionSpecialCharge, "Notice %s is already recorded.", in.ID)
		}
		if !RepairCategory(in.Category) {
			return Errorf(EINVALID, sectionSpecialCharge, "Notice before the hearing is required of street, sidewalk, curb or gutter repair; %q is not one.", in.Category)
		}
		if len(in.Parcels) == 0 || len(in.Parcels) > maxSpecialChargeNoticeParcels {
			return Errorf(EINVALID, sectionSpecialCharge, "Name the parcels to be served (1 to %d).", maxSpecialChargeNoticeParcels)
		}
		mailed := 0
		for i, id := range in.Parcels {
			if slices.Contains(in.Parcels[:i], id) {
				return Errorf(EINVALID, sectionSpecialCharge, "Parcel %s is listed twice.", id)
			}
			pc, ok, err := tx.Parcel(id)
			if err != nil {
				return err
			}
			if !ok {
				return Errorf(EINVALID, sectionSpecialCharge, "There is no parcel %q.", id)
			}
			if strings.TrimSpace(pc.Owner) != "" && strings.TrimSpace(pc.Address) != "" {
				mailed++
			}
		}
		if err := required("What the work is", in.Description); err != nil {
			return err
		}
		if err := required("The place and time of the hearing", in.HearingAt); err != nil {
			return err
		}
		n = RepairHearingNotice{ID: in.ID, Category: in.Category, Parcels: slices.Clone(in.Parcels), Description: strings.TrimSpace(in.Description), Method: in.Method, Newspaper: strings.TrimSpace(in.Newspaper),
			PublishedOn: in.PublishedOn, MailedOn: in.MailedOn, Mailed: mailed, HearingOn: in.HearingOn, HearingAt: strings.TrimSpace(in.HearingAt), CommandID: c.ID, By: c.Actor, At: c.At}
		for _, pl := range in.Places {
			if strings.TrimSpace(pl) != "" {
				n.Places = append(n.Places, strings.TrimSpace(pl))
			}
		}
		switch in.Method {
		case NoticePublication:
			if n.Newspaper == "" {
				return Errorf(EINVALID, sectionSpecialCharge, "Name the newspaper the notice was published in.")
			}
		case NoticePosting:
			if min := params.At(in.PublishedOn).NoticePostingPlaces; len(n.Places) < min {
				return Errorf(EINVALID, sectionSpecialCharge, "A posted notice goes up in %d places in the village; %d are named.", min, len(n.Places))
			}
		default:
			return Errorf(EINVALID, sectionSpecialCharge, "Notice is published or posted, not %q.", in.Method)
		}
		if in.PublishedOn.IsZero() || in.MailedOn.IsZero() || in.HearingOn.IsZero() {
			return Errorf(EINVALID, sectionSpecialCharge, "The notice needs the day it was published or posted, the day copies were mailed, and the hearing date.")
		}
		if in.PublishedOn.After(c.At.Date) || in.MailedOn.After(c.At.Date) {
			return Errorf(EINVALID, sectionSpecialCharge, "A notice is recorded once it is published or posted and mailed, not before.")
		}
		due, err := ComputeRepairNotice(RepairNoticeInput{HearingOn: in.HearingOn}, params)
		if err != nil {
			return err
		}
		if in.PublishedOn.After(due.PublishOrPostBy) {
			return Errorf(EINVALID, sectionSpecialCharge, "For a hearing on %s the notice is published or posted by %s (20 days before); it was on %s.", in.HearingOn, due.PublishOrPostBy, in.PublishedOn)
		}
		if in.MailedOn.After(due.MailBy) {
			return Errorf(EINVALID, sectionSpecialCharge, "For a hearing on %s the copies are mailed by %s (10 days before); they were mailed on %s.", in.HearingOn, due.MailBy, in.MailedOn)
		}
		res.Note = fmt.Sprintf("repair notice %s: hearing %s, %d copies mailed", n.ID, n.HearingOn, n.Mailed)
	case "hearing":
		if !exists {
			return Errorf(ENOTFOUND, sectionSpecialCharge, "There is no repair notice %q.", in.ID)
		}
		if !n.HeldOn.IsZero() {
			return Errorf(ECONFLICT, sectionSpecialCharge, "The hearing of notice %s is already recorded (%s).", n.ID, n.Decision)
		}
		if in.HeldOn != n.HearingOn {
			return Errorf(EINVALID, sectionSpecialCharge, "The notice named the hearing for %s; a hearing on another day needs a new notice.", n.HearingOn)
		}
		if in.HeldOn.After(c.At.Date) {
			return Errorf(EINVALID, sectionSpecialCharge, "The hearing is recorded once it is held.")
		}
		if in.Decision != RepairPerform && in.Decision != RepairDecline {
			return Errorf(EINVALID, sectionSpecialCharge, "The board decides to perform the work or not.")
		}
		n.HeldOn, n.Decision = in.HeldOn, in.Decision
		res.Note = fmt.Sprintf("repair hearing %s: %s", n.ID, n.Decision)
	default:
		return Errorf(EINVALID, "", "Unknown repair notice operation %q.", in.Op)
	}
	return tx.Put(CollectionRepairNotices, n.ID, n)
}

// SpecialCharge bills a special charge to the property served.
type SpecialCharge struct {
	ChargeID     string       `json:"charge_id"`
	BillID       string       `json:"bill_id"`
	Category     string       `json:"category"`
	Account      string       `json:"account"`
	Parcel       string       `json:"parcel"`
	Notice       string       `json:"notice,omitempty"` // the repair notice (street, sidewalk, curb and gutter)
	Reference    string       `json:"reference"`        // the work order, the crew's record
	Items        []ChargeItem `json:"items"`
	Installments int          `json:"installments,omitempty"`
}

// KindSpecialCharge bills a special charge (§5.14(13)).
const KindSpecialCharge Kind = "special_charge"

// Kind names the payload's kind.
func (*SpecialCharge) Kind() Kind { return KindSpecialCharge }

func (p *SpecialCharge) textFields() []textField {
	fields := []textField{oneLine("The charge id", p.ChargeID), oneLine("The bill number", p.BillID), oneLine("The category", p.Category), oneLine("The account number", p.Account),
		oneLine("The parcel number", p.Parcel), oneLine("The notice", p.Notice), oneLine("The reference", p.Reference)}
	for i, it := range p.Items {
		fields = append(fields, oneLine(fmt.Sprintf("Line %d's description", i+1), it.Description))
	}
	return fields
}

// applySpecialCharge bills a special charge as a village bill under §5.10
// to the property served (the account must hold the parcel), recorded as
// a Charge of its category beside those of charges.go. A repair charge
// needs its notice, for that parcel, with a hearing that decided to do the
// work, on or before the day of the charge. Installments are refused.
func applySpecialCharge(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*SpecialCharge)
	if in.Installments > 1 {
		return Errorf(EINVALID, sectionSpecialCharge, "Special charges are not payable in installments: they are billed whole, and unpaid ones go on the tax roll.")
	}
	if err := validRecordID("charge", in.ChargeID); err != nil {
		return err
	}
	if specialChargeTitle(in.Category) == "" {
		return Errorf(EINVALID, sectionSpecialCharge, "%q is not a special charge of §5.14(13).", in.Category)
	}
	if err := required("The reference (the work order or the crew's record)", in.Reference); err != nil {
		return err
	}
	var old Charge
	if ok, err := tx.Get(CollectionCharges, in.ChargeID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "", "Charge %s already exists.", in.ChargeID)
	}
	acct, ok, err := tx.Account(in.Account)
	if err != nil {
		return err
	}
	if ok && len(acct.Parcels) > 0 && !slices.Contains(acct.Parcels, in.Parcel) {
		return Errorf(EINVALID, sectionSpecialCharge, "A special charge is billed to the property served: account %s does not hold parcel %s.", in.Account, in.Parcel)
	}
	if RepairCategory(in.Category) {
		var n RepairHearingNotice
		found, err := tx.Get(CollectionRepairNotices, in.Notice, &n)
		if err != nil {
			return err
		}
		switch {
		case in.Notice == "" || !found:
			return Errorf(EINVALID, sectionSpecialCharge, "A %s charge needs its notice and hearing first (20 days' notice published or posted, mailed 10 days before the hearing).", specialChargeTitle(in.Category)[len(specialTitlePrefx):])
		case n.Category != in.Category || !slices.Contains(n.Parcels, in.Parcel):
			return Errorf(EINVALID, sectionSpecialCharge, "Notice %s was not given of %s on parcel %s.", n.ID, in.Category, in.Parcel)
		case n.HeldOn.IsZero() || n.Decision != RepairPerform:
			return Errorf(ECONFLICT, sectionSpecialCharge, "The hearing of notice %s has not decided to do the work.", n.ID)
		case c.At.Date.Before(n.HeldOn):
			return Errorf(ECONFLICT, sectionSpecialCharge, "The charge comes after the hearing (%s).", n.HeldOn)
		}
	} else if in.Notice != "" {
		return Errorf(EINVALID, sectionSpecialCharge, "Only street, sidewalk, curb and gutter repairs are charged on a notice.")
	}
	total := Cents(0)
	var items []ChargeItem
	for _, it := range in.Items {
		if strings.TrimSpace(it.Description) == "" && it.Amount.IsZero() {
			continue
		}
		if strings.TrimSpace(it.Description) == "" || !it.Amount.IsPositive() {
			return Errorf(EINVALID, sectionSpecialCharge, "Each line needs a description and an amount above $0.00.")
		}
		items = append(items, ChargeItem{Description: strings.TrimSpace(it.Description), Amount: it.Amount})
		total = total.Add(it.Amount)
	}
	if len(items) == 0 {
		return Errorf(EINVALID, sectionSpecialCharge, "A charge needs at least one line.")
	}
	ref := strings.TrimSpace(in.Reference)
	if in.Notice != "" {
		ref += ", notice " + in.Notice
	}
	nb := NewBill{ID: in.BillID, Account: in.Account, Parcel: in.Parcel, Description: specialChargeTitle(in.Category) + ": " + ref, BilledOn: c.At.Date, Principal: total}
	if errs := CheckNewBills([]NewBill{nb}, txBillReader{tx}); len(errs) > 0 {
		return errs[0]
	}
	b := Bill{ID: nb.ID, Account: nb.Account, Parcel: nb.Parcel, Description: nb.Description, BilledOn: nb.BilledOn, Principal: nb.Principal}
	if err := numberBill(tx, &b); err != nil {
		return err
	}
	if err := tx.PutBill(b); err != nil {
		return err
	}
	if err := tx.Put(CollectionBillOrigins, nb.ID, BillOrigin{BillID: nb.ID, CommandID: c.ID, Actor: c.Actor, At: c.At, Source: "special charge " + in.ChargeID}); err != nil {
		return err
	}
	ch := Charge{NewCharge: NewCharge{ChargeID: in.ChargeID, BillID: in.BillID, What: in.Category, Account: in.Account, Parcel: in.Parcel, Reference: ref, Items: items}, Total: total, CommandID: c.ID, By: c.Actor, At: c.At}
	if err := tx.Put(CollectionCharges, ch.ChargeID, ch); err != nil {
		return err
	}
	if err := tx.Index(IndexChargesByAcc, ch.Account+"/"+ch.ChargeID); err != nil {
		return err
	}
	if err := tx.Index(IndexSpecialChargesByParcel, ch.Parcel+"/"+ch.ChargeID); err != nil {
		return err
	}
	res.Note = fmt.Sprintf("special charge %s billed %s on %s", in.Category, total, nb.ID)
	return nil
}

var (
	repairNoticeKind = &Descriptor{
		Kind: KindRepairNotice, Section: sectionSpecialCharge, Since: 2, Roles: []Role{RoleClerk, RoleTreasurer},
		New:   func() Payload { return new(RepairNoticeCmd) },
		Apply: func(tx Tx, c Command, e Env, res *Result) error { return applyRepairNotice(tx, c, e.Params, res) },
	}
	specialChargeKind = &Descriptor{
		Kind: KindSpecialCharge, Section: sectionSpecialCharge, Since: 2, Roles: []Role{RoleClerk, RoleTreasurer},
		New:   func() Payload { return new(SpecialCharge) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applySpecialCharge(tx, c, res) },
	}
)

// RepairNotices returns the repair charges' notices, by id.
func (x Reads) RepairNotices() ([]RepairHearingNotice, error) {
	return all[RepairHearingNotice](x.r, CollectionRepairNotices, "")
}

// RepairHearingNotice returns one repair charge notice.
func (x Reads) RepairHearingNotice(id string) (RepairHearingNotice, error) {
	return must[RepairHearingNotice](x.r, CollectionRepairNotices, id, "repair notice")
}

// SpecialChargesOfParcel returns the special charges billed to a parcel,
// by charge id.
func (x Reads) SpecialChargesOfParcel(parcel string) ([]Charge, error) {
	return byIndex[Charge](x.r, IndexSpecialChargesByParcel, parcel+"/", CollectionCharges, "charge")
}
