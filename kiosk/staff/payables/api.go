package payables

import (
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The API of accounts payable (/api/v1/): lists, and every change as a
// CommandRequest with the client's command id.

// apiClaims serves GET /api/v1/claims?year=&from=&limit=: a page of the
// year's claims, newest first, from claim number from (default the
// newest) down, at most limit of them (default claimsPerPage, at most
// maxClaimsLimit); "count" is how many the year has numbered and "older"
// the from of the next page, absent on the last.
func (m *Module) apiClaims(w http.ResponseWriter, r *http.Request) {
	year := m.year(r)
	from, err := queryNumber(r, "from", 0, "a claim number")
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	limit, err := queryNumber(r, "limit", claimsPerPage, "a number of claims")
	if err == nil && (limit < 1 || limit > maxClaimsLimit) {
		err = domain.Errorf(domain.EINVALID, sectionClaims, "The limit is 1 to %d claims.", maxClaimsLimit)
	}
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	cls, count, err := m.o.Reads().ClaimsPage(year, from, limit)
	out := map[string]any{"year": year, "count": count, "claims": staff.NonNil(cls)}
	if len(cls) > 0 {
		if low := claimNumber(cls[len(cls)-1].ID); low > 1 {
			out["older"] = low - 1
		}
	}
	m.o.Answer(w, out, err)
}

// maxClaimsLimit is the most claims one page of the API holds.
const maxClaimsLimit = 500

// queryNumber reads a whole number ≥ 0 from the query parameter name, or
// def when it is absent.
func queryNumber(r *http.Request, name string, def int, what string) (int, error) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, domain.Errorf(domain.EINVALID, sectionClaims, "%s=%q is not %s.", name, raw, what)
	}
	return n, nil
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
