package roomtax

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The operator's pages: the start page with its returns, the return's
// form with its preview, the return itself, the amended return, the
// annual return. A hotel operator's login reaches its own operator only;
// the ledger checks the same when it applies every command and read.

// operatorFor returns the operator the request may file for: a hotel
// operator's own; any for the treasurer's office.
func (m *Module) operatorFor(r *http.Request, id string) (domain.RoomTaxOperator, error) {
	who := m.who(r)
	if who.Role == domain.RoleHotelOperator {
		op, ok, err := m.o.Reads().RoomTaxOperatorOf(who.Username)
		if err != nil {
			return op, err
		}
		if !ok || op.ID != id {
			return domain.RoomTaxOperator{}, domain.Errorf(domain.EFORBIDDEN, "§5.22(8)", "Your login files only for its own operator account.")
		}
		return op, nil
	}
	return m.o.Reads().RoomTaxOperator(id)
}

// now returns the intake time a command made now would carry.
func (m *Module) now() domain.DateTime { return domain.DateTimeOf(m.o.Now().In(m.o.Location())) }

func operatorView(op domain.RoomTaxOperator, p *domain.Params) Operator {
	v := Operator{ID: op.ID, LegalName: op.LegalName, SellersPermit: op.SellersPermit, Contact: op.Contact, Registered: op.Registered.Date.String(),
		Marketplace: op.Marketplace, Closed: op.Closed, ClosedOn: op.ClosedOn.String(), CloseReason: op.CloseReason, Logins: op.Logins}
	if op.Year != nil {
		v.Year = op.Year.Title()
	}
	for _, e := range op.Establishments {
		v.Establishments = append(v.Establishments, Establishment{Name: e.Name, Address: e.Address})
	}
	for _, q := range op.Periods {
		v.Periods = append(v.Periods, PeriodRow{ID: domain.QuarterlyReturnID(op.ID, q), Period: q.String(), Status: "on record", RetainUntil: q.RetainUntil(p).String()})
	}
	return v
}

// statusOf describes a return's state in words.
func statusOf(r domain.QuarterlyReturn) string {
	f, filed := r.Filed(domain.Date{})
	switch {
	case len(r.Determinations) > 0:
		d := r.Determinations[len(r.Determinations)-1]
		return domain.DeterminationTitle(d.Kind) + " on " + d.At.Date.String()
	case filed && len(r.Filings) > 1:
		return fmt.Sprintf("filed %s, amended %d time(s)", f.FiledAt.Date, len(r.Filings)-1)
	case filed:
		return "filed " + f.FiledAt.Date.String()
	case r.Extension != nil:
		return "not filed; extended to " + r.Extension.To.String()
	}
	return "not filed"
}

// rowsOf maps returns to list rows with their figures today.
func (m *Module) rowsOf(returns []domain.QuarterlyReturn, today domain.Date) ([]ReturnRow, error) {
	p := m.o.Ledger().Params()
	var rows []ReturnRow
	for _, r := range returns {
		row := ReturnRow{ID: r.ID, Period: r.Period.String(), Status: statusOf(r), DueOn: r.Period.DueOn().String(), RetainUntil: r.Period.RetainUntil(p).String(), Tax: "—", Balance: "—"}
		if _, ok := r.Input(today); ok {
			f, err := r.Figures(today, p)
			if err != nil {
				return nil, err
			}
			row.Tax, row.Balance, row.Delinquent, row.HasFigures, row.DueOn = money(f.Tax), money(f.Balance), f.Delinquent, true, f.EffectiveDueOn.String()
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func ids(returns []domain.QuarterlyReturn) []string {
	var out []string
	for _, r := range returns {
		out = append(out, r.ID)
	}
	return out
}

// showHome is the room tax start page: for an operator, its account and
// its returns with today's figures (a read of its own returns, recorded);
// for everyone else, the links their role has and their access grants.
func (m *Module) showHome(w http.ResponseWriter, r *http.Request) {
	who, today := m.who(r), m.o.Today()
	v := Home{IsOperator: who.Role == domain.RoleHotelOperator, CanFile: staff.Allowed(who.Role, staff.CapRoomTaxFile),
		CanAdmin: staff.Allowed(who.Role, staff.CapRoomTaxAdmin), CanDirectory: staff.Allowed(who.Role, staff.CapRoomTaxDirectory), CanLog: staff.Allowed(who.Role, staff.CapRoomTaxLog)}
	if r.URL.Query().Get("filed") != "" {
		v.Note = "The return is filed."
	}
	v.PasswordChanged = r.URL.Query().Get("changed") == "password"
	if !v.IsOperator {
		grants, err := m.o.Reads().RoomTaxGrantsOf(who.Username)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, g := range grants {
			v.Grants = append(v.Grants, Grant{ID: g.ID, Operator: g.Operator, Reason: g.Reason, Until: g.Until.String(), Active: g.Active(today)})
		}
		m.o.Render(w, r, http.StatusOK, HomePage(m.o.Frame(r, "Room tax"), v))
		return
	}
	op, ok, err := m.o.Reads().RoomTaxOperatorOf(who.Username)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if ok {
		if err := m.operatorHome(r, op, today, &v); err != nil {
			m.o.Fail(w, r, err)
			return
		}
	}
	m.o.Render(w, r, http.StatusOK, HomePage(m.o.Frame(r, "Room tax"), v))
}

func (m *Module) operatorHome(r *http.Request, op domain.RoomTaxOperator, today domain.Date, v *Home) error {
	p := m.o.Ledger().Params()
	ov := operatorView(op, p)
	v.Operator = &ov
	returns, err := m.o.Reads().RoomTaxReturnsOf(op.ID)
	if err != nil {
		return err
	}
	annual, err := m.o.Reads().AnnualRoomTaxReturnsOf(op.ID)
	if err != nil {
		return err
	}
	if len(returns) > 0 {
		if v.ReadID, err = m.record(r, domain.ReadReturns, op.ID, ids(returns), filerReason); err != nil {
			return err
		}
		if v.Returns, err = m.rowsOf(returns, today); err != nil {
			return err
		}
	}
	due, err := m.unfiled(op, today)
	if err != nil {
		return err
	}
	for _, q := range due {
		v.DuePeriods = append(v.DuePeriods, q.String())
	}
	if v.Portal, err = m.portalRows(op, returns, due, today); err != nil {
		return err
	}
	v.Receipts = receiptRows(returns)
	filed := map[int]bool{}
	for _, a := range annual {
		filed[a.Year] = true
		v.Annual = append(v.Annual, AnnualRow{ID: a.ID, Year: strconv.Itoa(a.Year), FiledAt: a.FiledAt.Date.String(), Difference: money(a.Difference)})
	}
	if op.Year != nil {
		years := map[int]bool{}
		for _, q := range op.Periods {
			years[op.Year.YearOf(q)] = true
		}
		var ys []int
		for y := range years {
			if !filed[y] && op.Year.End(y).Before(today) {
				ys = append(ys, y)
			}
		}
		slices.Sort(ys)
		for _, y := range ys {
			v.AnnualDue = append(v.AnnualDue, strconv.Itoa(y))
		}
		y := op.Year.YearOf(domain.QuarterOf(today))
		v.AnnualNote = fmt.Sprintf("You file an annual return for each %s, summarizing and reconciling its quarters (§5.22(3)(b)): the one for %d is due by %s.",
			op.Year.Title(), y, op.Year.AnnualDueOn(y, p))
	} else {
		v.AnnualNote = "With your first quarterly return you elect a calendar or a fiscal year; an annual return reconciling its quarters is then due within 90 days of each year's close (§5.22(3)(b))."
	}
	return nil
}

// showOperatorReturns lists one operator's returns with today's figures,
// for the treasurer's office, the auditors and officials with a grant
// (a read, recorded).
func (m *Module) showOperatorReturns(w http.ResponseWriter, r *http.Request) {
	opID := r.PathValue("op")
	if !domain.ValidOperatorID(opID) {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such operator."))
		return
	}
	reason, ok := m.reasonOf(w, r, "the returns of "+opID)
	if !ok {
		return
	}
	// The read is recorded (or refused) before the operator is looked up,
	// so a refusal says nothing about whether it exists.
	op, err := m.o.Reads().RoomTaxOperator(opID)
	var returns []domain.QuarterlyReturn
	if err == nil {
		returns, err = m.o.Reads().RoomTaxReturnsOf(opID)
	}
	if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
		m.o.Fail(w, r, err)
		return
	}
	readID, rerr := m.record(r, domain.ReadReturns, opID, ids(returns), reason)
	if rerr != nil {
		m.o.Fail(w, r, rerr)
		return
	}
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Home{ReadID: readID}
	ov := operatorView(op, m.o.Ledger().Params())
	v.Operator = &ov
	if v.Returns, err = m.rowsOf(returns, m.o.Today()); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	annual, err := m.o.Reads().AnnualRoomTaxReturnsOf(opID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, a := range annual {
		v.Annual = append(v.Annual, AnnualRow{ID: a.ID, Year: strconv.Itoa(a.Year), FiledAt: a.FiledAt.Date.String(), Difference: money(a.Difference)})
	}
	m.o.Render(w, r, http.StatusOK, OperatorReturnsPage(m.o.Frame(r, "Returns of "+op.LegalName), v))
}

// showReturn shows a quarterly return, once its read is recorded.
func (m *Module) showReturn(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	opID, q, err := domain.ParseQuarterlyReturnID(id)
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	id = domain.QuarterlyReturnID(opID, q)
	reason, ok := m.reasonOf(w, r, "the return "+id)
	if !ok {
		return
	}
	readID, err := m.record(r, domain.ReadReturn, opID, []string{id}, reason)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v, err := m.returnView(r, id, opID, q)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.ReadID = readID
	m.o.Render(w, r, http.StatusOK, ReturnPage(m.o.Frame(r, "Room tax return "+q.String()), v))
}

// returnView maps a return to its page; the treasurer's office sees a
// return not on record too (to extend or estimate it).
func (m *Module) returnView(r *http.Request, id, opID string, q domain.Quarter) (Return, error) {
	who, today, p := m.who(r), m.o.Today(), m.o.Ledger().Params()
	op, err := m.o.Reads().RoomTaxOperator(opID)
	if err != nil {
		return Return{}, err
	}
	ret, err := m.o.Reads().RoomTaxReturn(id)
	admin := staff.Allowed(who.Role, staff.CapRoomTaxAdmin)
	if domain.ErrorCode(err) == domain.ENOTFOUND && admin {
		ret, err = domain.QuarterlyReturn{ID: id, Operator: opID, Period: q}, nil
	}
	if err != nil {
		return Return{}, err
	}
	v := Return{ID: id, Operator: opID, OperatorName: op.LegalName, Period: q.String(), Status: statusOf(ret), RetainUntil: q.RetainUntil(p).String(),
		CanAdmin: admin, CanAmend: staff.Allowed(who.Role, staff.CapRoomTaxFile), Today: today.String(),
		ExtendMax: q.DueOn().AddMonths(p.At(q.DueOn()).RoomTaxExtensionMonths).String()}
	_, v.Filed = ret.Filed(domain.Date{})
	if in, ok := ret.Input(today); ok {
		f, err := domain.ComputeRoomTaxReturn(in, p)
		if err != nil {
			return v, err
		}
		v.Figures = figuresView(in.GrossReceipts, f, today)
		_, sales, _, _ := ret.InForce(today)
		v.Sales = salesView(sales, f.RejectedExemptions)
		if admin {
			v.DetSales = inputsOf(sales, len(sales)+2)
		}
	}
	if admin {
		if v.DetSales == nil {
			v.DetSales = inputsOf(nil, saleRows)
		}
		v.Entities, v.Documents = entityOptions, documentOptions
	}
	for i, f := range ret.Filings {
		v.Filings = append(v.Filings, Filing{Version: i + 1, FiledAt: f.FiledAt.String(), By: f.By, Signer: f.Signer, Capacity: f.Capacity,
			Gross: money(f.GrossReceipts), Amends: f.Amends, Reason: f.Reason, Annual: f.Annual})
	}
	if e := ret.Extension; e != nil {
		v.Extension = fmt.Sprintf("to %s, granted %s by %s: %s", e.To, e.At.Date, e.By, e.Cause)
	}
	if n := ret.NoInterest; n != nil {
		v.NoInterest = fmt.Sprintf("%s, found %s by %s. %s", strings.ReplaceAll(n.Ground, "_", " "), n.At.Date, n.By, n.Note)
	}
	for _, x := range ret.Payments {
		v.Payments = append(v.Payments, Payment{At: x.At.String(), Amount: money(x.Amount), Tender: string(x.Tender), Reference: x.Reference, Receipt: x.Receipt, Payer: x.Payer})
	}
	for _, d := range ret.Determinations {
		v.Determinations = append(v.Determinations, Determination{Kind: domain.DeterminationTitle(d.Kind), At: d.At.String(), By: d.By, Basis: d.Basis,
			Gross: money(d.GrossReceipts), Tax: money(d.Tax), RefundDue: money(d.RefundDue), Sales: salesView(d.ExemptSales, nil)})
	}
	if ref := ret.PaymentReference(); who.Role == domain.RoleHotelOperator && ref != "" {
		v.KioskNote = fmt.Sprintf("Pay here by card, or print a remittance slip for a check at the treasurer's window; at the village hall kiosk, choose Room tax and enter the payment reference %s.", ref)
		v.PaymentRef = ref
		v.CanPay = staff.Allowed(who.Role, staff.CapRoomTaxPay) && v.Figures != nil && v.Figures.Balance != "0.00"
	}
	if admin {
		if d, open, err := m.o.Reads().OpenDrawer(who.Username); err == nil && open {
			v.Drawer = d.ID
		}
	}
	return v, nil
}

// fileForm is the empty return's form for an operator.
func (m *Module) fileForm(op domain.RoomTaxOperator, period string) FileForm {
	v := FileForm{Operator: op.ID, OperatorName: op.LegalName, Action: "/staff/room-tax/operators/" + op.ID + "/file", Heading: "Quarterly return (§5.22(3)(b))",
		Period: period, NeedsElection: op.Year == nil, Entities: entityOptions, Documents: documentOptions, Sales: inputsOf(nil, saleRows)}
	for _, q := range endedQuarters(op.Registered.Date.AddMonths(-12), m.o.Today()) {
		if !slices.Contains(op.Periods, q) {
			v.Periods = append(v.Periods, q.String())
		} else if ret, err := m.o.Reads().RoomTaxReturn(domain.QuarterlyReturnID(op.ID, q)); err == nil {
			if _, filed := ret.Filed(domain.Date{}); !filed {
				v.Periods = append(v.Periods, q.String())
			}
		}
	}
	if v.Period == "" && len(v.Periods) > 0 {
		v.Period = v.Periods[len(v.Periods)-1]
	}
	return v
}

// showFileForm shows the form of a quarterly return.
func (m *Module) showFileForm(w http.ResponseWriter, r *http.Request) {
	op, err := m.operatorFor(r, r.PathValue("op"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := m.fileForm(op, r.URL.Query().Get("period"))
	if len(v.Periods) == 0 {
		v.Error = "No quarter is open to file: every ended quarter has its return."
	}
	m.o.Render(w, r, http.StatusOK, FilePage(m.o.Frame(r, "File a room tax return"), v))
}

// submitFile previews a return's figures (action=preview) or, once they
// were shown, files it signed (action=sign).
func (m *Module) submitFile(w http.ResponseWriter, r *http.Request) {
	op, err := m.operatorFor(r, r.PathValue("op"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	f, perr := parseFiling(r, "", saleRows)
	v := m.fileForm(op, f.period)
	v.Period, v.Gross, v.Sales, v.Signer, v.Capacity, v.Basis, v.EndMonth = f.period, f.grossRaw, f.inputs, f.signer, f.capacity, f.basis, f.endMonth
	q, qerr := domain.ParseQuarter(f.period)
	if perr == nil {
		perr = qerr
	}
	if perr != nil {
		m.showFileError(w, r, v, perr)
		return
	}
	base := domain.QuarterlyReturn{ID: domain.QuarterlyReturnID(op.ID, q), Operator: op.ID, Period: q}
	if ret, err := m.o.Reads().RoomTaxReturn(base.ID); err == nil {
		base.Extension = ret.Extension
	}
	if !m.preview(w, r, &v, base, f, op.ID) {
		return
	}
	p := &domain.FileRoomTaxReturn{Operator: op.ID, Period: q, GrossReceipts: f.gross, ExemptSales: f.sales, Signer: f.signer, Capacity: f.capacity}
	if op.Year == nil {
		p.Year = f.year
	}
	if _, err := m.o.Submit(r, p); err != nil {
		m.showFileError(w, r, v, err)
		return
	}
	to := returnURL(base.ID)
	if m.who(r).Role != domain.RoleHotelOperator {
		to = readAgain(to)
	}
	m.o.Redirect(w, r, to)
}

// preview shows the rule's figures for a filing and reports whether the
// request signs what it previewed (then the caller files it). Otherwise it
// has answered: the preview, or why it cannot be signed yet.
func (m *Module) preview(w http.ResponseWriter, r *http.Request, v *FileForm, base domain.QuarterlyReturn, f filingForm, operator string) bool {
	fig, err := base.PreviewFiling(domain.RoomTaxFiling{GrossReceipts: f.gross, ExemptSales: f.sales}, m.now(), m.o.Ledger().Params())
	if err != nil {
		m.showFileError(w, r, *v, err)
		return false
	}
	v.Preview = figuresView(f.gross, fig, m.o.Today())
	v.PreviewSales = salesView(f.sales, fig.RejectedExemptions)
	v.Digest = f.digest(operator)
	status := http.StatusOK
	switch {
	case form(r, "action") != "sign":
	case form(r, "digest") != v.Digest || form(r, "sign") != "yes":
		v.Error = "Check the figures below, then tick \"I sign this return as shown above\" and sign: the return is filed only as previewed."
		status = http.StatusUnprocessableEntity
	default:
		return true
	}
	// A preview of an amendment (or of a quarter already paid toward)
	// shows figures of the return on record, the payments and the filing
	// date's fee and interest: a read, recorded before it is shown.
	if len(base.Filings) > 0 || len(base.Payments) > 0 || len(base.Determinations) > 0 {
		reason := filerReason
		if m.who(r).Role != domain.RoleHotelOperator {
			reason = reasons[0].Label // only the treasurer's office files for an operator
		}
		if _, err := m.record(r, domain.ReadReturn, operator, []string{base.ID}, reason+" (preview of a filing)"); err != nil {
			m.o.Fail(w, r, err)
			return false
		}
	}
	m.o.Render(w, r, status, FilePage(m.o.Frame(r, "Check and sign the return"), *v))
	return false
}

func (m *Module) showFileError(w http.ResponseWriter, r *http.Request, v FileForm, err error) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	v.Error, v.Preview, v.Digest = msg, nil, ""
	m.o.Render(w, r, status, FilePage(m.o.Frame(r, "File a room tax return"), v))
}

// amendForm is the empty form of an amended return.
func (m *Module) amendForm(op domain.RoomTaxOperator, ret domain.QuarterlyReturn) FileForm {
	return FileForm{Operator: op.ID, OperatorName: op.LegalName, Action: returnURL(ret.ID) + "/amend", Heading: "Amended return for " + ret.Period.String(),
		Period: ret.Period.String(), Amend: true, Entities: entityOptions, Documents: documentOptions}
}

// showAmendForm shows the amended return's form, filled with the figures
// in force (a read of the return, recorded).
func (m *Module) showAmendForm(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	op, err := m.operatorFor(r, opID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	id := domain.QuarterlyReturnID(opID, q)
	reason, ok := m.reasonOf(w, r, "the return "+id+" to amend it")
	if !ok {
		return
	}
	if _, err := m.record(r, domain.ReadReturn, opID, []string{id}, reason); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	ret, err := m.o.Reads().RoomTaxReturn(id)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	last, filed := ret.Filed(domain.Date{})
	if !filed {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.22(3)(b)", "No return for %s is filed yet: file the return itself first.", q))
		return
	}
	last = ret.Filings[len(ret.Filings)-1]
	v := m.amendForm(op, ret)
	v.Gross, v.Sales, v.Signer, v.Capacity = money(last.GrossReceipts), inputsOf(last.ExemptSales, saleRows), last.Signer, last.Capacity
	m.o.Render(w, r, http.StatusOK, FilePage(m.o.Frame(r, "Amend a room tax return"), v))
}

// submitAmend previews an amended return or files it signed.
func (m *Module) submitAmend(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	op, err := m.operatorFor(r, opID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	id := domain.QuarterlyReturnID(opID, q)
	ret := domain.QuarterlyReturn{ID: id, Operator: opID, Period: q}
	v := m.amendForm(op, ret)
	f, perr := parseFiling(r, "", saleRows)
	v.Gross, v.Sales, v.Signer, v.Capacity, v.Reason = f.grossRaw, f.inputs, f.signer, f.capacity, f.reason
	if perr != nil {
		m.showFileError(w, r, v, perr)
		return
	}
	f.period = q.String()
	// The preview computes the amended figures with the return's own
	// filing date and extension; it shows what the form holds, nothing
	// of the return on record beyond what the form already shows.
	if held, err := m.o.Reads().RoomTaxReturn(id); err == nil {
		ret.Filings, ret.Extension, ret.Payments = held.Filings, held.Extension, held.Payments
	}
	if !m.preview(w, r, &v, ret, f, op.ID) {
		return
	}
	p := &domain.AmendRoomTaxReturn{Operator: opID, Period: q, GrossReceipts: f.gross, ExemptSales: f.sales, Signer: f.signer, Capacity: f.capacity, Reason: f.reason}
	if _, err := m.o.Submit(r, p); err != nil {
		m.showFileError(w, r, v, err)
		return
	}
	to := returnURL(id)
	if m.who(r).Role != domain.RoleHotelOperator {
		to = readAgain(to)
	}
	m.o.Redirect(w, r, to)
}

// annualContext returns the operator and the year of an annual return's
// form.
func (m *Module) annualContext(r *http.Request) (domain.RoomTaxOperator, int, error) {
	op, err := m.operatorFor(r, r.PathValue("op"))
	if err != nil {
		return op, 0, err
	}
	year, err := strconv.Atoi(r.PathValue("year"))
	if err != nil || year < 2000 || year > 9999 {
		return op, 0, domain.Errorf(domain.ENOTFOUND, "", "There is no such year.")
	}
	if op.Year == nil {
		return op, 0, domain.Errorf(domain.ECONFLICT, "§5.22(3)(b)", "The operator elects its year with its first quarterly return; there is no annual return before.")
	}
	return op, year, nil
}

func (m *Module) annualForm(op domain.RoomTaxOperator, year int) AnnualForm {
	return AnnualForm{Operator: op.ID, OperatorName: op.LegalName, Year: strconv.Itoa(year), Election: op.Year.Title(),
		DueOn: op.Year.AnnualDueOn(year, m.o.Ledger().Params()).String(), Action: fmt.Sprintf("/staff/room-tax/operators/%s/annual/%d", op.ID, year)}
}

// showAnnualForm shows the annual return's form, filled with the
// quarters' figures in force (a read of the four returns, recorded).
func (m *Module) showAnnualForm(w http.ResponseWriter, r *http.Request) {
	op, year, err := m.annualContext(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	quarters := op.Year.Quarters(year)
	var subjects []string
	for _, q := range quarters {
		subjects = append(subjects, domain.QuarterlyReturnID(op.ID, q))
	}
	reason, ok := m.reasonOf(w, r, "the returns of the year "+strconv.Itoa(year))
	if !ok {
		return
	}
	if _, err := m.record(r, domain.ReadReturns, op.ID, subjects, reason); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := m.annualForm(op, year)
	for _, q := range quarters {
		line := AnnualFormQuarter{Period: q.String(), FiledGross: "not filed"}
		if ret, err := m.o.Reads().RoomTaxReturn(domain.QuarterlyReturnID(op.ID, q)); err == nil && len(ret.Filings) > 0 {
			last := ret.Filings[len(ret.Filings)-1]
			line.Gross, line.FiledGross = money(last.GrossReceipts), money(last.GrossReceipts)
			line.Sales = inputsOf(last.ExemptSales, 0)
		}
		v.Quarters = append(v.Quarters, line)
	}
	m.o.Render(w, r, http.StatusOK, AnnualFormPage(m.o.Frame(r, "Annual room tax return"), v))
}

// submitAnnual files the annual return.
func (m *Module) submitAnnual(w http.ResponseWriter, r *http.Request) {
	op, year, err := m.annualContext(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	p := &domain.AnnualRoomTaxReturn{Operator: op.ID, Year: year, Signer: form(r, "signer"), Capacity: form(r, "capacity")}
	v := m.annualForm(op, year)
	v.Signer, v.Capacity = p.Signer, p.Capacity
	for i := 1; i <= 4; i++ {
		f, err := parseFiling(r, fmt.Sprintf("q%d_", i), 200)
		q, qerr := domain.ParseQuarter(form(r, fmt.Sprintf("q%d_period", i)))
		if err == nil {
			err = qerr
		}
		v.Quarters = append(v.Quarters, AnnualFormQuarter{Period: form(r, fmt.Sprintf("q%d_period", i)), Gross: f.grossRaw, Sales: slices.DeleteFunc(f.inputs, func(s SaleInput) bool { return s.Amount == "" && s.Buyer == "" })})
		if err != nil {
			m.annualError(w, r, v, err)
			return
		}
		p.Quarters = append(p.Quarters, domain.AnnualFigures{Period: q, GrossReceipts: f.gross, ExemptSales: f.sales})
	}
	if _, err := m.o.Submit(r, p); err != nil {
		m.annualError(w, r, v, err)
		return
	}
	to := "/staff/room-tax/annual/" + domain.AnnualReturnID(op.ID, year)
	if m.who(r).Role != domain.RoleHotelOperator {
		to = readAgain(to)
	}
	m.o.Redirect(w, r, to)
}

func (m *Module) annualError(w http.ResponseWriter, r *http.Request, v AnnualForm, err error) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	v.Error = msg
	m.o.Render(w, r, status, AnnualFormPage(m.o.Frame(r, "Annual room tax return"), v))
}

// showAnnual shows an annual return, once its read is recorded.
func (m *Module) showAnnual(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	opID, yearS, ok := strings.Cut(id, "_")
	year, err := strconv.Atoi(yearS)
	if !ok || err != nil || !domain.ValidOperatorID(opID) {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such annual return."))
		return
	}
	id = domain.AnnualReturnID(opID, year)
	reason, ok := m.reasonOf(w, r, "the annual return "+id)
	if !ok {
		return
	}
	readID, err := m.record(r, domain.ReadAnnual, opID, nil, reason)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	a, err := m.o.Reads().AnnualRoomTaxReturn(id)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	op, err := m.o.Reads().RoomTaxOperator(opID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := Annual{ID: a.ID, Operator: a.Operator, OperatorName: op.LegalName, Year: strconv.Itoa(a.Year), Election: a.Election.Title(), DueOn: a.DueOn.String(),
		FiledAt: a.FiledAt.String(), By: a.By, Signer: a.Signer, Capacity: a.Capacity, FiledTax: money(a.FiledTax), Tax: money(a.Tax), Difference: money(a.Difference),
		ReadID: readID, Late: a.Late()}
	for _, q := range a.Quarters {
		v.Quarters = append(v.Quarters, AnnualQuarter{Period: q.Period.String(), Gross: money(q.GrossReceipts), FiledTax: money(q.FiledTax), Tax: money(q.Tax),
			Difference: money(q.Difference), Corrected: q.Corrected})
	}
	m.o.Render(w, r, http.StatusOK, AnnualPage(m.o.Frame(r, "Annual room tax return "+strconv.Itoa(a.Year)), v))
}
