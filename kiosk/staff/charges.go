package staff

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// chargeKinds are the charges the form offers.
var chargeKinds = []string{domain.ChargeChargeback, domain.ChargeNoticeFee, domain.ChargeCollection}

func (s *Server) showNewChargePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := view.ChargeForm{Kind: q.Get("kind"), Account: q.Get("account"), Placed: q.Get("bill"), Lines: make([]view.ChargeLine, 3)}
	if f.Kind == "" {
		f.Kind = domain.ChargeChargeback
	}
	if f.Kind == domain.ChargeCollection && len(f.Lines) > 1 {
		f.Lines[0].Description, f.Lines[1].Description = "Collection costs", "Attorney's fees"
	}
	s.chargePage(w, r, http.StatusOK, f)
}

func (s *Server) chargePage(w http.ResponseWriter, r *http.Request, status int, f view.ChargeForm) {
	for _, k := range chargeKinds {
		f.Kinds = append(f.Kinds, view.Option{Value: k, Label: domain.ChargeTitle(k), Selected: k == f.Kind})
	}
	s.render(w, r, status, view.NewChargePage(s.page(r, "New charge"), f))
}

// submitCharge bills a charge: collection costs on a placed bill, a
// contracted-staff chargeback at actual cost, or a hearing notice fee.
func (s *Server) submitCharge(w http.ResponseWriter, r *http.Request) {
	f := view.ChargeForm{Kind: formValue(r, "kind"), Account: formValue(r, "account"), Parcel: formValue(r, "parcel"), Reference: formValue(r, "reference"), Placed: formValue(r, "placed_bill")}
	in := domain.NewCharge{What: f.Kind, Account: f.Account, Parcel: f.Parcel, Reference: f.Reference, Placed: f.Placed}
	for i := 1; i <= 3; i++ {
		l := view.ChargeLine{Description: formValue(r, fmt.Sprintf("desc%d", i)), Amount: formValue(r, fmt.Sprintf("amount%d", i))}
		f.Lines = append(f.Lines, l)
		if l.Description == "" && l.Amount == "" {
			continue
		}
		m, err := domain.ParseMoney(strings.TrimPrefix(l.Amount, "$"))
		if err != nil {
			f.Error = fmt.Sprintf("Line %d: the amount %q is not an amount like 125.00.", i, l.Amount)
			s.chargePage(w, r, http.StatusUnprocessableEntity, f)
			return
		}
		in.Items = append(in.Items, domain.ChargeItem{Description: l.Description, Amount: m})
	}
	_, err := s.submit(r, domain.KindCharge, func(c *domain.Command) {
		in.ChargeID = fmt.Sprintf("CH-%s-%s-%06d", c.At.Date, c.Node, c.Seq)
		in.BillID = BillID(c, 0)
		c.Payload = &in
	})
	if err != nil {
		if st := errorStatus(err); st < 500 {
			f.Error = domain.ErrorMessage(err)
			s.chargePage(w, r, st, f)
			return
		}
		s.fail(w, r, err)
		return
	}
	redirect(w, r, "/staff/bills/"+in.BillID+"?created=1")
}

// accountCharges returns an account's charges and its permit holds today.
func (s *Server) accountCharges(account string) ([]domain.Charge, []domain.Hold, error) {
	charges, err := s.reads.ChargesOfAccount(account)
	if err != nil {
		return nil, nil, err
	}
	holds, err := domain.PermitHolds(charges, s.ledger.Bill, s.today(), s.ledger.Params())
	return charges, holds, err
}

// apiHolds serves GET /api/v1/holds?account=…: whether the party's
// permits and approvals are held for an unpaid chargeback (§5.21), for
// the screens and systems that issue permits.
func (s *Server) apiHolds(w http.ResponseWriter, r *http.Request) {
	account := r.URL.Query().Get("account")
	if _, err := s.ledger.Account(account); err != nil {
		writeAPIError(w, err)
		return
	}
	_, holds, err := s.accountCharges(account)
	if err != nil {
		writeAPIError(w, err)
		return
	}
	if holds == nil {
		holds = []domain.Hold{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"account": account, "hold": len(holds) > 0, "holds": holds, "section": "§5.21"})
}
