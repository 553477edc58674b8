// Package parcels is the back office's import of the parcel roll: the
// parcels, their addresses, counties and owners (with the owners' mailing
// addresses), and the accounts billed for them, read from a CSV file (or
// pasted), shown as a dry run of what each line adds or changes, then
// imported as one command; and a parcel's page, where the clerk records
// the owner's mailing address of a parcel or a billing account, which the
// API also answers. It is a staff.Module; the roll's rules are the
// domain's (domain.PlanRoll).
package parcels

import (
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Module is the parcel roll's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the parcel roll's routes, links and alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/parcels/import", staff.CapBills, m.showRollPage)
	o.Page("POST /staff/parcels/import", staff.CapBills, m.submitRoll)
	o.Page("GET /staff/parcels/{id}", staff.CapReadBills, m.showParcelPage)
	o.Page("POST /staff/parcels/{id}/mailing", staff.CapBills, m.submitParcelMailing)
	o.Page("GET /staff/accounts/{number}/mailing", staff.CapBills, m.showAccountMailingPage)
	o.Page("POST /staff/accounts/{number}/mailing", staff.CapBills, m.submitAccountMailing)
	o.API("GET /api/v1/parcels/{id}", staff.CapReadBills, m.apiParcel)
	o.API("GET /api/v1/accounts/{number}", staff.CapReadBills, m.apiAccount)
	o.Nav(staff.CapBills, "Parcel roll", "/staff/parcels/import")
	return nil
}

// RollCSVHeader is the layout of a parcel roll import (docs/clerks-guide.md,
// "Bills and parcels"): a header line naming these columns in any order. The first
// four are required; floodplain is yes/no (empty: no); account and
// account_name name the village billing account that pays for the parcel;
// the mail_ columns, all empty or name, street, city, state and ZIP
// given, are the owner's mailing address when it is not the parcel's.
var RollCSVHeader = []string{"parcel", "address", "county", "owner", "floodplain", "account", "account_name",
	"mail_name", "mail_street", "mail_street2", "mail_city", "mail_state", "mail_zip"}

// rollPage is the page's title.
const rollPage = "Import parcel roll"

// parseRollCSV reads a roll file. It returns the parcels and every error
// with its line number; line 1 is the header.
func parseRollCSV(rd io.Reader) ([]domain.RollParcel, []error) {
	return parseRoll(rd, true)
}

// parseRoll reads a roll file; mailing says whether the ledger records
// mailing addresses (ledger format 7): before, a line that gives one is an
// error, so that the node never sends a field the cluster cannot apply.
func parseRoll(rd io.Reader, mailing bool) ([]domain.RollParcel, []error) {
	f, errs := staff.OpenCSV(rd, RollCSVHeader[:4], RollCSVHeader)
	if errs != nil {
		return nil, errs
	}
	var parcels []domain.RollParcel
	err := f.Each(func(line int, get func(string) string) {
		p := domain.RollParcel{ID: get("parcel"), Address: get("address"), County: domain.County(strings.ToLower(get("county"))),
			Owner: get("owner"), Account: get("account"), AccountName: get("account_name"), Line: line,
			Mailing: domain.MailingAddress{Name: get("mail_name"), Street: get("mail_street"), Street2: get("mail_street2"), City: get("mail_city"), State: get("mail_state"), ZIP: get("mail_zip")}.Clean()}
		if !p.Mailing.IsZero() && !mailing {
			errs = append(errs, domain.Errorf(domain.EINVALID, "", "Line %d: mailing addresses can be imported once every node of the cluster runs ledger format %d; leave the mail_ columns empty for now.", line, domain.DocumentsFormat))
			return
		}
		switch strings.ToLower(get("floodplain")) {
		case "", "no", "n", "false", "0":
		case "yes", "y", "true", "1":
			p.Floodplain = true
		default:
			errs = append(errs, domain.Errorf(domain.EINVALID, "", "Line %d: floodplain %q is not yes or no.", line, get("floodplain")))
			return
		}
		parcels = append(parcels, p)
	})
	if err != nil {
		errs = append(errs, err)
	}
	if len(parcels) == 0 && len(errs) == 0 {
		errs = append(errs, domain.Errorf(domain.EINVALID, "", "The file holds no parcels."))
	}
	return parcels, errs
}

func (m *Module) showRollPage(w http.ResponseWriter, r *http.Request) {
	m.o.Render(w, r, http.StatusOK, RollPage(m.o.Frame(r, rollPage), Roll{Header: strings.Join(RollCSVHeader, ",")}))
}

// submitRoll checks an uploaded (or pasted) parcel roll. A dry run shows
// what each line would do (a new parcel, a change of owner or address, an
// account made) and every error by line; an import takes every line in
// one command, or none.
func (m *Module) submitRoll(w http.ResponseWriter, r *http.Request) {
	v := Roll{Header: strings.Join(RollCSVHeader, ",")}
	var err error
	if v.CSV, v.Name, err = staff.ImportedCSV(r); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	parcels, errs := parseRoll(strings.NewReader(v.CSV), m.mailing())
	if len(parcels) > 0 {
		errs = append(errs, domain.CheckRoll(parcels)...)
	}
	sort.SliceStable(errs, func(i, j int) bool { return staff.ErrLine(errs[i]) < staff.ErrLine(errs[j]) })
	if len(errs) == 0 {
		plan, err := domain.PlanRoll(parcels, ledgerRollReader{m.o.Ledger()})
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		v.Rows = rollRows(plan)
	}
	for _, e := range errs {
		v.Errors = append(v.Errors, domain.ErrorMessage(e))
	}
	status := http.StatusOK
	if len(errs) > 0 {
		status = http.StatusUnprocessableEntity
	}
	if len(errs) > 0 || r.PostForm.Get("mode") != "import" {
		v.DryRun = true
		m.o.Render(w, r, status, RollPage(m.o.Frame(r, rollPage), v))
		return
	}
	res, err := m.o.SubmitWith(r, domain.KindParcelRoll, func(c *domain.Command) {
		c.Payload = &domain.ParcelRoll{Parcels: parcels, Source: v.Name}
	})
	if err != nil {
		v.DryRun = true
		v.Errors = []string{domain.ErrorMessage(err)}
		m.o.Render(w, r, httperr.Status(err), RollPage(m.o.Frame(r, rollPage), v))
		return
	}
	v.Imported, v.CommandID, v.Note, v.CSV = true, res.CommandID, res.Note, ""
	m.o.Render(w, r, http.StatusOK, RollPage(m.o.Frame(r, rollPage), v))
}

// rollRows maps a roll's plan to the page's rows.
func rollRows(plan []domain.RollLine) []RollRow {
	rows := make([]RollRow, 0, len(plan))
	for _, l := range plan {
		row := RollRow{Line: l.Line, Parcel: l.ID, Address: l.Address, County: l.County.Title(), Owner: l.Owner, Floodplain: l.Floodplain,
			Change: string(l.Change), Account: l.Account, Mailing: mailingText(l.Mailing)}
		if l.Was != nil && l.Change == domain.RollChanged {
			var was []string
			if l.Was.Owner != l.Owner {
				was = append(was, "owner "+l.Was.Owner)
			}
			if l.Was.Address != l.Address {
				was = append(was, "address "+l.Was.Address)
			}
			if l.Was.County != l.County {
				was = append(was, "county "+l.Was.County.Title())
			}
			if l.Was.Floodplain != l.Floodplain {
				was = append(was, "floodplain flag")
			}
			if !l.Mailing.IsZero() && l.Was.Mailing != l.Mailing {
				was = append(was, "mailing address "+mailingText(l.Was.Mailing))
			}
			row.Was = strings.Join(was, "; ")
		}
		switch {
		case l.NewAccount:
			row.AccountChange = "new account"
		case l.Linked:
			row.AccountChange = "added to account"
		}
		rows = append(rows, row)
	}
	return rows
}

// ledgerRollReader reads the ledger's current state for a roll's plan.
type ledgerRollReader struct{ l domain.Ledger }

func (r ledgerRollReader) Parcel(id string) (domain.Parcel, bool, error) {
	p, err := r.l.Parcel(id)
	ok, err := staff.Found(err)
	return p, ok, err
}

func (r ledgerRollReader) Account(n string) (domain.Account, bool, error) {
	a, err := r.l.Account(n)
	ok, err := staff.Found(err)
	return a, ok, err
}
