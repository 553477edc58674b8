package assessments

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The API of special assessments (Authorization: Bearer, a staff
// account's token, acting with its role):
//
//	GET  /api/v1/assessments                      the projects
//	POST /api/v1/assessments                      a preliminary resolution (domain.AssessmentPreliminary)
//	GET  /api/v1/assessments/{project}[?as_of=]   a project, its schedule, its assessments with their figures
//	POST /api/v1/assessments/{project}/{step}     a step: report, notice, owner, hearing, final, publish, levy, change
//	GET  /api/v1/assessment/{id}[?as_of=]         one assessment and its figures
//	POST /api/v1/assessment/{id}/appeal           an appeal filed or dismissed (domain.AssessmentAppeal)
//	POST /api/v1/assessment-payments              a payment: card, or cash and checks into the caller's open drawer
//	GET  /api/v1/repair-notices                   the repair notices (§5.14(13))
//	POST /api/v1/repair-notices                   a repair notice or its hearing (domain.RepairNoticeCmd)
//	POST /api/v1/special-charges                  a special charge (domain.SpecialCharge)
//
// Every POST body is the step's payload as JSON (the fields of its domain
// type) with a "command_id" the client makes: sent again with the same
// body it answers with the first result, with another body it is a
// conflict (409). The project or assessment of the path is the one the
// step is about; a body naming another is refused.

func (m *Module) mountAPI(o *staff.Office) {
	o.API("GET /api/v1/assessments", staff.CapReadAssessments, m.apiProjects)
	o.API("POST /api/v1/assessments", staff.CapAssessmentBoard, m.apiStep(func() domain.Payload { return new(domain.AssessmentPreliminary) }, ""))
	o.API("GET /api/v1/assessments/{project}", staff.CapReadAssessments, m.apiProject)
	apiSteps := map[string]func() domain.Payload{
		"report":  func() domain.Payload { return new(domain.AssessmentReport) },
		"notice":  func() domain.Payload { return new(domain.AssessmentNotice) },
		"owner":   func() domain.Payload { return new(domain.AssessmentOwner) },
		"hearing": func() domain.Payload { return new(domain.AssessmentHearing) },
		"final":   func() domain.Payload { return new(domain.AssessmentFinal) },
		"publish": func() domain.Payload { return new(domain.AssessmentPublish) },
		"levy":    func() domain.Payload { return new(domain.AssessmentLevy) },
		"change":  func() domain.Payload { return new(domain.AssessmentChangeCmd) },
	}
	for _, st := range steps {
		o.API("POST /api/v1/assessments/{project}/"+st.name, st.cap, m.apiStep(apiSteps[st.name], "project"))
	}
	o.API("GET /api/v1/assessment/{id}", staff.CapReadAssessments, m.apiAssessment)
	o.API("POST /api/v1/assessment/{id}/appeal", staff.CapAssessmentClerk, m.apiStep(func() domain.Payload { return new(domain.AssessmentAppeal) }, "id"))
	o.API("POST /api/v1/assessment-payments", staff.CapWindow, m.apiPayment)
	o.API("GET /api/v1/repair-notices", staff.CapReadAssessments, m.apiRepairNotices)
	o.API("POST /api/v1/repair-notices", staff.CapSpecialCharges, m.apiStep(func() domain.Payload { return new(domain.RepairNoticeCmd) }, ""))
	o.API("POST /api/v1/special-charges", staff.CapSpecialCharges, m.apiStep(func() domain.Payload { return new(domain.SpecialCharge) }, ""))
}

// StepResponse answers a step or a payment.
type StepResponse struct {
	CommandID string            `json:"command_id"`
	Index     uint64            `json:"index"`
	Note      string            `json:"note,omitempty"`
	Receipt   *domain.Receipt   `json:"receipt,omitempty"`
	Refund    *domain.RefundDue `json:"refund,omitempty"`
}

// decodeStep reads a step's body: its command_id and, strictly, its
// payload.
func (m *Module) decodeStep(w http.ResponseWriter, r *http.Request, p domain.Payload) (string, error) {
	var raw map[string]json.RawMessage
	if err := m.o.DecodeJSON(w, r, &raw, "a "+string(p.Kind())+" request"); err != nil {
		return "", err
	}
	var id string
	if b, ok := raw["command_id"]; ok {
		if err := json.Unmarshal(b, &id); err != nil {
			return "", domain.Errorf(domain.EMALFORMED, "", "command_id must be a string.")
		}
		delete(raw, "command_id")
	}
	body, _ := json.Marshal(raw)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		if de := (*domain.Error)(nil); asDomain(err, &de) {
			return "", de
		}
		return "", domain.Errorf(domain.EMALFORMED, "", "The request body is not a %s request: %s.", p.Kind(), strings.TrimPrefix(err.Error(), "json: "))
	}
	return id, nil
}

// apiStep returns the handler of a step whose payload new makes; path
// names the path's wildcard the payload must be about ("" for none).
func (m *Module) apiStep(new func() domain.Payload, path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := new()
		id, err := m.decodeStep(w, r, p)
		if err == nil && path != "" {
			err = about(p, r.PathValue(path))
		}
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		res, err := m.o.SubmitAPI(r, id, p)
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		m.o.WriteJSON(w, http.StatusOK, StepResponse{CommandID: res.CommandID, Index: res.Index, Note: res.Note, Receipt: res.Receipt, Refund: res.Refund})
	}
}

// about sets the project or assessment a payload is about to the path's,
// refusing a body that names another.
func about(p domain.Payload, id string) error {
	var field *string
	switch x := p.(type) {
	case *domain.AssessmentReport:
		field = &x.Project
	case *domain.AssessmentNotice:
		field = &x.Project
	case *domain.AssessmentOwner:
		field = &x.Project
	case *domain.AssessmentHearing:
		field = &x.Project
	case *domain.AssessmentFinal:
		field = &x.Project
	case *domain.AssessmentPublish:
		field = &x.Project
	case *domain.AssessmentLevy:
		field = &x.Project
	case *domain.AssessmentChangeCmd:
		field = &x.Project
	case *domain.AssessmentAppeal:
		field = &x.AssessmentID
	default:
		return nil
	}
	if *field != "" && *field != id {
		return domain.Errorf(domain.EINVALID, "", "The body is about %q, the address about %q.", *field, id)
	}
	*field = id
	return nil
}

// ProjectResponse is a project with its schedule and assessments.
type ProjectResponse struct {
	Project     domain.Project     `json:"project"`
	Schedule    *domain.Schedule   `json:"schedule,omitempty"`
	Assessments []AssessmentDetail `json:"assessments,omitempty"`
}

// AssessmentDetail is an assessment with its figures as of a day.
type AssessmentDetail struct {
	Assessment domain.Assessment        `json:"assessment"`
	Figures    domain.AssessmentFigures `json:"figures"`
}

// asOf reads ?as_of=, today by default.
func (m *Module) asOf(r *http.Request) (domain.Date, error) {
	if s := r.URL.Query().Get("as_of"); s != "" {
		return domain.ParseDate(s)
	}
	return m.o.Today(), nil
}

func (m *Module) apiProjects(w http.ResponseWriter, r *http.Request) {
	ps, err := m.o.Reads().AssessmentProjects()
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if ps == nil {
		ps = []domain.Project{}
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"projects": ps})
}

func (m *Module) apiProject(w http.ResponseWriter, r *http.Request) {
	p, err := m.o.Reads().AssessmentProject(r.PathValue("project"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	day, err := m.asOf(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	out := ProjectResponse{Project: p}
	if p.Report != nil {
		s, err := p.Schedule(m.o.Ledger().Params())
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		out.Schedule = &s
	}
	as, err := m.o.Reads().AssessmentsOfProject(p.ID)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	for _, a := range as {
		out.Assessments = append(out.Assessments, AssessmentDetail{Assessment: a, Figures: a.Figures(day)})
	}
	m.o.WriteJSON(w, http.StatusOK, out)
}

func (m *Module) apiAssessment(w http.ResponseWriter, r *http.Request) {
	a, err := m.o.Reads().Assessment(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	day, err := m.asOf(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, AssessmentDetail{Assessment: a, Figures: a.Figures(day)})
}

func (m *Module) apiRepairNotices(w http.ResponseWriter, r *http.Request) {
	ns, err := m.o.Reads().RepairNotices()
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if ns == nil {
		ns = []domain.RepairHearingNotice{}
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"notices": ns})
}

// PaymentRequest is the body of POST /api/v1/assessment-payments.
type PaymentRequest struct {
	CommandID    string        `json:"command_id"`
	AssessmentID string        `json:"assessment_id"`
	Option       string        `json:"option,omitempty"`
	Amount       string        `json:"amount"`
	Tender       domain.Tender `json:"tender"`
	Tendered     string        `json:"tendered,omitempty"`
	Reference    string        `json:"reference"`
	Payer        string        `json:"payer,omitempty"`
}

// apiPayment posts a payment on an assessment: a card payment an
// integration took (the processor's approval as the reference), or cash
// and checks into the caller's open drawer, as at the window.
func (m *Module) apiPayment(w http.ResponseWriter, r *http.Request) {
	var req PaymentRequest
	if err := m.o.DecodeJSON(w, r, &req, "an assessment payment"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	amount, err := domain.ParseMoney(req.Amount)
	switch {
	case req.AssessmentID == "":
		err = domain.Errorf(domain.EINVALID, "", "assessment_id is required.")
	case err != nil:
		err = domain.Errorf(domain.EINVALID, "", "amount must be a decimal string like \"42.50\".")
	case !req.Tender.Valid():
		err = domain.Errorf(domain.EINVALID, "", "tender must be card, cash or check.")
	case req.Tender != domain.Cash && strings.TrimSpace(req.Reference) == "":
		err = domain.Errorf(domain.EINVALID, "", "reference (the card approval or check number) is required.")
	}
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	var p domain.Payload = &domain.PayAssessment{AssessmentID: req.AssessmentID, Option: req.Option, Amount: amount, Tender: req.Tender, Reference: req.Reference, Payer: req.Payer}
	if req.Tender != domain.Card {
		who := m.o.Who(r)
		d, open, err := m.o.Reads().OpenDrawer(who.Username)
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		if !open {
			m.o.WriteAPIError(w, domain.Errorf(domain.ECONFLICT, "", "A %s payment goes into an open drawer: open one at the window for %s first.", req.Tender, who.Username))
			return
		}
		tendered := amount
		if req.Tendered != "" {
			if tendered, err = domain.ParseMoney(req.Tendered); err != nil {
				m.o.WriteAPIError(w, domain.Errorf(domain.EINVALID, "", "tendered must be a decimal string like \"50.00\"."))
				return
			}
		}
		p = &domain.WindowAssessmentPayment{DrawerID: d.ID, AssessmentID: req.AssessmentID, Option: req.Option, Amount: amount, Tender: req.Tender, Tendered: tendered, Reference: req.Reference, Payer: req.Payer}
	}
	res, err := m.o.SubmitAPI(r, req.CommandID, p)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, StepResponse{CommandID: res.CommandID, Index: res.Index, Note: res.Note, Receipt: res.Receipt, Refund: res.Refund})
}

// asDomain reports whether err is a domain error, as the payload's own
// decoding (a date, an amount, units) returns.
func asDomain(err error, de **domain.Error) bool { return errors.As(err, de) }
