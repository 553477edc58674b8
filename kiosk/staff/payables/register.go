package payables

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

type registerRow struct {
	Number, On, Payee, Purpose, Line, Amount, Status string
}

type registerView struct {
	Month, Prev, Next string
	Rows              []registerRow
	Total             string
	Reviewed          string
	CanReview         bool
	Error             string
	Today             string
}

// registerMonth reads ?month= (YYYY-MM), else last month.
func (m *Module) registerMonth(r *http.Request, raw string) (string, domain.Date, error) {
	if raw == "" {
		t := m.o.Today()
		last := domain.NewDate(t.Year(), t.Month(), 1).AddDays(-1)
		raw = last.String()[:7]
	}
	first, err := domain.ParseDate(raw + "-01")
	if err != nil || len(raw) != 7 {
		return "", domain.Date{}, domain.Errorf(domain.ENOTFOUND, "§5.07(4)", "The month is YYYY-MM, not %q.", raw)
	}
	return raw, first, nil
}

// register returns month's checks with their total; a void check counts
// nothing.
func (m *Module) register(month string) ([]domain.CheckRecord, domain.Money, error) {
	cks, err := m.o.Reads().CheckRegister(month)
	var total domain.Money
	for _, c := range cks {
		if c.Void == nil {
			total = total.Add(c.Amount)
		}
	}
	return cks, total, err
}

func (m *Module) showRegister(w http.ResponseWriter, r *http.Request) {
	m.registerPage(w, r, http.StatusOK, r.URL.Query().Get("month"), "")
}

func (m *Module) registerPage(w http.ResponseWriter, r *http.Request, status int, raw, msg string) {
	month, first, err := m.registerMonth(r, raw)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cks, total, err := m.register(month)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := registerView{Month: month, Prev: first.AddDays(-1).String()[:7], Next: first.AddMonths(1).String()[:7], Total: dollars(total),
		CanReview: staff.Allowed(m.o.Who(r).Role, staff.CapRegister), Error: msg, Today: m.o.Today().String()}
	for _, c := range cks {
		st := ""
		if c.Void != nil {
			st = "void: " + c.Void.Reason
		}
		v.Rows = append(v.Rows, registerRow{Number: itoa(c.Number), On: c.On.String(), Payee: c.Payee, Purpose: c.Purpose, Line: c.Line, Amount: dollars(c.Amount), Status: st})
	}
	rev, ok, err := m.o.Reads().RegisterReview(month)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	if ok {
		v.Reviewed = fmt.Sprintf("Reviewed by the board on %s (%s); recorded by %s.", rev.On, rev.Motion, rev.By)
	}
	m.o.Render(w, r, status, registerPage(m.o.Frame(r, "Check register "+month), v))
}

func (m *Module) showRegisterCSV(w http.ResponseWriter, r *http.Request) {
	month, _, err := m.registerMonth(r, r.PathValue("month"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cks, _, err := m.register(month)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	out := m.o.CSV(w, "check-register-"+month+".csv")
	out.Write([]string{"date", "check_number", "payee", "purpose", "appropriation", "amount", "claim", "void"})
	for _, c := range cks {
		void := ""
		if c.Void != nil {
			void = c.Void.Reason
		}
		pays := c.Claim
		if c.Refund != "" {
			pays = "refund of bill " + c.Bill
		}
		out.Write([]string{c.On.String(), itoa(c.Number), c.Payee, c.Purpose, c.Line, c.Amount.String(), pays, void})
	}
	out.Flush()
}

func (m *Module) showRegisterPDF(w http.ResponseWriter, r *http.Request) {
	month, first, err := m.registerMonth(r, r.PathValue("month"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cks, total, err := m.register(month)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := RegisterPDF(&buf, first, cks, total, domain.NewDateTime(first.AddMonths(1), 0, 0, 0).Time(m.o.Location())); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="check-register-`+month+`.pdf"`)
	w.Write(buf.Bytes())
}

// RegisterPDF writes the check register of the month beginning first for
// the board (§5.07(4)): date, number, payee, purpose, appropriation and
// amount of every check, voided ones marked, and the total. The same
// checks render the same bytes (the PDF is dated stamp).
func RegisterPDF(out *bytes.Buffer, first domain.Date, cks []domain.CheckRecord, total domain.Money, stamp time.Time) error {
	pdf := fpdf.New("L", "mm", "Letter", "")
	pdf.SetCreationDate(stamp)
	pdf.SetModificationDate(stamp)
	pdf.SetTitle("Check register "+first.String()[:7], false)
	pdf.SetAuthor("Village of Belleville", false)
	pdf.SetMargins(14, 14, 14)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetFont("Helvetica", "B", 13)
	pdf.CellFormat(0, 7, tr("VILLAGE OF BELLEVILLE - CHECK REGISTER"), "", 1, "C", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 6, tr(fmt.Sprintf("%s %d, for the Village Board's review (Village Code §5.07(4))", first.Month(), first.Year())), "", 1, "C", false, 0, "")
	pdf.Ln(3)
	widths := []float64{24, 22, 62, 86, 30, 26}
	pdf.SetFont("Helvetica", "B", 9)
	pdf.SetFillColor(230, 234, 240)
	for i, h := range []string{"Date", "Check", "Payee", "Purpose", "Appropriation", "Amount"} {
		align := "L"
		if i == 5 {
			align = "R"
		}
		pdf.CellFormat(widths[i], 6, h, "1", 0, align, true, 0, "")
	}
	pdf.Ln(-1)
	pdf.SetFont("Helvetica", "", 9)
	fit := func(s string, w float64) string {
		for pdf.GetStringWidth(s) > w-2 && len(s) > 4 {
			s = strings.TrimRight(s[:len(s)-4], " ") + "..."
		}
		return s
	}
	for _, c := range cks {
		purpose := c.Purpose
		amount := staff.Dollars(c.Amount)
		if c.Void != nil {
			purpose, amount = "VOID - "+c.Void.Reason, "(void)"
		}
		cells := []string{c.On.String(), itoa(c.Number), c.Payee, purpose, c.Line, amount}
		for i, v := range cells {
			align := "L"
			if i == 5 {
				align = "R"
			}
			pdf.CellFormat(widths[i], 6, tr(fit(v, widths[i])), "1", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	if len(cks) == 0 {
		pdf.CellFormat(0, 6, "No checks were issued this month.", "1", 1, "L", false, 0, "")
	}
	pdf.SetFont("Helvetica", "B", 9)
	pdf.CellFormat(widths[0]+widths[1]+widths[2]+widths[3]+widths[4], 6, "Total", "1", 0, "R", false, 0, "")
	pdf.CellFormat(widths[5], 6, staff.Dollars(total), "1", 1, "R", false, 0, "")
	return pdf.Output(out)
}

func (m *Module) submitReview(w http.ResponseWriter, r *http.Request) {
	month := r.PathValue("month")
	on, err := staff.ParseDate("The day of the board's review", m.o.Form(r, "on"))
	if err == nil {
		_, err = m.o.Submit(r, &domain.RegisterReview{Month: month, On: on, Motion: m.o.Form(r, "motion")})
	}
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok && status != http.StatusNotFound {
			m.registerPage(w, r, status, month, msg)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/check-register?month="+month)
}

type policyView struct {
	Policy    *domain.APPolicy
	Versions  []domain.APPolicy
	Overdue   bool
	CanChange bool
	Error     string
	Text      string
	Today     string
}

func (m *Module) showPolicy(w http.ResponseWriter, r *http.Request) {
	m.policyPage(w, r, http.StatusOK, "", "")
}

func (m *Module) policyPage(w http.ResponseWriter, r *http.Request, status int, msg, text string) {
	pol, ok, err := m.o.Reads().APPolicy()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	vs, err := m.o.Reads().APPolicyVersions()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := policyView{Versions: vs, CanChange: staff.Allowed(m.o.Who(r).Role, staff.CapAPPolicy), Error: msg, Text: text, Today: m.o.Today().String()}
	if ok {
		v.Policy, v.Overdue = &pol, m.o.Today().After(pol.ReviewDue)
		if text == "" {
			v.Text = pol.Text
		}
	}
	m.o.Render(w, r, status, policyPage(m.o.Frame(r, "Accounts payable policy"), v))
}

func (m *Module) submitPolicy(w http.ResponseWriter, r *http.Request) {
	text := strings.TrimSpace(r.PostForm.Get("text"))
	on, err := staff.ParseDate("The day of the board's review", m.o.Form(r, "reviewed_on"))
	if err == nil {
		_, err = m.o.Submit(r, &domain.APPolicyChange{Text: text, AdoptedBy: m.o.Form(r, "adopted_by"), ReviewedOn: on})
	}
	if err != nil {
		if status, msg, ok := m.o.FormError(err); ok {
			m.policyPage(w, r, status, msg, text)
			return
		}
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, "/staff/ap-policy")
}
