package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Claims and accounts payable (§5.07(2)-(4), Wis. Stat. 66.0609): a claim
// against the treasury is paid only after the Finance Director/Treasurer
// (or designee) has endorsed the four conditions of §5.07(3), each a
// certification recorded with who and when; approved claims are paid by
// check in a run, with the facsimile or digital signatures the board
// approved (§5.18); the monthly check register goes to the board.

const sectionClaims = "§5.07"

// Kinds of accounts payable.
const (
	KindClaim          Kind = "claim"           // §5.07(3): a claim entered, certified or cancelled
	KindAPPolicy       Kind = "ap_policy"       // §5.07(2): the accounts payable policy adopted or reviewed
	KindSignature      Kind = "check_signature" // §5.18: an official's facsimile or digital signature approved or withdrawn
	KindCheckStock     Kind = "check_stock"     // the number of the next blank check
	KindCheckRun       Kind = "check_run"       // §5.07(4): approved claims paid by check
	KindCheckVoid      Kind = "check_void"      // a check voided, its claim open again
	KindRegisterReview Kind = "register_review" // §5.07(4): the board's review of a month's check register
)

// Collections of accounts payable.
const (
	CollectionClaims     = "claims"           // by id CL-<year>-<nnnn>
	CollectionChecks     = "checks"           // by number, zero-padded
	CollectionCheckRuns  = "check-runs"       // by id RUN-<year>-<nnn>
	CollectionSignatures = "check-signatures" // by id
	CollectionAPPolicy   = "ap-policy"        // the one policy, "policy", and its versions "v/<nnn>"
	CollectionReviews    = "register-reviews" // by month YYYY-MM
	indexClaimInvoices   = "claims-by-invoice"
)

// The four certifications of §5.07(3), in the ordinance's order.
const (
	CertifyFundsAvailable = "funds"      // (a) funds are available under the budget
	CertifyAuthorized     = "authorized" // (b) authorized by the proper department head, board or commission
	CertifyConformity     = "conformity" // (c) supplied or rendered in conformity with the authorization
	CertifyValid          = "valid"      // (d) just and valid pursuant to law
)

// ClaimCertifications are the four conditions, in order.
var ClaimCertifications = []string{CertifyFundsAvailable, CertifyAuthorized, CertifyConformity, CertifyValid}

// Claim statuses.
const (
	ClaimEntered = "entered" // certifications missing
	// ClaimCertified: all four conditions certified, awaiting the
	// treasurer's endorsement (ledger format 5).
	ClaimCertified = "certified"
	ClaimApproved  = "approved"  // endorsed by the treasurer (before format 5: all four certified): payable
	ClaimPaid      = "paid"      // a check was issued
	ClaimCancelled = "cancelled" // withdrawn or rejected
)

// Claim is a monetary claim against the village.
type Claim struct {
	ID          string   `json:"id"`
	Year        int      `json:"year"` // the appropriation's year
	Line        string   `json:"line"` // the expenditure account charged
	Unit        string   `json:"unit,omitempty"`
	Vendor      string   `json:"vendor"`
	Invoice     string   `json:"invoice"`
	InvoiceDate Date     `json:"invoice_date"`
	Amount      Money    `json:"amount"`
	Order       string   `json:"order,omitempty"`      // the purchase order it pays, if any
	Employment  string   `json:"employment,omitempty"` // the employment whose payroll it pays, if any (format 6): the employee or payroll service is the vendor
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Entered     DateTime `json:"entered"`
	EnteredBy   string   `json:"entered_by"`
	// Certifications are the conditions of §5.07(3) endorsed so far.
	Certifications []ClaimCertification `json:"certifications,omitempty"`
	// Held is what the claim encumbers from its funds certification to
	// its payment (a claim without an order; an order's delivery was
	// charged when it was received).
	Held      Money  `json:"held"`
	Check     string `json:"check,omitempty"`   // the check that paid it
	Expense   string `json:"expense,omitempty"` // the expense its payment charged
	Cancelled *Act   `json:"cancelled,omitempty"`
	// Voided lists the checks that paid it and were voided.
	Voided []string `json:"voided,omitempty"`
	// Endorsement is the treasurer's approval of the claim (§5.07(3),
	// ledger format 5).
	Endorsement *ClaimEndorsement `json:"endorsement,omitempty"`
}

// ClaimEndorsement is the Finance Director/Treasurer's endorsement of a
// claim (§5.07(3)): having determined that all four conditions were
// complied with, the treasurer approves the claim as a proper charge
// against the treasury. The certifications it rests on, by whoever gave
// them, are listed in it as they stood.
type ClaimEndorsement struct {
	By       string               `json:"by"`
	Role     Role                 `json:"role"`
	At       DateTime             `json:"at"`
	Endorses []ClaimCertification `json:"endorses"`
	Note     string               `json:"note,omitempty"`
}

// ClaimCertification is one condition endorsed.
type ClaimCertification struct {
	What string   `json:"what"`
	By   string   `json:"by"`
	Role Role     `json:"role"`
	At   DateTime `json:"at"`
	// Basis is what the endorsement rests on: the appropriation's
	// available balance, the authorizing order or motion, the inspection.
	Basis string `json:"basis,omitempty"`
	Proof string `json:"proof,omitempty"` // the proof submitted, where the treasurer asked for it
	Note  string `json:"note,omitempty"`
}

// Certified reports whether the claim carries certification what.
func (c Claim) Certified(what string) bool {
	return slices.ContainsFunc(c.Certifications, func(x ClaimCertification) bool { return x.What == what })
}

// Missing returns the certifications the claim still lacks, in order.
func (c Claim) Missing() []string {
	var out []string
	for _, w := range ClaimCertifications {
		if !c.Certified(w) {
			out = append(out, w)
		}
	}
	return out
}

// Claim operations.
const (
	ClaimEnter   = "enter"
	ClaimCertify = "certify"
	ClaimCancel  = "cancel"
	// ClaimEndorse is the treasurer's endorsement of the four conditions
	// (§5.07(3), ledger format 5).
	ClaimEndorse = "endorse"
)

// ClaimChange enters a claim, records one certification, endorses it, or
// cancels it.
type ClaimChange struct {
	Op string `json:"op"`
	ID string `json:"id,omitempty"` // certify, cancel
	// enter
	Vendor      string `json:"vendor,omitempty"`
	Invoice     string `json:"invoice,omitempty"`
	InvoiceDate Date   `json:"invoice_date,omitzero"`
	Amount      Money  `json:"amount,omitzero"`
	Line        string `json:"line,omitempty"`
	Order       string `json:"order,omitempty"`
	// Employment is the employment whose payroll the claim pays (ledger
	// format 6).
	Employment  string `json:"employment,omitempty"`
	Description string `json:"description,omitempty"`
	// certify
	Certification string `json:"certification,omitempty"`
	Basis         string `json:"basis,omitempty"`
	Proof         string `json:"proof,omitempty"`
	Note          string `json:"note,omitempty"`
	// cancel
	Reason string `json:"reason,omitempty"`
}

// Kind names the payload's kind.
func (*ClaimChange) Kind() Kind { return KindClaim }

func (p *ClaimChange) textFields() []textField {
	return []textField{oneLine("The claim", p.ID), oneLine("The vendor", p.Vendor), oneLine("The invoice", p.Invoice), oneLine("The line", p.Line),
		oneLine("The order", p.Order), oneLine("The employment", p.Employment), oneLine("The description", p.Description), oneLine("The basis", p.Basis), oneLine("The proof", p.Proof),
		manyLines("The note", p.Note), oneLine("The reason", p.Reason)}
}

var claimKind = &Descriptor{
	Kind: KindClaim, Section: sectionClaims, Since: 2,
	Roles: []Role{RoleTreasurer, RoleClerk, RoleAdministrator, RoleDepartmentHead, RoleBoard},
	New:   func() Payload { return new(ClaimChange) },
	Apply: applyClaim,
	Books: claimLines,
}

// claimLines post a claim's allowance and its cancellation (§5.07(3)).
// The claim is a charge against the treasury from the moment the
// treasurer's audit approves it (the endorsement; the books are kept
// only from ledger format 5, where the endorsement approves): its line's
// expenditure is debited and vouchers payable credited, in the line's
// fund. A claim paying an order's delivery was counted as expenditure
// when the delivery was invoiced, as the appropriation was charged then
// (§5.12(8)), so its allowance moves the debt from invoices payable to
// vouchers payable. A claim paying an employment's payroll (ledger
// format 6) is expenditure of its line at its allowance like a claim
// without an order, and the allowance charges the employment, so what it
// liquidated of the employment's encumbrance is released as an order's
// delivery releases the order's. Cancelling an allowed claim reverses its
// allowance. Its encumbrance (the funds certification) is the books'
// until it is allowed (commitmentLines).
func claimLines(l *Lines, tx Tx, c Command, res Result) string {
	p := c.Payload.(*ClaimChange)
	cl, err := loadClaim(tx, res.Ref)
	if err != nil {
		l.err = err
		return ""
	}
	commitmentLines(l, tx, cl.ID)
	commitmentLines(l, tx, cl.Employment)
	allowed := (p.Op == ClaimCertify || p.Op == ClaimEndorse) && cl.Status == ClaimApproved
	cancelled := p.Op == ClaimCancel && cl.Endorsement != nil
	if !allowed && !cancelled {
		return "claim " + cl.ID + " " + p.Op
	}
	fund := l.FundOf(cl.Line)
	charge := cl.Line
	if cl.Order != "" {
		charge = l.Control(fund, ControlInvoiced)
	}
	amount, memo := cl.Amount, "claim "+cl.ID+" allowed: "+cl.Vendor+", invoice "+cl.Invoice
	if cancelled {
		amount, memo = amount.Neg(), "claim "+cl.ID+" cancelled after its allowance"
	}
	l.Debit(charge, amount, "§5.07(3)", memo)
	l.Credit(l.Control(fund, ControlPayable), amount, "§5.07(3)", memo)
	return memo
}

func applyClaim(tx Tx, c Command, _ Env, res *Result) error {
	p := c.Payload.(*ClaimChange)
	switch p.Op {
	case ClaimEnter:
		return enterClaim(tx, c, p, res)
	case ClaimCertify:
		return certifyClaim(tx, c, p, res)
	case ClaimCancel:
		return cancelClaim(tx, c, p, res)
	case ClaimEndorse:
		if RulesFormat(tx) >= BooksFormat {
			return endorseClaim(tx, c, p, res)
		}
	}
	return Errorf(EINVALID, sectionClaims, "Unknown claim operation %q (enter, certify or cancel).", p.Op)
}

func claimInvoiceKey(vendor, invoice string) string {
	return strings.ToLower(strings.Join(strings.Fields(vendor), " ")) + "|" + strings.ToLower(strings.TrimSpace(invoice))
}

func enterClaim(tx Tx, c Command, p *ClaimChange, res *Result) error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionClaims, format, args...) }
	switch {
	case strings.TrimSpace(p.Vendor) == "" || strings.TrimSpace(p.Invoice) == "":
		return bad("A claim needs the vendor and the vendor's invoice number.")
	case strings.TrimSpace(p.Description) == "":
		return bad("A claim needs what it is for.")
	case !p.Amount.IsPositive():
		return bad("The amount of a claim must be more than $0.00.")
	case p.InvoiceDate.IsZero() || p.InvoiceDate.After(c.At.Date):
		return bad("A claim needs its invoice date, on or before today.")
	}
	key := claimInvoiceKey(p.Vendor, p.Invoice)
	var dup string
	if ok, err := tx.Get(indexClaimInvoices, key, &dup); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, sectionClaims, "Invoice %s of %s is already claim %s.", strings.TrimSpace(p.Invoice), strings.TrimSpace(p.Vendor), dup)
	}
	if p.Employment != "" && RulesFormat(tx) < ReconciledFormat {
		return bad("A claim names the employment whose payroll it pays only from ledger format 6.")
	}
	if p.Employment != "" && p.Order != "" {
		return bad("A claim pays a purchase order or an employment's payroll, not both.")
	}
	year := c.At.Date.Year()
	if p.Order != "" {
		o, err := loadOrder(tx, p.Order)
		if err != nil {
			return err
		}
		if o.Line != p.Line {
			return bad("Order %s is drawn against %s, not %s.", o.ID, o.Line, p.Line)
		}
		var invoiced Money
		for _, d := range o.Receipts {
			invoiced = invoiced.Add(d.Invoiced)
		}
		if left := invoiced.Sub(o.Claimed); left.LessThan(p.Amount) {
			return Errorf(ECONFLICT, sectionClaims, "Order %s has %s invoiced on its deliveries and not yet claimed, less than %s: record the delivery first (§5.12(8)).", o.ID, dollarsIn(tx, left), dollarsIn(tx, p.Amount))
		}
		o.Claimed = o.Claimed.Add(p.Amount)
		if err := putOrder(tx, o); err != nil {
			return err
		}
		year = o.Year
	}
	if p.Employment != "" {
		e, err := payrollEmployment(tx, p.Employment)
		if err != nil {
			return err
		}
		if e.Line != p.Line {
			return bad("Employment %s is drawn against %s, not %s: its payroll is claimed on its own line.", e.ID, e.Line, p.Line)
		}
		year = e.Year
	}
	a, err := loadAppropriation(tx, year, p.Line)
	if err != nil {
		return err
	}
	if err := mayActFor(tx, c, a.Unit, "enter a claim for"); err != nil {
		return err
	}
	n, err := nextNumber(tx, "claims/"+yearID(year))
	if err != nil {
		return err
	}
	cl := Claim{ID: fmt.Sprintf("CL-%d-%04d", year, n), Year: year, Line: p.Line, Unit: a.Unit, Vendor: strings.TrimSpace(p.Vendor), Invoice: strings.TrimSpace(p.Invoice),
		InvoiceDate: p.InvoiceDate, Amount: p.Amount, Order: p.Order, Employment: p.Employment, Description: strings.TrimSpace(p.Description), Status: ClaimEntered, Entered: c.At, EnteredBy: c.Actor}
	if err := tx.Put(indexClaimInvoices, key, cl.ID); err != nil {
		return err
	}
	res.Ref, res.Note = cl.ID, fmt.Sprintf("claim %s entered: %s, %s", cl.ID, cl.Vendor, dollarsIn(tx, cl.Amount))
	return tx.Put(CollectionClaims, cl.ID, cl)
}

func loadClaim(tx Tx, id string) (Claim, error) {
	var cl Claim
	ok, err := tx.Get(CollectionClaims, id, &cl)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, sectionClaims, "There is no claim %q.", id)
	}
	return cl, err
}

// certifyClaim records one condition of §5.07(3). Funds and validity are
// the Finance Director/Treasurer's; the authorization is the department
// head's of the claim's unit, the administrator's or the board's (a
// member recording the motion); the conformity the department head's or
// the administrator's, or the treasurer's on an inspected delivery.
func certifyClaim(tx Tx, c Command, p *ClaimChange, res *Result) error {
	cl, err := loadClaim(tx, p.ID)
	if err != nil {
		return err
	}
	if cl.Status == ClaimCancelled || cl.Status == ClaimPaid {
		return Errorf(ECONFLICT, sectionClaims, "Claim %s is %s: it takes no more certifications.", cl.ID, cl.Status)
	}
	if !slices.Contains(ClaimCertifications, p.Certification) {
		return Errorf(EINVALID, sectionClaims, "%q is not one of the four conditions of §5.07(3) (funds, authorized, conformity, valid).", p.Certification)
	}
	if len(cl.Missing()) == 0 {
		return Errorf(ECONFLICT, sectionClaims, "Claim %s carries all four certifications of §5.07(3); there is no fifth.", cl.ID)
	}
	if cl.Certified(p.Certification) {
		return Errorf(ECONFLICT, sectionClaims, "Claim %s is already certified %s.", cl.ID, p.Certification)
	}
	u, ok, err := actor(tx, c)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(EFORBIDDEN, sectionClaims, "Only a staff account certifies a claim.")
	}
	may := map[string][]Role{
		CertifyFundsAvailable: {RoleTreasurer},
		CertifyValid:          {RoleTreasurer},
		CertifyAuthorized:     {RoleDepartmentHead, RoleAdministrator, RoleBoard},
		CertifyConformity:     {RoleDepartmentHead, RoleAdministrator, RoleTreasurer},
	}[p.Certification]
	if !slices.ContainsFunc(may, u.Role.Is) {
		return Errorf(EFORBIDDEN, sectionClaims, "The %s certification of a claim is not the %s's to give.", p.Certification, u.Role)
	}
	if err := mayActFor(tx, c, cl.Unit, "certify a claim of"); err != nil {
		return err
	}
	x := ClaimCertification{What: p.Certification, By: c.Actor, Role: u.Role, At: c.At, Basis: strings.TrimSpace(p.Basis), Proof: strings.TrimSpace(p.Proof), Note: strings.TrimSpace(p.Note)}
	switch p.Certification {
	case CertifyFundsAvailable:
		if cl.Order != "" {
			x.Basis = "charged to " + cl.Line + " when order " + cl.Order + "'s delivery was received"
			break
		}
		if cl.Employment != "" {
			basis, err := payrollFunds(tx, cl)
			if err != nil {
				return err
			}
			x.Basis = basis
			break
		}
		a, err := loadAppropriation(tx, cl.Year, cl.Line)
		if err != nil {
			return err
		}
		if err := encumber(tx, cl.Year, cl.Line, cl.ID, "claim", c.At.Date, cl.Amount, cl.Vendor+": "+cl.Description, false); err != nil {
			return err
		}
		x.Basis = fmt.Sprintf("%s had %s available", cl.Line, dollarsIn(tx, a.Available()))
		cl.Held = cl.Amount
	case CertifyAuthorized:
		if x.Basis == "" && cl.Order != "" {
			x.Basis = "purchase order " + cl.Order
		}
		if x.Basis == "" && cl.Employment != "" {
			e, err := payrollEmployment(tx, cl.Employment)
			if err != nil {
				return err
			}
			x.Basis = "employment " + e.ID + " approved by the board: " + e.Approval
		}
		if x.Basis == "" {
			return Errorf(EINVALID, sectionClaims, "Say what authorized it: the order, the motion of the board or the commission.")
		}
	case CertifyConformity:
		if x.Basis == "" {
			return Errorf(EINVALID, sectionClaims, "Say how it was found in conformity: the inspection, the delivery, the work seen done.")
		}
	}
	cl.Certifications = append(cl.Certifications, x)
	if len(cl.Missing()) == 0 {
		cl.Status = ClaimApproved
		if RulesFormat(tx) >= BooksFormat {
			// The four certifications are what the treasurer's
			// endorsement rests on, not the approval itself.
			cl.Status = ClaimCertified
		}
	}
	res.Ref, res.Note = cl.ID, fmt.Sprintf("claim %s certified %s", cl.ID, p.Certification)
	return tx.Put(CollectionClaims, cl.ID, cl)
}

// endorseClaim records the treasurer's endorsement of a claim (§5.07(3),
// ledger format 5). The ordinance makes the Finance Director/Treasurer
// (or designee) the one who audits and approves each claim and
// "endorses his or her approval ... after having determined that all the
// following conditions have been complied with": the certifications of
// the department head, the administrator or the board are what the
// treasurer determines it from, so the claim is payable only once the
// treasurer endorses all four together. The designee is a staff account
// with the treasurer's role. A claim approved before format 5 on its
// certifications alone takes the endorsement too before a check pays it.
// The endorsement of a payroll claim charges it to its employment
// (chargePayroll).
func endorseClaim(tx Tx, c Command, p *ClaimChange, res *Result) error {
	cl, err := loadClaim(tx, p.ID)
	if err != nil {
		return err
	}
	switch {
	case cl.Endorsement != nil:
		return Errorf(ECONFLICT, sectionClaims, "Claim %s was endorsed by %s at %s.", cl.ID, cl.Endorsement.By, cl.Endorsement.At)
	case cl.Status == ClaimCancelled || cl.Status == ClaimPaid:
		return Errorf(ECONFLICT, sectionClaims, "Claim %s is %s: there is nothing to endorse.", cl.ID, cl.Status)
	case len(cl.Missing()) > 0:
		return Errorf(ECONFLICT, sectionClaims, "Claim %s lacks the %s certification(s): the treasurer endorses a claim only once all four conditions of §5.07(3) are certified.", cl.ID, strings.Join(cl.Missing(), ", "))
	}
	u, ok, err := actor(tx, c)
	if err != nil {
		return err
	}
	if !ok || !u.Role.Is(RoleTreasurer) {
		return Errorf(EFORBIDDEN, sectionClaims, "Only the Finance Director/Treasurer (or designee) endorses the approval of a claim (§5.07(3)).")
	}
	cl.Endorsement = &ClaimEndorsement{By: c.Actor, Role: u.Role, At: c.At, Endorses: slices.Clone(cl.Certifications), Note: strings.TrimSpace(p.Note)}
	cl.Status = ClaimApproved
	if cl.Employment != "" {
		if err := chargePayroll(tx, c, &cl); err != nil {
			return err
		}
	}
	res.Ref, res.Note = cl.ID, fmt.Sprintf("claim %s endorsed by the treasurer: payable", cl.ID)
	return tx.Put(CollectionClaims, cl.ID, cl)
}

// payrollEmployment returns the employment whose payroll a claim pays
// (§5.16, ledger format 6): one the board approved that was not
// cancelled, for only its encumbrance stands behind the payroll.
func payrollEmployment(tx Tx, id string) (Employment, error) {
	var e Employment
	ok, err := tx.Get(CollectionEmployment, id, &e)
	switch {
	case err != nil:
		return e, err
	case !ok:
		return e, Errorf(ENOTFOUND, "§5.16", "There is no employment %q: a payroll claim names an employment the board approved (EMP-…).", id)
	case e.Cancelled:
		return e, Errorf(ECONFLICT, "§5.16", "Employment %s was cancelled: no payroll is charged to it.", e.ID)
	}
	return e, nil
}

// employmentOpen is what an employment still encumbers: its cost not yet
// charged, nothing once cancelled (as commitmentLines counts it).
func employmentOpen(e Employment) Money {
	if e.Cancelled {
		return Money{}
	}
	return e.Amount.Sub(e.Charged).Max(Money{})
}

// payrollFunds is the funds certification of a payroll claim
// (§5.07(3)(a), §5.16): the employment's encumbrance holds the money for
// the cost it has not yet charged, and what the claim asks beyond it must
// be available in the appropriation, as for a claim without an order.
// Nothing more is encumbered: the claim is charged to the employment at
// its allowance, which checks the appropriation again.
func payrollFunds(tx Tx, cl Claim) (string, error) {
	e, err := payrollEmployment(tx, cl.Employment)
	if err != nil {
		return "", err
	}
	a, err := loadAppropriation(tx, e.Year, cl.Line)
	if err != nil {
		return "", err
	}
	open := employmentOpen(e)
	extra := cl.Amount.Sub(open)
	if extra.IsPositive() && a.Available().LessThan(extra) {
		return "", Errorf(ECONFLICT, "§5.07(3)", "%s: employment %s holds %s not yet charged, and the appropriation for %s has %s available, less than the %s the claim asks beyond it.",
			cl.ID, e.ID, dollarsIn(tx, open), cl.Line, dollarsIn(tx, a.Available()), dollarsIn(tx, extra))
	}
	basis := fmt.Sprintf("employment %s holds %s of %s not yet charged", e.ID, dollarsIn(tx, open), cl.Line)
	if extra.IsPositive() {
		basis += fmt.Sprintf("; the %s beyond it of %s available", dollarsIn(tx, extra), dollarsIn(tx, a.Available()))
	}
	return basis, nil
}

// chargePayroll charges an allowed payroll claim to its employment
// (§5.16, ledger format 6), through chargeExpense as every charge is:
// the employment's Charged grows by the claim, what it still encumbered
// becomes expended, and the rest is expenditure beyond the encumbrance,
// refused when the appropriation has not that much available. It is
// charged at the allowance, as an order's delivery is when received, so
// the check that pays it charges nothing more and a void leaves it
// charged: the claim is owed again, not unspent.
func chargePayroll(tx Tx, c Command, cl *Claim) error {
	e, err := payrollEmployment(tx, cl.Employment)
	if err != nil {
		return err
	}
	exp, err := chargeExpense(tx, c, Expense{Line: cl.Line, On: c.At.Date, Amount: cl.Amount, Payee: cl.Vendor,
		Description: cl.Description + " (invoice " + cl.Invoice + ", claim " + cl.ID + ")", Against: e.ID})
	if err != nil {
		return err
	}
	cl.Year, cl.Expense = e.Year, exp
	return nil
}

// unchargePayroll gives back the charge of an allowed payroll claim that
// is cancelled unpaid: the appropriation's expenditure and the
// employment's Charged down by the claim, and what the employment then
// encumbers again held. The appropriation's record shows the
// cancellation as its own line, as it shows a void.
func unchargePayroll(tx Tx, c Command, cl Claim, reason string) error {
	var e Employment
	if _, err := tx.Get(CollectionEmployment, cl.Employment, &e); err != nil {
		return err
	}
	before := employmentOpen(e)
	e.Charged = e.Charged.Sub(cl.Amount)
	a, err := loadAppropriation(tx, cl.Year, cl.Line)
	if err != nil {
		return err
	}
	a.Expended = a.Expended.Sub(cl.Amount)
	a.Encumbered = a.Encumbered.Add(employmentOpen(e).Sub(before))
	a.Charges = append(a.Charges, AppropriationCharge{Ref: cl.ID, Type: "cancelled", On: c.At.Date, Amount: cl.Amount.Neg(), Description: "payroll claim cancelled after its allowance: " + reason})
	if err := putAppropriation(tx, a); err != nil {
		return err
	}
	if err := tx.Put(CollectionEmployment, e.ID, e); err != nil {
		return err
	}
	return postActual(tx, c.At.Date, cl.Line, Money{}, cl.Amount.Neg())
}

func cancelClaim(tx Tx, c Command, p *ClaimChange, res *Result) error {
	cl, err := loadClaim(tx, p.ID)
	if err != nil {
		return err
	}
	if cl.Status == ClaimPaid || cl.Status == ClaimCancelled {
		return Errorf(ECONFLICT, sectionClaims, "Claim %s is %s.", cl.ID, cl.Status)
	}
	if strings.TrimSpace(p.Reason) == "" {
		return Errorf(EINVALID, sectionClaims, "Say why the claim is cancelled.")
	}
	if err := mayActFor(tx, c, cl.Unit, "cancel a claim of"); err != nil {
		return err
	}
	if err := release(tx, cl.Year, cl.Line, cl.Held); err != nil {
		return err
	}
	if cl.Order != "" {
		o, err := loadOrder(tx, cl.Order)
		if err != nil {
			return err
		}
		o.Claimed = o.Claimed.Sub(cl.Amount)
		if err := putOrder(tx, o); err != nil {
			return err
		}
	}
	if cl.Employment != "" && cl.Expense != "" {
		if err := unchargePayroll(tx, c, cl, strings.TrimSpace(p.Reason)); err != nil {
			return err
		}
		cl.Expense = ""
	}
	cl.Held, cl.Status, cl.Cancelled = Money{}, ClaimCancelled, &Act{By: c.Actor, At: c.At, Reason: strings.TrimSpace(p.Reason)}
	res.Ref, res.Note = cl.ID, "claim "+cl.ID+" cancelled"
	return tx.Put(CollectionClaims, cl.ID, cl)
}

// APPolicy is the accounts payable policy (§5.07(2)): adopted by the
// board, reviewed every year.
type APPolicy struct {
	Version    int      `json:"version"`
	Text       string   `json:"text"`
	AdoptedBy  string   `json:"adopted_by"` // the board's motion or resolution
	ReviewedOn Date     `json:"reviewed_on"`
	ReviewDue  Date     `json:"review_due"` // a year after the review
	Recorded   DateTime `json:"recorded"`
	By         string   `json:"by"`
}

// APPolicyChange records the policy adopted, amended or reviewed.
type APPolicyChange struct {
	Text       string `json:"text"`
	AdoptedBy  string `json:"adopted_by"`
	ReviewedOn Date   `json:"reviewed_on"`
}

// Kind names the payload's kind.
func (*APPolicyChange) Kind() Kind { return KindAPPolicy }

func (p *APPolicyChange) textFields() []textField {
	return []textField{manyLines("The policy", p.Text), oneLine("The board's action", p.AdoptedBy)}
}

var apPolicyKind = &Descriptor{
	Kind: KindAPPolicy, Section: "§5.07(2)", Since: 2,
	Roles: []Role{RoleTreasurer, RoleAdministrator},
	New:   func() Payload { return new(APPolicyChange) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := c.Payload.(*APPolicyChange)
		switch {
		case strings.TrimSpace(p.Text) == "":
			return Errorf(EINVALID, "§5.07(2)", "The policy's text is required.")
		case strings.TrimSpace(p.AdoptedBy) == "":
			return Errorf(EINVALID, "§5.07(2)", "Name the board's motion or resolution that adopted or reviewed the policy.")
		case p.ReviewedOn.IsZero() || p.ReviewedOn.After(c.At.Date):
			return Errorf(EINVALID, "§5.07(2)", "The day of the board's review is required, on or before today.")
		}
		var prev APPolicy
		if _, err := tx.Get(CollectionAPPolicy, "policy", &prev); err != nil {
			return err
		}
		if !prev.ReviewedOn.IsZero() && p.ReviewedOn.Before(prev.ReviewedOn) {
			return Errorf(EINVALID, "§5.07(2)", "The policy was last reviewed on %s; a review cannot be dated before it.", prev.ReviewedOn)
		}
		pol := APPolicy{Version: prev.Version + 1, Text: p.Text, AdoptedBy: strings.TrimSpace(p.AdoptedBy), ReviewedOn: p.ReviewedOn,
			ReviewDue: p.ReviewedOn.AddMonths(12), Recorded: c.At, By: c.Actor}
		if err := tx.Put(CollectionAPPolicy, fmt.Sprintf("v/%03d", pol.Version), pol); err != nil {
			return err
		}
		res.Note = fmt.Sprintf("accounts payable policy version %d, next review by %s", pol.Version, pol.ReviewDue)
		return tx.Put(CollectionAPPolicy, "policy", pol)
	},
}

// Signature is an official's facsimile or digital signature the board
// approved for checks (§5.18), until it withdraws it.
type Signature struct {
	ID         string   `json:"id"`
	Official   string   `json:"official"`
	Office     string   `json:"office"` // administrator | treasurer | clerk | president
	Form       string   `json:"form"`   // facsimile | digital
	Approval   string   `json:"approval"`
	ApprovedOn Date     `json:"approved_on"`
	Withdrawn  *Act     `json:"withdrawn,omitempty"`
	WithdrawOn Date     `json:"withdraw_on,omitzero"`
	Uses       []string `json:"uses,omitempty"` // the runs that used it
	Recorded   DateTime `json:"recorded"`
	By         string   `json:"by"`
}

// Usable reports whether the signature may be affixed on day.
func (s Signature) Usable(day Date) bool {
	return !day.Before(s.ApprovedOn) && (s.Withdrawn == nil || day.Before(s.WithdrawOn))
}

// SignatureChange approves or withdraws a signature.
type SignatureChange struct {
	Op         string `json:"op"` // approve | withdraw
	ID         string `json:"id"`
	Official   string `json:"official,omitempty"`
	Office     string `json:"office,omitempty"`
	Form       string `json:"form,omitempty"` // facsimile | digital
	Approval   string `json:"approval"`       // the board's motion
	ApprovedOn Date   `json:"approved_on,omitzero"`
	WithdrawOn Date   `json:"withdraw_on,omitzero"`
}

// Kind names the payload's kind.
func (*SignatureChange) Kind() Kind { return KindSignature }

func (p *SignatureChange) textFields() []textField {
	return []textField{oneLine("The signature id", p.ID), oneLine("The official", p.Official), oneLine("The board's action", p.Approval)}
}

// The offices whose signatures §5.18 allows in facsimile.
var signatureOffices = []string{"administrator", "treasurer", "clerk", "president"}

var signatureKind = &Descriptor{
	Kind: KindSignature, Section: "§5.18", Since: 2,
	Roles: []Role{RoleTreasurer, RoleClerk, RoleAdministrator},
	New:   func() Payload { return new(SignatureChange) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := c.Payload.(*SignatureChange)
		bad := func(format string, args ...any) error { return Errorf(EINVALID, "§5.18", format, args...) }
		if err := validRecordID("signature", p.ID); err != nil {
			return err
		}
		if strings.TrimSpace(p.Approval) == "" {
			return bad("Name the board's motion that approved or withdrew the signature.")
		}
		var s Signature
		found, err := tx.Get(CollectionSignatures, p.ID, &s)
		if err != nil {
			return err
		}
		switch p.Op {
		case "approve":
			switch {
			case found:
				return Errorf(ECONFLICT, "§5.18", "The signature %s is already recorded.", p.ID)
			case strings.TrimSpace(p.Official) == "":
				return bad("Whose signature is it?")
			case !slices.Contains(signatureOffices, p.Office):
				return bad("§5.18 allows the facsimile signatures of the administrator, the treasurer, the clerk and the president, not of %q.", p.Office)
			case p.Form != "facsimile" && p.Form != "digital":
				return bad("A signature is facsimile or digital.")
			case p.ApprovedOn.IsZero() || p.ApprovedOn.After(c.At.Date):
				return bad("The day the board approved it is required, on or before today.")
			}
			s = Signature{ID: p.ID, Official: strings.TrimSpace(p.Official), Office: p.Office, Form: p.Form, Approval: strings.TrimSpace(p.Approval), ApprovedOn: p.ApprovedOn, Recorded: c.At, By: c.Actor}
		case "withdraw":
			switch {
			case !found:
				return Errorf(ENOTFOUND, "§5.18", "There is no signature %s.", p.ID)
			case s.Withdrawn != nil:
				return Errorf(ECONFLICT, "§5.18", "The signature %s was withdrawn on %s.", p.ID, s.WithdrawOn)
			case p.WithdrawOn.IsZero() || p.WithdrawOn.Before(s.ApprovedOn):
				return bad("The day of the withdrawal is required, not before the approval (%s).", s.ApprovedOn)
			}
			s.Withdrawn, s.WithdrawOn = &Act{By: c.Actor, At: c.At, Reason: strings.TrimSpace(p.Approval)}, p.WithdrawOn
		default:
			return bad("Unknown signature operation %q (approve or withdraw).", p.Op)
		}
		res.Ref, res.Note = s.ID, "signature "+s.ID+" "+p.Op
		return tx.Put(CollectionSignatures, s.ID, s)
	},
}

// CheckStock sets the number of the next blank check on hand: the ledger
// numbers every check from it, so two nodes never print the same number
// (a check run is not offline-safe). From ledger format 5 the stock is
// that of one bank account, the depository Account (§5.06): every check
// drawn on it, a claim's or a refund's, takes its number from it.
type CheckStock struct {
	Next    int    `json:"next"`
	Account string `json:"account,omitempty"` // the depository (format 5)
}

// Kind names the payload's kind.
func (*CheckStock) Kind() Kind { return KindCheckStock }

const checkCounter = "checks"

var checkStockKind = &Descriptor{
	Kind: KindCheckStock, Section: "§5.07(4)", Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CheckStock) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := c.Payload.(*CheckStock)
		counter := checkCounter
		if RulesFormat(tx) >= BooksFormat {
			d, err := checkingAccount(tx, p.Account)
			if err != nil {
				return err
			}
			counter = checkCounter + "/" + d.ID
		}
		var last int
		if _, err := tx.Get(collectionCounters, counter, &last); err != nil {
			return err
		}
		if p.Next <= last || p.Next > 99999999 {
			return Errorf(EINVALID, "§5.07(4)", "The next check number must be above the last one issued (%d) and at most 8 digits.", last)
		}
		res.Note = fmt.Sprintf("next check number %d", p.Next)
		if p.Account != "" {
			res.Note += " on " + p.Account
		}
		return tx.Put(collectionCounters, counter, p.Next-1)
	},
}

// checkingAccount returns the depository a check is drawn on (§5.06,
// ledger format 5): designated by the board, with the bank's number of
// the account, which the checks and the positive-pay file name.
func checkingAccount(tx Tx, id string) (Depository, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return Depository{}, Errorf(EINVALID, "§5.07(4)", "Name the bank account (the depository) the checks are drawn on.")
	}
	d, ok, err := loadDepository(tx, id)
	switch {
	case err != nil:
		return d, err
	case !ok:
		return d, Errorf(EINVALID, sectionDeposit, "%q is not a depository designated by the Village Board: checks are drawn only on the village's designated accounts.", id)
	case d.Number == "":
		return d, Errorf(EINVALID, sectionDeposit, "Record the bank's number of account %s first: its checks and the positive-pay file name it.", d.ID)
	}
	return d, nil
}

// drawCheckNumber takes the next number of the check stock and refuses a
// number used before. From ledger format 5 the stock is account's (one
// sequence per bank account, for the checks of claims and of refunds
// alike), and a number once used, voided or not, is never used again:
// the checks are kept by number, so a number any check of any account
// ever had is refused.
func drawCheckNumber(tx Tx, account string) (int, error) {
	counter := checkCounter
	if RulesFormat(tx) >= BooksFormat {
		counter = checkCounter + "/" + account
		var last int
		if ok, err := tx.Get(collectionCounters, counter, &last); err != nil {
			return 0, err
		} else if !ok {
			return 0, Errorf(ECONFLICT, "§5.07(4)", "Set the number of the next blank check of account %s first (the check stock).", account)
		}
	}
	num, err := nextNumber(tx, counter)
	if err != nil {
		return 0, err
	}
	var taken CheckRecord
	if ok, err := tx.Get(CollectionChecks, CheckID(num), &taken); err != nil {
		return 0, err
	} else if ok {
		what := "run " + taken.Run
		if taken.Refund != "" {
			what = "a refund of bill " + taken.Bill
		}
		return 0, Errorf(ECONFLICT, "§5.07(4)", "Check number %d was used already (%s): a check number is used once.", num, what)
	}
	return num, nil
}

// CheckSignatures is how many signatures every check carries from ledger
// format 5 (§5.18 read with Wis. Stat. 66.0607), whatever its amount.
const CheckSignatures = 2

// checkSignatures returns the signatures ids name, each approved by the
// board and usable on day (§5.18), no two of one office. From ledger
// format 5 a check is not released without the signatures it requires:
// §5.18 names no amount above which more are needed, so every check,
// whatever its amount, carries CheckSignatures of them, of different
// offices, one the Finance Director/Treasurer's. This reads §5.18 with
// Wis. Stat. 66.0607, under which the treasurer disburses on the order of
// another officer; the ordinance lists the four offices whose facsimile
// or digital signatures may stand in for their own, not a number, so the
// number is this reading's. what names the checks in messages.
func checkSignatures(tx Tx, day Date, ids []string, what string) ([]Signature, error) {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, "§5.07(4)", format, args...) }
	var sigs []Signature
	offices := map[string]bool{}
	for _, id := range ids {
		var s Signature
		ok, err := tx.Get(CollectionSignatures, id, &s)
		if err != nil {
			return nil, err
		}
		switch {
		case !ok:
			return nil, bad("There is no signature %q approved by the board (§5.18).", id)
		case !s.Usable(day):
			if s.Withdrawn != nil && !day.Before(s.WithdrawOn) {
				return nil, Errorf(EFORBIDDEN, "§5.18", "The signature of %s was withdrawn by the board on %s: it may not be used.", s.Official, s.WithdrawOn)
			}
			return nil, Errorf(EFORBIDDEN, "§5.18", "The signature of %s was approved on %s, after %s.", s.Official, s.ApprovedOn, day)
		case offices[s.Office]:
			return nil, bad("Two signatures of the %s's office on one check.", s.Office)
		}
		offices[s.Office] = true
		sigs = append(sigs, s)
	}
	if RulesFormat(tx) < BooksFormat {
		return sigs, nil
	}
	if len(sigs) < CheckSignatures || !offices["treasurer"] {
		var have []string
		for _, s := range sigs {
			have = append(have, s.Official+" ("+s.Office+")")
		}
		if len(have) == 0 {
			have = []string{"none"}
		}
		return nil, Errorf(EFORBIDDEN, "§5.18", "Held: %s may not be printed or released with the signatures of %s only. Every check carries %d signatures approved by the board, of different offices, one of them the Finance Director/Treasurer's (§5.18); add the missing one and run it again.",
			what, strings.Join(have, ", "), CheckSignatures)
	}
	return sigs, nil
}

// CheckRecord is one check: of a run, paying a claim, or (from ledger
// format 5) a refund's, paying back an overpayment (§5.07(1)).
type CheckRecord struct {
	Number int    `json:"number"`
	Run    string `json:"run,omitempty"`
	// Account is the depository it is drawn on (format 5).
	Account string `json:"account,omitempty"`
	Claim   string `json:"claim,omitempty"`
	// Refund is the command id of the overpaying payment a refund check
	// pays back, and Bill the bill it overpaid.
	Refund     string   `json:"refund,omitempty"`
	Bill       string   `json:"bill,omitempty"`
	On         Date     `json:"on"`
	Payee      string   `json:"payee"`
	Purpose    string   `json:"purpose"`
	Line       string   `json:"line"`
	Amount     Money    `json:"amount"`
	Signatures []string `json:"signatures"`
	Void       *Act     `json:"void,omitempty"`
}

// CheckID is a check's key: its number, zero-padded so keys sort.
func CheckID(n int) string { return fmt.Sprintf("%08d", n) }

// CheckRunRecord is a run of checks.
type CheckRunRecord struct {
	ID         string   `json:"id"`
	On         Date     `json:"on"`
	Account    string   `json:"account"` // the village's checking account it draws on
	Checks     []int    `json:"checks"`
	Total      Money    `json:"total"`
	Signatures []string `json:"signatures"`
	By         string   `json:"by"` // who ran it
	At         DateTime `json:"at"`
}

// CheckRun pays approved claims by check.
type CheckRun struct {
	On         Date     `json:"on"`
	Account    string   `json:"account"`
	Claims     []string `json:"claims"`
	Signatures []string `json:"signatures"`
}

// Kind names the payload's kind.
func (*CheckRun) Kind() Kind { return KindCheckRun }

func (p *CheckRun) textFields() []textField {
	f := []textField{oneLine("The account", p.Account)}
	for _, s := range append(slices.Clone(p.Claims), p.Signatures...) {
		f = append(f, oneLine("An id", s))
	}
	return f
}

var checkRunKind = &Descriptor{
	Kind: KindCheckRun, Section: "§5.07(4)", Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CheckRun) },
	Apply: applyCheckRun,
	Books: checkRunLines,
}

// checkRunLines post the checks of a run (§5.07(4)): each pays its
// allowed claim, vouchers payable debited and the cash of the claim
// line's fund credited.
func checkRunLines(l *Lines, tx Tx, c Command, res Result) string {
	var run CheckRunRecord
	if _, err := tx.Get(CollectionCheckRuns, res.Ref, &run); err != nil {
		l.err = err
		return ""
	}
	for _, n := range run.Checks {
		var ck CheckRecord
		if _, err := tx.Get(CollectionChecks, CheckID(n), &ck); err != nil {
			l.err = err
			return ""
		}
		checkLines(l, ck, false)
		commitmentLines(l, tx, ck.Claim)
	}
	return fmt.Sprintf("check run %s: %d checks", run.ID, len(run.Checks))
}

// checkLines are the lines of one check: paid, or voided (the exact
// reverse, §5.07(4)).
func checkLines(l *Lines, ck CheckRecord, void bool) {
	fund := l.FundOf(ck.Line)
	amount, memo := ck.Amount, fmt.Sprintf("check %d to %s, claim %s", ck.Number, ck.Payee, ck.Claim)
	if void {
		amount, memo = amount.Neg(), fmt.Sprintf("check %d voided, claim %s payable again", ck.Number, ck.Claim)
	}
	l.Debit(l.Control(fund, ControlPayable), amount, "§5.07(4)", memo)
	l.Credit(l.Control(fund, ControlCash), amount, "§5.07(4)", memo)
}

func applyCheckRun(tx Tx, c Command, _ Env, res *Result) error {
	p := c.Payload.(*CheckRun)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, "§5.07(4)", format, args...) }
	switch {
	case p.On.IsZero() || p.On.After(c.At.Date):
		return bad("A check run needs its date, on or before today.")
	case strings.TrimSpace(p.Account) == "":
		return bad("Name the account the checks draw on.")
	case len(p.Claims) == 0:
		return bad("A check run pays at least one claim.")
	case len(p.Signatures) == 0:
		return bad("A check run needs the signatures affixed to its checks (§5.18).")
	}
	var account string
	if RulesFormat(tx) >= BooksFormat {
		d, err := checkingAccount(tx, p.Account)
		if err != nil {
			return err
		}
		account = d.ID
	}
	sigs, err := checkSignatures(tx, p.On, p.Signatures, "the checks of this run")
	if err != nil {
		return err
	}
	n, err := nextNumber(tx, "check-runs/"+yearID(p.On.Year()))
	if err != nil {
		return err
	}
	run := CheckRunRecord{ID: fmt.Sprintf("RUN-%d-%03d", p.On.Year(), n), On: p.On, Account: strings.TrimSpace(p.Account), Signatures: slices.Clone(p.Signatures), By: c.Actor, At: c.At}
	seen := map[string]bool{}
	for _, id := range p.Claims {
		if seen[id] {
			return bad("Claim %s is twice in the run.", id)
		}
		seen[id] = true
		cl, err := loadClaim(tx, id)
		if err != nil {
			return err
		}
		switch cl.Status {
		case ClaimApproved:
		case ClaimPaid:
			return Errorf(ECONFLICT, "§5.07(4)", "Claim %s was paid by check %s.", cl.ID, cl.Check)
		case ClaimEntered:
			return Errorf(ECONFLICT, "§5.07(3)", "Claim %s is not approved: it lacks the %s certification(s); no payment is made before all four (§5.07(3)).", cl.ID, strings.Join(cl.Missing(), ", "))
		case ClaimCertified:
			return Errorf(ECONFLICT, "§5.07(3)", "Claim %s is certified but not endorsed: no payment is made before the Finance Director/Treasurer endorses the approval of the claim (§5.07(3)).", cl.ID)
		default:
			return Errorf(ECONFLICT, "§5.07(3)", "Claim %s is %s.", cl.ID, cl.Status)
		}
		if cl.Endorsement == nil && RulesFormat(tx) >= BooksFormat {
			return Errorf(ECONFLICT, "§5.07(3)", "Claim %s was approved on its certifications alone: the Finance Director/Treasurer endorses it before a check pays it (§5.07(3)).", cl.ID)
		}
		num, err := drawCheckNumber(tx, account)
		if err != nil {
			return err
		}
		ck := CheckRecord{Number: num, Run: run.ID, Account: account, Claim: cl.ID, On: p.On, Payee: cl.Vendor, Purpose: cl.Description, Line: cl.Line, Amount: cl.Amount, Signatures: run.Signatures}
		if cl.Order == "" && cl.Employment == "" {
			// A claim without an order is charged when paid; an order's
			// delivery was charged when it was received, and an
			// employment's payroll when its claim was allowed.
			e := Expense{Line: cl.Line, On: p.On, Amount: cl.Amount, Payee: cl.Vendor, Description: cl.Description + " (invoice " + cl.Invoice + ", check " + fmt.Sprint(num) + ")", Against: cl.ID}
			exp, err := chargeExpense(tx, c, e)
			if err != nil {
				return err
			}
			if cl, err = loadClaim(tx, id); err != nil { // chargeExpense released its encumbrance
				return err
			}
			cl.Expense = exp
		}
		cl.Status, cl.Check = ClaimPaid, CheckID(num)
		if err := tx.Put(CollectionClaims, cl.ID, cl); err != nil {
			return err
		}
		if err := tx.Put(CollectionChecks, CheckID(num), ck); err != nil {
			return err
		}
		run.Checks = append(run.Checks, num)
		run.Total = run.Total.Add(cl.Amount)
	}
	for _, s := range sigs {
		s.Uses = append(s.Uses, run.ID)
		if err := tx.Put(CollectionSignatures, s.ID, s); err != nil {
			return err
		}
	}
	res.Ref, res.Note = run.ID, fmt.Sprintf("check run %s: %d checks, %s", run.ID, len(run.Checks), dollarsIn(tx, run.Total))
	return tx.Put(CollectionCheckRuns, run.ID, run)
}

// CheckVoid voids a check: its claim is approved again (to be paid by a
// new check) and its charge given back.
type CheckVoid struct {
	Number int    `json:"number"`
	Reason string `json:"reason"`
}

// Kind names the payload's kind.
func (*CheckVoid) Kind() Kind { return KindCheckVoid }

func (p *CheckVoid) textFields() []textField { return []textField{oneLine("The reason", p.Reason)} }

var checkVoidKind = &Descriptor{
	Kind: KindCheckVoid, Section: "§5.07(4)", Since: 2,
	Roles: []Role{RoleTreasurer},
	New:   func() Payload { return new(CheckVoid) },
	// A void reverses exactly what its check posted, dated by the void:
	// the money is back in cash and the claim is owed again (§5.07(4)),
	// or the refund (§5.07(1)).
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		var ck CheckRecord
		if _, err := tx.Get(CollectionChecks, res.Ref, &ck); err != nil {
			l.err = err
			return ""
		}
		if ck.Refund != "" {
			return refundCheckLines(l, tx, ck.Bill, ck.Amount.Neg(), fmt.Sprintf("refund check %d voided, refund owed again", ck.Number))
		}
		checkLines(l, ck, true)
		commitmentLines(l, tx, ck.Claim)
		return fmt.Sprintf("check %d voided", ck.Number)
	},
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := c.Payload.(*CheckVoid)
		var ck CheckRecord
		ok, err := tx.Get(CollectionChecks, CheckID(p.Number), &ck)
		switch {
		case err != nil:
			return err
		case !ok:
			return Errorf(ENOTFOUND, "§5.07(4)", "There is no check %d.", p.Number)
		case ck.Void != nil:
			return Errorf(ECONFLICT, "§5.07(4)", "Check %d was voided at %s.", p.Number, ck.Void.At)
		case strings.TrimSpace(p.Reason) == "":
			return Errorf(EINVALID, "§5.07(4)", "Say why the check is voided.")
		}
		ck.Void = &Act{By: c.Actor, At: c.At, Reason: strings.TrimSpace(p.Reason)}
		if ck.Refund != "" {
			return voidRefundCheck(tx, ck, res)
		}
		cl, err := loadClaim(tx, ck.Claim)
		if err != nil {
			return err
		}
		if cl.Expense != "" && cl.Employment == "" {
			// Give the charge back: a negative expense would hide it, so
			// the appropriation's record shows the void as its own line.
			// A payroll claim was charged at its allowance, which the
			// void does not undo (chargePayroll).
			a, err := loadAppropriation(tx, cl.Year, cl.Line)
			if err != nil {
				return err
			}
			a.Expended = a.Expended.Sub(ck.Amount)
			a.Encumbered = a.Encumbered.Add(ck.Amount)
			a.Charges = append(a.Charges, AppropriationCharge{Ref: fmt.Sprintf("void %d", ck.Number), Type: "void", On: c.At.Date, Amount: ck.Amount.Neg(), Description: "check voided: " + strings.TrimSpace(p.Reason)})
			if err := putAppropriation(tx, a); err != nil {
				return err
			}
			if err := postActual(tx, c.At.Date, cl.Line, Money{}, ck.Amount.Neg()); err != nil {
				return err
			}
			cl.Held, cl.Expense = ck.Amount, ""
		}
		cl.Status, cl.Check, cl.Voided = ClaimApproved, "", append(cl.Voided, CheckID(ck.Number))
		if err := tx.Put(CollectionClaims, cl.ID, cl); err != nil {
			return err
		}
		res.Ref, res.Note = CheckID(ck.Number), fmt.Sprintf("check %d voided; claim %s is payable again", ck.Number, cl.ID)
		return tx.Put(CollectionChecks, CheckID(ck.Number), ck)
	},
}

// RegisterReview records the board's review of a month's check register
// (§5.07(4)).
type RegisterReview struct {
	Month    string   `json:"month"` // YYYY-MM
	On       Date     `json:"on"`
	Motion   string   `json:"motion"`
	Checks   int      `json:"checks,omitempty"` // set by the ledger
	Total    Money    `json:"total,omitzero"`   // set by the ledger
	Recorded DateTime `json:"recorded,omitzero"`
	By       string   `json:"by,omitempty"`
}

// Kind names the payload's kind.
func (*RegisterReview) Kind() Kind { return KindRegisterReview }

func (p *RegisterReview) textFields() []textField {
	return []textField{oneLine("The month", p.Month), oneLine("The motion", p.Motion)}
}

var registerReviewKind = &Descriptor{
	Kind: KindRegisterReview, Section: "§5.07(4)", Since: 2,
	Roles: []Role{RoleTreasurer, RoleClerk},
	New:   func() Payload { return new(RegisterReview) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := *c.Payload.(*RegisterReview)
		first, err := ParseDate(p.Month + "-01")
		switch {
		case err != nil || len(p.Month) != 7:
			return Errorf(EINVALID, "§5.07(4)", "The month is YYYY-MM, not %q.", p.Month)
		case p.On.IsZero() || p.On.After(c.At.Date) || !p.On.After(first.AddMonths(1).AddDays(-1)):
			return Errorf(EINVALID, "§5.07(4)", "The board reviews the register of %s after the month ends and on or before today.", p.Month)
		case strings.TrimSpace(p.Motion) == "":
			return Errorf(EINVALID, "§5.07(4)", "Name the board's motion that reviewed the register.")
		}
		var prev RegisterReview
		if ok, err := tx.Get(CollectionReviews, p.Month, &prev); err != nil {
			return err
		} else if ok {
			return Errorf(ECONFLICT, "§5.07(4)", "The board reviewed the register of %s on %s.", p.Month, prev.On)
		}
		p.Recorded, p.By = c.At, c.Actor
		res.Ref, res.Note = p.Month, "check register of "+p.Month+" reviewed"
		return tx.Put(CollectionReviews, p.Month, p)
	},
}

// Claim returns a claim.
func (x Reads) Claim(id string) (Claim, error) {
	return must[Claim](x.r, CollectionClaims, id, "claim")
}

// Claims returns the claims drawn on year's appropriations, by number.
func (x Reads) Claims(year int) ([]Claim, error) {
	return all[Claim](x.r, CollectionClaims, fmt.Sprintf("CL-%d-", year))
}

// PayableClaims returns the claims drawn on year's appropriations that
// a check run may pay (approved, not yet paid), by number. It reads the
// approved claims alone (IndexClaimsByStatus), not the year's thousands
// of paid ones.
func (x Reads) PayableClaims(year int) ([]Claim, error) {
	var out []Claim
	of := fmt.Sprintf("CL-%d-", year)
	err := derived(x.r, derivedIndex(IndexClaimsByStatus), ClaimApproved, func(id string, raw []byte) error {
		if !strings.HasPrefix(id, of) {
			return nil
		}
		var c Claim
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		if c.Status == ClaimApproved { // the key is a status that starts so
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// ClaimsPage returns at most n of the claims drawn on year's
// appropriations, newest first, beginning with claim number from and
// counting down (from 0 or past the last: the newest), and how many claims
// the year has numbered. It reads the page's claims only, not the year's:
// claims are numbered in order within their year (CL-YYYY-NNNN), so the
// page is the ids from from-n+1 to from, and the count is the year's
// counter. The ids sort as numbers up to 9,999 claims a year, the width
// of the number.
func (x Reads) ClaimsPage(year, from, n int) ([]Claim, int, error) {
	count, _, err := get[int](x.r, collectionCounters, "claims/"+yearID(year))
	if err != nil || count == 0 || n <= 0 {
		return nil, count, err
	}
	if from <= 0 || from > count {
		from = count
	}
	lo := max(1, from-n+1)
	var out []Claim
	err = listFrom(x.r, CollectionClaims, fmt.Sprintf("CL-%d-", year), fmt.Sprintf("CL-%d-%04d", year, lo), func(_ string, raw []byte) error {
		if len(out) > from-lo {
			return errStopList
		}
		var c Claim
		if err := json.Unmarshal(raw, &c); err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	if errors.Is(err, errStopList) {
		err = nil
	}
	slices.Reverse(out)
	return out, count, err
}

// APPolicy returns the accounts payable policy in force; ok is false
// before one was adopted.
func (x Reads) APPolicy() (APPolicy, bool, error) {
	return get[APPolicy](x.r, CollectionAPPolicy, "policy")
}

// APPolicyVersions returns every version of the policy, oldest first.
func (x Reads) APPolicyVersions() ([]APPolicy, error) {
	return all[APPolicy](x.r, CollectionAPPolicy, "v/")
}

// Signatures returns the signatures the board approved, withdrawn ones
// too, by id.
func (x Reads) Signatures() ([]Signature, error) {
	return all[Signature](x.r, CollectionSignatures, "")
}

// CheckRuns returns the check runs, oldest first.
func (x Reads) CheckRuns() ([]CheckRunRecord, error) {
	return all[CheckRunRecord](x.r, CollectionCheckRuns, "RUN-")
}

// CheckRun returns one check run.
func (x Reads) CheckRun(id string) (CheckRunRecord, error) {
	return must[CheckRunRecord](x.r, CollectionCheckRuns, id, "check run")
}

// Check returns a check by number.
func (x Reads) Check(number int) (CheckRecord, error) {
	return must[CheckRecord](x.r, CollectionChecks, CheckID(number), "check")
}

// CheckRegister returns the checks dated in month (YYYY-MM), by number,
// voided ones too: the monthly register for the board (§5.07(4)). It
// reads the month's checks alone (IndexChecksByMonth).
func (x Reads) CheckRegister(month string) ([]CheckRecord, error) {
	if len(month) != len("YYYY-MM") {
		return nil, Errorf(EINVALID, "", "%q is not a month like 2026-04.", month)
	}
	// Every check of the month, and only those: the key is the month.
	return allDerived(x.r, IndexChecksByMonth, month, func(ck CheckRecord) bool {
		on := ck.On.String()
		return len(on) >= len(month) && on[:len(month)] == month
	})
}

// RegisterReview returns the board's review of month's register; ok is
// false before it.
func (x Reads) RegisterReview(month string) (RegisterReview, bool, error) {
	return get[RegisterReview](x.r, CollectionReviews, month)
}
