package parcels

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// mailing reports whether the ledger records owners' mailing addresses:
// from ledger format 7 (domain.DocumentsFormat). Before, a node of an
// earlier release would not know the field, so the roll refuses the
// mail_ columns and the forms are shown disabled. A ledger that does not
// say its format is this build's.
func (m *Module) mailing() bool {
	return m.o.LedgerFormat() >= domain.DocumentsFormat
}

// mailingText writes an address on one line, "" for none.
func mailingText(a domain.MailingAddress) string { return strings.Join(a.Lines(), ", ") }

// mailingForm fills the form from an address.
func (m *Module) mailingForm(action string, a domain.MailingAddress) MailingForm {
	return MailingForm{Action: action, Name: a.Name, Street: a.Street, Street2: a.Street2, City: a.City, State: a.State, ZIP: a.ZIP, Enabled: m.mailing()}
}

// typedAddress reads the address typed in the form.
func (m *Module) typedAddress(r *http.Request) domain.MailingAddress {
	return domain.MailingAddress{Name: m.o.Form(r, "name"), Street: m.o.Form(r, "street"), Street2: m.o.Form(r, "street2"), City: m.o.Form(r, "city"), State: m.o.Form(r, "state"), ZIP: m.o.Form(r, "zip")}.Clean()
}

// parcelView is a parcel's page.
func (m *Module) parcelView(r *http.Request, pc domain.Parcel) (Parcel, error) {
	v := Parcel{ID: pc.ID, Address: pc.Address, County: pc.County.Title(), Owner: pc.Owner, Floodplain: pc.Floodplain,
		Form: m.mailingForm("/staff/parcels/"+url.PathEscape(pc.ID)+"/mailing", pc.Mailing), CanEdit: staff.Allowed(m.o.Who(r).Role, staff.CapBills)}
	v.MailTo = domain.MailTo(domain.Account{}, pc, m.o.Letterhead().SiteCity())
	bills, err := m.o.Ledger().BillsByParcel(pc.ID)
	if err != nil {
		return v, err
	}
	seen := map[string]bool{}
	for _, b := range bills {
		if !seen[b.Account] {
			seen[b.Account] = true
			v.Accounts = append(v.Accounts, b.Account)
		}
	}
	return v, nil
}

// showParcelPage is a parcel: its address, county and owner as the roll
// gives them, where its mail goes, and the form to record the owner's
// mailing address.
func (m *Module) showParcelPage(w http.ResponseWriter, r *http.Request) {
	pc, err := m.o.Ledger().Parcel(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v, err := m.parcelView(r, pc)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.Saved = r.URL.Query().Get("saved") != ""
	m.o.Render(w, r, http.StatusOK, ParcelPage(m.o.Frame(r, "Parcel "+pc.ID), v))
}

// submitParcelMailing records (or, all fields empty, removes) the
// owner's mailing address of a parcel.
func (m *Module) submitParcelMailing(w http.ResponseWriter, r *http.Request) {
	pc, err := m.o.Ledger().Parcel(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	addr := m.typedAddress(r)
	if err = m.saveMailing(r, &domain.MailingAddressChange{Parcel: pc.ID, Address: addr}); err == nil {
		m.o.Redirect(w, r, "/staff/parcels/"+url.PathEscape(pc.ID)+"?saved=1")
		return
	}
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	v, verr := m.parcelView(r, pc)
	if verr != nil {
		m.o.Fail(w, r, verr)
		return
	}
	v.Form = m.mailingForm(v.Form.Action, addr)
	v.Form.Error = msg
	m.o.Render(w, r, status, ParcelPage(m.o.Frame(r, "Parcel "+pc.ID), v))
}

// saveMailing checks and submits a change of mailing address; before
// ledger format 7 it is refused here, never sent.
func (m *Module) saveMailing(r *http.Request, ch *domain.MailingAddressChange) error {
	if !m.mailing() {
		return domain.Errorf(domain.EINVALID, "", "Mailing addresses can be recorded once every node of the cluster runs ledger format %d.", domain.DocumentsFormat)
	}
	if err := ch.Address.Check("The mailing address"); err != nil {
		return err
	}
	_, err := m.o.Submit(r, ch)
	return err
}

// accountMailingView is an account's mailing address page.
func (m *Module) accountMailingView(a domain.Account) AccountMailing {
	v := AccountMailing{Number: a.Number, Name: a.Name, Form: m.mailingForm("/staff/accounts/"+url.PathEscape(a.Number)+"/mailing", a.Mailing)}
	var pc domain.Parcel
	if len(a.Parcels) > 0 {
		pc, _ = m.o.Ledger().Parcel(a.Parcels[0])
	}
	v.MailTo = domain.MailTo(a, pc, m.o.Letterhead().SiteCity())
	return v
}

// showAccountMailingPage is the form to record where an account's bills
// are mailed.
func (m *Module) showAccountMailingPage(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Ledger().Account(r.PathValue("number"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := m.accountMailingView(a)
	v.Saved = r.URL.Query().Get("saved") != ""
	m.o.Render(w, r, http.StatusOK, AccountMailingPage(m.o.Frame(r, "Mailing address of account "+a.Number), v))
}

// submitAccountMailing records (or removes) an account's mailing address.
func (m *Module) submitAccountMailing(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Ledger().Account(r.PathValue("number"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	addr := m.typedAddress(r)
	if err = m.saveMailing(r, &domain.MailingAddressChange{Account: a.Number, Address: addr}); err == nil {
		m.o.Redirect(w, r, "/staff/accounts/"+url.PathEscape(a.Number)+"/mailing?saved=1")
		return
	}
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	v := m.accountMailingView(a)
	v.Form = m.mailingForm(v.Form.Action, addr)
	v.Form.Error = msg
	m.o.Render(w, r, status, AccountMailingPage(m.o.Frame(r, "Mailing address of account "+a.Number), v))
}

// parcelJSON is a parcel as the API answers it, its mailing address
// included (absent when none is known).
type parcelJSON struct {
	domain.Parcel
	MailTo []string `json:"mail_to"`
}

// apiParcel serves GET /api/v1/parcels/{id}.
func (m *Module) apiParcel(w http.ResponseWriter, r *http.Request) {
	pc, err := m.o.Ledger().Parcel(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.Answer(w, parcelJSON{Parcel: pc, MailTo: domain.MailTo(domain.Account{}, pc, m.o.Letterhead().SiteCity())}, nil)
}

// accountJSON is a billing account as the API answers it.
type accountJSON struct {
	domain.Account
	MailTo []string `json:"mail_to"`
}

// apiAccount serves GET /api/v1/accounts/{number}.
func (m *Module) apiAccount(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Ledger().Account(r.PathValue("number"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	v := m.accountMailingView(a)
	m.o.Answer(w, accountJSON{Account: a, MailTo: v.MailTo}, nil)
}
