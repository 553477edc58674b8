package bills

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// chargeKinds are the charges the form offers.
var chargeKinds = []string{domain.ChargeChargeback, domain.ChargeNoticeFee, domain.ChargeCollection}

// showNewChargePage is the form to bill a charge, of the kind and for
// the account or placed bill the query names.
func (m *Module) showNewChargePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := ChargeForm{Kind: q.Get("kind"), Account: q.Get("account"), Placed: q.Get("bill"), Lines: make([]ChargeLine, 3)}
	if f.Kind == "" {
		f.Kind = domain.ChargeChargeback
	}
	if f.Kind == domain.ChargeCollection && len(f.Lines) > 1 {
		f.Lines[0].Description, f.Lines[1].Description = "Collection costs", "Attorney's fees"
	}
	m.chargePage(w, r, http.StatusOK, f)
}

// chargePage shows the charge form with a status.
func (m *Module) chargePage(w http.ResponseWriter, r *http.Request, status int, f ChargeForm) {
	for _, k := range chargeKinds {
		f.Kinds = append(f.Kinds, staffview.Option{Value: k, Label: domain.ChargeTitle(k), Selected: k == f.Kind})
	}
	m.o.Render(w, r, status, NewChargePage(m.o.Frame(r, "New charge"), f))
}

// submitCharge bills a charge: collection costs on a placed bill, a
// contracted-staff chargeback at actual cost, or a hearing notice fee.
func (m *Module) submitCharge(w http.ResponseWriter, r *http.Request) {
	f := ChargeForm{Kind: m.o.Form(r, "kind"), Account: m.o.Form(r, "account"), Parcel: m.o.Form(r, "parcel"), Reference: m.o.Form(r, "reference"), Placed: m.o.Form(r, "placed_bill")}
	in := domain.NewCharge{What: f.Kind, Account: f.Account, Parcel: f.Parcel, Reference: f.Reference, Placed: f.Placed}
	for i := 1; i <= 3; i++ {
		l := ChargeLine{Description: m.o.Form(r, fmt.Sprintf("desc%d", i)), Amount: m.o.Form(r, fmt.Sprintf("amount%d", i))}
		f.Lines = append(f.Lines, l)
		if l.Description == "" && l.Amount == "" {
			continue
		}
		amt, err := domain.ParseMoney(strings.TrimPrefix(l.Amount, "$"))
		if err != nil {
			f.Error = fmt.Sprintf("Line %d: the amount %q is not an amount like 125.00.", i, l.Amount)
			m.chargePage(w, r, http.StatusUnprocessableEntity, f)
			return
		}
		in.Items = append(in.Items, domain.ChargeItem{Description: l.Description, Amount: amt})
	}
	_, err := m.o.SubmitWith(r, domain.KindCharge, func(c *domain.Command) {
		in.ChargeID = fmt.Sprintf("CH-%s-%s-%06d", c.At.Date, c.Node, c.Seq)
		in.BillID = staff.BillID(c, 0)
		c.Payload = &in
	})
	if err != nil {
		if st := m.o.Status(err); st < 500 {
			f.Error = domain.ErrorMessage(err)
			m.chargePage(w, r, st, f)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/bills/"+in.BillID+"?created=1")
}

// accountCharges returns an account's charges and its permit holds today.
func (m *Module) accountCharges(account string) ([]domain.Charge, []domain.Hold, error) {
	charges, err := m.o.Reads().ChargesOfAccount(account)
	if err != nil {
		return nil, nil, err
	}
	holds, err := domain.PermitHolds(charges, m.o.Ledger().Bill, m.o.Today(), m.o.Ledger().Params())
	return charges, holds, err
}

// apiHolds serves GET /api/v1/holds?account=…: whether the party's
// permits and approvals are held for an unpaid chargeback (§5.21), for
// the screens and systems that issue permits.
func (m *Module) apiHolds(w http.ResponseWriter, r *http.Request) {
	account := r.URL.Query().Get("account")
	if _, err := m.o.Ledger().Account(account); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	_, holds, err := m.accountCharges(account)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if holds == nil {
		holds = []domain.Hold{}
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"account": account, "hold": len(holds) > 0, "holds": holds, "section": "§5.21"})
}
