package domain

import (
	"fmt"
	"slices"
	"strings"
)

// The treasurer's powers over the room tax (§5.22): extensions of the
// filing date (at most a month, with cause), determinations by office or
// field audit (§5.22(4)) and estimates for non-filers (§5.22(5)), the
// finding that no interest is allowed on an overpayment (§5.22(6)),
// certificates on the sale of a business and a successor's liability
// (§5.22(3)(c)), the transfers of the share for tourism promotion (Wis.
// Stat. 66.0615), forfeitures for violations (§5.22(9)); and the record of
// every read of a return (§5.22(8)).

// Collections of the treasurer's room tax records.
const (
	CollectionRoomTaxReads        = "room-tax-reads"         // id: command id → RoomTaxReadRecord
	IndexRoomTaxReads             = "room-tax-reads-by-time" // key: "<at>/<command id>"
	CollectionRoomTaxCertificates = "room-tax-certificates"  // id: certificate id → SaleCertificate
	CollectionRoomTaxSuccessors   = "room-tax-successors"    // id: record id → SuccessorLiability
	CollectionRoomTaxTransfers    = "room-tax-transfers"     // id: transfer id → TourismTransfer
	CollectionRoomTaxForfeitures  = "room-tax-forfeitures"   // id: record id → Forfeiture
)

// RoomTaxExtension is an extension of the time to file a return.
type RoomTaxExtension struct {
	To    Date     `json:"to"`
	Cause string   `json:"cause"`
	At    DateTime `json:"at"`
	By    string   `json:"by"`
}

// Determination kinds (§5.22(4)–(5)).
const (
	DeterminationOffice   = "office_audit" // on the return and the information held
	DeterminationField    = "field_audit"  // on the books and records examined
	DeterminationEstimate = "estimate"     // for a return not filed, from the information held
)

// RoomTaxDetermination is the treasurer's determination of a return's
// figures: its kind, its basis (the audit report's findings), the figures
// determined, and the tax and refund due they gave on the day it was made.
type RoomTaxDetermination struct {
	Kind          string              `json:"kind"`
	Basis         string              `json:"basis"`
	GrossReceipts Money               `json:"gross_receipts"`
	ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	Tax           Money               `json:"tax"`
	Balance       Money               `json:"balance"`
	RefundDue     Money               `json:"refund_due"`
	At            DateTime            `json:"at"`
	By            string              `json:"by"`
	CommandID     string              `json:"command_id"`
}

// DeterminationTitle names a determination's kind for people.
func DeterminationTitle(kind string) string {
	switch kind {
	case DeterminationOffice:
		return "Office audit (§5.22(4))"
	case DeterminationField:
		return "Field audit (§5.22(4))"
	case DeterminationEstimate:
		return "Estimate for a return not filed (§5.22(5))"
	}
	return kind
}

// RoomTaxNoInterest is the treasurer's finding that an overpayment bears
// no interest (§5.22(6)): made intentionally or by carelessness or neglect,
// or not accompanied by a complete return.
type RoomTaxNoInterest struct {
	Ground string   `json:"ground"` // "intentional" | "careless" | "incomplete_return"
	Note   string   `json:"note,omitempty"`
	At     DateTime `json:"at"`
	By     string   `json:"by"`
}

// SaleCertificate answers a request, on the sale of a business or when an
// operator quits it (§5.22(3)(c)): that no amount is due, or the amount
// the buyer must withhold from the purchase price, as of the day issued.
type SaleCertificate struct {
	ID          string    `json:"id"`
	Operator    string    `json:"operator"`
	Requester   string    `json:"requester"`
	RequesterIs string    `json:"requester_is"` // "buyer" | "seller"
	IssuedOn    Date      `json:"issued_on"`
	AmountDue   Money     `json:"amount_due"`
	Unfiled     []Quarter `json:"unfiled,omitempty"` // quarters due and not filed: the amount cannot be known
	NothingDue  bool      `json:"nothing_due"`
	By          string    `json:"by"`
	CommandID   string    `json:"command_id"`
}

// SuccessorLiability records that a successor who did not withhold the
// amount due became personally liable for it, to the extent of the
// purchase price (§5.22(3)(c)).
type SuccessorLiability struct {
	ID            string   `json:"id"`
	Operator      string   `json:"operator"`
	Successor     string   `json:"successor"`
	Certificate   string   `json:"certificate,omitempty"`
	PurchasePrice Money    `json:"purchase_price"`
	AmountDue     Money    `json:"amount_due"`
	Liability     Money    `json:"liability"`
	At            DateTime `json:"at"`
	By            string   `json:"by"`
}

// TourismTransfer is a transfer of room tax collections to tourism
// promotion and development (Wis. Stat. 66.0615(1m)).
type TourismTransfer struct {
	ID        string   `json:"id"`
	Year      int      `json:"year"` // the collections year it is for
	On        Date     `json:"on"`
	Amount    Money    `json:"amount"`
	To        string   `json:"to"` // the tourism commission or entity
	Reference string   `json:"reference,omitempty"`
	At        DateTime `json:"at"`
	By        string   `json:"by"`
}

// Forfeiture is a forfeiture for a violation of §5.22 (§5.22(9)): each day
// a violation continues is a separate offense.
type Forfeiture struct {
	ID        string   `json:"id"`
	Operator  string   `json:"operator"`
	Violation string   `json:"violation"`
	From      Date     `json:"from"`
	To        Date     `json:"to"`
	Days      int      `json:"days"`
	PerDay    Money    `json:"per_day"`
	Total     Money    `json:"total"`
	At        DateTime `json:"at"`
	By        string   `json:"by"`
}

// RoomTaxReadRecord is one read of room tax returns: who, on what ground
// and why, what, and when. It is recorded before anything is shown.
// MaxReadSubjects is the most returns one RoomTaxRead names, so that its
// record stays small; a read of more is recorded as several reads.
const MaxReadSubjects = 400

type RoomTaxReadRecord struct {
	ID       string   `json:"id"` // the read's command id: its journal entry
	At       DateTime `json:"at"`
	Reader   string   `json:"reader"`
	Role     Role     `json:"role"`
	Basis    string   `json:"basis"`
	What     string   `json:"what"`
	Operator string   `json:"operator"` // "*": every operator
	Subjects []string `json:"subjects,omitempty"`
	Reason   string   `json:"reason"`
	Official string   `json:"official,omitempty"` // an export: the IRS or DOR official it is for
	Agency   string   `json:"agency,omitempty"`   // "IRS" | "DOR"
}

// What a read shows.
const (
	ReadReturn  = "return"  // a return's page or its API answer
	ReadReturns = "returns" // a list of returns with their figures
	ReadPDF     = "pdf"     // a filed return as a PDF
	ReadAnnual  = "annual"  // an annual return
	ReadAudit   = "audit"   // a determination and its audit report
	ReadReport  = "report"  // collections by operator
	ReadExport  = "export"  // the export for the IRS or the Department of Revenue
)

// Payloads of the treasurer's powers.
type (
	// RoomTaxExtend extends the time to file a return (§5.22(3)(b)).
	RoomTaxExtend struct {
		Operator string  `json:"operator"`
		Period   Quarter `json:"period"`
		To       Date    `json:"to"`
		Cause    string  `json:"cause"`
	}
	// RoomTaxDetermine makes a determination of a return's figures.
	RoomTaxDetermine struct {
		Operator      string              `json:"operator"`
		Period        Quarter             `json:"period"`
		Type          string              `json:"type"` // DeterminationOffice, DeterminationField or DeterminationEstimate
		Basis         string              `json:"basis"`
		GrossReceipts Money               `json:"gross_receipts"`
		ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	}
	// RoomTaxWithholdInterest finds that no interest is allowed on a
	// return's overpayment (§5.22(6)).
	RoomTaxWithholdInterest struct {
		Operator string  `json:"operator"`
		Period   Quarter `json:"period"`
		Ground   string  `json:"ground"`
		Note     string  `json:"note,omitempty"`
	}
	// RoomTaxCertify issues a certificate on the sale of a business.
	RoomTaxCertify struct {
		ID          string `json:"id"`
		Operator    string `json:"operator"`
		Requester   string `json:"requester"`
		RequesterIs string `json:"requester_is"`
	}
	// RoomTaxSuccessor records a successor's liability.
	RoomTaxSuccessor struct {
		ID            string `json:"id"`
		Operator      string `json:"operator"`
		Successor     string `json:"successor"`
		Certificate   string `json:"certificate,omitempty"`
		PurchasePrice Money  `json:"purchase_price"`
	}
	// RoomTaxTransfer records a transfer to tourism promotion.
	RoomTaxTransfer struct {
		ID        string `json:"id"`
		Year      int    `json:"year"`
		On        Date   `json:"on"`
		Amount    Money  `json:"amount"`
		To        string `json:"to"`
		Reference string `json:"reference,omitempty"`
	}
	// RoomTaxForfeit records a forfeiture.
	RoomTaxForfeit struct {
		ID        string `json:"id"`
		Operator  string `json:"operator"`
		Violation string `json:"violation"`
		From      Date   `json:"from"`
		To        Date   `json:"to"`
		PerDay    Money  `json:"per_day"`
	}
	// RoomTaxRead records a read of returns, before they are shown.
	RoomTaxRead struct {
		What     string   `json:"what"`
		Operator string   `json:"operator"`
		Subjects []string `json:"subjects,omitempty"`
		Reason   string   `json:"reason"`
		Official string   `json:"official,omitempty"`
		Agency   string   `json:"agency,omitempty"`
	}
)

// Kinds of the treasurer's powers and of reads.
const (
	KindRoomTaxExtend     Kind = "room_tax_extend"
	KindRoomTaxDetermine  Kind = "room_tax_determine"
	KindRoomTaxNoInterest Kind = "room_tax_no_interest"
	KindRoomTaxCertify    Kind = "room_tax_certify"
	KindRoomTaxSuccessor  Kind = "room_tax_successor"
	KindRoomTaxTransfer   Kind = "room_tax_transfer"
	KindRoomTaxForfeit    Kind = "room_tax_forfeit"
	KindRoomTaxRead       Kind = "room_tax_read"
)

// Kind names the payload's kind.
func (*RoomTaxExtend) Kind() Kind { return KindRoomTaxExtend }

// Kind names the payload's kind.
func (*RoomTaxDetermine) Kind() Kind { return KindRoomTaxDetermine }

// Kind names the payload's kind.
func (*RoomTaxWithholdInterest) Kind() Kind { return KindRoomTaxNoInterest }

// Kind names the payload's kind.
func (*RoomTaxCertify) Kind() Kind { return KindRoomTaxCertify }

// Kind names the payload's kind.
func (*RoomTaxSuccessor) Kind() Kind { return KindRoomTaxSuccessor }

// Kind names the payload's kind.
func (*RoomTaxTransfer) Kind() Kind { return KindRoomTaxTransfer }

// Kind names the payload's kind.
func (*RoomTaxForfeit) Kind() Kind { return KindRoomTaxForfeit }

// Kind names the payload's kind.
func (*RoomTaxRead) Kind() Kind { return KindRoomTaxRead }

func (p *RoomTaxExtend) textFields() []textField {
	return []textField{oneLine("The operator", p.Operator), oneLine("The cause", p.Cause)}
}

func (p *RoomTaxDetermine) textFields() []textField {
	return append([]textField{oneLine("The operator", p.Operator), oneLine("The kind of determination", p.Type), manyLines("The basis", p.Basis)}, salesText(p.ExemptSales)...)
}

func (p *RoomTaxWithholdInterest) textFields() []textField {
	return []textField{oneLine("The operator", p.Operator), oneLine("The ground", p.Ground), oneLine("The note", p.Note)}
}

func (p *RoomTaxCertify) textFields() []textField {
	return []textField{oneLine("The certificate id", p.ID), oneLine("The operator", p.Operator), oneLine("The requester", p.Requester), oneLine("The requester's side", p.RequesterIs)}
}

func (p *RoomTaxSuccessor) textFields() []textField {
	return []textField{oneLine("The record id", p.ID), oneLine("The operator", p.Operator), oneLine("The successor", p.Successor), oneLine("The certificate", p.Certificate)}
}

func (p *RoomTaxTransfer) textFields() []textField {
	return []textField{oneLine("The transfer id", p.ID), oneLine("The recipient", p.To), oneLine("The reference", p.Reference)}
}

func (p *RoomTaxForfeit) textFields() []textField {
	return []textField{oneLine("The record id", p.ID), oneLine("The operator", p.Operator), oneLine("The violation", p.Violation)}
}

func (p *RoomTaxRead) textFields() []textField {
	f := []textField{oneLine("What is read", p.What), oneLine("The operator", p.Operator), oneLine("The reason", p.Reason), oneLine("The official", p.Official), oneLine("The agency", p.Agency)}
	for _, s := range p.Subjects {
		f = append(f, oneLine("A return", s))
	}
	return f
}

func treasurerKind(k Kind, section string, p func() Payload, apply func(Tx, Command, Env, *Result) error) *Descriptor {
	return &Descriptor{Kind: k, Section: section, Since: 2, Roles: []Role{RoleTreasurer}, New: p, Apply: apply}
}

// withBooks returns d with its journal lines.
func withBooks(d *Descriptor, books func(*Lines, Tx, Command, Result) string) *Descriptor {
	d.Books = books
	return d
}

var (
	roomTaxExtendKind     = withBooks(treasurerKind(KindRoomTaxExtend, "§5.22(3)(b)", func() Payload { return new(RoomTaxExtend) }, applyRoomTaxExtend), roomTaxEventLines)
	roomTaxDetermineKind  = withBooks(treasurerKind(KindRoomTaxDetermine, "§5.22(4)", func() Payload { return new(RoomTaxDetermine) }, applyRoomTaxDetermine), roomTaxEventLines)
	roomTaxNoInterestKind = treasurerKind(KindRoomTaxNoInterest, "§5.22(6)", func() Payload { return new(RoomTaxWithholdInterest) }, applyRoomTaxNoInterest)
	roomTaxCertifyKind    = treasurerKind(KindRoomTaxCertify, "§5.22(3)(c)", func() Payload { return new(RoomTaxCertify) }, applyRoomTaxCertify)
	roomTaxSuccessorKind  = treasurerKind(KindRoomTaxSuccessor, "§5.22(3)(c)", func() Payload { return new(RoomTaxSuccessor) }, applyRoomTaxSuccessor)
	roomTaxTransferKind   = treasurerKind(KindRoomTaxTransfer, "Wis. Stat. 66.0615", func() Payload { return new(RoomTaxTransfer) }, applyRoomTaxTransfer)
	roomTaxForfeitKind    = treasurerKind(KindRoomTaxForfeit, "§5.22(9)", func() Payload { return new(RoomTaxForfeit) }, applyRoomTaxForfeit)
	// Any signed-in role may ask to read; the ledger decides, and records
	// the read or the refusal (both are journaled).
	roomTaxReadKind = &Descriptor{
		Kind: KindRoomTaxRead, Section: sectionConfid, Since: 2,
		New:   func() Payload { return new(RoomTaxRead) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyRoomTaxRead(tx, c, res) },
	}
)

// returnFor reads or starts the return record of an operator's quarter.
func returnFor(tx Tx, op RoomTaxOperator, q Quarter) (QuarterlyReturn, error) {
	id := QuarterlyReturnID(op.ID, q)
	r, found, err := getReturn(tx, id)
	if err == nil && !found {
		r = QuarterlyReturn{ID: id, Operator: op.ID, Period: q}
	}
	return r, err
}

func applyRoomTaxExtend(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*RoomTaxExtend)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	op, err := getOperator(tx, in.Operator)
	if err != nil {
		return err
	}
	r, err := returnFor(tx, op, in.Period)
	if err != nil {
		return err
	}
	if _, filed := r.Filed(Date{}); filed {
		return Errorf(ECONFLICT, "§5.22(3)(b)", "The return for %s is filed already: there is nothing to extend.", in.Period)
	}
	if strings.TrimSpace(in.Cause) == "" {
		return Errorf(EINVALID, "§5.22(3)(b)", "An extension is granted for good cause: record the cause.")
	}
	// The rule says how long an extension may be (after the due date, at
	// most room_tax_extension_months after it).
	check := RoomTaxInput{Period: in.Period, GrossReceipts: Cents(0), ExtendedTo: in.To, AsOf: c.At.Date}
	if _, err := ComputeRoomTaxReturn(check, env.Params); err != nil {
		return err
	}
	r.Extension = &RoomTaxExtension{To: in.To, Cause: strings.TrimSpace(in.Cause), At: c.At, By: c.Actor}
	res.Note = roomTaxNote(r.ID, "extended to "+in.To.String())
	return putReturn(tx, &op, r)
}

func applyRoomTaxDetermine(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*RoomTaxDetermine)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	op, err := getOperator(tx, in.Operator)
	if err != nil {
		return err
	}
	if !c.At.Date.After(in.Period.Last()) {
		return Errorf(EINVALID, "§5.22(4)", "The quarter %s has not ended.", in.Period)
	}
	r, err := returnFor(tx, op, in.Period)
	if err != nil {
		return err
	}
	_, filed := r.Filed(Date{})
	switch in.Type {
	case DeterminationOffice, DeterminationField:
	case DeterminationEstimate:
		if filed {
			return Errorf(ECONFLICT, "§5.22(5)", "The return for %s is filed: audit it (office or field) instead of estimating it.", in.Period)
		}
		if !c.At.Date.After(in.Period.DueOn()) && (r.Extension == nil || !c.At.Date.After(r.Extension.To)) {
			return Errorf(EINVALID, "§5.22(5)", "The return for %s is not due yet; an estimate is made for a return not filed when due.", in.Period)
		}
	default:
		return Errorf(EINVALID, "§5.22(4)", "A determination is an office audit, a field audit or an estimate.")
	}
	if strings.TrimSpace(in.Basis) == "" {
		return Errorf(EINVALID, "§5.22(4)", "Record the basis of the determination: the facts of the return or the other information it rests on.")
	}
	if err := checkExemptSales(in.ExemptSales); err != nil {
		return err
	}
	d := RoomTaxDetermination{Kind: in.Type, Basis: strings.TrimSpace(in.Basis), GrossReceipts: in.GrossReceipts, ExemptSales: slices.Clone(in.ExemptSales),
		At: c.At, By: c.Actor, CommandID: c.ID}
	r.Determinations = append(r.Determinations, d)
	fig, err := r.Figures(c.At.Date, env.Params)
	if err != nil {
		return confidential(err)
	}
	last := &r.Determinations[len(r.Determinations)-1]
	last.Tax, last.Balance, last.RefundDue = fig.Tax, fig.Balance, fig.Overpayment
	res.Note = roomTaxNote(r.ID, "determined ("+in.Type+")")
	return putReturn(tx, &op, r)
}

func applyRoomTaxNoInterest(tx Tx, c Command, _ Env, res *Result) error {
	in := c.Payload.(*RoomTaxWithholdInterest)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	r, found, err := getReturn(tx, QuarterlyReturnID(in.Operator, in.Period))
	if err != nil {
		return err
	}
	if !found {
		return Errorf(ENOTFOUND, "§5.22(6)", "There is no return of %s for %s.", in.Operator, in.Period)
	}
	switch in.Ground {
	case "intentional", "careless", "incomplete_return":
	default:
		return Errorf(EINVALID, "§5.22(6)", "No interest is allowed on an overpayment made intentionally, by carelessness or neglect, or without a complete return: choose one.")
	}
	r.NoInterest = &RoomTaxNoInterest{Ground: in.Ground, Note: strings.TrimSpace(in.Note), At: c.At, By: c.Actor}
	res.Note = roomTaxNote(r.ID, "no interest on overpayment")
	return tx.Put(CollectionRoomTaxReturns, r.ID, r)
}

// amountDue returns what an operator owes on every return as of a date
// (the rule's balances), and the quarters whose returns were due and not
// filed nor determined.
func amountDue(tx Tx, op RoomTaxOperator, on Date, p *Params) (Money, []Quarter, error) {
	due := Cents(0)
	held := map[Quarter]bool{}
	for _, q := range op.Periods {
		r, found, err := getReturn(tx, QuarterlyReturnID(op.ID, q))
		if err != nil || !found {
			return due, nil, err
		}
		if _, ok := r.Input(on); !ok {
			continue
		}
		held[q] = true
		fig, err := r.Figures(on, p)
		if err != nil {
			return due, nil, confidential(err)
		}
		due = due.Add(fig.Balance)
	}
	var unfiled []Quarter
	for q := QuarterOf(op.Registered.Date); q.DueOn().Before(on); q = q.next() {
		if op.Closed && op.ClosedOn.Before(q.First()) {
			break
		}
		if !held[q] {
			unfiled = append(unfiled, q)
		}
	}
	return due, unfiled, nil
}

func applyRoomTaxCertify(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*RoomTaxCertify)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if err := validRecordID("certificate", in.ID); err != nil {
		return err
	}
	var old SaleCertificate
	if ok, err := tx.Get(CollectionRoomTaxCertificates, in.ID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "§5.22(3)(c)", "Certificate %s exists already.", in.ID)
	}
	op, err := getOperator(tx, in.Operator)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.Requester) == "" || in.RequesterIs != "buyer" && in.RequesterIs != "seller" {
		return Errorf(EINVALID, "§5.22(3)(c)", "A certificate is requested by the buyer or the seller: record who asked and which.")
	}
	due, unfiled, err := amountDue(tx, op, c.At.Date, env.Params)
	if err != nil {
		return err
	}
	cert := SaleCertificate{ID: in.ID, Operator: op.ID, Requester: strings.TrimSpace(in.Requester), RequesterIs: in.RequesterIs, IssuedOn: c.At.Date,
		AmountDue: due, Unfiled: unfiled, NothingDue: due.IsZero() && len(unfiled) == 0, By: c.Actor, CommandID: c.ID}
	res.Note = roomTaxPrefix + "certificate " + cert.ID + " issued"
	return tx.Put(CollectionRoomTaxCertificates, cert.ID, cert)
}

func applyRoomTaxSuccessor(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*RoomTaxSuccessor)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if err := validRecordID("successor record", in.ID); err != nil {
		return err
	}
	var old SuccessorLiability
	if ok, err := tx.Get(CollectionRoomTaxSuccessors, in.ID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "§5.22(3)(c)", "Record %s exists already.", in.ID)
	}
	op, err := getOperator(tx, in.Operator)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.Successor) == "" {
		return Errorf(EINVALID, "§5.22(3)(c)", "Name the successor or assign who bought the business.")
	}
	if !in.PurchasePrice.IsPositive() {
		return Errorf(EINVALID, "§5.22(3)(c)", "The purchase price is required: the successor is liable to the extent of it.")
	}
	if in.Certificate != "" {
		var cert SaleCertificate
		if ok, err := tx.Get(CollectionRoomTaxCertificates, in.Certificate, &cert); err != nil {
			return err
		} else if !ok || cert.Operator != op.ID {
			return Errorf(ENOTFOUND, "§5.22(3)(c)", "There is no certificate %s for %s.", in.Certificate, op.ID)
		}
	}
	due, _, err := amountDue(tx, op, c.At.Date, env.Params)
	if err != nil {
		return err
	}
	if !due.IsPositive() {
		return Errorf(ECONFLICT, "§5.22(3)(c)", "Nothing is due on %s's returns: the successor owes nothing.", op.ID)
	}
	s := SuccessorLiability{ID: in.ID, Operator: op.ID, Successor: strings.TrimSpace(in.Successor), Certificate: in.Certificate,
		PurchasePrice: in.PurchasePrice, AmountDue: due, Liability: due.Min(in.PurchasePrice), At: c.At, By: c.Actor}
	res.Note = roomTaxPrefix + "successor liability " + s.ID + " recorded"
	return tx.Put(CollectionRoomTaxSuccessors, s.ID, s)
}

func applyRoomTaxTransfer(tx Tx, c Command, _ Env, res *Result) error {
	in := c.Payload.(*RoomTaxTransfer)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if err := validRecordID("transfer", in.ID); err != nil {
		return err
	}
	var old TourismTransfer
	if ok, err := tx.Get(CollectionRoomTaxTransfers, in.ID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "Wis. Stat. 66.0615", "Transfer %s exists already.", in.ID)
	}
	switch {
	case in.Year < 2000 || in.Year > c.At.Date.Year():
		return Errorf(EINVALID, "Wis. Stat. 66.0615", "The collections year of a transfer is this year or an earlier one.")
	case in.On.IsZero() || in.On.After(c.At.Date):
		return Errorf(EINVALID, "Wis. Stat. 66.0615", "The date of the transfer is required and cannot be after today.")
	case !in.Amount.IsPositive():
		return Errorf(EINVALID, "Wis. Stat. 66.0615", "The amount transferred must be more than $0.00.")
	case strings.TrimSpace(in.To) == "":
		return Errorf(EINVALID, "Wis. Stat. 66.0615", "Name the tourism entity or commission the money went to.")
	}
	t := TourismTransfer{ID: in.ID, Year: in.Year, On: in.On, Amount: in.Amount, To: strings.TrimSpace(in.To), Reference: strings.TrimSpace(in.Reference), At: c.At, By: c.Actor}
	res.Note = roomTaxPrefix + "tourism transfer " + t.ID
	return tx.Put(CollectionRoomTaxTransfers, t.ID, t)
}

func applyRoomTaxForfeit(tx Tx, c Command, _ Env, res *Result) error {
	in := c.Payload.(*RoomTaxForfeit)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if err := validRecordID("forfeiture", in.ID); err != nil {
		return err
	}
	var old Forfeiture
	if ok, err := tx.Get(CollectionRoomTaxForfeitures, in.ID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "§5.22(9)", "Forfeiture %s exists already.", in.ID)
	}
	if _, err := getOperator(tx, in.Operator); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(in.Violation) == "":
		return Errorf(EINVALID, "§5.22(9)", "Describe the violation.")
	case in.From.IsZero() || in.To.IsZero() || in.To.Before(in.From) || in.To.After(c.At.Date):
		return Errorf(EINVALID, "§5.22(9)", "The violation's first and last days are required, in order, and not after today.")
	case in.From.DaysUntil(in.To)+1 > 366*5:
		return Errorf(EINVALID, "§5.22(9)", "One forfeiture record counts at most five years of days.")
	case !in.PerDay.IsPositive():
		return Errorf(EINVALID, "§5.22(9)", "The forfeiture for each day must be more than $0.00.")
	}
	days := in.From.DaysUntil(in.To) + 1
	f := Forfeiture{ID: in.ID, Operator: in.Operator, Violation: strings.TrimSpace(in.Violation), From: in.From, To: in.To, Days: days,
		PerDay: in.PerDay, Total: in.PerDay.MulInt(int64(days)), At: c.At, By: c.Actor}
	res.Note = fmt.Sprintf("%sforfeiture %s: %d days", roomTaxPrefix, f.ID, f.Days)
	return tx.Put(CollectionRoomTaxForfeitures, f.ID, f)
}

// applyRoomTaxRead records a read of returns, if the reader may read them
// (roomTaxReadBasis); a read the reader may not make is refused, and the
// refusal is journaled as well. The subjects must be the operator's
// returns.
func applyRoomTaxRead(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*RoomTaxRead)
	var u StaffUser
	ok, err := tx.Get(CollectionStaffUsers, c.Actor, &u)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(EFORBIDDEN, sectionConfid, "Room tax returns are confidential (§5.22(8)): only staff accounts read them.")
	}
	switch in.What {
	case ReadReturn, ReadReturns, ReadPDF, ReadAnnual, ReadAudit, ReadReport, ReadExport:
	default:
		return Errorf(EINVALID, sectionConfid, "Unknown kind of read %q.", in.What)
	}
	if in.Operator != AllOperators && !ValidOperatorID(in.Operator) {
		return Errorf(EINVALID, sectionConfid, "A read names the operator whose returns it shows.")
	}
	reason := strings.TrimSpace(in.Reason)
	if reason == "" || len(reason) > 300 {
		return Errorf(EINVALID, sectionConfid, "Every read of a return records why it is read: give the reason (at most 300 characters).")
	}
	if len(in.Subjects) > MaxReadSubjects {
		return Errorf(EINVALID, sectionConfid, "One read covers at most %d returns.", MaxReadSubjects)
	}
	for _, s := range in.Subjects {
		if in.Operator != AllOperators && !strings.HasPrefix(s, in.Operator+"_") {
			return Errorf(EINVALID, sectionConfid, "The read of %s's returns names %s, another operator's.", in.Operator, s)
		}
	}
	basis, err := roomTaxReadBasis(tx.Get, u, in.Operator, c.At.Date)
	if err != nil {
		return err
	}
	rec := RoomTaxReadRecord{ID: c.ID, At: c.At, Reader: u.Username, Role: u.Role, Basis: basis, What: in.What, Operator: in.Operator,
		Subjects: slices.Clone(in.Subjects), Reason: reason}
	if in.What == ReadExport {
		if u.Role != RoleTreasurer {
			return Errorf(EFORBIDDEN, sectionConfid, "Only the treasurer's office exports returns for the IRS or the Department of Revenue.")
		}
		if in.Agency != "IRS" && in.Agency != "DOR" || strings.TrimSpace(in.Official) == "" {
			return Errorf(EINVALID, sectionConfid, "An export is for a named official of the IRS or the Department of Revenue: give the official's name and agency.")
		}
		rec.Official, rec.Agency = strings.TrimSpace(in.Official), in.Agency
	}
	if err := tx.Put(CollectionRoomTaxReads, c.ID, rec); err != nil {
		return err
	}
	res.Note = "room tax read recorded"
	return tx.Index(IndexRoomTaxReads, c.At.String()+"/"+c.ID)
}

// RoomTaxReads returns the reads of returns, newest first; of one
// operator's returns when operator is set (reads of every operator's
// included).
func (x Reads) RoomTaxReads(operator string) ([]RoomTaxReadRecord, error) {
	rs, err := byIndex[RoomTaxReadRecord](x.r, IndexRoomTaxReads, "", CollectionRoomTaxReads, "read")
	if err != nil {
		return nil, err
	}
	slices.Reverse(rs)
	if operator != "" {
		rs = slices.DeleteFunc(rs, func(r RoomTaxReadRecord) bool { return r.Operator != operator && r.Operator != AllOperators })
	}
	return rs, nil
}

// RoomTaxRead returns one read's record, by its command id.
func (x Reads) RoomTaxRead(id string) (RoomTaxReadRecord, error) {
	return must[RoomTaxReadRecord](x.r, CollectionRoomTaxReads, id, "read")
}

// SaleCertificates returns the certificates issued for an operator (every
// operator's with ""), by id.
func (x Reads) SaleCertificates(operator string) ([]SaleCertificate, error) {
	cs, err := all[SaleCertificate](x.r, CollectionRoomTaxCertificates, "")
	if operator != "" {
		cs = slices.DeleteFunc(cs, func(c SaleCertificate) bool { return c.Operator != operator })
	}
	return cs, err
}

// SaleCertificate returns one certificate.
func (x Reads) SaleCertificate(id string) (SaleCertificate, error) {
	return must[SaleCertificate](x.r, CollectionRoomTaxCertificates, id, "certificate")
}

// SuccessorLiabilities returns the successors' liabilities recorded, by id.
func (x Reads) SuccessorLiabilities() ([]SuccessorLiability, error) {
	return all[SuccessorLiability](x.r, CollectionRoomTaxSuccessors, "")
}

// TourismTransfers returns the transfers to tourism promotion, by id.
func (x Reads) TourismTransfers() ([]TourismTransfer, error) {
	return all[TourismTransfer](x.r, CollectionRoomTaxTransfers, "")
}

// Forfeitures returns the forfeitures recorded, by id.
func (x Reads) Forfeitures() ([]Forfeiture, error) {
	return all[Forfeiture](x.r, CollectionRoomTaxForfeitures, "")
}

// Collections are room tax payments received in a period: in total (a
// public figure) and by operator (confidential).
type Collections struct {
	Total      Money
	ByOperator map[string]Money
}

// RoomTaxCollections returns the payments received in each quarter of a
// calendar year (index 0 is Q1) and in the year, by the day they were
// received, from every return's payments.
func RoomTaxCollections(returns []QuarterlyReturn, year int) (quarters [4]Collections, total Collections) {
	for i := range quarters {
		quarters[i] = Collections{Total: Cents(0), ByOperator: map[string]Money{}}
	}
	total = Collections{Total: Cents(0), ByOperator: map[string]Money{}}
	for _, r := range returns {
		for _, p := range r.Payments {
			if p.At.Date.Year() != year {
				continue
			}
			q := &quarters[QuarterOf(p.At.Date).Q-1]
			q.Total = q.Total.Add(p.Amount)
			q.ByOperator[r.Operator] = q.ByOperator[r.Operator].Add(p.Amount)
			total.Total = total.Total.Add(p.Amount)
			total.ByOperator[r.Operator] = total.ByOperator[r.Operator].Add(p.Amount)
		}
	}
	return quarters, total
}

// TourismShare is what Wis. Stat. 66.0615(1m) requires of one year's
// collections: at least room_tax_tourism_share (70%) of the collections
// beyond the amount the village retains (room_tax_retained_amount) goes to
// tourism promotion and development; the transfers recorded for the year
// count against it.
type TourismShare struct {
	Year        int
	Collections Money
	Retained    Money
	Share       Rate
	Required    Money
	Transferred Money
	Remaining   Money // Required − Transferred, never below 0.00
}

// ComputeTourismShare returns the year's tourism share, with the
// parameters in force at the year's end.
func ComputeTourismShare(year int, collections Money, transfers []TourismTransfer, p *Params) TourismShare {
	v := p.At(NewDate(year, 12, 31))
	t := TourismShare{Year: year, Collections: collections, Retained: v.RoomTaxRetainedAmount, Share: v.RoomTaxTourismShare, Transferred: Cents(0)}
	beyond := collections.Sub(t.Retained).Max(Cents(0))
	t.Required = beyond.MulRate(t.Share)
	for _, tr := range transfers {
		if tr.Year == year {
			t.Transferred = t.Transferred.Add(tr.Amount)
		}
	}
	t.Remaining = t.Required.Sub(t.Transferred).Max(Cents(0))
	return t
}
