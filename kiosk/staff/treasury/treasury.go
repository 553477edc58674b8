// Package treasury is the treasury's part of the back office: the
// register of legal claims against the village from the notice of
// circumstances to the notice of disallowance (§5.08, Wis. Stat. 893.80),
// the public depositories the board designated and the interest they
// credit (§5.06), the register of investments (§5.09), and the settlements
// of the property tax with the Dane and Green county treasurers (§5.17,
// Wis. Stat. 74.23, 74.25). It is a staff.Module; every rule is the domain's
// (domain/legalclaims.go, depository.go, investment.go,
// countysettlement.go).
package treasury

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the treasury's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// maturityDays is how far ahead the treasurer's start page looks for
// investments coming due.
const maturityDays = 30

// Mount adds the treasury's routes, links and start-page alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	page := o.Page
	page("GET /staff/legal-claims", staff.CapReadLegalClaims, m.showLegalClaims)
	page("POST /staff/legal-claims", staff.CapLegalClaims, m.submitLegalClaim)
	page("GET /staff/legal-claims/{id}", staff.CapReadLegalClaims, m.showLegalClaim)
	page("POST /staff/legal-claims/{id}/{op}", staff.CapLegalClaims, m.submitLegalStep)
	page("POST /staff/legal-claims/{id}/notify", staff.CapLegalNotify, m.submitLegalStep)
	page("POST /staff/legal-claims/{id}/attorney", staff.CapLegalAttorney, m.submitLegalStep)
	page("GET /staff/legal-claims/{id}/disallowance.pdf", staff.CapReadLegalClaims, m.showDisallowancePDF)

	page("GET /staff/depositories", staff.CapReadTreasury, m.showDepositories)
	page("POST /staff/depositories", staff.CapTreasury, m.submitDepository)
	page("POST /staff/depositories/{id}/end", staff.CapTreasury, m.submitDepositoryEnd)
	page("POST /staff/depositories/{id}/interest", staff.CapTreasury, m.submitDepositoryInterest)

	page("GET /staff/investments", staff.CapReadTreasury, m.showInvestments)
	page("POST /staff/investments", staff.CapTreasury, m.submitInvestment)
	page("POST /staff/investments/{id}/interest", staff.CapTreasury, m.submitInvestmentInterest)
	page("POST /staff/investments/{id}/redeem", staff.CapTreasury, m.submitInvestmentRedeem)

	page("GET /staff/settlements", staff.CapReadTreasury, m.showSettlement)
	page("GET /staff/settlements/{county}/{year}/{period}", staff.CapReadTreasury, m.showSettlementFile)
	page("POST /staff/settlements", staff.CapTreasury, m.submitSettlement)
	page("GET /staff/levy", staff.CapLevy, m.showLevy)
	page("POST /staff/levy", staff.CapLevy, m.submitLevy)

	api := o.API
	api("GET /api/v1/legal-claims", staff.CapReadLegalClaims, m.apiLegalClaims)
	api("GET /api/v1/legal-claims/{id}", staff.CapReadLegalClaims, m.apiLegalClaim)
	api("POST /api/v1/legal-claims", staff.CapLegalClaims, m.apiLegalClaimChange)
	api("GET /api/v1/depositories", staff.CapReadTreasury, m.apiDepositories)
	api("POST /api/v1/depositories", staff.CapTreasury, m.apiDepositoryChange)
	api("POST /api/v1/depositories/interest", staff.CapTreasury, m.apiDepositoryInterest)
	api("GET /api/v1/investments", staff.CapReadTreasury, m.apiInvestments)
	api("POST /api/v1/investments", staff.CapTreasury, m.apiInvestmentChange)
	api("POST /api/v1/investments/interest", staff.CapTreasury, m.apiInvestmentInterest)
	api("GET /api/v1/settlements/{county}/{year}/{period}", staff.CapReadTreasury, m.apiSettlement)
	api("POST /api/v1/settlements", staff.CapTreasury, m.apiSettlementPayment)
	api("GET /api/v1/levy-apportionments/{county}/{year}", staff.CapReadTreasury, m.apiLevy)
	api("POST /api/v1/levy-apportionments", staff.CapLevy, m.apiLevyChange)

	o.Nav(staff.CapReadLegalClaims, "Legal claims", "/staff/legal-claims")
	o.Nav(staff.CapReadTreasury, "Treasury", "/staff/depositories")
	o.Nav(staff.CapLevy, "Tax roll levy", "/staff/levy")
	o.Alert(m.alerts)
	return nil
}

// alerts are the treasury's lines of the start page: for those who act on
// legal claims, a President not yet told and each claim's next deadline;
// for the treasurer, investments maturing within 30 days and settlements
// with the counties past due.
func (m *Module) alerts(_ context.Context, who staff.Who) ([]view.Alert, error) {
	var out []view.Alert
	reads, today := m.o.Reads(), m.o.Today()
	if staff.Allowed(who.Role, staff.CapLegalClaims) {
		claims, err := reads.LegalClaims()
		if err != nil {
			return nil, err
		}
		params := m.o.Ledger().Params()
		for _, l := range claims {
			url := "/staff/legal-claims/" + l.ID
			switch {
			case l.President == nil && who.Role == domain.RoleAdministrator:
				out = append(out, view.Alert{TestID: "alert-legal-president-" + l.ID, URL: url,
					Text: fmt.Sprintf("Legal claim %s of %s: contact the Village President immediately (§5.08).", l.ID, l.Claimant)})
			case l.President != nil && l.Attorney == nil && l.Decision == nil && staff.Allowed(who.Role, staff.CapLegalAttorney):
				out = append(out, view.Alert{TestID: "alert-legal-attorney-" + l.ID, URL: url,
					Text: fmt.Sprintf("Legal claim %s of %s: decide whether to contact the Village Attorney before the board meets (§5.08).", l.ID, l.Claimant)})
			}
			d, ok, err := l.Deadlines(params)
			if err != nil {
				return nil, err
			}
			switch {
			case !ok:
			case l.Decision == nil && !today.After(d.DeemedDisallowedOn):
				out = append(out, view.Alert{TestID: "alert-legal-deadline-" + l.ID, URL: url, Due: d.DeemedDisallowedOn.String(),
					Text: fmt.Sprintf("Legal claim %s of %s: the board must allow or disallow it by %s, or it is deemed disallowed (120 days, Wis. Stat. 893.80(1g)).", l.ID, l.Claimant, d.DeemedDisallowedOn)})
			case l.Outcome == domain.LegalClaimDisallow && l.Notice == nil:
				out = append(out, view.Alert{TestID: "alert-legal-notice-" + l.ID, URL: url,
					Text: fmt.Sprintf("Legal claim %s was disallowed: serve the notice of disallowance by certified mail.", l.ID)})
			case !d.SuitDeadline.IsZero() && !today.After(d.SuitDeadline):
				out = append(out, view.Alert{TestID: "alert-legal-suit-" + l.ID, URL: url, Due: d.SuitDeadline.String(),
					Text: fmt.Sprintf("Legal claim %s of %s: suit may be brought until %s (six months from the notice of disallowance).", l.ID, l.Claimant, d.SuitDeadline)})
			}
		}
	}
	if staff.Allowed(who.Role, staff.CapTreasury) {
		soon, err := reads.MaturingBy(today.AddDays(maturityDays))
		if err != nil {
			return nil, err
		}
		for _, v := range soon {
			out = append(out, view.Alert{TestID: "alert-maturity-" + v.ID, URL: "/staff/investments", Due: v.MaturesOn.String(),
				Text: fmt.Sprintf("Investment %s (%s, %s) matures on %s.", v.ID, v.Security, dollars(v.Amount), v.MaturesOn)})
		}
		late, err := reads.SettlementsPastDue(today)
		if err != nil {
			return nil, err
		}
		for _, st := range late {
			out = append(out, view.Alert{TestID: fmt.Sprintf("alert-settlement-%s-%d-%s", st.County, st.TaxYear, st.Period), URL: settlementURL(st.County, st.TaxYear, st.Period), Due: st.DueOn.String(),
				Text: fmt.Sprintf("%s settlement of the %d %s County roll: %s unsettled with its taxing jurisdictions, due %s (Wis. Stat. 74.23, 74.25).", title(st.Period), st.TaxYear, st.County.Title(), dollars(st.Unsettled), st.DueOn)})
		}
	}
	return out, nil
}

func settlementURL(c domain.County, year int, period string) string {
	return fmt.Sprintf("/staff/settlements?county=%s&year=%d&period=%s", c, year, period)
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// dollars writes an amount for people: "$1,234.56".
func dollars(m domain.Money) string {
	s := m.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-$" + b.String() + "." + frac
	}
	return "$" + b.String() + "." + frac
}

func itoa(n int) string { return strconv.Itoa(n) }

// optionalDate reads a date field that may be left empty.
func optionalDate(what, s string) (domain.Date, error) {
	if strings.TrimSpace(s) == "" {
		return domain.Date{}, nil
	}
	return staff.ParseDate(what, s)
}

// optionalAmount reads an amount field that may be left empty.
func optionalAmount(what, s string) (domain.Money, error) {
	if strings.TrimSpace(s) == "" {
		return domain.Money{}, nil
	}
	return staff.ParseAmount(what, s)
}

// formFail shows err beside the form of the page show draws, or the error
// page when it is not one the person can fix.
func (m *Module) formFail(w http.ResponseWriter, r *http.Request, err error, show func(status int, msg string)) {
	status, msg, ok := m.o.FormError(err)
	if !ok {
		m.o.Fail(w, r, err)
		return
	}
	show(status, msg)
}
