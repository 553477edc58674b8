package roomtax

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// Reports: the collections of a year in total (public) and by operator
// (confidential, a read), the tourism share and its transfers, and the
// export for the IRS or the Department of Revenue (a read naming the
// official it is for).

// yearOf reads ?year= (default this year).
func (m *Module) yearOf(r *http.Request) (int, error) {
	s := r.URL.Query().Get("year")
	if s == "" {
		if s = form(r, "year"); s == "" {
			return m.o.Today().Year(), nil
		}
	}
	y, err := strconv.Atoi(s)
	if err != nil || y < 2000 || y > 9999 {
		return 0, domain.Errorf(domain.EINVALID, "", "The year %q is not a year like 2026.", s)
	}
	return y, nil
}

// showReports shows the collections of a year in total, by quarter, and
// the share for tourism promotion (Wis. Stat. 66.0615).
func (m *Module) showReports(w http.ResponseWriter, r *http.Request) {
	m.renderReports(w, r, http.StatusOK, "")
}

func (m *Module) renderReports(w http.ResponseWriter, r *http.Request, status int, problem string) {
	year, err := m.yearOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	returns, err := m.o.Reads().RoomTaxReturnsPaidIn(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	transfers, err := m.o.Reads().TourismTransfers()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	quarters, total := domain.RoomTaxCollections(returns, year)
	share := domain.ComputeTourismShare(year, total.Total, transfers, m.o.Ledger().Params())
	who := m.who(r)
	v := Reports{Year: strconv.Itoa(year), Total: money(total.Total), Collections: money(share.Collections), Retained: money(share.Retained),
		Share: share.Share.Percent(), Required: money(share.Required), Transferred: money(share.Transferred), Due: money(share.Remaining),
		CanAdmin:      staff.Allowed(who.Role, staff.CapRoomTaxAdmin),
		CanByOperator: who.Role == domain.RoleTreasurer || who.Role == domain.RoleAuditor, Error: problem}
	for i, q := range quarters {
		v.Quarters = append(v.Quarters, QuarterTotal{Period: domain.Quarter{Year: year, Q: i + 1}.String(), Total: money(q.Total)})
	}
	for _, t := range transfers {
		if t.Year == year {
			v.Transfers = append(v.Transfers, Transfer{ID: t.ID, Year: strconv.Itoa(t.Year), On: t.On.String(), Amount: money(t.Amount), To: t.To, Reference: t.Reference, By: t.By})
		}
	}
	m.o.Render(w, r, status, ReportsPage(m.o.Frame(r, "Room tax collections"), v))
}

// showByOperator shows the collections of a year by operator: a read of
// every operator's returns, which only the treasurer's office and the
// auditors may make.
func (m *Module) showByOperator(w http.ResponseWriter, r *http.Request) {
	year, err := m.yearOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	reason, ok := m.reasonOf(w, r, "the collections of "+strconv.Itoa(year)+" by operator")
	if !ok {
		return
	}
	readID, err := m.record(r, domain.ReadReport, domain.AllOperators, nil, reason)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	returns, err := m.o.Reads().RoomTaxReturnsPaidIn(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	ops, err := m.o.Reads().RoomTaxOperators()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	quarters, total := domain.RoomTaxCollections(returns, year)
	v := ByOperator{Year: strconv.Itoa(year), ReadID: readID, Total: money(total.Total)}
	for _, op := range ops {
		row := OperatorTotal{Operator: op.ID, Name: op.LegalName, Total: money(total.ByOperator[op.ID])}
		for _, q := range quarters {
			row.Quarters = append(row.Quarters, money(q.ByOperator[op.ID]))
		}
		v.Rows = append(v.Rows, row)
	}
	m.o.Render(w, r, http.StatusOK, ByOperatorPage(m.o.Frame(r, "Room tax collections by operator, "+strconv.Itoa(year)), v))
}

// submitTransfer records a transfer of collections to tourism promotion.
func (m *Module) submitTransfer(w http.ResponseWriter, r *http.Request) {
	year, err := m.yearOf(r)
	var on domain.Date
	var amount domain.Money
	if err == nil {
		on, err = staff.ParseDate("The date of the transfer", form(r, "on"))
	}
	if err == nil {
		amount, err = staff.ParseAmount("The amount", form(r, "amount"))
	}
	if err == nil {
		_, err = m.o.Submit(r, &domain.RoomTaxTransfer{ID: newID("T"), Year: year, On: on, Amount: amount, To: form(r, "to"), Reference: form(r, "reference")})
	}
	if err != nil {
		status, msg, ok := m.o.FormError(err)
		if !ok {
			m.o.Fail(w, r, err)
			return
		}
		m.renderReports(w, r, status, msg)
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/room-tax/reports?year=%d", year))
}

// exportReadSubjects is how many returns each recorded read of an export
// names (a variable so that a test can make an export of a few returns
// take several reads).
var exportReadSubjects = domain.MaxReadSubjects

// showExport is the export for a named official of the IRS or the
// Department of Revenue (§5.22(8)(b)): every return of a year (by the
// quarters' year) with its figures as of today, as CSV. The read is
// recorded, with the official and agency, before a byte is written: as
// one read of every return, or, for a year of more returns than one read
// may name (domain.MaxReadSubjects), as reads of exportReadSubjects
// returns each, every row naming the read that covers its return.
func (m *Module) showExport(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	year, err := m.yearOf(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	returns, err := m.o.Reads().RoomTaxReturnsOfYear(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	reason := q.Get("reason")
	if reason == "" {
		reason = "a request of the " + q.Get("agency")
	}
	parts := slices.Collect(slices.Chunk(returns, exportReadSubjects))
	if len(parts) == 0 {
		parts = [][]domain.QuarterlyReturn{nil} // a year without returns: its read is recorded all the same
	}
	readOf := map[string]string{}
	for _, part := range parts {
		res, err := m.o.Submit(r, &domain.RoomTaxRead{What: domain.ReadExport, Operator: domain.AllOperators, Subjects: ids(part), Reason: reason,
			Official: q.Get("official"), Agency: q.Get("agency")})
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, x := range part {
			readOf[x.ID] = res.CommandID
		}
	}
	ops := map[string]domain.RoomTaxOperator{}
	if all, err := m.o.Reads().RoomTaxOperators(); err == nil {
		for _, op := range all {
			ops[op.ID] = op
		}
	}
	today, p := m.o.Today(), m.o.Ledger().Params()
	cw := m.o.CSV(w, fmt.Sprintf("room-tax-%d-%s.csv", year, q.Get("agency")))
	_ = cw.Write([]string{"operator", "legal_name", "sellers_permit", "period", "filed_on", "gross_receipts", "exempt_sales", "taxable_receipts", "tax", "late_filing_fee", "interest", "paid", "balance", "as_of", "read"})
	for _, x := range returns {
		in, ok := x.Input(today)
		if !ok {
			continue
		}
		f, err := domain.ComputeRoomTaxReturn(in, p)
		if err != nil {
			continue
		}
		filed := ""
		if !in.FiledOn.IsZero() {
			filed = in.FiledOn.String()
		}
		op := ops[x.Operator]
		_ = cw.Write([]string{x.Operator, op.LegalName, op.SellersPermit, x.Period.String(), filed, money(in.GrossReceipts), money(f.ExemptSales), money(f.TaxableReceipts),
			money(f.Tax), money(f.LateFilingFee), money(f.Interest), money(f.Paid), money(f.Balance), today.String(), readOf[x.ID]})
	}
	_ = cw.Flush()
}
