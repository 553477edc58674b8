package roomtax

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

// The room tax return on paper: the blank form the village provides at no
// cost (§5.22(3)(a)), and a copy of a filed return (a read, recorded).

// returnPaper is what a return's PDF shows; empty fields print as lines
// to fill in.
type returnPaper struct {
	operator, permit, period, filed, signer, capacity string
	gross, exempt, taxable, tax, fee, interest, paid  string
	balance                                           string
	sales                                             []domain.RoomTaxExemptSale
	rate, feeAmount, due, retain, read                string
	payRef                                            string // for a card payment at the kiosk
	filledIn                                          bool
}

// entityShort names an exempt buyer's kind in the form's narrow column.
var entityShort = map[domain.ExemptEntity]string{
	domain.EntityFederal:         "Federal",
	domain.EntityState:           "State of Wisconsin",
	domain.EntityLocalGovernment: "Local government",
	domain.EntityNonprofit:       "Nonprofit",
}

func returnPDF(out *bytes.Buffer, p returnPaper, at time.Time) error {
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCreationDate(at)
	pdf.SetModificationDate(at)
	pdf.SetTitle("Room tax return", false)
	pdf.SetAuthor("Village of Belleville, Finance Director/Treasurer", false)
	pdf.SetMargins(20, 18, 20)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(0, 8, tr("Village of Belleville · Room Tax Return"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	pdf.MultiCell(0, 4.5, tr("Quarterly return of the room tax imposed by §5.22 of the Village Code under Wis. Stat. 66.0615, filed with the Village Finance Director/Treasurer. "+
		"This form is provided at no cost (§5.22(3)(a)). Returns are confidential (§5.22(8))."), "", "L", false)
	if !p.filledIn {
		pdf.MultiCell(0, 4.5, tr("Operators may also file on the staff portal over HTTPS, which computes the figures before signing."), "", "L", false)
	}
	pdf.Ln(3)
	field := func(k, v string) {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(70, 7, tr(k), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		if v == "" {
			pdf.CellFormat(0, 7, "", "B", 1, "L", false, 0, "")
		} else {
			pdf.CellFormat(0, 7, tr(v), "", 1, "L", false, 0, "")
		}
	}
	field("Operator (legal name)", p.operator)
	field("Seller's permit number", p.permit)
	field("Quarter (e.g. 2026-Q1)", p.period)
	field("Due (last day of the next month)", p.due)
	pdf.Ln(2)
	pdf.SetFont("Helvetica", "B", 11)
	pdf.CellFormat(0, 7, tr("Exempt sales (§5.22(2)–(3))"), "B", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 8.5)
	pdf.MultiCell(0, 4, tr("A sale is exempt only if billed in the name of the exempt buyer and the operator holds: for the federal government or a Wisconsin state or local government, "+
		"a purchase order or similar written document; for a nonprofit religious, charitable, scientific or educational organization, its certificate of exempt status number. "+
		"A claim without its document is taxed."), "", "L", false)
	pdf.SetFont("Helvetica", "B", 9)
	for _, h := range []struct {
		w float64
		s string
	}{{55, "Buyer"}, {30, "Entity"}, {22, "Billed to it"}, {40, "Document and number"}, {0, "Amount"}} {
		pdf.CellFormat(h.w, 6, tr(h.s), "1", 0, "L", false, 0, "")
	}
	pdf.Ln(-1)
	pdf.SetFont("Helvetica", "", 9)
	rows := p.sales
	for i := 0; i < max(5, len(rows)); i++ {
		var cells [5]string
		if i < len(rows) {
			s := rows[i]
			billed := "no"
			if s.BilledToEntity {
				billed = "yes"
			}
			cells = [5]string{s.Buyer, entityShort[s.Entity], billed, strings.TrimSpace(documentTitles[s.Document] + " " + s.DocumentNumber), staff.Dollars(s.Amount)}
		}
		for j, w := range []float64{55, 30, 22, 40, 0} {
			pdf.CellFormat(w, 6, fitCell(pdf, tr(cells[j]), w), "1", 0, "L", false, 0, "")
		}
		pdf.Ln(-1)
	}
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "B", 11)
	pdf.CellFormat(0, 7, tr("Computation"), "B", 1, "L", false, 0, "")
	line := func(n, k, v string) {
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(10, 7, n, "", 0, "L", false, 0, "")
		pdf.CellFormat(110, 7, tr(k), "", 0, "L", false, 0, "")
		if v == "" {
			pdf.CellFormat(0, 7, "", "B", 1, "R", false, 0, "")
		} else {
			pdf.CellFormat(0, 7, v, "", 1, "R", false, 0, "")
		}
	}
	line("1", "Gross receipts from furnishing rooms or lodging", p.gross)
	line("2", "Valid exempt sales", p.exempt)
	line("3", "Taxable receipts (line 1 less line 2)", p.taxable)
	line("4", "Tax: line 3 × "+p.rate, p.tax)
	line("5", "Late filing fee ("+p.feeAmount+" if filed after the due date)", p.fee)
	line("6", "Interest: 1% a month on tax unpaid after the due date", p.interest)
	line("7", "Paid", p.paid)
	line("8", "Balance due", p.balance)
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "", 9)
	pdf.MultiCell(0, 4.5, tr("Payments apply to the tax first. Unpaid tax becomes delinquent 30 days after the due date for a timely return, or on the due date for a late one. "+
		"With the first return, elect a calendar or fiscal year; the annual return is due within 90 days of the year's close. Keep records five years from the filing period (§5.22(7))."), "", "L", false)
	pdf.Ln(6)
	field("Signed by (operator or agent)", p.signer)
	field("Capacity", p.capacity)
	field("Filed", p.filed)
	if p.retain != "" {
		field("Records kept until", p.retain)
	}
	if p.payRef != "" {
		field("Payment reference (card at the kiosk)", p.payRef)
	}
	if p.read != "" {
		pdf.SetFont("Helvetica", "I", 8)
		pdf.MultiCell(0, 4, tr("Confidential copy; this read is recorded in the village's journal as "+p.read+"."), "", "L", false)
	}
	return pdf.Output(out)
}

func (m *Module) writePDF(w http.ResponseWriter, r *http.Request, name string, p returnPaper) {
	var buf bytes.Buffer
	if err := returnPDF(&buf, p, m.o.Now()); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s.pdf"`, name))
	_, _ = w.Write(buf.Bytes())
}

// showBlankPDF serves the blank return, with the rate and fee in force
// today.
func (m *Module) showBlankPDF(w http.ResponseWriter, r *http.Request) {
	v := m.o.Ledger().Params().At(m.o.Today())
	m.writePDF(w, r, "room-tax-return-blank", returnPaper{rate: v.RoomTaxRate.Percent(), feeAmount: staff.Dollars(v.RoomTaxLateFilingFee)})
}

// showReturnPDF serves a copy of a filed return with its figures today,
// once its read is recorded.
func (m *Module) showReturnPDF(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	id := domain.QuarterlyReturnID(opID, q)
	reason, ok := m.reasonOf(w, r, "a copy of the return "+id)
	if !ok {
		return
	}
	readID, err := m.record(r, domain.ReadPDF, opID, []string{id}, reason)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	ret, err := m.o.Reads().RoomTaxReturn(id)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	op, err := m.o.Reads().RoomTaxOperator(opID)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	first, filed := ret.Filed(domain.Date{})
	if !filed {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "No return for %s is filed.", q))
		return
	}
	today, params := m.o.Today(), m.o.Ledger().Params()
	last := ret.Filings[len(ret.Filings)-1]
	v := params.At(q.DueOn())
	paper := returnPaper{operator: op.LegalName, permit: op.SellersPermit, period: q.String(), filed: first.FiledAt.String(), signer: last.Signer, capacity: last.Capacity,
		sales: last.ExemptSales, rate: v.RoomTaxRate.Percent(), feeAmount: staff.Dollars(v.RoomTaxLateFilingFee), retain: q.RetainUntil(params).String(), read: readID, filledIn: true, payRef: ret.PaymentReference()}
	if in, ok := ret.Input(today); ok {
		f, err := domain.ComputeRoomTaxReturn(in, params)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		d := staff.Dollars
		paper.gross, paper.exempt, paper.taxable, paper.tax = d(in.GrossReceipts), d(f.ExemptSales), d(f.TaxableReceipts), d(f.Tax)
		paper.fee, paper.interest, paper.paid, paper.balance, paper.due = d(f.LateFilingFee), d(f.Interest), d(f.Paid), d(f.Balance), f.EffectiveDueOn.String()
	}
	m.writePDF(w, r, "room-tax-"+id, paper)
}

// fitCell cuts s short with "..." to fit a cell of width w in the
// current font (w 0: to the right margin), so that a long buyer's name is
// never drawn over the next column.
func fitCell(pdf *fpdf.Fpdf, s string, w float64) string {
	if w == 0 {
		pw, _ := pdf.GetPageSize()
		_, _, right, _ := pdf.GetMargins()
		w = pw - right - pdf.GetX()
	}
	room := w - 2*pdf.GetCellMargin()
	if pdf.GetStringWidth(s) <= room {
		return s
	}
	for len(s) > 0 && pdf.GetStringWidth(s+"...") > room {
		s = strings.TrimRight(s[:len(s)-1], " ")
	}
	return s + "..."
}
