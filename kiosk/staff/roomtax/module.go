// Package roomtax is the room tax in the clerk's office (§5.22): hotel,
// motel and short-term-rental operators file and amend their quarterly
// returns and their annual return on the staff portal, with a preview of
// the rule's figures before they sign, and pay them there by card or with
// a remittance slip for a check (portal.go); the treasurer's office registers
// operators, grants extensions, audits and estimates, takes payments at
// the window and keeps the certificates, transfers and forfeitures; the
// auditors, the Department of Revenue and the IRS, and officials with an
// access grant read what they may.
//
// Confidentiality (§5.22(8)) shapes every page that shows a return's
// figures: the page first submits a room_tax_read command (who, what, why)
// and serves nothing unless the ledger recorded it. The ledger decides
// whose returns the reader may read (domain.Reads.RoomTaxReadBasis), so a
// role offered the page is still refused another's returns, and the
// refusal is journaled too. Figures are never stored: each page computes
// them with the rule 5.22/room-tax-return as of today.
package roomtax

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the room tax capability of the back office.
type Module struct{ o *staff.Office }

// New returns the room tax module.
func New() *Module { return &Module{} }

// Mount adds the room tax routes, the navigation link and the start-page
// alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	// Operators, and everyone who may read.
	o.Page("GET /staff/room-tax", staff.CapRoomTaxRead, m.showHome)
	o.Page("GET /staff/room-tax/blank.pdf", staff.CapRoomTaxForms, m.showBlankPDF)
	o.Page("GET /staff/room-tax/operators/{op}/file", staff.CapRoomTaxFile, m.showFileForm)
	o.Page("POST /staff/room-tax/operators/{op}/file", staff.CapRoomTaxFile, m.submitFile)
	o.Page("GET /staff/room-tax/operators/{op}/returns", staff.CapRoomTaxRead, m.showOperatorReturns)
	o.Page("GET /staff/room-tax/returns/{id}", staff.CapRoomTaxRead, m.showReturn)
	o.Page("GET /staff/room-tax/returns/{id}/return.pdf", staff.CapRoomTaxRead, m.showReturnPDF)
	o.Page("GET /staff/room-tax/returns/{id}/amend", staff.CapRoomTaxFile, m.showAmendForm)
	o.Page("POST /staff/room-tax/returns/{id}/amend", staff.CapRoomTaxFile, m.submitAmend)
	o.Page("GET /staff/room-tax/operators/{op}/annual/{year}", staff.CapRoomTaxFile, m.showAnnualForm)
	o.Page("POST /staff/room-tax/operators/{op}/annual/{year}", staff.CapRoomTaxFile, m.submitAnnual)
	o.Page("GET /staff/room-tax/annual/{id}", staff.CapRoomTaxRead, m.showAnnual)
	// The operator's portal: paying its own returns (portal.go).
	o.Page("GET /staff/room-tax/returns/{id}/pay", staff.CapRoomTaxPay, m.showPayPage)
	o.Page("POST /staff/room-tax/returns/{id}/pay", staff.CapRoomTaxPay, m.submitPay)
	o.Page("POST /staff/room-tax/returns/{id}/charge", staff.CapRoomTaxPay, m.submitCharge)
	o.Page("GET /staff/room-tax/returns/{id}/slip.pdf", staff.CapRoomTaxPay, m.showSlipPDF)
	o.Page("GET /staff/room-tax/receipts/{number}", staff.CapRoomTaxPay, m.showReceipt)
	// The treasurer's office and the auditors.
	o.Page("GET /staff/room-tax/operators", staff.CapRoomTaxDirectory, m.showOperators)
	o.Page("POST /staff/room-tax/operators", staff.CapRoomTaxAdmin, m.submitRegister)
	o.Page("GET /staff/room-tax/operators/{op}", staff.CapRoomTaxDirectory, m.showOperator)
	o.Page("POST /staff/room-tax/operators/{op}", staff.CapRoomTaxAdmin, m.submitOperator)
	o.Page("POST /staff/room-tax/returns/{id}/extension", staff.CapRoomTaxAdmin, m.submitExtension)
	o.Page("POST /staff/room-tax/returns/{id}/determination", staff.CapRoomTaxAdmin, m.submitDetermination)
	o.Page("POST /staff/room-tax/returns/{id}/no-interest", staff.CapRoomTaxAdmin, m.submitNoInterest)
	o.Page("POST /staff/room-tax/returns/{id}/payment", staff.CapRoomTaxAdmin, m.submitWindowPayment)
	o.Page("GET /staff/room-tax/remittance", staff.CapRoomTaxAdmin, m.showRemittance)
	o.Page("GET /staff/room-tax/grants", staff.CapRoomTaxAdmin, m.showGrants)
	o.Page("POST /staff/room-tax/grants", staff.CapRoomTaxAdmin, m.submitGrant)
	o.Page("POST /staff/room-tax/grants/{id}/revoke", staff.CapRoomTaxAdmin, m.submitRevoke)
	o.Page("GET /staff/room-tax/reads", staff.CapRoomTaxLog, m.showReads)
	o.Page("GET /staff/room-tax/reports", staff.CapRoomTaxTotals, m.showReports)
	o.Page("GET /staff/room-tax/reports/by-operator", staff.CapRoomTaxRead, m.showByOperator)
	o.Page("POST /staff/room-tax/transfers", staff.CapRoomTaxAdmin, m.submitTransfer)
	o.Page("GET /staff/room-tax/enforcement", staff.CapRoomTaxAdmin, m.showEnforcement)
	o.Page("POST /staff/room-tax/certificates", staff.CapRoomTaxAdmin, m.submitCertificate)
	o.Page("GET /staff/room-tax/certificates/{id}", staff.CapRoomTaxAdmin, m.showCertificate)
	o.Page("POST /staff/room-tax/successors", staff.CapRoomTaxAdmin, m.submitSuccessor)
	o.Page("POST /staff/room-tax/forfeitures", staff.CapRoomTaxAdmin, m.submitForfeiture)
	o.Page("GET /staff/room-tax/export.csv", staff.CapRoomTaxAdmin, m.showExport)
	// The API.
	o.API("GET /api/v1/room-tax/returns", staff.CapRoomTaxRead, m.apiReturns)
	o.API("GET /api/v1/room-tax/returns/{id}", staff.CapRoomTaxRead, m.apiReturn)
	o.API("POST /api/v1/room-tax/returns", staff.CapRoomTaxFile, m.apiFile)
	o.API("POST /api/v1/room-tax/returns/{id}/amendments", staff.CapRoomTaxFile, m.apiAmend)
	o.API("POST /api/v1/room-tax/returns/{id}/extension", staff.CapRoomTaxAdmin, m.apiExtend)
	o.API("POST /api/v1/room-tax/returns/{id}/determinations", staff.CapRoomTaxAdmin, m.apiDetermine)
	o.API("POST /api/v1/room-tax/returns/{id}/payments", staff.CapRoomTaxAdmin, m.apiPay)

	o.Nav(staff.CapRoomTaxRead, "Room tax", "/staff/room-tax")
	o.Home(domain.RoleHotelOperator, "/staff/room-tax")
	o.Alert(m.alerts)
	return nil
}

// alerts tells an operator which returns are due and not filed (nothing
// about figures), and the treasurer how many returns due are missing.
func (m *Module) alerts(ctx context.Context, who staff.Who) ([]staffview.Alert, error) {
	today := m.o.Today()
	switch who.Role {
	case domain.RoleHotelOperator:
		op, ok, err := m.o.Reads().RoomTaxOperatorOf(who.Username)
		if err != nil || !ok {
			return nil, err
		}
		due, err := m.unfiled(op, today)
		if err != nil || len(due) == 0 {
			return nil, err
		}
		q := due[len(due)-1]
		text := fmt.Sprintf("The room tax return for %s is due by %s.", q, q.DueOn())
		if q.DueOn().Before(today) {
			text = fmt.Sprintf("The room tax return for %s was due on %s: file it now (a late return owes the late filing fee).", q, q.DueOn())
		}
		return []staffview.Alert{{TestID: "alert-room-tax-due", Text: text, URL: "/staff/room-tax", Due: q.DueOn().String()}}, nil
	case domain.RoleTreasurer:
		ops, err := m.o.Reads().RoomTaxOperators()
		if err != nil {
			return nil, err
		}
		n, oldest := 0, domain.Date{}
		for _, op := range ops {
			due, err := m.unfiled(op, today)
			if err != nil {
				return nil, err
			}
			for _, q := range due {
				if q.DueOn().Before(today) {
					n++
					if oldest.IsZero() || q.DueOn().Before(oldest) {
						oldest = q.DueOn()
					}
				}
			}
		}
		if n > 0 {
			return []staffview.Alert{{TestID: "alert-room-tax-missing", Text: fmt.Sprintf("%d room tax return(s) are past due and not filed (§5.22(5): estimate them).", n), URL: "/staff/room-tax/operators", Due: oldest.String(), Count: n}}, nil
		}
	}
	return nil, nil
}

// unfiled returns the ended quarters since the operator registered (at
// most the last eight) with nothing on record: due, or past due.
func (m *Module) unfiled(op domain.RoomTaxOperator, today domain.Date) ([]domain.Quarter, error) {
	var out []domain.Quarter
	for _, q := range endedQuarters(op.Registered.Date, today) {
		if op.Closed && op.ClosedOn.Before(q.First()) {
			break
		}
		r, err := m.o.Reads().RoomTaxReturn(domain.QuarterlyReturnID(op.ID, q))
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			out = append(out, q)
			continue
		}
		if err != nil {
			return nil, err
		}
		if _, filed := r.Filed(domain.Date{}); !filed && len(r.Determinations) == 0 {
			out = append(out, q)
		}
	}
	return out, nil
}

// endedQuarters returns the quarters from the one containing from to the
// last that ended before today, at most the last eight.
func endedQuarters(from, today domain.Date) []domain.Quarter {
	var out []domain.Quarter
	for q := domain.QuarterOf(from); q.Last().Before(today); q = next(q) {
		out = append(out, q)
	}
	return out[max(0, len(out)-8):]
}

func next(q domain.Quarter) domain.Quarter {
	if q.Q == 4 {
		return domain.Quarter{Year: q.Year + 1, Q: 1}
	}
	return domain.Quarter{Year: q.Year, Q: q.Q + 1}
}

// who returns the signed-in person's staff account.
func (m *Module) who(r *http.Request) staff.Who { return m.o.Who(r) }

// filerReason is the reason a filer's read of its own returns records.
const filerReason = "the filer's own returns"

// reasons are what a reader other than the filer may give (§5.22(8)).
var reasons = []Option{
	{Value: "administration", Label: "Administering the tax (the treasurer's office)"},
	{Value: "audit", Label: "Audit of the village's accounts"},
	{Value: "payment", Label: "A payment or question at the window"},
	{Value: "inquiry", Label: "The operator's own inquiry"},
	{Value: "dor-irs", Label: "A request of the Department of Revenue or the IRS"},
	{Value: "necessary", Label: "Deemed necessary under an access grant"},
}

// reasonOf returns the reason a request gives for reading returns. A hotel
// operator reads its own: the reason is that. Anyone else names one in
// the query (reason, and an optional note); without one, the reason form
// is shown and ok is false.
func (m *Module) reasonOf(w http.ResponseWriter, r *http.Request, what string) (string, bool) {
	if m.who(r).Role == domain.RoleHotelOperator {
		return filerReason, true
	}
	q := r.URL.Query()
	key := q.Get("reason")
	i := slices.IndexFunc(reasons, func(o Option) bool { return o.Value == key })
	if i < 0 {
		v := ReasonForm{Action: r.URL.Path, What: what, Reasons: reasons}
		for k, vs := range q {
			if k != "reason" && k != "note" && len(vs) > 0 {
				v.Hidden = append(v.Hidden, Option{Value: k, Label: vs[0]})
			}
		}
		slices.SortFunc(v.Hidden, func(a, b Option) int { return strings.Compare(a.Value, b.Value) })
		m.o.Render(w, r, http.StatusOK, ReasonPage(m.o.Frame(r, "Why is this read?"), v))
		return "", false
	}
	reason := reasons[i].Label
	if note := strings.TrimSpace(q.Get("note")); note != "" {
		reason += ": " + note
	}
	return reason, true
}

// record records a read of returns in the ledger before they are shown,
// and returns the read's command id (its journal entry). An error means
// the read was refused or could not be recorded: nothing is to be shown.
func (m *Module) record(r *http.Request, what, operator string, subjects []string, reason string) (string, error) {
	res, err := m.o.Submit(r, &domain.RoomTaxRead{What: what, Operator: operator, Subjects: subjects, Reason: reason})
	if err != nil {
		return "", err
	}
	return res.CommandID, nil
}

// readAgain is the query that opens a page again after a change, with the
// reason the treasurer's office reads returns for.
func readAgain(path string) string { return path + "?reason=administration" }

// fail answers a form's error: the plain sentence with its status, or the
// error page when it is not one the person can fix.
func (m *Module) fail(w http.ResponseWriter, r *http.Request, err error, back string) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, status, ProblemPage(m.o.Frame(r, "Not done"), msg, back))
}

// money formats an amount as the pages show it.
func money(x domain.Money) string { return x.String() }

// figuresView maps the rule's figures to the page.
func figuresView(gross domain.Money, f domain.RoomTaxReturn, asOf domain.Date) *Figures {
	v := &Figures{AsOf: asOf.String(), DueOn: f.DueOn.String(), EffectiveDueOn: f.EffectiveDueOn.String(), Gross: money(gross),
		ExemptSales: money(f.ExemptSales), Taxable: money(f.TaxableReceipts), Tax: money(f.Tax), LateFee: money(f.LateFilingFee),
		Interest: money(f.Interest), Paid: money(f.Paid), Balance: money(f.Balance), Overpayment: money(f.Overpayment),
		DelinquentAfter: f.DelinquentAfter.String(), Delinquent: f.Delinquent, Extended: f.EffectiveDueOn != f.DueOn,
		Late: f.LateFilingFee.IsPositive(), Overpaid: f.Overpayment.IsPositive()}
	for _, i := range f.RejectedExemptions {
		v.Rejected = append(v.Rejected, i+1)
	}
	return v
}

var entityTitles = map[domain.ExemptEntity]string{
	domain.EntityFederal:         "the federal government",
	domain.EntityState:           "the State of Wisconsin",
	domain.EntityLocalGovernment: "a Wisconsin local government",
	domain.EntityNonprofit:       "a nonprofit religious, charitable, scientific or educational organization",
}

var entityOptions = []Option{
	{Value: string(domain.EntityFederal), Label: "The federal government"},
	{Value: string(domain.EntityState), Label: "The State of Wisconsin"},
	{Value: string(domain.EntityLocalGovernment), Label: "A Wisconsin local government"},
	{Value: string(domain.EntityNonprofit), Label: "A nonprofit (religious, charitable, scientific, educational)"},
}

var documentOptions = []Option{
	{Value: "purchase_order", Label: "Purchase order or letter of authorization"},
	{Value: "certificate_number", Label: "Certificate of exempt status number"},
}

var documentTitles = map[string]string{"purchase_order": "purchase order", "certificate_number": "certificate"}

// salesView maps exempt sales to the page, marking those the rule
// rejected.
func salesView(sales []domain.RoomTaxExemptSale, rejected []int) []Sale {
	var out []Sale
	for i, s := range sales {
		number := s.DocumentNumber
		if strings.TrimSpace(number) == "" {
			number = "(no number)"
		}
		out = append(out, Sale{Line: i + 1, Amount: money(s.Amount), Entity: entityTitles[s.Entity], Buyer: s.Buyer, Document: documentTitles[s.Document],
			Number: number, Billed: s.BilledToEntity, Rejected: slices.Contains(rejected, i)})
	}
	return out
}

// saleRows is how many exempt sales the return's form offers.
const saleRows = 4

// filingForm is a return's form as submitted.
type filingForm struct {
	period   string
	gross    domain.Money
	sales    []domain.RoomTaxExemptSale
	inputs   []SaleInput
	signer   string
	capacity string
	reason   string
	year     *domain.RoomTaxYear
	basis    string
	endMonth string
	grossRaw string
}

// parseFiling reads a return's form: gross receipts, the exempt sales
// (a row with neither amount nor buyer is empty), the signature, the
// election, the amendment's reason.
func parseFiling(r *http.Request, prefix string, rows int) (filingForm, error) {
	f := filingForm{period: form(r, "period"), grossRaw: form(r, prefix+"gross"), signer: form(r, "signer"), capacity: form(r, "capacity"),
		reason: form(r, "reason"), basis: form(r, "basis"), endMonth: form(r, "end_month")}
	var err error
	f.sales, f.inputs, err = parseSales(r, prefix+"sale", rows)
	if f.gross, err = parseAmountFirst(err, "The gross receipts", f.grossRaw); err != nil {
		return f, err
	}
	switch f.basis {
	case "calendar":
		f.year = &domain.RoomTaxYear{Basis: domain.YearCalendar, EndMonth: 12}
	case "fiscal":
		n, _ := strconv.Atoi(f.endMonth)
		f.year = &domain.RoomTaxYear{Basis: domain.YearFiscal, EndMonth: n}
	}
	return f, nil
}

// parseSales reads a form's rows of exempt sales (fields name+N+"_amount"
// …, N from 1 to rows); a row with neither amount nor buyer is empty. The
// error is the first amount that is not one.
func parseSales(r *http.Request, name string, rows int) ([]domain.RoomTaxExemptSale, []SaleInput, error) {
	var sales []domain.RoomTaxExemptSale
	var inputs []SaleInput
	var err error
	for i := 1; i <= rows; i++ {
		p := fmt.Sprintf("%s%d_", name, i)
		in := SaleInput{Amount: form(r, p+"amount"), Entity: form(r, p+"entity"), Buyer: form(r, p+"buyer"), Document: form(r, p+"document"),
			Number: form(r, p+"number"), Billed: form(r, p+"billed") == "yes"}
		inputs = append(inputs, in)
		if in.Amount == "" && in.Buyer == "" {
			continue
		}
		amount, perr := staff.ParseAmount(fmt.Sprintf("Exempt sale %d's amount", i), in.Amount)
		if perr != nil && err == nil {
			err = perr
		}
		sales = append(sales, domain.RoomTaxExemptSale{Amount: amount, Entity: domain.ExemptEntity(in.Entity), Buyer: in.Buyer,
			BilledToEntity: in.Billed, Document: in.Document, DocumentNumber: in.Number})
	}
	return sales, inputs, err
}

// parseAmountFirst parses an amount unless an earlier field failed.
func parseAmountFirst(prev error, what, s string) (domain.Money, error) {
	if prev != nil {
		return domain.Money{}, prev
	}
	return staff.ParseAmount(what, s)
}

// digest fixes what a preview showed: signing is accepted only for the
// figures the person saw.
func (f filingForm) digest(operator string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%s|%s|%s|%s|%s\n", operator, f.period, f.gross, f.basis, f.endMonth, f.reason)
	for _, s := range f.sales {
		fmt.Fprintf(h, "%s|%s|%q|%v|%s|%q\n", s.Amount, s.Entity, s.Buyer, s.BilledToEntity, s.Document, s.DocumentNumber)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func form(r *http.Request, name string) string { return strings.TrimSpace(r.PostForm.Get(name)) }

// inputsOf returns a form's exempt sale rows for sales, padded to rows.
func inputsOf(sales []domain.RoomTaxExemptSale, rows int) []SaleInput {
	var out []SaleInput
	for _, s := range sales {
		out = append(out, SaleInput{Amount: money(s.Amount), Entity: string(s.Entity), Buyer: s.Buyer, Document: s.Document, Number: s.DocumentNumber, Billed: s.BilledToEntity})
	}
	for len(out) < rows {
		out = append(out, SaleInput{Entity: string(domain.EntityFederal), Document: "purchase_order"})
	}
	return out
}

// returnURL is a return's page.
func returnURL(id string) string { return "/staff/room-tax/returns/" + url.PathEscape(id) }
