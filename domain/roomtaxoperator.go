package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Room tax operators (§5.22). An operator is the business that furnishes
// rooms and lodging to transients and collects the tax: one account per
// business, with its establishments (none for a marketplace provider,
// which sells rooms others furnish), its seller's permit number and a
// contact. The treasurer registers and closes operators and links them
// to the staff-portal logins (role hotel_operator) of the people who file
// for them. A login acts for one operator only, and every command a
// hotel operator makes about room tax is checked, when the ledger applies
// it, against that link: the pages are not the only guard.
//
// Confidentiality (§5.22(8)) is decided here too (RoomTaxReadBasis): a
// return and its audit reports may be read by the filer, the treasurer's
// office, the village auditors, named officials of the IRS or the
// Department of Revenue (an export the treasurer makes for them), and
// other village officials only with an access grant that records who and
// why. Every read is a command of its own (room_tax_read), so the ledger's
// journal holds every one, with its reader; its reason is in the read's
// record.

// Collections of room tax operators and of who may read their returns.
const (
	CollectionRoomTaxOperators = "room-tax-operators" // id: operator id → RoomTaxOperator
	CollectionRoomTaxLogins    = "room-tax-logins"    // id: username → RoomTaxLogin
	CollectionRoomTaxGrants    = "room-tax-grants"    // id: username of the official → RoomTaxGrants
)

// RoomTaxOperator is one business that collects the room tax.
type RoomTaxOperator struct {
	ID             string          `json:"id"`
	LegalName      string          `json:"legal_name"`
	Establishments []Establishment `json:"establishments,omitempty"`
	// Marketplace marks a marketplace provider: it has no establishment
	// of its own.
	Marketplace   bool   `json:"marketplace,omitempty"`
	SellersPermit string `json:"sellers_permit"`
	Contact       string `json:"contact"`
	// Logins are the staff-portal accounts (role hotel_operator) that file
	// for the operator.
	Logins []string `json:"logins,omitempty"`
	// Year is the annual return's year, elected with the first return
	// (§5.22(3)(b)); nil until then.
	Year *RoomTaxYear `json:"year,omitempty"`
	// Periods are the quarters the ledger holds a return record of, in
	// order.
	Periods      []Quarter `json:"periods,omitempty"`
	Registered   DateTime  `json:"registered"`
	RegisteredBy string    `json:"registered_by"`
	Closed       bool      `json:"closed,omitempty"`
	ClosedOn     Date      `json:"closed_on,omitzero"`
	CloseReason  string    `json:"close_reason,omitempty"`
	ClosedBy     string    `json:"closed_by,omitempty"`
}

// Establishment is a hotel, motel or short-term rental an operator runs.
type Establishment struct {
	Name    string `json:"name"`
	Address string `json:"address"`
}

// Annual return bases (§5.22(3)(b)).
const (
	YearCalendar = "calendar"
	YearFiscal   = "fiscal"
)

// RoomTaxYear is an operator's election of a calendar or fiscal year for
// its annual return. A fiscal year is four calendar quarters, so it ends on
// the last day of March, June or September (December is the calendar
// year).
type RoomTaxYear struct {
	Basis     string `json:"basis"`
	EndMonth  int    `json:"end_month"`
	ElectedOn Date   `json:"elected_on,omitzero"`
}

// check says what is wrong with an election.
func (y RoomTaxYear) check() error {
	switch {
	case y.Basis == YearCalendar && y.EndMonth == 12:
	case y.Basis == YearFiscal && (y.EndMonth == 3 || y.EndMonth == 6 || y.EndMonth == 9):
	case y.Basis == YearCalendar || y.Basis == YearFiscal:
		return Errorf(EINVALID, sectionRoomTax, "A calendar year ends in December; a fiscal year ends in March, June or September.")
	default:
		return Errorf(EINVALID, sectionRoomTax, "With the first return, elect a calendar year or a fiscal year for the annual return.")
	}
	return nil
}

// Title returns the election for people ("fiscal year ending June").
func (y RoomTaxYear) Title() string {
	if y.Basis == YearCalendar {
		return "calendar year"
	}
	return "fiscal year ending " + time.Month(y.EndMonth).String()
}

// End returns the last day of the annual return's year named by year (the
// year in which it ends).
func (y RoomTaxYear) End(year int) Date {
	return NewDate(year, time.Month(y.EndMonth), 1).LastOfMonth()
}

// Quarters returns the four quarters of the year that ends in year.
func (y RoomTaxYear) Quarters(year int) []Quarter {
	last := Quarter{year, y.EndMonth / 3}
	out := make([]Quarter, 4)
	for i := 3; i >= 0; i-- {
		out[i] = last
		last = last.prev()
	}
	return out
}

// YearOf returns the year (named by the year it ends in) that quarter q
// belongs to.
func (y RoomTaxYear) YearOf(q Quarter) int {
	if q.Q*3 > y.EndMonth {
		return q.Year + 1
	}
	return q.Year
}

// prev returns the quarter before q.
func (q Quarter) prev() Quarter {
	if q.Q == 1 {
		return Quarter{q.Year - 1, 4}
	}
	return Quarter{q.Year, q.Q - 1}
}

// next returns the quarter after q.
func (q Quarter) next() Quarter {
	if q.Q == 4 {
		return Quarter{q.Year + 1, 1}
	}
	return Quarter{q.Year, q.Q + 1}
}

// First returns the first day of the quarter.
func (q Quarter) First() Date { return NewDate(q.Year, time.Month(3*q.Q-2), 1) }

// QuarterOf returns the quarter a date falls in.
func QuarterOf(d Date) Quarter { return Quarter{d.Year(), (int(d.Month())-1)/3 + 1} }

// Compare orders quarters in time.
func (q Quarter) Compare(o Quarter) int {
	if q.Year != o.Year {
		return cmpInt(q.Year, o.Year)
	}
	return cmpInt(q.Q, o.Q)
}

// RoomTaxLogin links a staff-portal login to the operator it files for.
type RoomTaxLogin struct {
	Operator string `json:"operator"`
}

// RoomTaxGrants are the access grants of one official (§5.22(8)(d)).
type RoomTaxGrants struct {
	Grants []RoomTaxGrant `json:"grants"`
}

// RoomTaxGrant lets a village official other than the treasurer's office
// and the auditors read one operator's returns until a date, for the
// reason recorded.
type RoomTaxGrant struct {
	ID        string   `json:"id"`
	Official  string   `json:"official"` // username
	Operator  string   `json:"operator"`
	Reason    string   `json:"reason"`
	Until     Date     `json:"until"`
	GrantedAt DateTime `json:"granted_at"`
	GrantedBy string   `json:"granted_by"`
	Revoked   bool     `json:"revoked,omitempty"`
	RevokedAt DateTime `json:"revoked_at,omitzero"`
	RevokedBy string   `json:"revoked_by,omitempty"`
}

// Active reports whether the grant lets its official read on date d.
func (g RoomTaxGrant) Active(d Date) bool { return !g.Revoked && !d.After(g.Until) }

// ValidOperatorID reports whether s can name an operator: 2 to 32 lower
// case letters, digits or dashes, starting with a letter (it is part of
// every return's id, "<operator>_2026-Q1").
func ValidOperatorID(s string) bool {
	if len(s) < 2 || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// OperatorIDFor suggests an operator id for a legal name: its letters and
// digits, lower case, words joined by dashes, at most 32 characters.
func OperatorIDFor(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 32 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 32 {
		s = strings.Trim(s[:32], "-")
	}
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		s = "op-" + s
	}
	return s
}

// Operations on an operator account.
const (
	OperatorRegister = "register" // a new operator account
	OperatorUpdate   = "update"   // new name, establishments, permit or contact
	OperatorLink     = "link"     // a login files for the operator
	OperatorUnlink   = "unlink"   // a login no longer does
	OperatorClose    = "close"    // the business quit or was sold; its records are kept
)

// RoomTaxOperatorChange registers, changes, links or closes an operator
// account (the treasurer's).
type RoomTaxOperatorChange struct {
	Op             string          `json:"op"`
	ID             string          `json:"id"`
	LegalName      string          `json:"legal_name,omitempty"`
	Establishments []Establishment `json:"establishments,omitempty"`
	Marketplace    bool            `json:"marketplace,omitempty"`
	SellersPermit  string          `json:"sellers_permit,omitempty"`
	Contact        string          `json:"contact,omitempty"`
	Login          string          `json:"login,omitempty"`
	ClosedOn       Date            `json:"closed_on,omitzero"`
	Reason         string          `json:"reason,omitempty"`
}

// RoomTaxAccessGrant grants an official access to an operator's returns,
// or revokes a grant (the treasurer's, §5.22(8)(d)).
type RoomTaxAccessGrant struct {
	Op       string `json:"op"` // "grant" | "revoke"
	ID       string `json:"id"`
	Official string `json:"official"`
	Operator string `json:"operator,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Until    Date   `json:"until,omitzero"`
}

// Kinds of the operator accounts and access grants.
const (
	KindRoomTaxOperator Kind = "room_tax_operator"
	KindRoomTaxAccess   Kind = "room_tax_access"
)

// Kind names the payload's kind.
func (*RoomTaxOperatorChange) Kind() Kind { return KindRoomTaxOperator }

// Kind names the payload's kind.
func (*RoomTaxAccessGrant) Kind() Kind { return KindRoomTaxAccess }

func (p *RoomTaxOperatorChange) textFields() []textField {
	f := []textField{oneLine("The operator id", p.ID), oneLine("The legal name", p.LegalName), oneLine("The seller's permit number", p.SellersPermit),
		oneLine("The contact", p.Contact), oneLine("The login", p.Login), oneLine("The reason", p.Reason)}
	for _, e := range p.Establishments {
		f = append(f, oneLine("An establishment's name", e.Name), oneLine("An establishment's address", e.Address))
	}
	return f
}

func (p *RoomTaxAccessGrant) textFields() []textField {
	return []textField{oneLine("The grant id", p.ID), oneLine("The official", p.Official), oneLine("The operator", p.Operator), oneLine("The reason", p.Reason)}
}

var (
	roomTaxOperatorKind = &Descriptor{
		Kind: KindRoomTaxOperator, Section: sectionRoomTax, Since: 2, Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(RoomTaxOperatorChange) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyRoomTaxOperator(tx, c, res) },
	}
	roomTaxAccessKind = &Descriptor{
		Kind: KindRoomTaxAccess, Section: sectionConfid, Since: 2, Roles: []Role{RoleTreasurer},
		New:   func() Payload { return new(RoomTaxAccessGrant) },
		Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyRoomTaxAccess(tx, c, res) },
	}
)

// roomTaxActor returns the active staff account of the command's actor:
// every room tax command of the clerk's office is checked against the
// account the ledger holds, whatever the page that sent it allowed.
func roomTaxActor(tx Tx, c Command) (StaffUser, error) {
	var u StaffUser
	ok, err := tx.Get(CollectionStaffUsers, c.Actor, &u)
	if err != nil {
		return u, err
	}
	if !ok || u.Disabled {
		return u, Errorf(EFORBIDDEN, sectionRoomTax, "Only an active staff account may make room tax changes.")
	}
	return u, nil
}

// roomTaxTreasurer returns the actor's account if it is the treasurer's
// office, which administers the tax (§5.22(3)(a)).
func roomTaxTreasurer(tx Tx, c Command) (StaffUser, error) {
	u, err := roomTaxActor(tx, c)
	if err == nil && u.Role != RoleTreasurer {
		err = Errorf(EFORBIDDEN, sectionRoomTax, "Only the treasurer's office administers the room tax.")
	}
	return u, err
}

// getOperator reads an operator account.
func getOperator(tx Tx, id string) (RoomTaxOperator, error) {
	var op RoomTaxOperator
	ok, err := tx.Get(CollectionRoomTaxOperators, id, &op)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, sectionRoomTax, "There is no room tax operator %q.", id)
	}
	return op, err
}

// roomTaxFiler returns the actor's account and the operator if the actor
// may file for it: the treasurer's office (which enters paper returns), or
// a hotel operator's login linked to that operator. Any other account, and
// a login linked to another operator, is refused.
func roomTaxFiler(tx Tx, c Command, operator string) (StaffUser, RoomTaxOperator, error) {
	u, err := roomTaxActor(tx, c)
	if err != nil {
		return u, RoomTaxOperator{}, err
	}
	switch u.Role {
	case RoleTreasurer:
	case RoleHotelOperator:
		var l RoomTaxLogin
		ok, err := tx.Get(CollectionRoomTaxLogins, u.Username, &l)
		if err != nil {
			return u, RoomTaxOperator{}, err
		}
		if !ok || l.Operator != operator {
			return u, RoomTaxOperator{}, Errorf(EFORBIDDEN, sectionRoomTax, "Your login files for another operator, or for none: you may act only for your own operator account.")
		}
	default:
		return u, RoomTaxOperator{}, Errorf(EFORBIDDEN, sectionRoomTax, "Only the operator's own logins and the treasurer's office file room tax returns.")
	}
	op, err := getOperator(tx, operator)
	return u, op, err
}

func checkEstablishments(ch *RoomTaxOperatorChange) error {
	if ch.Marketplace && len(ch.Establishments) > 0 {
		return Errorf(EINVALID, sectionRoomTax, "A marketplace provider has no establishment of its own: list none, or uncheck marketplace provider.")
	}
	if !ch.Marketplace && len(ch.Establishments) == 0 {
		return Errorf(EINVALID, sectionRoomTax, "List at least one establishment with its address, or mark the operator a marketplace provider.")
	}
	if len(ch.Establishments) > 20 {
		return Errorf(EINVALID, sectionRoomTax, "An operator account lists at most 20 establishments.")
	}
	for i, e := range ch.Establishments {
		if strings.TrimSpace(e.Name) == "" || strings.TrimSpace(e.Address) == "" {
			return Errorf(EINVALID, sectionRoomTax, "Establishment %d needs its name and its address.", i+1)
		}
	}
	return nil
}

func applyRoomTaxOperator(tx Tx, c Command, res *Result) error {
	ch := c.Payload.(*RoomTaxOperatorChange)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if !ValidOperatorID(ch.ID) {
		return Errorf(EINVALID, sectionRoomTax, "An operator id is 2 to 32 lower-case letters, digits or dashes, starting with a letter.")
	}
	var op RoomTaxOperator
	found, err := tx.Get(CollectionRoomTaxOperators, ch.ID, &op)
	if err != nil {
		return err
	}
	if ch.Op != OperatorRegister && !found {
		return Errorf(ENOTFOUND, sectionRoomTax, "There is no room tax operator %q.", ch.ID)
	}
	if found && op.Closed && ch.Op != OperatorUnlink {
		return Errorf(ECONFLICT, sectionRoomTax, "Operator %s was closed on %s; its records are kept, but it takes no more changes.", op.ID, op.ClosedOn)
	}
	details := func() error {
		if strings.TrimSpace(ch.LegalName) == "" {
			return Errorf(EINVALID, sectionRoomTax, "The operator's legal name is required.")
		}
		if strings.TrimSpace(ch.SellersPermit) == "" || len(ch.SellersPermit) > 40 {
			return Errorf(EINVALID, sectionRoomTax, "The seller's permit number is required (at most 40 characters).")
		}
		if strings.TrimSpace(ch.Contact) == "" {
			return Errorf(EINVALID, sectionRoomTax, "A contact (a person, a telephone number or an e-mail address) is required.")
		}
		if err := checkEstablishments(ch); err != nil {
			return err
		}
		op.LegalName, op.SellersPermit, op.Contact = strings.TrimSpace(ch.LegalName), strings.TrimSpace(ch.SellersPermit), strings.TrimSpace(ch.Contact)
		op.Marketplace, op.Establishments = ch.Marketplace, slices.Clone(ch.Establishments)
		return nil
	}
	switch ch.Op {
	case OperatorRegister:
		if found {
			return Errorf(ECONFLICT, sectionRoomTax, "The operator id %q is taken.", ch.ID)
		}
		op = RoomTaxOperator{ID: ch.ID, Registered: c.At, RegisteredBy: c.Actor}
		if err := details(); err != nil {
			return err
		}
	case OperatorUpdate:
		if err := details(); err != nil {
			return err
		}
	case OperatorLink:
		var u StaffUser
		ok, err := tx.Get(CollectionStaffUsers, ch.Login, &u)
		if err != nil {
			return err
		}
		if !ok || u.Disabled || u.Role != RoleHotelOperator {
			return Errorf(EINVALID, sectionRoomTax, "Only an active staff-portal login of role hotel operator can file for an operator; %q is not one.", ch.Login)
		}
		var l RoomTaxLogin
		if ok, err := tx.Get(CollectionRoomTaxLogins, ch.Login, &l); err != nil {
			return err
		} else if ok && l.Operator != "" {
			return Errorf(ECONFLICT, sectionRoomTax, "The login %s already files for operator %s; a login files for one operator only.", ch.Login, l.Operator)
		}
		op.Logins = append(op.Logins, ch.Login)
		slices.Sort(op.Logins)
		if err := tx.Put(CollectionRoomTaxLogins, ch.Login, RoomTaxLogin{Operator: op.ID}); err != nil {
			return err
		}
	case OperatorUnlink:
		i := slices.Index(op.Logins, ch.Login)
		if i < 0 {
			return Errorf(ENOTFOUND, sectionRoomTax, "The login %s does not file for operator %s.", ch.Login, op.ID)
		}
		op.Logins = slices.Delete(op.Logins, i, i+1)
		if err := tx.Put(CollectionRoomTaxLogins, ch.Login, RoomTaxLogin{}); err != nil {
			return err
		}
	case OperatorClose:
		if ch.ClosedOn.IsZero() || ch.ClosedOn.After(c.At.Date) {
			return Errorf(EINVALID, sectionRoomTax, "The date the business closed is required, and cannot be after today.")
		}
		if strings.TrimSpace(ch.Reason) == "" {
			return Errorf(EINVALID, sectionRoomTax, "Say why the operator account is closed (sold, quit the business …).")
		}
		op.Closed, op.ClosedOn, op.CloseReason, op.ClosedBy = true, ch.ClosedOn, strings.TrimSpace(ch.Reason), c.Actor
	default:
		return Errorf(EINVALID, sectionRoomTax, "Unknown operator account operation %q.", ch.Op)
	}
	res.Note = fmt.Sprintf("room tax operator %s: %s", op.ID, ch.Op)
	return tx.Put(CollectionRoomTaxOperators, op.ID, op)
}

func applyRoomTaxAccess(tx Tx, c Command, res *Result) error {
	ch := c.Payload.(*RoomTaxAccessGrant)
	if _, err := roomTaxTreasurer(tx, c); err != nil {
		return err
	}
	if err := validRecordID("grant", ch.ID); err != nil {
		return err
	}
	var gs RoomTaxGrants
	if _, err := tx.Get(CollectionRoomTaxGrants, ch.Official, &gs); err != nil {
		return err
	}
	i := slices.IndexFunc(gs.Grants, func(g RoomTaxGrant) bool { return g.ID == ch.ID })
	switch ch.Op {
	case "grant":
		if i >= 0 {
			return Errorf(ECONFLICT, sectionConfid, "The grant id %q is taken.", ch.ID)
		}
		var u StaffUser
		ok, err := tx.Get(CollectionStaffUsers, ch.Official, &u)
		if err != nil {
			return err
		}
		if !ok || u.Disabled {
			return Errorf(EINVALID, sectionConfid, "There is no active staff account %q to grant access to.", ch.Official)
		}
		switch u.Role {
		case RoleTreasurer, RoleAuditor:
			return Errorf(EINVALID, sectionConfid, "%s is of the treasurer's office or the auditors, who read returns without a grant.", u.Username)
		case RoleHotelOperator:
			return Errorf(EINVALID, sectionConfid, "A hotel operator's login reads only its own operator's returns; it cannot be granted another's.")
		}
		if _, err := getOperator(tx, ch.Operator); err != nil {
			return err
		}
		if strings.TrimSpace(ch.Reason) == "" {
			return Errorf(EINVALID, sectionConfid, "Record why the official needs to see the returns (§5.22(8)(d): \"when deemed necessary\").")
		}
		if ch.Until.IsZero() || ch.Until.Before(c.At.Date) || ch.Until.After(c.At.Date.AddMonths(12)) {
			return Errorf(EINVALID, sectionConfid, "A grant lasts until a date from today to a year from today.")
		}
		gs.Grants = append(gs.Grants, RoomTaxGrant{ID: ch.ID, Official: ch.Official, Operator: ch.Operator, Reason: strings.TrimSpace(ch.Reason),
			Until: ch.Until, GrantedAt: c.At, GrantedBy: c.Actor})
	case "revoke":
		if i < 0 {
			return Errorf(ENOTFOUND, sectionConfid, "There is no grant %q of %s.", ch.ID, ch.Official)
		}
		g := &gs.Grants[i]
		if g.Revoked {
			return Errorf(ECONFLICT, sectionConfid, "Grant %s was revoked already.", g.ID)
		}
		g.Revoked, g.RevokedAt, g.RevokedBy = true, c.At, c.Actor
	default:
		return Errorf(EINVALID, sectionConfid, "Unknown grant operation %q.", ch.Op)
	}
	res.Note = fmt.Sprintf("room tax access %s: %s for %s", ch.ID, ch.Op, ch.Official)
	return tx.Put(CollectionRoomTaxGrants, ch.Official, gs)
}

// getter reads one record: (false, nil) when it does not exist. Both the
// ledger's transaction (Tx.Get) and the read side (Records) give one, so
// the decision of who may read a return is the same code in Apply and in
// the pages.
type getter func(collection, id string, v any) (bool, error)

func recordsGetter(r Records) getter {
	return func(collection, id string, v any) (bool, error) {
		err := r.Get(collection, id, v)
		if ErrorCode(err) == ENOTFOUND {
			return false, nil
		}
		return err == nil, err
	}
}

// Read bases: on what ground a reader may read an operator's returns
// (§5.22(8)).
const (
	BasisFiler     = "filer"     // (a) the person who filed the return
	BasisTreasurer = "treasurer" // the Finance Director/Treasurer's office, who holds them
	BasisAuditor   = "auditor"   // (c) the village auditors
	// BasisGrant begins the basis of a read by another village official
	// (d): "grant <grant id>".
	BasisGrant = "grant"
)

const (
	sectionConfid = "§5.22(8)"
	// AllOperators names every operator in a read: the treasurer's and
	// the auditors' reports and exports.
	AllOperators = "*"
)

// roomTaxReadBasis decides whether the staff account u may read the
// returns of operator (AllOperators: every operator) on date on, and on
// what ground: the treasurer's office and the auditors always; a hotel
// operator's login only its own operator's; any other official only with
// an active access grant for that operator. The refusal says why without
// saying anything about the operator.
func roomTaxReadBasis(get getter, u StaffUser, operator string, on Date) (string, error) {
	if u.Disabled {
		return "", Errorf(EFORBIDDEN, sectionConfid, "This account is disabled.")
	}
	switch u.Role {
	case RoleTreasurer:
		return BasisTreasurer, nil
	case RoleAuditor:
		return BasisAuditor, nil
	}
	if operator == AllOperators {
		return "", Errorf(EFORBIDDEN, sectionConfid, "Room tax returns are confidential (§5.22(8)): only the treasurer's office and the village auditors read every operator's.")
	}
	if u.Role == RoleHotelOperator {
		var l RoomTaxLogin
		ok, err := get(CollectionRoomTaxLogins, u.Username, &l)
		if err != nil {
			return "", err
		}
		if ok && l.Operator != "" && l.Operator == operator {
			return BasisFiler, nil
		}
		return "", Errorf(EFORBIDDEN, sectionConfid, "Room tax returns are confidential (§5.22(8)): your login reads only your own operator's returns.")
	}
	var gs RoomTaxGrants
	if _, err := get(CollectionRoomTaxGrants, u.Username, &gs); err != nil {
		return "", err
	}
	for _, g := range gs.Grants {
		if g.Operator == operator && g.Active(on) {
			return BasisGrant + " " + g.ID, nil
		}
	}
	return "", Errorf(EFORBIDDEN, sectionConfid, "Room tax returns are confidential (§5.22(8)): you need an access grant from the treasurer, recording why, to read this operator's returns.")
}

// RoomTaxOperator returns an operator account.
func (x Reads) RoomTaxOperator(id string) (RoomTaxOperator, error) {
	return must[RoomTaxOperator](x.r, CollectionRoomTaxOperators, id, "room tax operator")
}

// RoomTaxOperators returns every operator account, by id.
func (x Reads) RoomTaxOperators() ([]RoomTaxOperator, error) {
	return all[RoomTaxOperator](x.r, CollectionRoomTaxOperators, "")
}

// RoomTaxOperatorOf returns the operator a hotel operator's login files
// for, if any.
func (x Reads) RoomTaxOperatorOf(username string) (RoomTaxOperator, bool, error) {
	l, ok, err := get[RoomTaxLogin](x.r, CollectionRoomTaxLogins, username)
	if err != nil || !ok || l.Operator == "" {
		return RoomTaxOperator{}, false, err
	}
	op, err := x.RoomTaxOperator(l.Operator)
	return op, err == nil, err
}

// RoomTaxGrantsOf returns the access grants of an official, active or not.
func (x Reads) RoomTaxGrantsOf(username string) ([]RoomTaxGrant, error) {
	gs, _, err := get[RoomTaxGrants](x.r, CollectionRoomTaxGrants, username)
	return gs.Grants, err
}

// RoomTaxGrants returns every access grant, by official then grant order.
func (x Reads) RoomTaxGrants() ([]RoomTaxGrant, error) {
	all, err := all[RoomTaxGrants](x.r, CollectionRoomTaxGrants, "")
	var out []RoomTaxGrant
	for _, gs := range all {
		out = append(out, gs.Grants...)
	}
	return out, err
}

// RoomTaxReadBasis says whether the staff account username may read the
// returns of operator (or of every operator, with operator "*") on date
// on, and on what ground (§5.22(8)); the ledger decides the same when it
// records the read. The pages use it to offer only what may be read.
func (x Reads) RoomTaxReadBasis(username, operator string, on Date) (string, error) {
	u, err := x.StaffUser(username)
	if err != nil {
		return "", err
	}
	return roomTaxReadBasis(recordsGetter(x.r), u, operator, on)
}
