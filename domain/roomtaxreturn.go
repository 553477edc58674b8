package domain

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Room tax returns (§5.22(3)(b)). An operator files a quarterly return of
// its gross receipts and each exempt sale; the figures (the tax, the late
// filing fee, interest, delinquency) are never stored: they depend on the
// day asked, and the rule 5.22/room-tax-return computes them from what the
// record holds (QuarterlyReturn.Figures), on the pages as of today and in
// the ledger as of a command's intake time. An amended return adds a
// filing: the last one is in force, the earlier ones stay as history. A
// determination by the treasurer (an office or field audit, or an
// estimate for a non-filer, §5.22(4)–(5)) is in force once made, over any
// filing. Payments apply to the tax first, as the rule does.
//
// A refusal the ledger records is journaled, and the journal is read by
// roles that may not read returns; so a refusal of a return's figures
// says that the rule refused them, never the figures (confidential). The
// pages show the rule's own message beside the form before anything is
// submitted (PreviewFiling runs the same rule).

// Collections of room tax returns.
const (
	CollectionRoomTaxReturns = "room-tax-returns" // id: "<operator>_<period>" → QuarterlyReturn
	CollectionRoomTaxAnnual  = "room-tax-annual"  // id: "<operator>_<year>" → AnnualReturn
)

// QuarterlyReturnID returns the id of an operator's return for a quarter,
// "belle-inn_2026-Q1": the reference printed on the return, which a
// payment at the kiosk names.
func QuarterlyReturnID(operator string, q Quarter) string { return operator + "_" + q.String() }

// ParseQuarterlyReturnID reads a return's id, in any letter case.
func ParseQuarterlyReturnID(id string) (operator string, q Quarter, err error) {
	op, period, ok := strings.Cut(strings.TrimSpace(id), "_")
	op = strings.ToLower(op)
	if ok {
		q, err = ParseQuarter(strings.ToUpper(period))
	}
	if !ok || err != nil || !ValidOperatorID(op) {
		return "", Quarter{}, Errorf(EINVALID, sectionRoomTax, "%q is not a room tax return reference like belle-inn_2026-Q1.", id)
	}
	return op, q, nil
}

// RoomTaxExemptSale is one room sale an operator's return claims is
// exempt (§5.22(2)): the buyer, whether the bill was made out in its name,
// and the document the operator holds (a purchase order or similar
// written document for a government, the certificate of exempt status
// number for a nonprofit). A claim without its document's number holds no
// document: the rule rejects it and the sale is taxed.
type RoomTaxExemptSale struct {
	Amount         Money        `json:"amount"`
	Entity         ExemptEntity `json:"entity"`
	Buyer          string       `json:"buyer"`
	BilledToEntity bool         `json:"billed_to_entity,omitempty"`
	Document       string       `json:"document,omitempty"` // "purchase_order" | "certificate_number"
	DocumentNumber string       `json:"document_number,omitempty"`
}

// claim returns the sale as the rule reads it.
func (s RoomTaxExemptSale) claim() ExemptSale {
	doc := s.Document
	if strings.TrimSpace(s.DocumentNumber) == "" {
		doc = "none"
	}
	return ExemptSale{Amount: s.Amount, Entity: s.Entity, BilledToEntity: s.BilledToEntity, Document: doc}
}

// RoomTaxFiling is a return as filed: the original, an amendment, or the
// corrections of an annual return.
type RoomTaxFiling struct {
	GrossReceipts Money               `json:"gross_receipts"`
	ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	// Signer is who signed it, the person required to file or an
	// authorized agent, and Capacity in what capacity (no oath,
	// §5.22(3)(b)).
	Signer    string   `json:"signer"`
	Capacity  string   `json:"capacity"`
	FiledAt   DateTime `json:"filed_at"`
	By        string   `json:"by"` // the login that filed it
	CommandID string   `json:"command_id"`
	Amends    bool     `json:"amends,omitempty"`
	Reason    string   `json:"reason,omitempty"` // why an amendment was filed
	Annual    string   `json:"annual,omitempty"` // the annual return that made this correction
}

// RoomTaxPayment is a payment toward a return.
type RoomTaxPayment struct {
	CommandID string   `json:"command_id"`
	Receipt   string   `json:"receipt"`
	At        DateTime `json:"at"`
	Amount    Money    `json:"amount"`
	Tender    Tender   `json:"tender"`
	Reference string   `json:"reference,omitempty"`
	Payer     string   `json:"payer,omitempty"`
	By        string   `json:"by"`
	Drawer    string   `json:"drawer,omitempty"`
}

// QuarterlyReturn is the record of an operator's return for one quarter:
// what was filed (with its amendments), the extension granted, the
// payments, and the treasurer's determinations.
type QuarterlyReturn struct {
	ID             string                 `json:"id"`
	Operator       string                 `json:"operator"`
	Period         Quarter                `json:"period"`
	Filings        []RoomTaxFiling        `json:"filings,omitempty"`
	Extension      *RoomTaxExtension      `json:"extension,omitempty"`
	Payments       []RoomTaxPayment       `json:"payments,omitempty"`
	Determinations []RoomTaxDetermination `json:"determinations,omitempty"`
	NoInterest     *RoomTaxNoInterest     `json:"no_interest,omitempty"`
}

// Filed reports whether a return was filed (by the end of asOf; the zero
// Date: ever) and returns its original filing.
func (r QuarterlyReturn) Filed(asOf Date) (RoomTaxFiling, bool) {
	if len(r.Filings) == 0 || !asOf.IsZero() && r.Filings[0].FiledAt.Date.After(asOf) {
		return RoomTaxFiling{}, false
	}
	return r.Filings[0], true
}

// InForce returns what the figures are computed from as of asOf: the
// latest determination made by then, else the latest filing filed by then;
// false when there is neither.
func (r QuarterlyReturn) InForce(asOf Date) (gross Money, sales []RoomTaxExemptSale, determined bool, ok bool) {
	for _, d := range slices.Backward(r.Determinations) {
		if !d.At.Date.After(asOf) {
			return d.GrossReceipts, d.ExemptSales, true, true
		}
	}
	for _, f := range slices.Backward(r.Filings) {
		if !f.FiledAt.Date.After(asOf) {
			return f.GrossReceipts, f.ExemptSales, false, true
		}
	}
	return Money{}, nil, false, false
}

// Input returns the rule's input for the return as of asOf: the figures in
// force then, the date of the original filing (none for an estimate of a
// return never filed), the extension, and the payments made by then.
func (r QuarterlyReturn) Input(asOf Date) (RoomTaxInput, bool) {
	gross, sales, _, ok := r.InForce(asOf)
	if !ok {
		return RoomTaxInput{}, false
	}
	in := RoomTaxInput{Period: r.Period, GrossReceipts: gross, AsOf: asOf}
	for _, s := range sales {
		in.ExemptSales = append(in.ExemptSales, s.claim())
	}
	if f, filed := r.Filed(asOf); filed {
		in.FiledOn = f.FiledAt.Date
	}
	if r.Extension != nil && !r.Extension.At.Date.After(asOf) {
		in.ExtendedTo = r.Extension.To
	}
	for _, p := range r.Payments {
		if !p.At.Date.After(asOf) {
			in.Payments = append(in.Payments, DatedAmount{On: p.At.Date, Amount: p.Amount})
		}
	}
	return in, true
}

// Figures returns the return's §5.22 figures as of asOf: the rule
// 5.22/room-tax-return over Input. A return with nothing filed or
// determined by then has none (ENOTFOUND).
func (r QuarterlyReturn) Figures(asOf Date, p *Params) (RoomTaxReturn, error) {
	in, ok := r.Input(asOf)
	if !ok {
		return RoomTaxReturn{}, Errorf(ENOTFOUND, sectionRoomTax, "No return for %s is filed or determined as of %s.", r.Period, asOf)
	}
	return ComputeRoomTaxReturn(in, p)
}

// PreviewFiling returns the figures the return would have as of `at` if f
// were filed then: what the form shows before it is signed, and what the
// ledger checks when it records the filing. The rule's own error (exempt
// sales above gross receipts …) comes back as it is.
func (r QuarterlyReturn) PreviewFiling(f RoomTaxFiling, at DateTime, p *Params) (RoomTaxReturn, error) {
	if err := checkExemptSales(f.ExemptSales); err != nil {
		return RoomTaxReturn{}, err
	}
	f.FiledAt = at
	r.Filings = append(slices.Clip(r.Filings), f)
	r.Determinations = nil // the preview shows the filing's own figures
	return r.Figures(at.Date, p)
}

// RetainUntil returns the last day the records of quarter q must be kept
// (§5.22(7)): five years (room_tax_records_years) from the end of the
// filing period. The ledger deletes nothing, before or after.
func (q Quarter) RetainUntil(p *Params) Date {
	return q.Last().AddMonths(12 * p.At(q.Last()).RoomTaxRecordsYears)
}

// checkExemptSales checks what the rule does not: a known entity (an
// unknown one is an error, as in the rule's input) and the buyer's name.
func checkExemptSales(sales []RoomTaxExemptSale) error {
	if len(sales) > 200 {
		return Errorf(EINVALID, sectionRoomTax, "A return lists at most 200 exempt sales.")
	}
	for i, s := range sales {
		switch s.Entity {
		case EntityFederal, EntityState, EntityLocalGovernment, EntityNonprofit:
		default:
			return Errorf(EINVALID, sectionRoomTax, "Exempt sale %d: the buyer must be the federal government, the state, a local government or a nonprofit organization.", i+1)
		}
		if strings.TrimSpace(s.Buyer) == "" {
			return Errorf(EINVALID, sectionRoomTax, "Exempt sale %d: name the exempt buyer.", i+1)
		}
		if s.Amount.IsNegative() {
			return Errorf(EINVALID, sectionRoomTax, "Exempt sale %d: the amount cannot be negative.", i+1)
		}
	}
	return nil
}

// confidential returns the ledger's refusal of a return's figures without
// them: the journal keeps every refusal's message, and not everyone who
// reads the journal may read returns (§5.22(8)). A storage error passes
// through.
func confidential(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return Errorf(e.Code, sectionRoomTax, "The rule of §5.22 refused the return's figures; the form shows the reason before it is signed.")
	}
	return err
}

func getReturn(tx Tx, id string) (QuarterlyReturn, bool, error) {
	var r QuarterlyReturn
	ok, err := tx.Get(CollectionRoomTaxReturns, id, &r)
	return r, ok, err
}

// putReturn writes a return and lists its period on the operator.
func putReturn(tx Tx, op *RoomTaxOperator, r QuarterlyReturn) error {
	if !slices.Contains(op.Periods, r.Period) {
		op.Periods = append(op.Periods, r.Period)
		slices.SortFunc(op.Periods, Quarter.Compare)
		if err := tx.Put(CollectionRoomTaxOperators, op.ID, *op); err != nil {
			return err
		}
	}
	return tx.Put(CollectionRoomTaxReturns, r.ID, r)
}

// FileRoomTaxReturn files an operator's quarterly return, signed by the
// person required to file or an authorized agent. The first return of an
// operator carries its election of a calendar or fiscal year.
type FileRoomTaxReturn struct {
	Operator      string              `json:"operator"`
	Period        Quarter             `json:"period"`
	GrossReceipts Money               `json:"gross_receipts"`
	ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	Signer        string              `json:"signer"`
	Capacity      string              `json:"capacity"`
	Year          *RoomTaxYear        `json:"year,omitempty"`
}

// AmendRoomTaxReturn files an amended return: its figures replace the
// ones in force, and the earlier ones stay in the return's history.
type AmendRoomTaxReturn struct {
	Operator      string              `json:"operator"`
	Period        Quarter             `json:"period"`
	GrossReceipts Money               `json:"gross_receipts"`
	ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	Signer        string              `json:"signer"`
	Capacity      string              `json:"capacity"`
	Reason        string              `json:"reason"`
}

// PayRoomTax is a card payment toward a return at the kiosk (the one
// checkout): the return is named by its reference, which is all the
// kiosk shows of it.
type PayRoomTax struct {
	Return    string `json:"return"`
	Amount    Money  `json:"amount"`
	Reference string `json:"reference"` // the terminal's approval
	Payer     string `json:"payer,omitempty"`
	// Card is what the terminal showed of the card (card.go); the kiosk
	// sends it from ledger format 3.
	Card *CardShown `json:"card,omitempty"`
}

// RoomTaxWindowPayment is a cash or check payment toward a return taken
// by the treasurer's office at the window, into the cashier's open drawer.
type RoomTaxWindowPayment struct {
	Return    string `json:"return"`
	DrawerID  string `json:"drawer_id"`
	Amount    Money  `json:"amount"`
	Tender    Tender `json:"tender"`
	Tendered  Money  `json:"tendered"`
	Reference string `json:"reference,omitempty"` // check number
	Payer     string `json:"payer,omitempty"`
}

// AnnualRoomTaxReturn files an operator's annual return (§5.22(3)(b)):
// the figures of each quarter of its elected year as reconciled.
type AnnualRoomTaxReturn struct {
	Operator string          `json:"operator"`
	Year     int             `json:"year"` // the year the annual period ends in
	Quarters []AnnualFigures `json:"quarters"`
	Signer   string          `json:"signer"`
	Capacity string          `json:"capacity"`
}

// AnnualFigures are one quarter's figures as an annual return reconciles
// them.
type AnnualFigures struct {
	Period        Quarter             `json:"period"`
	GrossReceipts Money               `json:"gross_receipts"`
	ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
}

// AnnualReturn is the record of an annual return: each quarter's tax as
// filed and as reconciled, and the difference, which the quarters then
// owe (tax due, with the rule's interest from each quarter's due date) or
// overpaid (a refund).
type AnnualReturn struct {
	ID         string          `json:"id"`
	Operator   string          `json:"operator"`
	Year       int             `json:"year"`
	Election   RoomTaxYear     `json:"election"`
	Quarters   []AnnualQuarter `json:"quarters"`
	FiledTax   Money           `json:"filed_tax"`
	Tax        Money           `json:"tax"`
	Difference Money           `json:"difference"` // tax − filed tax: positive is tax due, negative a refund
	DueOn      Date            `json:"due_on"`
	FiledAt    DateTime        `json:"filed_at"`
	By         string          `json:"by"`
	Signer     string          `json:"signer"`
	Capacity   string          `json:"capacity"`
	CommandID  string          `json:"command_id"`
}

// Late reports whether the annual return was filed after its due date.
func (a AnnualReturn) Late() bool { return a.FiledAt.Date.After(a.DueOn) }

// AnnualQuarter is one quarter of an annual return.
type AnnualQuarter struct {
	Period        Quarter             `json:"period"`
	GrossReceipts Money               `json:"gross_receipts"`
	ExemptSales   []RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	FiledTax      Money               `json:"filed_tax"`
	Tax           Money               `json:"tax"`
	Difference    Money               `json:"difference"`
	Corrected     bool                `json:"corrected,omitempty"` // the figures differ from the quarter's in force: an amendment was filed
}

// AnnualDueOn returns the due date of the annual return of the year that
// ends in year: room_tax_annual_days (90) after the year's close.
func (y RoomTaxYear) AnnualDueOn(year int, p *Params) Date {
	end := y.End(year)
	return end.AddDays(p.At(end).RoomTaxAnnualDays)
}

// AnnualReturnID returns the id of an operator's annual return.
func AnnualReturnID(operator string, year int) string { return fmt.Sprintf("%s_%d", operator, year) }

// Kinds of room tax returns and payments.
const (
	KindRoomTaxFile          Kind = "room_tax_file"
	KindRoomTaxAmend         Kind = "room_tax_amend"
	KindRoomTaxAnnual        Kind = "room_tax_annual"
	KindPayRoomTax           Kind = "pay_room_tax"
	KindRoomTaxWindowPayment Kind = "room_tax_window_payment"
)

// Kind names the payload's kind.
func (*FileRoomTaxReturn) Kind() Kind { return KindRoomTaxFile }

// Kind names the payload's kind.
func (*AmendRoomTaxReturn) Kind() Kind { return KindRoomTaxAmend }

// Kind names the payload's kind.
func (*AnnualRoomTaxReturn) Kind() Kind { return KindRoomTaxAnnual }

// Kind names the payload's kind.
func (*PayRoomTax) Kind() Kind { return KindPayRoomTax }

// Kind names the payload's kind.
func (*RoomTaxWindowPayment) Kind() Kind { return KindRoomTaxWindowPayment }

func salesText(sales []RoomTaxExemptSale) []textField {
	var f []textField
	for _, s := range sales {
		f = append(f, oneLine("An exempt buyer's name", s.Buyer), oneLine("A document's kind", s.Document), oneLine("A document's number", s.DocumentNumber))
	}
	return f
}

func (p *FileRoomTaxReturn) textFields() []textField {
	return append([]textField{oneLine("The operator", p.Operator), oneLine("The signer's name", p.Signer), oneLine("The signer's capacity", p.Capacity)}, salesText(p.ExemptSales)...)
}

func (p *AmendRoomTaxReturn) textFields() []textField {
	return append([]textField{oneLine("The operator", p.Operator), oneLine("The signer's name", p.Signer), oneLine("The signer's capacity", p.Capacity), oneLine("The reason", p.Reason)}, salesText(p.ExemptSales)...)
}

func (p *AnnualRoomTaxReturn) textFields() []textField {
	f := []textField{oneLine("The operator", p.Operator), oneLine("The signer's name", p.Signer), oneLine("The signer's capacity", p.Capacity)}
	for _, q := range p.Quarters {
		f = append(f, salesText(q.ExemptSales)...)
	}
	return f
}

func (p *PayRoomTax) textFields() []textField {
	return []textField{oneLine("The return reference", p.Return), oneLine("The reference", p.Reference), oneLine("The payer's name", p.Payer)}
}

func (p *RoomTaxWindowPayment) textFields() []textField {
	return []textField{oneLine("The return reference", p.Return), oneLine("The drawer id", p.DrawerID), oneLine("The check number", p.Reference), oneLine("The payer's name", p.Payer)}
}

var (
	roomTaxFileKind = &Descriptor{
		Kind: KindRoomTaxFile, Section: "§5.22(3)(b)", Since: 2, Roles: []Role{RoleHotelOperator, RoleTreasurer},
		New:   func() Payload { return new(FileRoomTaxReturn) },
		Apply: applyRoomTaxFile,
		Books: roomTaxEventLines,
	}
	roomTaxAmendKind = &Descriptor{
		Kind: KindRoomTaxAmend, Section: "§5.22(3)(b)", Since: 2, Roles: []Role{RoleHotelOperator, RoleTreasurer},
		New:   func() Payload { return new(AmendRoomTaxReturn) },
		Apply: applyRoomTaxAmend,
		Books: roomTaxEventLines,
	}
	roomTaxAnnualKind = &Descriptor{
		Kind: KindRoomTaxAnnual, Section: "§5.22(3)(b)", Since: 2, Roles: []Role{RoleHotelOperator, RoleTreasurer},
		New:   func() Payload { return new(AnnualRoomTaxReturn) },
		Apply: applyRoomTaxAnnual,
		Books: roomTaxAnnualLines,
	}
	// A card payment at the kiosk is taken offline like a bill's: the card
	// is charged before the command is submitted, so it must be kept and
	// posted when the network returns.
	payRoomTaxKind = &Descriptor{
		Kind: KindPayRoomTax, Section: sectionRoomTax, Since: 2, Offline: true, Resident: true,
		New: func() Payload { return new(PayRoomTax) },
		Check: func(c Command) error {
			p := c.Payload.(*PayRoomTax)
			if strings.TrimSpace(p.Reference) == "" {
				return Errorf(EINVALID, sectionRoomTax, "A card payment carries the terminal's approval reference.")
			}
			return nil
		},
		Apply: func(tx Tx, c Command, env Env, res *Result) error {
			p := c.Payload.(*PayRoomTax)
			if err := checkOperatorPays(tx, c, p.Return); err != nil {
				return err
			}
			card, err := receiptCard(tx, p.Card, Card)
			if err != nil {
				return err
			}
			return postRoomTaxPayment(tx, c, env, res, p.Return, RoomTaxPayment{Amount: p.Amount, Tender: Card, Reference: p.Reference, Payer: p.Payer}, card, true)
		},
		Receipt: func(c Command) *Receipt {
			p := c.Payload.(*PayRoomTax)
			rc := provisional(c)
			rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference, rc.Card = p.Return, p.Payer, p.Amount, Card, p.Reference, p.Card.shown()
			return rc
		},
		Books: roomTaxPaymentLines,
	}
	roomTaxWindowPaymentKind = &Descriptor{
		Kind: KindRoomTaxWindowPayment, Section: sectionRoomTax, Since: 2, Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(RoomTaxWindowPayment) },
		Apply: applyRoomTaxWindowPayment,
		Books: roomTaxPaymentLines,
	}
)

// filingOf checks the signature of a filing and returns it.
func filingOf(c Command, gross Money, sales []RoomTaxExemptSale, signer, capacity string) (RoomTaxFiling, error) {
	if strings.TrimSpace(signer) == "" || len(signer) > 200 {
		return RoomTaxFiling{}, Errorf(EINVALID, "§5.22(3)(b)", "The return is signed by the person required to file it or an authorized agent: type the signer's name.")
	}
	if strings.TrimSpace(capacity) == "" || len(capacity) > 200 {
		return RoomTaxFiling{}, Errorf(EINVALID, "§5.22(3)(b)", "Say in what capacity the signer signs (owner, officer, authorized agent …).")
	}
	if err := checkExemptSales(sales); err != nil {
		return RoomTaxFiling{}, err
	}
	return RoomTaxFiling{GrossReceipts: gross, ExemptSales: slices.Clone(sales), Signer: strings.TrimSpace(signer), Capacity: strings.TrimSpace(capacity),
		FiledAt: c.At, By: c.Actor, CommandID: c.ID}, nil
}

// checkPeriod refuses a return for a quarter that has not ended, or one
// of an operator closed before the quarter began.
func checkPeriod(op RoomTaxOperator, q Quarter, on Date) error {
	if !on.After(q.Last()) {
		return Errorf(EINVALID, "§5.22(3)(b)", "The quarter %s ends on %s; its return is filed after that.", q, q.Last())
	}
	if op.Closed && op.ClosedOn.Before(q.First()) {
		return Errorf(ECONFLICT, sectionRoomTax, "Operator %s closed on %s, before %s began.", op.ID, op.ClosedOn, q)
	}
	return nil
}

func applyRoomTaxFile(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*FileRoomTaxReturn)
	_, op, err := roomTaxFiler(tx, c, in.Operator)
	if err != nil {
		return err
	}
	if err := checkPeriod(op, in.Period, c.At.Date); err != nil {
		return err
	}
	id := QuarterlyReturnID(op.ID, in.Period)
	r, found, err := getReturn(tx, id)
	if err != nil {
		return err
	}
	if found && len(r.Filings) > 0 {
		return Errorf(ECONFLICT, "§5.22(3)(b)", "The return for %s was filed on %s; file an amended return instead.", in.Period, r.Filings[0].FiledAt.Date)
	}
	if !found {
		r = QuarterlyReturn{ID: id, Operator: op.ID, Period: in.Period}
	}
	switch {
	case op.Year == nil && in.Year == nil:
		return Errorf(EINVALID, "§5.22(3)(b)", "With the first return, elect a calendar year or a fiscal year for the annual return.")
	case op.Year == nil:
		if err := in.Year.check(); err != nil {
			return err
		}
		y := *in.Year
		y.ElectedOn = c.At.Date
		op.Year = &y
	case in.Year != nil && (in.Year.Basis != op.Year.Basis || in.Year.EndMonth != op.Year.EndMonth):
		return Errorf(ECONFLICT, "§5.22(3)(b)", "The operator elected a %s with its first return.", op.Year.Title())
	}
	f, err := filingOf(c, in.GrossReceipts, in.ExemptSales, in.Signer, in.Capacity)
	if err != nil {
		return err
	}
	if _, err := r.PreviewFiling(f, c.At, env.Params); err != nil {
		return confidential(err)
	}
	r.Filings = append(r.Filings, f)
	if err := tx.Put(CollectionRoomTaxOperators, op.ID, op); err != nil {
		return err
	}
	res.Note = roomTaxNote(id, "filed")
	return putReturn(tx, &op, r)
}

func applyRoomTaxAmend(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*AmendRoomTaxReturn)
	_, op, err := roomTaxFiler(tx, c, in.Operator)
	if err != nil {
		return err
	}
	id := QuarterlyReturnID(op.ID, in.Period)
	r, found, err := getReturn(tx, id)
	if err != nil {
		return err
	}
	if !found || len(r.Filings) == 0 {
		return Errorf(ENOTFOUND, "§5.22(3)(b)", "No return for %s is filed yet: file the return itself first.", in.Period)
	}
	if strings.TrimSpace(in.Reason) == "" {
		return Errorf(EINVALID, "§5.22(3)(b)", "Say why the return is amended.")
	}
	f, err := filingOf(c, in.GrossReceipts, in.ExemptSales, in.Signer, in.Capacity)
	if err != nil {
		return err
	}
	f.Amends, f.Reason = true, strings.TrimSpace(in.Reason)
	if _, err := r.PreviewFiling(f, c.At, env.Params); err != nil {
		return confidential(err)
	}
	r.Filings = append(r.Filings, f)
	res.Note = roomTaxNote(id, "amended")
	return putReturn(tx, &op, r)
}

func roomTaxNote(id, what string) string { return "room tax return " + id + " " + what }

// filingTax returns the tax the rule computes on gross receipts and exempt
// sales for a quarter.
func filingTax(q Quarter, gross Money, sales []RoomTaxExemptSale, on Date, p *Params) (Money, error) {
	r := QuarterlyReturn{Period: q}
	fig, err := r.PreviewFiling(RoomTaxFiling{GrossReceipts: gross, ExemptSales: sales}, NewDateTime(on, 0, 0, 0), p)
	return fig.Tax, err
}

func applyRoomTaxAnnual(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*AnnualRoomTaxReturn)
	_, op, err := roomTaxFiler(tx, c, in.Operator)
	if err != nil {
		return err
	}
	if op.Year == nil {
		return Errorf(ECONFLICT, "§5.22(3)(b)", "The operator has not elected its year yet: it does so with its first quarterly return.")
	}
	if in.Year < 2000 || in.Year > 9999 {
		return Errorf(EINVALID, "§5.22(3)(b)", "The year of the annual return is not valid.")
	}
	y := *op.Year
	end := y.End(in.Year)
	if !c.At.Date.After(end) {
		return Errorf(EINVALID, "§5.22(3)(b)", "The %s %d ends on %s; its annual return is filed after that.", y.Title(), in.Year, end)
	}
	id := AnnualReturnID(op.ID, in.Year)
	var old AnnualReturn
	if ok, err := tx.Get(CollectionRoomTaxAnnual, id, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, "§5.22(3)(b)", "The annual return for %d was filed on %s.", in.Year, old.FiledAt.Date)
	}
	want := y.Quarters(in.Year)
	if len(in.Quarters) != len(want) {
		return Errorf(EINVALID, "§5.22(3)(b)", "The annual return lists the four quarters %s to %s.", want[0], want[3])
	}
	if strings.TrimSpace(in.Signer) == "" || strings.TrimSpace(in.Capacity) == "" {
		return Errorf(EINVALID, "§5.22(3)(b)", "The annual return is signed: type the signer's name and capacity.")
	}
	a := AnnualReturn{ID: id, Operator: op.ID, Year: in.Year, Election: y, DueOn: y.AnnualDueOn(in.Year, env.Params), FiledAt: c.At, By: c.Actor,
		Signer: strings.TrimSpace(in.Signer), Capacity: strings.TrimSpace(in.Capacity), CommandID: c.ID}
	for i, q := range want {
		line := in.Quarters[i]
		if line.Period != q {
			return Errorf(EINVALID, "§5.22(3)(b)", "Line %d of the annual return is for %s; it must be %s.", i+1, line.Period, q)
		}
		r, found, err := getReturn(tx, QuarterlyReturnID(op.ID, q))
		if err != nil {
			return err
		}
		if !found || len(r.Filings) == 0 {
			return Errorf(ECONFLICT, "§5.22(3)(b)", "The quarterly return for %s is not filed: file it before the annual return.", q)
		}
		last := r.Filings[len(r.Filings)-1]
		filed, err := filingTax(q, last.GrossReceipts, last.ExemptSales, c.At.Date, env.Params)
		if err != nil {
			return confidential(err)
		}
		f, err := filingOf(c, line.GrossReceipts, line.ExemptSales, in.Signer, in.Capacity)
		if err != nil {
			return err
		}
		tax, err := filingTax(q, f.GrossReceipts, f.ExemptSales, c.At.Date, env.Params)
		if err != nil {
			return confidential(err)
		}
		aq := AnnualQuarter{Period: q, GrossReceipts: line.GrossReceipts, ExemptSales: slices.Clone(line.ExemptSales), FiledTax: filed, Tax: tax, Difference: tax.Sub(filed)}
		if !sameFigures(last, f) {
			// The annual return corrects the quarter: an amendment, so
			// that the quarter's own figures (interest from its due
			// date, its refund) follow from the rule.
			f.Amends, f.Reason, f.Annual = true, fmt.Sprintf("annual return %d", in.Year), id
			r.Filings = append(r.Filings, f)
			if err := tx.Put(CollectionRoomTaxReturns, r.ID, r); err != nil {
				return err
			}
			aq.Corrected = true
		}
		a.Quarters = append(a.Quarters, aq)
		a.FiledTax, a.Tax = a.FiledTax.Add(filed), a.Tax.Add(tax)
	}
	a.Difference = a.Tax.Sub(a.FiledTax)
	res.Note = roomTaxPrefix + "annual return " + id + " filed"
	return tx.Put(CollectionRoomTaxAnnual, id, a)
}

const roomTaxPrefix = "room tax "

// sameFigures reports whether two filings report the same figures.
func sameFigures(a, b RoomTaxFiling) bool {
	return a.GrossReceipts.Equal(b.GrossReceipts) && slices.EqualFunc(a.ExemptSales, b.ExemptSales, func(x, y RoomTaxExemptSale) bool {
		return x.Amount.Equal(y.Amount) && x.Entity == y.Entity && x.Buyer == y.Buyer && x.BilledToEntity == y.BilledToEntity && x.Document == y.Document && x.DocumentNumber == y.DocumentNumber
	})
}

// checkOperatorPays refuses a card payment that a hotel operator's login
// makes on its portal toward a return of another operator: a login acts
// for its own operator only (§5.22(8)), in paying as in filing. A payment
// taken at the kiosk (whose actor is no staff account) or by the
// treasurer's office is not the portal's and is not checked here. The
// rule applies from DocumentsFormat, the format of the operator's portal,
// so that a ledger of an earlier format replays exactly as written.
func checkOperatorPays(tx Tx, c Command, ret string) error {
	if RulesFormat(tx) < DocumentsFormat {
		return nil
	}
	var u StaffUser
	ok, err := tx.Get(CollectionStaffUsers, c.Actor, &u)
	if err != nil || !ok || u.Role != RoleHotelOperator {
		return err
	}
	opID, _, err := ParseQuarterlyReturnID(ret)
	if err != nil {
		return err
	}
	var l RoomTaxLogin
	ok, err = tx.Get(CollectionRoomTaxLogins, u.Username, &l)
	if err != nil {
		return err
	}
	if u.Disabled || !ok || l.Operator != opID {
		return Errorf(EFORBIDDEN, sectionRoomTax, "Your login pays for its own operator account only.")
	}
	return nil
}

// postRoomTaxPayment posts a payment to a return. The return must be on
// record (filed, determined, or extended); the rule applies it to the
// tax first when the figures are computed. A card payment also gets a
// receipt the kiosk reads back; it carries what was paid, never the
// return's figures.
func postRoomTaxPayment(tx Tx, c Command, env Env, res *Result, ref string, pay RoomTaxPayment, card *CardShown, receipt bool) error {
	opID, q, err := ParseQuarterlyReturnID(ref)
	if err != nil {
		return err
	}
	if err := checkPaymentAmount(tx, pay.Amount, c.At.Date, env.Params); err != nil {
		return err
	}
	id := QuarterlyReturnID(opID, q)
	r, found, err := getReturn(tx, id)
	if err != nil {
		return err
	}
	if !found {
		return Errorf(ENOTFOUND, sectionRoomTax, "There is no room tax return %s on record; check the reference on the return.", id)
	}
	pay.CommandID, pay.Receipt, pay.At, pay.By = c.ID, c.ReceiptNumber(), c.At, c.Actor
	r.Payments = append(r.Payments, pay)
	if err := tx.Put(CollectionRoomTaxReturns, id, r); err != nil {
		return err
	}
	if receipt {
		rc := Receipt{Number: pay.Receipt, Kind: c.Kind, CommandID: c.ID, Status: Posted, BillID: id, Account: opID, Payer: pay.Payer,
			At: c.At, Amount: pay.Amount, Tender: pay.Tender, Reference: pay.Reference, Card: card, Node: c.Node, Index: env.Index}
		if err := tx.PutReceipt(rc); err != nil {
			return err
		}
		res.Receipt = &rc
	}
	res.Note = roomTaxNote(id, "payment "+pay.Receipt)
	return nil
}

func applyRoomTaxWindowPayment(tx Tx, c Command, env Env, res *Result) error {
	in := c.Payload.(*RoomTaxWindowPayment)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if in.Tender != Cash && in.Tender != Check {
		return Errorf(EINVALID, sectionRoomTax, "The window takes cash or checks.")
	}
	d, err := getDrawer(tx, in.DrawerID)
	if err != nil {
		return err
	}
	if d.Closed || d.Cashier != c.Actor {
		return Errorf(ECONFLICT, "", "Drawer %s is not your open drawer.", d.ID)
	}
	dp := DrawerPayment{CommandID: c.ID, Receipt: c.ReceiptNumber(), BillID: in.Return, At: c.At, Tender: in.Tender, Amount: in.Amount,
		Tendered: in.Amount, Change: Cents(0), Reference: in.Reference, Payer: in.Payer}
	switch in.Tender {
	case Cash:
		if in.Tendered.LessThan(in.Amount) {
			return Errorf(EINVALID, "", "The cash handed over (%s) is less than the payment (%s).", in.Tendered, in.Amount)
		}
		dp.Tendered, dp.Change = in.Tendered, in.Tendered.Sub(in.Amount)
	case Check:
		if strings.TrimSpace(in.Reference) == "" {
			return Errorf(EINVALID, "", "The check number is required.")
		}
	}
	if err := postRoomTaxPayment(tx, c, env, res, in.Return, RoomTaxPayment{Amount: in.Amount, Tender: in.Tender, Reference: in.Reference, Payer: in.Payer, Drawer: d.ID}, nil, false); err != nil {
		return err
	}
	d.Payments = append(d.Payments, dp)
	if len(d.Payments) == 1 {
		if err := tx.Index(IndexUndeposited, d.OpenedAt.Date.String()+"/"+d.ID); err != nil {
			return err
		}
	}
	return tx.Put(CollectionDrawers, d.ID, d)
}

// RoomTaxReturn returns an operator's return for a quarter by its id.
func (x Reads) RoomTaxReturn(id string) (QuarterlyReturn, error) {
	return must[QuarterlyReturn](x.r, CollectionRoomTaxReturns, id, "room tax return")
}

// RoomTaxReturnsOf returns an operator's returns, by period.
func (x Reads) RoomTaxReturnsOf(operator string) ([]QuarterlyReturn, error) {
	rs, err := all[QuarterlyReturn](x.r, CollectionRoomTaxReturns, operator+"_")
	slices.SortFunc(rs, func(a, b QuarterlyReturn) int { return a.Period.Compare(b.Period) })
	return rs, err
}

// RoomTaxReturns returns every operator's returns, by operator then
// period.
func (x Reads) RoomTaxReturns() ([]QuarterlyReturn, error) {
	rs, err := all[QuarterlyReturn](x.r, CollectionRoomTaxReturns, "")
	sortReturns(rs)
	return rs, err
}

// RoomTaxReturnsPaidIn returns the returns with a payment made in year,
// by operator then period: what a year's collections are figured from
// (RoomTaxCollections).
func (x Reads) RoomTaxReturnsPaidIn(year int) ([]QuarterlyReturn, error) {
	return x.roomTaxReturnsBy(fmt.Sprintf("paid/%04d", year), func(r QuarterlyReturn) bool {
		return slices.ContainsFunc(r.Payments, func(p RoomTaxPayment) bool { return p.At.Date.Year() == year })
	})
}

// RoomTaxReturnsOfYear returns the returns for the quarters of year, by
// operator then period.
func (x Reads) RoomTaxReturnsOfYear(year int) ([]QuarterlyReturn, error) {
	return x.roomTaxReturnsBy(fmt.Sprintf("period/%04d", year), func(r QuarterlyReturn) bool { return r.Period.Year == year })
}

// RoomTaxPaymentRecorded reports whether a payment of any return was
// made by the command id.
func (x Reads) RoomTaxPaymentRecorded(commandID string) (bool, error) {
	rs, err := x.roomTaxReturnsBy(RoomTaxPaymentKey(commandID), func(r QuarterlyReturn) bool {
		return slices.ContainsFunc(r.Payments, func(p RoomTaxPayment) bool { return p.CommandID == commandID })
	})
	return len(rs) > 0, err
}

// roomTaxReturnsBy reads the returns under key in IndexRoomTaxReturnsBy,
// keeps those that hold what the key stands for (a digest of a command id
// could in principle be another's), and sorts them by operator then
// period.
func (x Reads) roomTaxReturnsBy(key string, holds func(QuarterlyReturn) bool) ([]QuarterlyReturn, error) {
	out, err := allDerived(x.r, IndexRoomTaxReturnsBy, key, holds)
	sortReturns(out)
	return out, err
}

func sortReturns(rs []QuarterlyReturn) {
	slices.SortFunc(rs, func(a, b QuarterlyReturn) int {
		if c := strings.Compare(a.Operator, b.Operator); c != 0 {
			return c
		}
		return a.Period.Compare(b.Period)
	})
}

// AnnualRoomTaxReturn returns an annual return.
func (x Reads) AnnualRoomTaxReturn(id string) (AnnualReturn, error) {
	return must[AnnualReturn](x.r, CollectionRoomTaxAnnual, id, "annual room tax return")
}

// AnnualRoomTaxReturnsOf returns an operator's annual returns, by year.
func (x Reads) AnnualRoomTaxReturnsOf(operator string) ([]AnnualReturn, error) {
	return all[AnnualReturn](x.r, CollectionRoomTaxAnnual, operator+"_")
}
