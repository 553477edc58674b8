package treasury

import (
	"bytes"
	"fmt"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/villagehall/appliance/domain"
)

// settlementPDF writes the statement of a settlement (§5.17, Wis. Stat.
// 74.23, 74.25): the period and its collections, each taxing jurisdiction's
// levy and share of them, what was paid to it and what is left, the
// village's share kept, and the payments. Dated the day it was asked for
// (the statement is as of that day), so the same ledger and day render
// the same bytes.
func settlementPDF(out *bytes.Buffer, st domain.SettlementStatement, loc *time.Location) error {
	stamp := domain.NewDateTime(st.AsOf, 12, 0, 0).Time(loc)
	pdf := fpdf.New("P", "mm", "Letter", "")
	pdf.SetCompression(false) // a short statement; its text stays searchable
	pdf.SetCreationDate(stamp)
	pdf.SetModificationDate(stamp)
	pdf.SetTitle(fmt.Sprintf("Settlement of the %d %s County roll, %s", st.TaxYear, st.County.Title(), st.Period), false)
	pdf.SetAuthor("Village of Belleville", false)
	pdf.SetMargins(18, 18, 18)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")

	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(0, 8, tr("Village of Belleville"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 12)
	pdf.CellFormat(0, 6, tr(fmt.Sprintf("Settlement of the %d %s County tax roll: %s settlement", st.TaxYear, st.County.Title(), st.Period)), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	from := "the roll's issue"
	if !st.From.IsZero() {
		from = st.From.String()
	}
	pdf.CellFormat(0, 5, tr(fmt.Sprintf("Collections from %s through %s; due by %s (Wis. Stat. 74.23, 74.25). Statement as of %s.", from, st.Through, st.DueOn, st.AsOf)), "", 1, "L", false, 0, "")
	pdf.Ln(3)

	figure := func(k string, v domain.Money) {
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(110, 5.5, tr(k), "", 0, "L", false, 0, "")
		pdf.CellFormat(40, 5.5, dollars(v), "", 1, "R", false, 0, "")
	}
	figure("General property tax collected", st.Collected)
	figure("Special items collected (the village's)", st.Specials)
	if st.Apportioned {
		figure("The village's share of the general tax, kept", st.VillageShare)
	}
	figure("Due to the taxing jurisdictions", st.Due)
	figure("Paid", st.Paid)
	figure("Unsettled", st.Unsettled)
	pdf.Ln(4)

	if !st.Apportioned {
		pdf.SetFont("Helvetica", "B", 10)
		pdf.MultiCell(0, 5.5, tr("The roll's levy apportionment is not recorded: the shares of the taxing jurisdictions cannot be computed until it is."), "", "L", false)
	} else {
		pdf.SetFont("Helvetica", "B", 9)
		widths := []float64{62, 28, 24, 24, 20, 22}
		for i, h := range []string{"Jurisdiction", "Kind", "Levy", "Share", "Paid", "Unsettled"} {
			align := "R"
			if i < 2 {
				align = "L"
			}
			pdf.CellFormat(widths[i], 6, tr(h), "B", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 9)
		for _, sh := range st.Shares {
			unsettled := dollars(sh.Unsettled)
			if sh.Retained {
				unsettled = "kept"
			}
			cells := []string{sh.Name, sh.Kind.Title(), dollars(sh.Levy), dollars(sh.Share), dollars(sh.Paid), unsettled}
			for i, c := range cells {
				align := "R"
				if i < 2 {
					align = "L"
				}
				pdf.CellFormat(widths[i], 5.5, tr(c), "", 0, align, false, 0, "")
			}
			pdf.Ln(-1)
		}
		pdf.Ln(2)
		pdf.SetFont("Helvetica", "", 8)
		pdf.MultiCell(0, 4.5, tr("Shares are in proportion to the levies, to the cent: each rounded down, then the cents left over one each to the largest remainders, ties to the jurisdiction listed first; they add up to the collections exactly."), "", "L", false)
	}
	if len(st.Payments) > 0 {
		pdf.Ln(3)
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(0, 6, tr("Payments"), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 9)
		for _, p := range st.Payments {
			pdf.CellFormat(0, 5, tr(fmt.Sprintf("%s  %s  to %s  (%s, recorded by %s)", p.PaidOn, dollars(p.Amount), jurisdictionName(st, p.Jurisdiction), p.Reference, p.By)), "", 1, "L", false, 0, "")
		}
	}
	return pdf.Output(out)
}
