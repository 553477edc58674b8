package payables

import (
	"net/http"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The API of accounts payable (/api/v1/): lists, and every change as a
// CommandRequest with the client's command id.

func (m *Module) apiClaims(w http.ResponseWriter, r *http.Request) {
	year := m.year(r)
	cls, err := m.o.Reads().Claims(year)
	m.o.Answer(w, map[string]any{"year": year, "claims": staff.NonNil(cls)}, err)
}

func (m *Module) apiClaim(w http.ResponseWriter, r *http.Request) {
	c, err := m.o.Reads().Claim(r.PathValue("id"))
	m.o.Answer(w, c, err)
}

// apiClaimChange serves POST /api/v1/claims: enter, certify or cancel.
func (m *Module) apiClaimChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.ClaimChange](m.o, w, r, "a claim", nil)
}

func (m *Module) apiRuns(w http.ResponseWriter, r *http.Request) {
	runs, err := m.o.Reads().CheckRuns()
	m.o.Answer(w, map[string]any{"check_runs": staff.NonNil(runs)}, err)
}

func (m *Module) apiRun(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.CheckRun](m.o, w, r, "a check run", nil)
}

func (m *Module) apiVoid(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.CheckVoid](m.o, w, r, "a void", nil)
}

func (m *Module) apiRegister(w http.ResponseWriter, r *http.Request) {
	month, _, err := m.registerMonth(r, r.PathValue("month"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	cks, total, err := m.register(month)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	rev, reviewed, err := m.o.Reads().RegisterReview(month)
	out := map[string]any{"month": month, "checks": staff.NonNil(cks), "total": total}
	if reviewed {
		out["review"] = rev
	}
	m.o.Answer(w, out, err)
}

func (m *Module) apiSignatures(w http.ResponseWriter, r *http.Request) {
	s, err := m.o.Reads().Signatures()
	m.o.Answer(w, map[string]any{"signatures": staff.NonNil(s)}, err)
}

func (m *Module) apiSignature(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.SignatureChange](m.o, w, r, "a signature", nil)
}
