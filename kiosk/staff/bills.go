package staff

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// BillCSVHeader is the layout of a bill import (docs/clerks-guide.md):
// a header line naming these columns in any order; bill_id is optional
// (the node numbers bills without one).
var BillCSVHeader = []string{"account", "parcel", "description", "billed_on", "amount", "bill_id"}

// ledgerReader checks new bills against the ledger's current state.
type ledgerReader struct{ l domain.Ledger }

func (r ledgerReader) BillExists(id string) (bool, error) { _, err := r.l.Bill(id); return Found(err) }
func (r ledgerReader) AccountExists(n string) (bool, error) {
	_, err := r.l.Account(n)
	return Found(err)
}
func (r ledgerReader) ParcelExists(id string) (bool, error) {
	_, err := r.l.Parcel(id)
	return Found(err)
}

func (s *Server) showNewBillPage(w http.ResponseWriter, r *http.Request) {
	f := view.BillForm{BilledOn: s.today().String(), Account: r.URL.Query().Get("account")}
	s.render(w, r, http.StatusOK, view.NewBillPage(s.page(r, "New bill"), f))
}

func (s *Server) submitBill(w http.ResponseWriter, r *http.Request) {
	f := view.BillForm{Account: formValue(r, "account"), Parcel: formValue(r, "parcel"), Description: formValue(r, "description"), BilledOn: formValue(r, "billed_on"), Amount: formValue(r, "amount")}
	nb, err := parseNewBill(f.Account, f.Parcel, f.Description, f.BilledOn, f.Amount, "pending", 0)
	if err == nil {
		if errs := domain.CheckNewBills([]domain.NewBill{nb}, ledgerReader{s.ledger}); len(errs) > 0 {
			err = errs[0]
		}
	}
	var res domain.Result
	if err == nil {
		res, err = s.submit(r, domain.KindCreateBills, func(c *domain.Command) {
			nb.ID = BillID(c, 0)
			c.Payload = &domain.CreateBills{Bills: []domain.NewBill{nb}, Source: "form"}
		})
	}
	if err != nil {
		if errorStatus(err) >= 500 && errorStatus(err) != http.StatusServiceUnavailable {
			s.fail(w, r, err)
			return
		}
		f.Error = domain.ErrorMessage(err)
		s.render(w, r, errorStatus(err), view.NewBillPage(s.page(r, "New bill"), f))
		return
	}
	_ = res
	redirect(w, r, "/staff/bills/"+nb.ID+"?created=1")
}

// parseNewBill reads one bill's fields as typed or imported.
func parseNewBill(account, parcel, description, billedOn, amount, id string, line int) (domain.NewBill, error) {
	nb := domain.NewBill{ID: id, Account: account, Parcel: parcel, Description: description, Line: line}
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
// with its line number; line 1 is the header.
func parseBillCSV(rd io.Reader) ([]domain.NewBill, []error) {
	f, errs := OpenCSV(rd, BillCSVHeader[:5], BillCSVHeader)
	if errs != nil {
		return nil, errs
	}
	var bills []domain.NewBill
	err := f.Each(func(line int, get func(string) string) {
		id := get("bill_id")
		if id == "" {
			id = fmt.Sprintf("pending-%d", line)
		}
		nb, err := parseNewBill(get("account"), get("parcel"), get("description"), get("billed_on"), get("amount"), id, line)
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

func (s *Server) showImportPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, view.ImportPage(s.page(r, "Import bills"), view.Import{Header: strings.Join(BillCSVHeader, ",")}))
}

// submitImport checks an uploaded (or pasted) CSV of bills. A dry run
// shows what would be created and every error by line; an import creates
// every bill in one command, or none.
func (s *Server) submitImport(w http.ResponseWriter, r *http.Request) {
	v := view.Import{Header: strings.Join(BillCSVHeader, ",")}
	var err error
	if v.CSV, v.Name, err = ImportedCSV(r); err != nil {
		s.fail(w, r, err)
		return
	}
	bills, errs := parseBillCSV(strings.NewReader(v.CSV))
	errs = append(errs, domain.CheckNewBills(bills, ledgerReader{s.ledger})...)
	sort.SliceStable(errs, func(i, j int) bool { return ErrLine(errs[i]) < ErrLine(errs[j]) })
	total := domain.Cents(0)
	for _, b := range bills {
		v.Rows = append(v.Rows, view.ImportRow{Line: b.Line, ID: b.ID, Account: b.Account, Parcel: b.Parcel, Description: b.Description, BilledOn: b.BilledOn.String(), Amount: b.Principal.String()})
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
		s.render(w, r, status, view.ImportPage(s.page(r, "Import bills"), v))
		return
	}
	res, err := s.submit(r, domain.KindCreateBills, func(c *domain.Command) {
		for i := range bills {
			if strings.HasPrefix(bills[i].ID, "pending-") {
				bills[i].ID = BillID(c, i+1)
			}
		}
		c.Payload = &domain.CreateBills{Bills: bills, Source: v.Name}
	})
	if err != nil {
		v.DryRun = true
		v.Errors = []string{domain.ErrorMessage(err)}
		s.render(w, r, errorStatus(err), view.ImportPage(s.page(r, "Import bills"), v))
		return
	}
	v.Rows = v.Rows[:0]
	for _, b := range bills {
		v.Rows = append(v.Rows, view.ImportRow{Line: b.Line, ID: b.ID, Account: b.Account, Parcel: b.Parcel, Description: b.Description, BilledOn: b.BilledOn.String(), Amount: b.Principal.String()})
	}
	v.Imported, v.CommandID, v.CSV = true, res.CommandID, ""
	s.render(w, r, http.StatusOK, view.ImportPage(s.page(r, "Import bills"), v))
}

// billView maps a bill and its figures today to the view model, with every
// posting: its creation, each month of interest and the penalty (computed
// under §5.10 from the dates, so they carry no command of their own), and
// each payment with its command id.
func (s *Server) billView(b domain.Bill) (view.Bill, error) {
	fig, err := b.Figures(s.today(), s.ledger.Params())
	if err != nil {
		return view.Bill{}, err
	}
	v := view.Bill{ID: b.ID, Account: b.Account, Parcel: b.Parcel, Description: b.Description, BilledOn: b.BilledOn.String(), Principal: b.Principal.String(),
		DueOn: fig.DueOn.String(), Interest: fig.Interest.String(), Penalty: fig.Penalty.String(), Paid: fig.Paid.String(), Balance: fig.Balance.String(), Status: string(fig.Status), TaxRollOn: fig.TaxRollOn.String()}
	created := view.Posting{On: b.BilledOn.String(), What: "Billed: " + b.Description, Amount: b.Principal.String(), CommandID: "(demo or earlier data)"}
	if o, ok, err := s.reads.BillOrigin(b.ID); err == nil && ok {
		created.CommandID, created.Actor = o.CommandID, o.Actor
	}
	v.Postings = append(v.Postings, created)
	events := []view.Posting{}
	for _, p := range fig.Postings {
		what := "Penalty §5.10 (1.5% of unpaid principal)"
		if p.Kind == domain.PostingInterest {
			what = fmt.Sprintf("Interest §5.10, month %d on %s", p.Month, p.Base)
		}
		events = append(events, view.Posting{On: p.On.String(), What: what, Amount: p.Amount.String(), CommandID: "computed"})
	}
	for _, p := range b.Payments {
		events = append(events, view.Posting{On: p.At.Date.String(), What: fmt.Sprintf("Payment (%s) receipt %s", p.Tender, p.Receipt), Amount: "−" + p.Amount.String(), CommandID: p.CommandID, Receipt: p.Receipt})
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

func (s *Server) showBillPage(w http.ResponseWriter, r *http.Request) {
	b, err := s.ledger.Bill(r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.billView(b)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v.Created = r.URL.Query().Get("created") != ""
	pr, _ := principalFrom(r.Context())
	v.CanPay = Allowed(pr.user.Role, CapWindow)
	s.render(w, r, http.StatusOK, view.BillPage(s.page(r, "Bill "+b.ID), v))
}

// showFindAccountPage finds an account by its number, a bill number, a
// parcel number, an address or an owner's name.
func (s *Server) showFindAccountPage(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("number"))
	if q == "" {
		s.render(w, r, http.StatusOK, view.FindAccountPage(s.page(r, "Accounts"), view.FindAccount{}))
		return
	}
	if _, err := s.ledger.Account(q); err == nil {
		redirect(w, r, "/staff/accounts/"+url.PathEscape(q))
		return
	}
	if b, err := s.ledger.Bill(q); err == nil {
		redirect(w, r, "/staff/bills/"+url.PathEscape(b.ID))
		return
	}
	parcels, err := s.ledger.Parcels()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := view.FindAccount{Q: q, Searched: true}
	nq, lq := domain.NormalizeAddress(q), strings.ToLower(q)
	for _, pc := range parcels {
		if pc.ID != q && !strings.Contains(domain.NormalizeAddress(pc.Address), nq) && !strings.Contains(strings.ToLower(pc.Owner), lq) {
			continue
		}
		bills, err := s.ledger.BillsByParcel(pc.ID)
		if err != nil {
			s.fail(w, r, err)
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
		v.Results = append(v.Results, view.ParcelHit{Parcel: pc.ID, Address: pc.Address, Owner: pc.Owner, County: pc.County.Title(), Accounts: accounts})
	}
	s.render(w, r, http.StatusOK, view.FindAccountPage(s.page(r, "Accounts"), v))
}

// showAccountPage is an account's history: every bill with every posting
// and the command that made it.
func (s *Server) showAccountPage(w http.ResponseWriter, r *http.Request) {
	a, err := s.ledger.Account(r.PathValue("number"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	bills, err := s.ledger.BillsByAccount(a.Number)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	domain.SortBills(bills)
	v := view.Account{Number: a.Number, Name: a.Name, Parcels: a.Parcels}
	total := domain.Cents(0)
	for _, b := range bills {
		bv, err := s.billView(b)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		v.Bills = append(v.Bills, bv)
		bal, _ := domain.ParseMoney(bv.Balance)
		total = total.Add(bal)
	}
	v.Balance = total.String()
	charges, holds, err := s.accountCharges(a.Number)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for _, ch := range charges {
		v.Charges = append(v.Charges, view.AccountCharge{ID: ch.ChargeID, Kind: domain.ChargeTitle(ch.What), Reference: ch.Reference, BillID: ch.BillID, Total: ch.Total.String(), At: ch.At.String()})
	}
	for _, h := range holds {
		v.Holds = append(v.Holds, view.Hold{BillID: h.BillID, Balance: h.Balance.String(), Since: h.Since.String()})
	}
	pr, _ := principalFrom(r.Context())
	v.CanBill = Allowed(pr.user.Role, CapBills)
	s.render(w, r, http.StatusOK, view.AccountPage(s.page(r, "Account "+a.Number), v))
}
