package books

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Cash by depository and the bank reconciliation (§5.06): the books' cash
// as of a day, placed in the depository each posting's record names,
// beside the trial balance's cash (/staff/books/cash); a depository's
// statement set beside its book balance, with the deposits in transit and
// the outstanding checks (/staff/books/bank), and the treasurer's form to
// record the next statement. Each has a CSV twin. The arithmetic is the
// domain's (domain/bankrec.go); these pages only lay it out.

// Bank is what the pages read of the depositories; domain.Reads answers
// it.
type Bank interface {
	// Depositories returns every depository the board designated.
	Depositories() ([]domain.Depository, error)
	// CashByDepository returns the book balance of each depository as
	// of the end of asOf, beside the trial balance's cash.
	CashByDepository(asOf domain.Date) (domain.CashByDepository, error)
	// BankStatements returns a depository's statements, oldest first.
	BankStatements(depository string) ([]domain.BankStatementRecord, error)
	// Reconciliation reconciles a depository's statement of a date.
	Reconciliation(depository string, on domain.Date) (domain.Reconciliation, error)
}

// bank returns what the pages read of the depositories: the books the
// module was given, when they answer it, else the office's ledger.
func (m *Module) bank() Bank {
	if b, ok := m.books.(Bank); ok {
		return b
	}
	return m.o.Reads()
}

// CashCSVHeader is the layout of the cash by depository's CSV: one line
// a depository (in, out and balance), one line a posting to cash no
// record places ("not_placed", its date, kind and memo as the name and
// the amount as the balance), then the totals: "depositories", "books"
// (the trial balance's cash of every fund) and "difference" (books less
// depositories: the cash not placed).
var CashCSVHeader = []string{"as_of", "row", "depository", "name", "in", "out", "balance"}

// BankCSVHeader is the layout of the reconciliation's CSV: the bank's
// balance, each deposit in transit and each outstanding check (amount
// positive), the adjusted bank balance, the book balance, each item the
// bank dated by the statement and the books posted later, the adjusted
// book balance and the difference (zero when reconciled).
var BankCSVHeader = []string{"depository", "statement", "section", "item", "date", "amount"}

// cashView is the cash by depository as of a day.
type cashView struct {
	AsOf, AsOfLong, CSV string
	Rows                []cashRow
	NotPlaced           []movementRow
	Placed, NotPlacedT  string
	Books, Difference   string
	Ties                bool
	HasDifference       bool
}

// cashRow is one depository's book balance.
type cashRow struct {
	ID, Name, Institution string
	In, Out, Balance      string
	Bank                  string // its reconciliation page
}

// movementRow is one posting to cash: a check, a deposit, interest.
type movementRow struct {
	Date, BankDate, Kind, Ref, Memo, Amount string
}

// bankView is a depository's reconciliation page.
type bankView struct {
	Depositories []option
	Depository   string
	Name         string
	Recorded     string // the statement just recorded
	// HasStatement: a statement is shown; the figures below are its.
	HasStatement                            bool
	Statement, StatementLong, Reference     string
	Bank, InTransitT, OutstandingT, AdjBank string
	Book, PostedLaterT, AdjBook, Difference string
	Reconciled                              bool
	InTransit, Outstanding, PostedLater     []movementRow
	Unmatched                               []string
	CSV                                     string
	History                                 []bankStatementRow
	CanRecord                               bool
	Form                                    bankForm
	CashPage                                string
}

// bankStatementRow is one statement of the history.
type bankStatementRow struct {
	On, Balance, Reference, By, Recorded, URL string
	Cleared, Credited                         int
	Shown                                     bool
}

// bankForm is the form of a statement, as typed.
type bankForm struct {
	Depository, On, Balance, Cleared, Credited, Reference string
	Errors                                                []string
}

func (m *Module) cash(r *http.Request) (domain.CashByDepository, error) {
	asOf, err := queryDate(r, "as_of", "The day", m.o.Today())
	if err != nil {
		return domain.CashByDepository{}, err
	}
	return m.bank().CashByDepository(asOf)
}

func (m *Module) showCash(w http.ResponseWriter, r *http.Request) {
	c, err := m.cash(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := cashView{AsOf: c.AsOf.String(), AsOfLong: longDate(c.AsOf), CSV: "/staff/books/cash.csv?as_of=" + c.AsOf.String(),
		Placed: dollars(c.Placed), NotPlacedT: dollars(c.NotPlacedTotal), Books: dollars(c.Books), Difference: dollars(c.Difference()),
		Ties: c.Ties(), HasDifference: !c.Difference().IsZero()}
	for _, d := range c.Rows {
		v.Rows = append(v.Rows, cashRow{ID: d.Depository.ID, Name: d.Depository.Name, Institution: d.Depository.Institution,
			In: dollars(d.In), Out: dollars(d.Out), Balance: dollars(d.Balance), Bank: "/staff/books/bank?depository=" + url.QueryEscape(d.Depository.ID)})
	}
	for _, mv := range c.NotPlaced {
		v.NotPlaced = append(v.NotPlaced, movementOf(mv))
	}
	m.o.Render(w, r, http.StatusOK, cashPage(m.o.Frame(r, "Cash by depository as of "+v.AsOfLong), v))
}

func (m *Module) exportCash(w http.ResponseWriter, r *http.Request) {
	c, err := m.cash(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	on := c.AsOf.String()
	out := m.o.CSV(w, "cash-by-depository-"+on+".csv")
	_ = out.Write(CashCSVHeader)
	for _, d := range c.Rows {
		_ = out.Write([]string{on, "depository", d.Depository.ID, d.Depository.Name, d.In.String(), d.Out.String(), d.Balance.String()})
	}
	for _, mv := range c.NotPlaced {
		_ = out.Write([]string{on, "not_placed", "", mv.Date.String() + " " + string(mv.Kind) + ": " + mv.Memo, "", "", mv.Amount.String()})
	}
	_ = out.Write([]string{on, "depositories", "", "Total of the depositories", "", "", c.Placed.String()})
	_ = out.Write([]string{on, "books", "", "Cash in the trial balance, every fund", "", "", c.Books.String()})
	_ = out.Write([]string{on, "difference", "", "Cash the records do not place in a depository", "", "", c.Difference().String()})
	_ = out.Flush()
}

// movementOf lays out one posting to cash.
func movementOf(mv domain.CashMovement) movementRow {
	row := movementRow{Date: mv.Date.String(), Kind: string(mv.Kind), Memo: mv.Memo, Amount: dollars(mv.Amount)}
	switch {
	case mv.Check != 0:
		row.Ref = "check " + strconv.Itoa(mv.Check)
	case mv.DepositID != "":
		row.Ref = "deposit " + mv.DepositID
	}
	if !mv.BankDate.IsZero() {
		row.BankDate = mv.BankDate.String()
	}
	return row
}

// reconciliation reads the depository (?depository=, else the first) and
// the statement (?statement=, else its latest) the request asks for; ok
// is false when the depository has no statement yet.
func (m *Module) reconciliation(r *http.Request) (deps []domain.Depository, dep string, stmts []domain.BankStatementRecord, rec domain.Reconciliation, ok bool, err error) {
	deps, err = m.bank().Depositories()
	if err != nil {
		return
	}
	dep = r.URL.Query().Get("depository")
	if dep == "" && len(deps) > 0 {
		dep = deps[0].ID
	}
	if dep == "" {
		return
	}
	stmts, err = m.bank().BankStatements(dep)
	if err != nil {
		return
	}
	var def domain.Date
	if len(stmts) > 0 {
		def = stmts[len(stmts)-1].On
	}
	on, err := queryDate(r, "statement", "The statement date", def)
	if err != nil || on.IsZero() {
		return
	}
	rec, err = m.bank().Reconciliation(dep, on)
	return deps, dep, stmts, rec, err == nil, err
}

func (m *Module) showBank(w http.ResponseWriter, r *http.Request) {
	m.bankPage(w, r, http.StatusOK, bankForm{})
}

// bankPage shows the reconciliation the request asks for, with the form
// f (and its errors).
func (m *Module) bankPage(w http.ResponseWriter, r *http.Request, status int, f bankForm) {
	deps, dep, stmts, rec, ok, err := m.reconciliation(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := bankView{Depository: dep, Recorded: r.URL.Query().Get("recorded"), HasStatement: ok, Form: f,
		CanRecord: staff.Allowed(m.o.Who(r).Role, staff.CapTreasury), CashPage: "/staff/books/cash"}
	for _, d := range deps {
		v.Depositories = append(v.Depositories, option{Value: d.ID, Label: d.ID + " " + d.Name, Selected: d.ID == dep})
		if d.ID == dep {
			v.Name = d.Name
		}
	}
	if v.Form.Depository == "" {
		v.Form.Depository = dep
	}
	if v.Form.On == "" {
		today := m.o.Today()
		v.Form.On = domain.NewDate(today.Year(), today.Month(), 1).AddDays(-1).String()
	}
	for i := len(stmts) - 1; i >= 0; i-- {
		s := stmts[i]
		v.History = append(v.History, bankStatementRow{On: s.On.String(), Balance: dollars(s.Balance), Reference: s.Reference, By: s.By, Recorded: s.Recorded.Date.String(),
			Cleared: len(s.Cleared), Credited: len(s.Credited), Shown: ok && s.On == rec.Statement.On,
			URL: "/staff/books/bank?depository=" + url.QueryEscape(dep) + "&statement=" + s.On.String()})
	}
	if ok {
		on := rec.Statement.On
		v.Statement, v.StatementLong, v.Reference = on.String(), longDate(on), rec.Statement.Reference
		v.Bank, v.InTransitT, v.OutstandingT, v.AdjBank = dollars(rec.Bank), dollars(rec.InTransitTotal), dollars(rec.OutstandingTotal), dollars(rec.AdjustedBank())
		v.Book, v.PostedLaterT, v.AdjBook, v.Difference = dollars(rec.Book), dollars(rec.PostedLaterTotal), dollars(rec.AdjustedBook()), dollars(rec.Difference())
		v.Reconciled = rec.Reconciled()
		for _, mv := range rec.InTransit {
			v.InTransit = append(v.InTransit, movementOf(mv))
		}
		for _, mv := range rec.Outstanding {
			row := movementOf(mv)
			row.Amount = dollars(mv.Amount.Neg())
			v.Outstanding = append(v.Outstanding, row)
		}
		for _, mv := range rec.PostedLater {
			v.PostedLater = append(v.PostedLater, movementOf(mv))
		}
		for _, c := range rec.Unmatched {
			v.Unmatched = append(v.Unmatched, dollars(c.Amount)+" credited "+c.On.String())
		}
		v.CSV = "/staff/books/bank.csv?depository=" + url.QueryEscape(dep) + "&statement=" + on.String()
		v.CashPage = "/staff/books/cash?as_of=" + on.String()
	}
	title := "Bank reconciliation"
	if dep != "" {
		title += " of " + dep
	}
	m.o.Render(w, r, status, bankPage(m.o.Frame(r, title), v))
}

func (m *Module) exportBank(w http.ResponseWriter, r *http.Request) {
	_, dep, _, rec, ok, err := m.reconciliation(r)
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "", "Depository %q has no statement recorded to reconcile.", dep)
	}
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	on := rec.Statement.On.String()
	out := m.o.CSV(w, "bank-reconciliation-"+dep+"-"+on+".csv")
	_ = out.Write(BankCSVHeader)
	line := func(section, item, date string, amount domain.Money) {
		_ = out.Write([]string{dep, on, section, item, date, amount.String()})
	}
	line("bank_balance", "Balance per the bank", on, rec.Bank)
	for _, mv := range rec.InTransit {
		line("in_transit", "deposit "+mv.DepositID, mv.Date.String(), mv.Amount)
	}
	for _, mv := range rec.Outstanding {
		line("outstanding", "check "+strconv.Itoa(mv.Check), mv.Date.String(), mv.Amount.Neg())
	}
	line("adjusted_bank", "Adjusted bank balance", on, rec.AdjustedBank())
	line("book_balance", "Balance per the books", on, rec.Book)
	for _, mv := range rec.PostedLater {
		line("posted_later", string(mv.Kind)+": "+mv.Memo, mv.Date.String(), mv.Amount)
	}
	line("adjusted_book", "Adjusted book balance", on, rec.AdjustedBook())
	line("difference", "Difference", on, rec.Difference())
	_ = out.Flush()
}

// saveBank serves POST /staff/books/bank: the treasurer records a
// statement; the page then shows its reconciliation, or the form again
// with what was wrong.
func (m *Module) saveBank(w http.ResponseWriter, r *http.Request) {
	f := bankForm{Depository: m.o.Form(r, "depository"), On: m.o.Form(r, "on"), Balance: m.o.Form(r, "balance"),
		Cleared: m.o.Form(r, "cleared"), Credited: m.o.Form(r, "credited"), Reference: m.o.Form(r, "reference")}
	// The page shown again is the depository's.
	q := r.URL.Query()
	q.Set("depository", f.Depository)
	r.URL.RawQuery = q.Encode()
	p, errs := parseBankForm(f)
	if len(errs) > 0 {
		f.Errors = errs
		m.bankPage(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if _, err := m.o.Submit(r, p); err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			f.Errors = []string{msg}
			m.bankPage(w, r, status, f)
		})
		return
	}
	m.o.Redirect(w, r, "/staff/books/bank?depository="+url.QueryEscape(p.Depository)+"&statement="+p.On.String()+"&recorded="+p.On.String())
}

// parseBankForm reads the form into a statement: the checks paid are
// numbers separated by spaces or commas; the deposits credited are one a
// line, a deposit id or an amount and the day credited ("650.00
// 2027-03-11").
func parseBankForm(f bankForm) (*domain.BankStatement, []string) {
	var errs []string
	p := &domain.BankStatement{Depository: strings.TrimSpace(f.Depository), Reference: f.Reference}
	on, err := staff.ParseDate("The statement date", f.On)
	if err != nil {
		errs = append(errs, domain.ErrorMessage(err))
	}
	p.On = on
	bal, err := staff.ParseAmount("The balance per the bank", f.Balance)
	if err != nil {
		errs = append(errs, domain.ErrorMessage(err))
	}
	p.Balance = bal
	for _, s := range strings.FieldsFunc(f.Cleared, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			errs = append(errs, "The checks paid are check numbers separated by spaces or commas; "+strconv.Quote(s)+" is not one.")
			continue
		}
		p.Cleared = append(p.Cleared, n)
	}
	for i, line := range strings.Split(f.Credited, "\n") {
		fields := strings.Fields(line)
		switch len(fields) {
		case 0:
			continue
		case 1:
			p.Credited = append(p.Credited, domain.StatementCredit{DepositID: fields[0]})
		case 2:
			amount, err1 := staff.ParseAmount("Deposit line "+strconv.Itoa(i+1)+": the amount", fields[0])
			day, err2 := staff.ParseDate("Deposit line "+strconv.Itoa(i+1)+": the day credited", fields[1])
			for _, err := range []error{err1, err2} {
				if err != nil {
					errs = append(errs, domain.ErrorMessage(err))
				}
			}
			p.Credited = append(p.Credited, domain.StatementCredit{Amount: amount, On: day})
		default:
			errs = append(errs, "Deposit line "+strconv.Itoa(i+1)+": write a deposit id, or the amount and the day credited (650.00 2027-03-11).")
		}
	}
	return p, errs
}
