package roomtax

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The treasurer's office: operator accounts, extensions, determinations,
// window payments, access grants, the access log, certificates on the
// sale of a business, successors, forfeitures.

// newID returns a record id made before the command is submitted
// ("G-3f9c01ab"), so that every node applies the same one.
func newID(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

const estRows = 3

func (m *Module) operatorsView(r *http.Request, f OperatorForm) (Operators, error) {
	ops, err := m.o.Reads().RoomTaxOperators()
	v := Operators{CanAdmin: staff.Allowed(m.who(r).Role, staff.CapRoomTaxAdmin), Form: f}
	for _, op := range ops {
		v.Rows = append(v.Rows, operatorView(op, m.o.Ledger().Params()))
	}
	for len(v.Form.Establishments) < estRows {
		v.Form.Establishments = append(v.Form.Establishments, Establishment{})
	}
	return v, err
}

// showOperators lists the operators (no figures) and the registration form.
func (m *Module) showOperators(w http.ResponseWriter, r *http.Request) {
	v, err := m.operatorsView(r, OperatorForm{})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, http.StatusOK, OperatorsPage(m.o.Frame(r, "Room tax operators"), v))
}

// submitRegister registers an operator.
func (m *Module) submitRegister(w http.ResponseWriter, r *http.Request) {
	f := OperatorForm{ID: form(r, "id"), LegalName: form(r, "legal_name"), SellersPermit: form(r, "sellers_permit"), Contact: form(r, "contact"), Marketplace: form(r, "marketplace") == "yes"}
	p := &domain.RoomTaxOperatorChange{Op: domain.OperatorRegister, ID: f.ID, LegalName: f.LegalName, SellersPermit: f.SellersPermit, Contact: f.Contact, Marketplace: f.Marketplace}
	if p.ID == "" {
		p.ID = domain.OperatorIDFor(f.LegalName)
	}
	for i := 1; i <= estRows; i++ {
		e := Establishment{Name: form(r, fmt.Sprintf("est%d_name", i)), Address: form(r, fmt.Sprintf("est%d_address", i))}
		f.Establishments = append(f.Establishments, e)
		if e.Name != "" || e.Address != "" {
			p.Establishments = append(p.Establishments, domain.Establishment{Name: e.Name, Address: e.Address})
		}
	}
	if _, err := m.o.Submit(r, p); err != nil {
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		f.Error = msg
		v, verr := m.operatorsView(r, f)
		if verr != nil {
			m.o.Fail(w, r, verr)
			return
		}
		m.o.Render(w, r, status, OperatorsPage(m.o.Frame(r, "Room tax operators"), v))
		return
	}
	m.o.Redirect(w, r, "/staff/room-tax/operators/"+p.ID)
}

// showOperator shows an operator's account, its logins and the returns on
// record, without figures.
func (m *Module) showOperator(w http.ResponseWriter, r *http.Request) {
	m.renderOperator(w, r, http.StatusOK, "", "")
}

func (m *Module) renderOperator(w http.ResponseWriter, r *http.Request, status int, notice, problem string) {
	op, err := m.o.Reads().RoomTaxOperator(r.PathValue("op"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.who(r)
	v := OperatorPage{Operator: operatorView(op, m.o.Ledger().Params()), CanAdmin: staff.Allowed(who.Role, staff.CapRoomTaxAdmin),
		CanRead: staff.Allowed(who.Role, staff.CapRoomTaxRead), Notice: notice, Error: problem, Today: m.o.Today().String()}
	if v.CanAdmin {
		users, err := m.o.Reads().StaffUsers()
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, u := range users {
			if u.Role != domain.RoleHotelOperator || u.Disabled {
				continue
			}
			if _, linked, err := m.o.Reads().RoomTaxOperatorOf(u.Username); err == nil && !linked {
				v.Logins = append(v.Logins, u.Username)
			}
		}
	}
	due, err := m.unfiled(op, m.o.Today())
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, q := range due {
		if q.DueOn().Before(m.o.Today()) {
			v.Unfiled = append(v.Unfiled, q.String())
		}
	}
	m.o.Render(w, r, status, OperatorAccountPage(m.o.Frame(r, "Operator "+op.LegalName), v))
}

// submitOperator links or unlinks a login, or closes the account.
func (m *Module) submitOperator(w http.ResponseWriter, r *http.Request) {
	p := &domain.RoomTaxOperatorChange{Op: form(r, "op"), ID: r.PathValue("op"), Login: form(r, "login"), Reason: form(r, "reason")}
	switch p.Op {
	case domain.OperatorLink, domain.OperatorUnlink:
	case domain.OperatorClose:
		d, err := staff.ParseDate("The date the business closed", form(r, "closed_on"))
		if err != nil {
			m.renderOperatorError(w, r, err)
			return
		}
		p.ClosedOn = d
	default:
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "", "Unknown change of an operator account."))
		return
	}
	if _, err := m.o.Submit(r, p); err != nil {
		m.renderOperatorError(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/room-tax/operators/"+p.ID)
}

func (m *Module) renderOperatorError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	m.renderOperator(w, r, status, "", msg)
}

// returnOf reads the operator and quarter a return route names.
func returnOf(r *http.Request) (string, domain.Quarter, error) {
	op, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		return "", q, domain.Errorf(domain.ENOTFOUND, "", "There is no such return.")
	}
	return op, q, nil
}

// adminSubmit submits a change of a return for the treasurer's office and
// leads back to the return (a new read), or says why it was not made.
func (m *Module) adminSubmit(w http.ResponseWriter, r *http.Request, id string, p domain.Payload) {
	if _, err := m.o.Submit(r, p); err != nil {
		m.fail(w, r, err, readAgain(returnURL(id)))
		return
	}
	m.o.Redirect(w, r, readAgain(returnURL(id)))
}

// submitExtension extends the time to file a return.
func (m *Module) submitExtension(w http.ResponseWriter, r *http.Request) {
	op, q, err := returnOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	id := domain.QuarterlyReturnID(op, q)
	to, err := staff.ParseDate("The new due date", form(r, "to"))
	if err != nil {
		m.fail(w, r, err, readAgain(returnURL(id)))
		return
	}
	m.adminSubmit(w, r, id, &domain.RoomTaxExtend{Operator: op, Period: q, To: to, Cause: form(r, "cause")})
}

// detSaleRows is the most rows of exempt sales the determination form
// carries: those in force (a return has at most 200, domain/roomtaxreturn.go)
// and two more (returnView).
const detSaleRows = 202

// submitDetermination records an office or field audit determination, or
// an estimate for a return not filed.
func (m *Module) submitDetermination(w http.ResponseWriter, r *http.Request) {
	op, q, err := returnOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	id := domain.QuarterlyReturnID(op, q)
	gross, err := staff.ParseAmount("The gross receipts determined", form(r, "gross"))
	if err != nil {
		m.fail(w, r, err, readAgain(returnURL(id)))
		return
	}
	// The exempt sales as the audit finds them, each with its buyer and
	// document: the rule decides which are valid, as for a return.
	sales, _, err := parseSales(r, "det_sale", detSaleRows)
	if err != nil {
		m.fail(w, r, err, readAgain(returnURL(id)))
		return
	}
	p := &domain.RoomTaxDetermine{Operator: op, Period: q, Type: form(r, "type"), Basis: strings.TrimSpace(r.PostForm.Get("basis")), GrossReceipts: gross, ExemptSales: sales}
	m.adminSubmit(w, r, id, p)
}

// submitNoInterest finds that an overpayment bears no interest (§5.22(6)).
func (m *Module) submitNoInterest(w http.ResponseWriter, r *http.Request) {
	op, q, err := returnOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.adminSubmit(w, r, domain.QuarterlyReturnID(op, q), &domain.RoomTaxWithholdInterest{Operator: op, Period: q, Ground: form(r, "ground"), Note: form(r, "note")})
}

// submitWindowPayment takes cash or a check toward a return into the
// treasurer's open drawer.
func (m *Module) submitWindowPayment(w http.ResponseWriter, r *http.Request) {
	op, q, err := returnOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	id := domain.QuarterlyReturnID(op, q)
	back := readAgain(returnURL(id))
	d, open, err := m.o.Reads().OpenDrawer(m.who(r).Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if !open {
		m.fail(w, r, domain.Errorf(domain.ECONFLICT, "", "Open a drawer at the window first."), back)
		return
	}
	amount, err := staff.ParseAmount("The amount", form(r, "amount"))
	if err != nil {
		m.fail(w, r, err, back)
		return
	}
	p := &domain.RoomTaxWindowPayment{Return: id, DrawerID: d.ID, Amount: amount, Tender: domain.Tender(form(r, "tender")), Tendered: amount, Reference: form(r, "reference"), Payer: form(r, "payer")}
	if p.Tender == domain.Cash && form(r, "tendered") != "" {
		if p.Tendered, err = staff.ParseAmount("The cash handed over", form(r, "tendered")); err != nil {
			m.fail(w, r, err, back)
			return
		}
	}
	m.adminSubmit(w, r, id, p)
}

// showGrants lists the access grants and grants one.
func (m *Module) showGrants(w http.ResponseWriter, r *http.Request) {
	m.renderGrants(w, r, http.StatusOK, "")
}

func (m *Module) renderGrants(w http.ResponseWriter, r *http.Request, status int, problem string) {
	grants, err := m.o.Reads().RoomTaxGrants()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	today := m.o.Today()
	v := Grants{Error: problem}
	for _, g := range grants {
		v.Rows = append(v.Rows, Grant{ID: g.ID, Official: g.Official, Operator: g.Operator, Reason: g.Reason, Until: g.Until.String(),
			GrantedAt: g.GrantedAt.String(), GrantedBy: g.GrantedBy, Active: g.Active(today), Revoked: g.Revoked})
	}
	users, err := m.o.Reads().StaffUsers()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, u := range users {
		switch u.Role {
		case domain.RoleClerk, domain.RoleAdministrator, domain.RoleBoard, domain.RolePresident:
			if !u.Disabled {
				v.Officials = append(v.Officials, Option{Value: u.Username, Label: u.Name + " (" + u.Role.Title() + ")"})
			}
		}
	}
	ops, err := m.o.Reads().RoomTaxOperators()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, op := range ops {
		v.Operators = append(v.Operators, Option{Value: op.ID, Label: op.LegalName})
	}
	m.o.Render(w, r, status, GrantsPage(m.o.Frame(r, "Room tax access grants"), v))
}

// submitGrant grants an official access to an operator's returns.
func (m *Module) submitGrant(w http.ResponseWriter, r *http.Request) {
	until, err := staff.ParseDate("The last day of the grant", form(r, "until"))
	if err == nil {
		_, err = m.o.Submit(r, &domain.RoomTaxAccessGrant{Op: "grant", ID: newID("G"), Official: form(r, "official"), Operator: form(r, "operator"), Reason: form(r, "reason"), Until: until})
	}
	m.grantAnswer(w, r, err)
}

// submitRevoke revokes an access grant.
func (m *Module) submitRevoke(w http.ResponseWriter, r *http.Request) {
	_, err := m.o.Submit(r, &domain.RoomTaxAccessGrant{Op: "revoke", ID: r.PathValue("id"), Official: form(r, "official")})
	m.grantAnswer(w, r, err)
}

func (m *Module) grantAnswer(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		m.renderGrants(w, r, status, msg)
		return
	}
	m.o.Redirect(w, r, "/staff/room-tax/grants")
}

// showReads is the access log: every read of returns, newest first.
func (m *Module) showReads(w http.ResponseWriter, r *http.Request) {
	operator := r.URL.Query().Get("operator")
	reads, err := m.o.Reads().RoomTaxReads(operator)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Reads{Operator: operator}
	for _, x := range reads {
		v.Rows = append(v.Rows, Read{ID: x.ID, At: x.At.String(), Reader: x.Reader, Role: x.Role.Title(), Basis: x.Basis, What: x.What, Operator: x.Operator,
			Subjects: strings.Join(x.Subjects, ", "), Reason: x.Reason, Official: strings.TrimSpace(x.Official + " " + x.Agency)})
	}
	m.o.Render(w, r, http.StatusOK, ReadsPage(m.o.Frame(r, "Reads of room tax returns"), v))
}

func (m *Module) operatorOptions() ([]Option, error) {
	ops, err := m.o.Reads().RoomTaxOperators()
	var out []Option
	for _, op := range ops {
		out = append(out, Option{Value: op.ID, Label: op.LegalName + " (" + op.ID + ")"})
	}
	return out, err
}

// showEnforcement lists the certificates (without amounts), successors and
// forfeitures, with their forms.
func (m *Module) showEnforcement(w http.ResponseWriter, r *http.Request) {
	reason, ok := m.reasonOf(w, r, "the amounts due on sales of businesses")
	if !ok {
		return
	}
	m.renderEnforcement(w, r, http.StatusOK, "", reason)
}

// renderEnforcement shows the certificates, the successors' liabilities
// and the forfeitures. The amounts due and the liabilities come from the
// sellers' returns, so the page is a read of them, recorded (with reason)
// before it is shown.
func (m *Module) renderEnforcement(w http.ResponseWriter, r *http.Request, status int, problem, reason string) {
	v := Enforcement{Error: problem}
	var err error
	if v.Operators, err = m.operatorOptions(); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	certs, err := m.o.Reads().SaleCertificates("")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, c := range certs {
		v.Certificates = append(v.Certificates, Certificate{ID: c.ID, Operator: c.Operator, Requester: c.Requester, RequesterIs: c.RequesterIs, IssuedOn: c.IssuedOn.String(), NothingDue: c.NothingDue})
	}
	succ, err := m.o.Reads().SuccessorLiabilities()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if len(succ) > 0 {
		var subjects []string
		for _, s := range succ {
			subjects = append(subjects, s.Operator)
		}
		slices.Sort(subjects)
		if _, err := m.record(r, domain.ReadReport, domain.AllOperators, slices.Compact(subjects), reason); err != nil {
			m.o.Fail(w, r, err)
			return
		}
	}
	for _, s := range succ {
		v.Successors = append(v.Successors, Successor{ID: s.ID, Operator: s.Operator, Successor: s.Successor, Certificate: s.Certificate, Price: money(s.PurchasePrice),
			Due: money(s.AmountDue), Liability: money(s.Liability), At: s.At.Date.String()})
	}
	fs, err := m.o.Reads().Forfeitures()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, f := range fs {
		v.Forfeitures = append(v.Forfeitures, Forfeiture{ID: f.ID, Operator: f.Operator, Violation: f.Violation, From: f.From.String(), To: f.To.String(),
			Days: strconv.Itoa(f.Days), PerDay: money(f.PerDay), Total: money(f.Total)})
	}
	m.o.Render(w, r, status, EnforcementPage(m.o.Frame(r, "Room tax: sales of businesses and forfeitures"), v))
}

func (m *Module) enforcementAnswer(w http.ResponseWriter, r *http.Request, err error, to string) {
	if err != nil {
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		m.renderEnforcement(w, r, status, msg, reasons[0].Label) // the treasurer's office acting: administering the tax
		return
	}
	m.o.Redirect(w, r, to)
}

// submitCertificate issues a certificate on the sale of a business.
func (m *Module) submitCertificate(w http.ResponseWriter, r *http.Request) {
	p := &domain.RoomTaxCertify{ID: newID("C"), Operator: form(r, "operator"), Requester: form(r, "requester"), RequesterIs: form(r, "requester_is")}
	_, err := m.o.Submit(r, p)
	m.enforcementAnswer(w, r, err, readAgain("/staff/room-tax/certificates/"+p.ID))
}

// showCertificate shows a certificate with the amount due (a read of the
// operator's returns, recorded).
func (m *Module) showCertificate(w http.ResponseWriter, r *http.Request) {
	c, err := m.o.Reads().SaleCertificate(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	reason, ok := m.reasonOf(w, r, "the certificate "+c.ID)
	if !ok {
		return
	}
	readID, err := m.record(r, domain.ReadReturns, c.Operator, nil, reason+" (certificate "+c.ID+")")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Certificate{ID: c.ID, Operator: c.Operator, Requester: c.Requester, RequesterIs: c.RequesterIs, IssuedOn: c.IssuedOn.String(), AmountDue: money(c.AmountDue),
		By: c.By, NothingDue: c.NothingDue, ReadID: readID}
	for _, q := range c.Unfiled {
		v.Unfiled = append(v.Unfiled, q.String())
	}
	m.o.Render(w, r, http.StatusOK, CertificatePage(m.o.Frame(r, "Certificate "+c.ID), v))
}

// submitSuccessor records a successor's liability.
func (m *Module) submitSuccessor(w http.ResponseWriter, r *http.Request) {
	price, err := staff.ParseAmount("The purchase price", form(r, "price"))
	if err == nil {
		_, err = m.o.Submit(r, &domain.RoomTaxSuccessor{ID: newID("S"), Operator: form(r, "operator"), Successor: form(r, "successor"), Certificate: form(r, "certificate"), PurchasePrice: price})
	}
	m.enforcementAnswer(w, r, err, readAgain("/staff/room-tax/enforcement"))
}

// submitForfeiture records a forfeiture, each day a separate offense.
func (m *Module) submitForfeiture(w http.ResponseWriter, r *http.Request) {
	from, err := staff.ParseDate("The first day", form(r, "from"))
	var to domain.Date
	var per domain.Money
	if err == nil {
		to, err = staff.ParseDate("The last day", form(r, "to"))
	}
	if err == nil {
		per, err = staff.ParseAmount("The forfeiture a day", form(r, "per_day"))
	}
	if err == nil {
		_, err = m.o.Submit(r, &domain.RoomTaxForfeit{ID: newID("F"), Operator: form(r, "operator"), Violation: form(r, "violation"), From: from, To: to, PerDay: per})
	}
	m.enforcementAnswer(w, r, err, readAgain("/staff/room-tax/enforcement"))
}
