package roomtax

import (
	"bytes"
	"time"

	"github.com/villagehall/appliance/kiosk/staff"
)

// slip is what a remittance slip prints: who pays, for which return, how
// much is enclosed, and the reference the treasurer's window finds the
// return by.
type slip struct {
	village, address, phone         string
	operator, operatorID, permit    string
	establishments                  []string
	period, due, tax, paid, balance string
	amount, ref, today              string
}

// slipPDF prints a remittance slip on Letter paper with the office's
// report page (staff.Report): the return's lines above, and below a cut
// line the stub that goes in the envelope with the check, which is what
// the window keys in.
func slipPDF(s slip, stamp time.Time) ([]byte, error) {
	r := staff.NewReport(s.village, "Room tax remittance slip", "P", stamp)
	r.Part("Room tax remittance slip", "Return "+s.period+" · "+s.operator)
	pdf := r.PDF
	// para writes a paragraph wrapped inside the cells' padding, so that
	// no line reaches into the right margin.
	para := func(text string, size float64) {
		pdf.SetFont("Helvetica", "", size)
		lh := size * 0.55
		for _, l := range staff.WrapText(pdf, r.Tr(text), r.Width-2*pdf.GetCellMargin()) {
			r.Room(lh)
			pdf.SetX(r.Left)
			pdf.CellFormat(r.Width, lh, l, "", 1, "L", false, 0, "")
		}
	}
	para("Pay the room tax of this return by check at the treasurer's window, or mail the check with the stub below. Make the check payable to "+s.village+
		" and write the payment reference on it. The window finds the return by its reference; the payment applies to the tax first (§5.22).", 9.5)
	pdf.Ln(3)
	label := 58.0
	pair := func(k, v string, bold bool) {
		r.Room(6)
		pdf.SetX(r.Left)
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(label, 6, r.Fit(k, label), "", 0, "L", false, 0, "")
		style := ""
		if bold {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 10)
		pdf.CellFormat(r.Width-label, 6, r.Fit(v, r.Width-label), "", 1, "L", false, 0, "")
	}
	pair("Operator", s.operator, false)
	pair("Operator id", s.operatorID, false)
	if s.permit != "" {
		pair("Seller's permit", s.permit, false)
	}
	for i, e := range s.establishments {
		k := ""
		if i == 0 {
			k = "Establishments"
		}
		pair(k, e, false)
	}
	pair("Return period", s.period, false)
	pair("Due", s.due, false)
	pdf.Ln(2)
	amounts := r.AmountWidth("Amount", s.tax, s.paid, s.balance, s.amount)
	t := r.Table([]staff.Column{{Title: "As of " + s.today, Width: r.Width - amounts}, {Title: "Amount", Width: amounts, Amount: true}})
	t.Row("Tax", s.tax)
	t.Row("Paid so far", s.paid)
	t.Total("Balance today (with any fee and interest)", s.balance)
	t.Final("Amount enclosed", s.amount)
	t.End()
	pdf.Ln(4)
	para("Interest of 1% a month runs on tax unpaid after the due date until the first of the month after payment; pay the balance on the day you pay to clear it.", 8.5)

	// The stub: cut along the line and send it with the check.
	r.Room(70)
	pdf.Ln(6)
	w, _ := pdf.GetPageSize()
	y := pdf.GetY()
	pdf.SetDashPattern([]float64{2, 1.5}, 0)
	pdf.Line(r.Left, y, w-r.Right, y)
	pdf.SetDashPattern(nil, 0)
	pdf.SetXY(r.Left, y+1)
	pdf.SetFont("Helvetica", "", 8)
	pdf.CellFormat(r.Width, 4, r.Fit("Cut here and return this stub with your check", r.Width), "", 1, "C", false, 0, "")
	pdf.Ln(3)
	pdf.SetX(r.Left)
	pdf.SetFont("Helvetica", "B", 12)
	pdf.CellFormat(r.Width, 7, r.Fit(s.village+" - room tax remittance", r.Width), "", 1, "L", false, 0, "")
	if s.address != "" || s.phone != "" {
		pdf.SetX(r.Left)
		pdf.SetFont("Helvetica", "", 9)
		pdf.CellFormat(r.Width, 5, r.Fit(join(", ", s.address, s.phone), r.Width), "", 1, "L", false, 0, "")
	}
	pdf.Ln(2)
	pair("Payment reference", s.ref, true)
	pair("Operator", s.operator, false)
	pair("Return period", s.period, false)
	pair("Amount enclosed", s.amount, true)
	pair("Check number", "", false)
	pdf.Line(r.Left+label, pdf.GetY()-1, r.Left+label+50, pdf.GetY()-1)
	var out bytes.Buffer
	err := r.Output(&out)
	return out.Bytes(), err
}

// join joins the parts that are not empty.
func join(sep string, parts ...string) string {
	var b bytes.Buffer
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p)
	}
	return b.String()
}
