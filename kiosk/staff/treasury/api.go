package treasury

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The treasury's API (/api/v1/): the registers, and every change as a
// staff.CommandRequest with the client's command id (the same id and body
// again answers with the first result; the same id with another body is a
// conflict).

// legalClaimJSON is a claim with its deadlines by the rule
// 5.08/legal-claim.
type legalClaimJSON struct {
	domain.LegalClaimRecord
	Deadlines *domain.LegalClaim `json:"deadlines,omitempty"`
}

func (m *Module) legalJSON(l domain.LegalClaimRecord) (legalClaimJSON, error) {
	out := legalClaimJSON{LegalClaimRecord: l}
	d, ok, err := l.Deadlines(m.o.Ledger().Params())
	if ok {
		out.Deadlines = &d
	}
	return out, err
}

func (m *Module) apiLegalClaims(w http.ResponseWriter, r *http.Request) {
	claims, err := m.o.Reads().LegalClaims()
	out := []legalClaimJSON{}
	for _, l := range claims {
		j, jerr := m.legalJSON(l)
		if jerr != nil && err == nil {
			err = jerr
		}
		out = append(out, j)
	}
	m.o.Answer(w, map[string]any{"legal_claims": out}, err)
}

func (m *Module) apiLegalClaim(w http.ResponseWriter, r *http.Request) {
	l, err := m.o.Reads().LegalClaim(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	j, err := m.legalJSON(l)
	m.o.Answer(w, j, err)
}

// apiLegalClaimChange serves POST /api/v1/legal-claims: every step of a
// claim (op file, itemize, notify, attorney, decide, notice).
func (m *Module) apiLegalClaimChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.LegalClaimChange](m.o, w, r, "a legal claim", nil)
}

func (m *Module) apiDepositories(w http.ResponseWriter, r *http.Request) {
	ds, err := m.o.Reads().Depositories()
	m.o.Answer(w, map[string]any{"depositories": staff.NonNil(ds)}, err)
}

func (m *Module) apiDepositoryChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.DepositoryChange](m.o, w, r, "a depository", nil)
}

func (m *Module) apiDepositoryInterest(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.DepositoryInterest](m.o, w, r, "interest from a depository", nil)
}

func (m *Module) apiInvestments(w http.ResponseWriter, r *http.Request) {
	vs, err := m.o.Reads().Investments()
	m.o.Answer(w, map[string]any{"investments": staff.NonNil(vs)}, err)
}

func (m *Module) apiInvestmentChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.InvestmentChange](m.o, w, r, "an investment", nil)
}

func (m *Module) apiInvestmentInterest(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.InvestmentInterest](m.o, w, r, "interest on an investment", nil)
}

func (m *Module) apiSettlement(w http.ResponseWriter, r *http.Request) {
	st, err := m.settlementOf(r, r.PathValue)
	st.Lines, st.Payments, st.Shares = staff.NonNil(st.Lines), staff.NonNil(st.Payments), staff.NonNil(st.Shares)
	m.o.Answer(w, st, err)
}

func (m *Module) apiSettlementPayment(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.CountySettlement](m.o, w, r, "a payment of a settlement", func(p *domain.CountySettlement) error {
		return m.o.Reads().CheckSettlementPayment(*p, m.o.Today())
	})
}
