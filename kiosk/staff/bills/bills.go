// Package bills is the back office's bills and accounts: a bill typed in
// or imported from a file (every bill of a file in one command, or none),
// a bill's page with its §5.10 figures and every posting, the accounts'
// search and history, the charges billed as new bills (§5.19, §5.21) with
// the permit holds an unpaid chargeback places, and the bills and holds
// the API answers. It is a staff.Module; the rules are the domain's.
package bills

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Module is the bills' and accounts' part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the bills', accounts' and charges' routes, API and links.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/bills/new", staff.CapBills, m.showNewBillPage)
	o.Page("POST /staff/bills", staff.CapBills, m.submitBill)
	o.Page("GET /staff/bills/import", staff.CapBills, m.showImportPage)
	o.Page("POST /staff/bills/import", staff.CapBills, m.submitImport)
	o.Page("GET /staff/bills/{id}", staff.CapReadBills, m.showBillPage)
	o.Page("GET /staff/accounts", staff.CapReadBills, m.showFindAccountPage)
	o.Page("GET /staff/accounts/{number}", staff.CapReadBills, m.showAccountPage)
	o.Page("GET /staff/charges/new", staff.CapBills, m.showNewChargePage)
	o.Page("POST /staff/charges", staff.CapBills, m.submitCharge)
	o.API("GET /api/v1/bills", staff.CapReadBills, m.apiBills)
	o.API("GET /api/v1/bills/{id}", staff.CapReadBills, m.apiBill)
	o.API("GET /api/v1/holds", staff.CapReadBills, m.apiHolds)
	o.Nav(staff.CapReadBills, "Accounts", "/staff/accounts")
	o.Nav(staff.CapBills, "New bill", "/staff/bills/new")
	o.Nav(staff.CapBills, "Import bills", "/staff/bills/import")
	return nil
}

// BillCSVHeader is the layout of a bill import (docs/clerks-guide.md):
// a header line naming these columns in any order; bill_id is optional
// (the node numbers bills without one), and so is description_es, the
// description in Spanish that the resident kiosk shows on its Spanish
// pages (ledger format 7).
var BillCSVHeader = []string{"account", "parcel", "description", "billed_on", "amount", "bill_id", "description_es"}

// spanish reports whether the ledger records bills' Spanish descriptions:
// from ledger format 7 (domain.DocumentsFormat). Before, a node of an
// earlier release would not know the field, so the import refuses the
// description_es column's values and the form shows the field disabled.
// A ledger that does not say its format is this build's.
func (m *Module) spanish() bool {
	return m.o.LedgerFormat() >= domain.DocumentsFormat
}

// errSpanishFormat is the message of a Spanish description given before
// the ledger records them; where names the import line ("Line 3: ").
func errSpanishFormat(where string) error {
	if where == "" {
		return domain.Errorf(domain.EINVALID, "", "Spanish descriptions can be recorded once every node of the cluster runs ledger format %d; leave it empty for now.", domain.DocumentsFormat)
	}
	return domain.Errorf(domain.EINVALID, "", "%sSpanish descriptions can be imported once every node of the cluster runs ledger format %d; leave the description_es column empty for now.", where, domain.DocumentsFormat)
}

// ledgerReader checks new bills against the ledger's current state.
type ledgerReader struct{ l domain.Ledger }

func (r ledgerReader) BillExists(id string) (bool, error) {
	_, err := r.l.Bill(id)
	return staff.Found(err)
}
func (r ledgerReader) AccountExists(n string) (bool, error) {
	_, err := r.l.Account(n)
	return staff.Found(err)
}
func (r ledgerReader) ParcelExists(id string) (bool, error) {
	_, err := r.l.Parcel(id)
	return staff.Found(err)
}

// showNewBillPage is the form to type a bill.
func (m *Module) showNewBillPage(w http.ResponseWriter, r *http.Request) {
	f := BillForm{BilledOn: m.o.Today().String(), Account: r.URL.Query().Get("account"), Spanish: m.spanish()}
	m.o.Render(w, r, http.StatusOK, NewBillPage(m.o.Frame(r, "New bill"), f))
}

// submitBill creates the bill typed in the form, or shows the form again
// with what is wrong.
func (m *Module) submitBill(w http.ResponseWriter, r *http.Request) {
	f := BillForm{Account: m.o.Form(r, "account"), Parcel: m.o.Form(r, "parcel"), Description: m.o.Form(r, "description"), DescriptionES: m.o.Form(r, "description_es"),
		BilledOn: m.o.Form(r, "billed_on"), Amount: m.o.Form(r, "amount"), Spanish: m.spanish()}
	nb, err := parseNewBill(f.Account, f.Parcel, f.Description, f.DescriptionES, f.BilledOn, f.Amount, "pending", 0)
	if err == nil && nb.DescriptionES != "" && !f.Spanish {
		err = errSpanishFormat("")
	}
	if err == nil {
		if errs := domain.CheckNewBills([]domain.NewBill{nb}, ledgerReader{m.o.Ledger()}); len(errs) > 0 {
			err = errs[0]
		}
	}
	var res domain.Result
	if err == nil {
		res, err = m.o.SubmitWith(r, domain.KindCreateBills, func(c *domain.Command) {
			nb.ID = staff.BillID(c, 0)
			c.Payload = &domain.CreateBills{Bills: []domain.NewBill{nb}, Source: "form"}
		})
	}
	if err != nil {
		if m.o.Status(err) >= 500 && m.o.Status(err) != http.StatusServiceUnavailable {
			m.o.Fail(w, r, err)
			return
		}
		f.Error = domain.ErrorMessage(err)
		m.o.Render(w, r, m.o.Status(err), NewBillPage(m.o.Frame(r, "New bill"), f))
		return
	}
	_ = res
	m.o.Redirect(w, r, "/staff/bills/"+nb.ID+"?created=1")
}

// parseNewBill reads one bill's fields as typed or imported;
// descriptionES is its Spanish description, "" for none.
func parseNewBill(account, parcel, description, descriptionES, billedOn, amount, id string, line int) (domain.NewBill, error) {
	nb := domain.NewBill{ID: id, Account: account, Parcel: parcel, Description: description, DescriptionES: strings.TrimSpace(descriptionES), Line: line}
	where := ""
	if line > 0 {
		where = fmt.Sprintf("Line %d: ", line)
	}
	d, err := domain.ParseDate(billedOn)
	if err != nil {
		return nb, domain.Errorf(domain.EINVALID, "", "%sthe billing date %q is not written as YYYY-MM-DD.", where, billedOn)
	}
	nb.BilledOn = d
	m, err := domain.ParseMoney(strings.TrimPrefix(amount, "$"))
	if err != nil {
		return nb, domain.Errorf(domain.EINVALID, "", "%sthe amount %q is not an amount of money like 90.00.", where, amount)
	}
	nb.Principal = m
	if err := nb.Check(); err != nil {
		return nb, err
	}
	return nb, nb.CheckText()
}

// parseBillCSV reads an import file. It returns the bills and every error
// with its line number; line 1 is the header. spanish says whether the
// ledger records Spanish descriptions (ledger format 7): before, a line
// that gives one is an error, so that the node never sends a field the
// cluster cannot apply.
func parseBillCSV(rd io.Reader, spanish bool) ([]domain.NewBill, []error) {
	f, errs := staff.OpenCSV(rd, BillCSVHeader[:5], BillCSVHeader)
	if errs != nil {
		return nil, errs
	}
	var bills []domain.NewBill
	err := f.Each(func(line int, get func(string) string) {
		id := get("bill_id")
		if id == "" {
			id = fmt.Sprintf("pending-%d", line)
		}
		nb, err := parseNewBill(get("account"), get("parcel"), get("description"), get("description_es"), get("billed_on"), get("amount"), id, line)
		if err == nil && nb.DescriptionES != "" && !spanish {
			err = errSpanishFormat(fmt.Sprintf("Line %d: ", line))
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		bills = append(bills, nb)
	})
	if err != nil {
		errs = append(errs, err)
	}
	if len(bills) == 0 && len(errs) == 0 {
		errs = append(errs, domain.Errorf(domain.EINVALID, "", "The file holds no bills."))
	}
	if len(bills) > domain.MaxBillsPerCommand {
		errs = append(errs, domain.Errorf(domain.EINVALID, "", "At most %d bills can be imported at once; split the file.", domain.MaxBillsPerCommand))
	}
	return bills, errs
}

// showImportPage is the form to import a file of bills.
func (m *Module) showImportPage(w http.ResponseWriter, r *http.Request) {
	m.o.Render(w, r, http.StatusOK, ImportPage(m.o.Frame(r, "Import bills"), Import{Header: strings.Join(BillCSVHeader, ",")}))
}

// submitImport checks an uploaded (or pasted) CSV of bills. A dry run
// shows what would be created and every error by line; an import creates
// every bill in one command, or none.
func (m *Module) submitImport(w http.ResponseWriter, r *http.Request) {
	v := Import{Header: strings.Join(BillCSVHeader, ",")}
	var err error
	if v.CSV, v.Name, err = staff.ImportedCSV(r); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	bills, errs := parseBillCSV(strings.NewReader(v.CSV), m.spanish())
	errs = append(errs, domain.CheckNewBills(bills, ledgerReader{m.o.Ledger()})...)
	sort.SliceStable(errs, func(i, j int) bool { return staff.ErrLine(errs[i]) < staff.ErrLine(errs[j]) })
	total := domain.Cents(0)
	for _, b := range bills {
		v.Rows = append(v.Rows, ImportRow{Line: b.Line, ID: b.ID, Account: b.Account, Parcel: b.Parcel, Description: b.Description, DescriptionES: b.DescriptionES, BilledOn: b.BilledOn.String(), Amount: b.Principal.String()})
		total = total.Add(b.Principal)
	}
	v.Total = total.String()
	for _, e := range errs {
		v.Errors = append(v.Errors, domain.ErrorMessage(e))
	}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	}
	if len(errs) > 0 || r.PostForm.Get("mode") != "import" {
		v.DryRun = true
		m.o.Render(w, r, status, ImportPage(m.o.Frame(r, "Import bills"), v))
		return
	}
	res, err := m.o.SubmitWith(r, domain.KindCreateBills, func(c *domain.Command) {
		for i := range bills {
			if strings.HasPrefix(bills[i].ID, "pending-") {
				bills[i].ID = staff.BillID(c, i+1)
			}
		}
		c.Payload = &domain.CreateBills{Bills: bills, Source: v.Name}
	})
	if err != nil {
		v.DryRun = true
		v.Errors = []string{domain.ErrorMessage(err)}
		m.o.Render(w, r, m.o.Status(err), ImportPage(m.o.Frame(r, "Import bills"), v))
		return
	}
	v.Rows = v.Rows[:0]
	for _, b := range bills {
		v.Rows = append(v.Rows, ImportRow{Line: b.Line, ID: b.ID, Account: b.Account, Parcel: b.Parcel, Description: b.Description, DescriptionES: b.DescriptionES, BilledOn: b.BilledOn.String(), Amount: b.Principal.String()})
	}
	v.Imported, v.CommandID, v.CSV = true, res.CommandID, ""
	m.o.Render(w, r, http.StatusOK, ImportPage(m.o.Frame(r, "Import bills"), v))
}

// billView maps a bill and its figures today to the view model, with every
// posting: its creation, each month of interest and the penalty (computed
// under §5.10 from the dates, so they carry no command of their own), and
// each payment with its command id.
func (m *Module) billView(b domain.Bill) (Bill, error) {
	fig, err := b.Figures(m.o.Today(), m.o.Ledger().Params())
	if err != nil {
		return Bill{}, err
	}
	v := Bill{ID: b.ID, Shown: b.Shown(), Account: b.Account, Parcel: b.Parcel, Description: b.Description, DescriptionES: b.DescriptionES, BilledOn: b.BilledOn.String(), Principal: b.Principal.String(),
		DueOn: fig.DueOn.String(), Interest: fig.Interest.String(), Penalty: fig.Penalty.String(), Paid: fig.Paid.String(), Balance: fig.Balance.String(), Status: string(fig.Status), TaxRollOn: fig.TaxRollOn.String()}
	created := Posting{On: b.BilledOn.String(), What: "Billed: " + b.Description, Amount: b.Principal.String(), CommandID: "(demo or earlier data)"}
	if o, ok, err := m.o.Reads().BillOrigin(b.ID); err == nil && ok {
		created.CommandID, created.Actor = o.CommandID, o.Actor
	}
	v.Postings = append(v.Postings, created)
	events := []Posting{}
	for _, p := range fig.Postings {
		what := "Penalty §5.10 (1.5% of unpaid principal)"
		if p.Kind == domain.PostingInterest {
			what = fmt.Sprintf("Interest §5.10, month %d on %s", p.Month, p.Base)
		}
		events = append(events, Posting{On: p.On.String(), What: what, Amount: p.Amount.String(), CommandID: "computed"})
	}
	for _, p := range b.Payments {
		events = append(events, Posting{On: p.At.Date.String(), What: fmt.Sprintf("Payment (%s) receipt %s", p.Tender, p.Receipt), Amount: "−" + p.Amount.String(), CommandID: p.CommandID, Receipt: p.Receipt})
	}
	// Date order; a posting on a day comes before that day's payments.
	for i := 1; i < len(events); i++ {
		for j := i; j > 0 && events[j].On < events[j-1].On; j-- {
			events[j], events[j-1] = events[j-1], events[j]
		}
	}
	v.Postings = append(v.Postings, events...)
	return v, nil
}

// showBillPage is a bill with its figures today and its history.
func (m *Module) showBillPage(w http.ResponseWriter, r *http.Request) {
	b, err := m.o.Ledger().Bill(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v, err := m.billView(b)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.Created = r.URL.Query().Get("created") != ""
	who := m.o.Who(r)
	v.CanPay = staff.Allowed(who.Role, staff.CapWindow)
	m.o.Render(w, r, http.StatusOK, BillPage(m.o.Frame(r, "Bill "+b.Shown()), v))
}

// maxAccountHits is how many parcels an accounts search lists; a search
// that matches more asks for more of the name or address.
const maxAccountHits = 100

// showFindAccountPage finds an account by its number, a bill number, a
// parcel number, or the words of an address or an owner's name, each
// word whole or its start (staff.FindParcels).
func (m *Module) showFindAccountPage(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("number"))
	if q == "" {
		m.o.Render(w, r, http.StatusOK, FindAccountPage(m.o.Frame(r, "Accounts"), FindAccount{}))
		return
	}
	if _, err := m.o.Ledger().Account(q); err == nil {
		m.o.Redirect(w, r, "/staff/accounts/"+url.PathEscape(q))
		return
	}
	if b, err := m.o.Ledger().Bill(q); err == nil {
		m.o.Redirect(w, r, "/staff/bills/"+url.PathEscape(b.ID))
		return
	}
	if b, ok := m.o.NumberedBill(q); ok {
		m.o.Redirect(w, r, "/staff/bills/"+url.PathEscape(b.ID))
		return
	}
	parcels, more, err := staff.FindParcels(m.o.Ledger(), q, maxAccountHits, domain.ParcelAddress, domain.ParcelOwner)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := FindAccount{Q: q, Searched: true, More: more}
	for _, pc := range parcels {
		bills, err := m.o.Ledger().BillsByParcel(pc.ID)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		seen := map[string]bool{}
		var accounts []string
		for _, b := range bills {
			if !seen[b.Account] {
				seen[b.Account] = true
				accounts = append(accounts, b.Account)
			}
		}
		v.Results = append(v.Results, ParcelHit{Parcel: pc.ID, Address: pc.Address, Owner: pc.Owner, County: pc.County.Title(), Accounts: accounts})
	}
	m.o.Render(w, r, http.StatusOK, FindAccountPage(m.o.Frame(r, "Accounts"), v))
}

// showAccountPage is an account's history: every bill with every posting
// and the command that made it.
func (m *Module) showAccountPage(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Ledger().Account(r.PathValue("number"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	bills, err := m.o.Ledger().BillsByAccount(a.Number)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	domain.SortBills(bills)
	v := Account{Number: a.Number, Name: a.Name, Parcels: a.Parcels}
	total := domain.Cents(0)
	for _, b := range bills {
		bv, err := m.billView(b)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		v.Bills = append(v.Bills, bv)
		bal, _ := domain.ParseMoney(bv.Balance)
		total = total.Add(bal)
	}
	v.Balance = total.String()
	charges, holds, err := m.accountCharges(a.Number)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	for _, ch := range charges {
		v.Charges = append(v.Charges, AccountCharge{ID: ch.ChargeID, Kind: domain.ChargeTitle(ch.What), Reference: ch.Reference, BillID: ch.BillID, Total: ch.Total.String(), At: ch.At.String()})
	}
	for _, h := range holds {
		v.Holds = append(v.Holds, Hold{BillID: h.BillID, Balance: h.Balance.String(), Since: h.Since.String()})
	}
	who := m.o.Who(r)
	v.CanBill = staff.Allowed(who.Role, staff.CapBills)
	m.o.Render(w, r, http.StatusOK, AccountPage(m.o.Frame(r, "Account "+a.Number), v))
}
