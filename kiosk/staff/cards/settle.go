package cards

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Settlement is the page's part for the card processor's deposit of the
// day (§5.06, domain.CardSettlement): the settlement the books hold, and
// the treasurer's form when there is none.
type Settlement struct {
	Settled      *domain.CardDaySettled  // nil: the day is not settled
	Later        []domain.CardDaySettled // settlements of receipts that came after it
	Late         domain.Money            // receipts that came after it, not yet settled
	FeeLine      string                  // the fee line's code and name
	CanSettle    bool                    // the person may record a settlement
	Depositories []staffview.Option      // designated on the day
	FeeLines     []staffview.Option      // the chart's open expenditure lines
	Form         map[string]string       // the values posted, kept on a refusal
	Error        string
}

// settlement reads what the page shows of day's settlement for who, with
// form's values and msg when a settlement was refused.
func (m *Module) settlement(who staff.Who, day domain.Date, form map[string]string, msg string) (Settlement, error) {
	reads := m.o.Reads()
	s := Settlement{CanSettle: staff.Allowed(who.Role, staff.CapTreasury), Form: form, Error: msg}
	if s.Form == nil {
		s.Form = map[string]string{}
	}
	d, _, err := reads.CardDay(day)
	if err != nil {
		return s, err
	}
	ch, err := reads.Chart()
	if err != nil {
		return s, err
	}
	if s.Settled = d.Settled; s.Settled != nil && s.Settled.FeeAccount != "" {
		s.FeeLine = s.Settled.FeeAccount + " " + ch.Name(s.Settled.FeeAccount)
	}
	s.Later, s.Late = d.Later, d.LateTotal()
	if !s.CanSettle || (s.Settled != nil && msg == "" && !s.Late.IsPositive()) {
		return s, nil
	}
	deps, err := reads.DepositoriesOn(day)
	if err != nil {
		return s, err
	}
	for _, p := range deps {
		s.Depositories = append(s.Depositories, staffview.Option{Value: p.ID, Label: p.Name, Selected: s.Form["depository"] == p.ID})
	}
	s.FeeLines = append(s.FeeLines, staffview.Option{Value: "", Label: "— none: no fee —"})
	for _, a := range ch.Of(domain.AccountExpenditure) {
		if !a.Closed {
			s.FeeLines = append(s.FeeLines, staffview.Option{Value: a.Code, Label: a.Code + " " + a.Name, Selected: s.Form["fee_account"] == a.Code})
		}
	}
	return s, nil
}

// submitSettlement records the card processor's deposit of a day; a
// refusal is shown beside the form with the values kept.
func (m *Module) submitSettlement(w http.ResponseWriter, r *http.Request) {
	f := map[string]string{}
	for _, k := range []string{"day", "depository", "deposited", "fee_account", "reference"} {
		f[k] = m.o.Form(r, k)
	}
	show := func(status int, msg string) { m.reconciliationPage(w, r, f["day"], status, msg, f) }
	var p domain.CardSettlement
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		p = domain.CardSettlement{Depository: f["depository"], FeeAccount: f["fee_account"], Reference: f["reference"]}
		var err error
		if p.Day, err = staff.ParseDate("The day settled", f["day"]); err == nil {
			p.Deposited, err = staff.ParseAmount("The amount deposited", f["deposited"])
		}
		return &p, err
	}, func() string { return "/staff/cards?day=" + p.Day.String() })
}
