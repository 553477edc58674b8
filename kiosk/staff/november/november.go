// Package november is the back office's November run (§5.10): the
// penalties posted on bills unpaid on November 1 and the unpaid balances
// certified to the tax roll after its day, each step shown before it
// posts, the per-county roll as CSV, and the start page's alerts when a
// step is late. It is a staff.Module; the run's rules are the domain's.
package november

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// Module is the November run's part of the clerk's office.
type Module struct{ o *staff.Office }

// New returns the module.
func New() *Module { return &Module{} }

// Mount adds the November run's routes, links and alerts.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/november", staff.CapReadBills, m.showNovemberPage)
	o.Page("POST /staff/november", staff.CapNovemberRun, m.submitNovemberStep)
	o.Page("GET /staff/november/{year}/{file}", staff.CapReadBills, m.showTaxRollCSV)
	o.Nav(staff.CapNovemberRun, "November run", "/staff/november")
	o.Alert(func(ctx context.Context, who staff.Who) ([]staffview.Alert, error) {
		if !staff.Allowed(who.Role, staff.CapReadBills) {
			return nil, nil
		}
		return m.novemberAlerts()
	})
	return nil
}

// TaxRollCSVHeader is the layout of the per-county tax roll export
// (docs/clerks-guide.md, "The November run"): one line per certified bill.
// certified_on is the date on the roll, the day the November run certified
// it; tax_roll_on is the day §5.10 names (a bill unpaid at its end goes on
// the roll).
var TaxRollCSVHeader = []string{"county", "parcel", "address", "owner", "account", "bill_id", "description", "billed_on", "principal", "interest", "penalty", "amount_certified", "certified_on", "command_id", "tax_roll_on", "bill_number"}

// runYear returns the cycle year the November run page shows by default:
// this year once November 2 has come, else last year.
func (m *Module) runYear(r *http.Request) int {
	if y, err := strconv.Atoi(r.URL.Query().Get("year")); err == nil && y > 2000 && y < 9999 {
		return y
	}
	return cycleYear(m.o.Today())
}

// cycleYear is the cycle year whose November run is under way on today:
// this year once November 2 has come, else last year.
func cycleYear(today domain.Date) int {
	if today.Before(domain.PenaltyDay(today.Year())) {
		return today.Year() - 1
	}
	return today.Year()
}

// novemberAlerts are the start page's alerts for a November run not done
// by its dates (§5.10): the penalties not posted on or after November 2,
// the roll not certified once November 15 has ended, while bills wait for
// the step. Until the run certifies it, a bill is not on the roll, so a
// forgotten run leaves the roll and the bills' state wrong.
func (m *Module) novemberAlerts() ([]staffview.Alert, error) {
	now := domain.DateTimeOf(m.o.Now().In(m.o.Location()))
	year := cycleYear(now.Date)
	run, _, err := m.o.Reads().NovemberRun(year)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("/staff/november?year=%d", year)
	var out []staffview.Alert
	if !run.PenaltiesPosted() {
		items, err := m.novemberPreview(year, "penalties")
		if err != nil {
			return nil, err
		}
		if len(items) > 0 {
			out = append(out, staffview.Alert{TestID: "alert-november-penalties", URL: url, Due: domain.PenaltyDay(year).String(), Count: len(items),
				Text: fmt.Sprintf("The %d November penalties are not posted: %d bill(s) unpaid on November 1 owe the penalty since %s (§5.10).", year, len(items), domain.PenaltyDay(year))})
		}
	}
	if !run.RollCertified() && domain.MayCertify(year, now, m.o.Ledger().Params()) {
		items, err := m.novemberPreview(year, "certify")
		if err != nil {
			return nil, err
		}
		if len(items) > 0 {
			total := runTotal(items, "certify")
			out = append(out, staffview.Alert{TestID: "alert-november-roll", URL: url, Due: domain.TaxRollDay(year).String(), Count: len(items),
				Text: fmt.Sprintf("The %d tax roll is not certified: %d bill(s), %s, unpaid at the end of %s are not on the roll until the November run certifies them (§5.10).", year, len(items), total, domain.TaxRollDay(year))})
		}
	}
	return out, nil
}

// novemberPreview lists the bills that belong in a step of the year's run
// (domain.NovemberItemOn), in bill id order, each with its parcel's
// county, address and owner, then for the certification the special
// assessment installments it extends on the roll. It reads only the
// year's bills, a page at a time, from the ledger's index of bills by
// tax-roll year (domain.BillQuery): of every standing for the penalty
// step, which asks what was unpaid on November 1 (a bill paid since
// still owes its penalty); only the open ones for the certification,
// since a bill paid in full by its latest payment, or certified already,
// has no balance to certify. A penalty step part of which is posted
// (domain.RunPartsFormat) lists the bills it has yet to post.
func (m *Module) novemberPreview(year int, step string) ([]domain.RunItem, error) {
	q := domain.BillQuery{Year: year, Limit: domain.MaxBillPage}
	if step == "certify" {
		q.Standings = []domain.BillStanding{domain.BillOpen}
	}
	var posted map[string]bool
	if step == "penalties" {
		var err error
		if posted, err = m.o.Reads().NovemberPosted(year, step); err != nil {
			return nil, err
		}
	}
	params, today := m.o.Ledger().Params(), m.o.Today()
	parcels := map[string]domain.Parcel{}
	var out []domain.RunItem
	for {
		bills, err := m.o.Ledger().BillsOfYear(q)
		if err != nil {
			return nil, err
		}
		for _, b := range bills {
			it, ok, err := domain.NovemberItemOn(b, step, year, today, params)
			if err != nil {
				return nil, fmt.Errorf("bill %s: %w", b.ID, err)
			}
			if !ok || posted[b.ID] {
				continue
			}
			pc, seen := parcels[b.Parcel]
			if !seen {
				if pc, err = m.o.Ledger().Parcel(b.Parcel); err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
					return nil, err
				}
				parcels[b.Parcel] = pc
			}
			it.County, it.Address, it.Owner = pc.County, pc.Address, pc.Owner
			out = append(out, it)
		}
		if len(bills) < q.Bound() {
			break
		}
		q.After = bills[len(bills)-1].ID
	}
	if step == "certify" {
		// Special assessment installments not paid by their date are
		// extended on the roll as a delinquent tax (§5.14(12)).
		items, err := m.o.Reads().AssessmentRollItems(year)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if pc, err := m.o.Ledger().Parcel(it.Parcel); err == nil {
				it.County, it.Address, it.Owner = pc.County, pc.Address, pc.Owner
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// runAmount is what a step posts for a line: the penalty, or the balance
// certified.
func runAmount(it domain.RunItem, step string) domain.Money {
	if step == "penalties" {
		return it.Penalty
	}
	return it.Balance
}

// runTotal is what a step posts over all its lines.
func runTotal(items []domain.RunItem, step string) string {
	total := domain.Cents(0)
	for _, it := range items {
		total = total.Add(runAmount(it, step))
	}
	return total.String()
}

// pageSize is how many lines of a step a page lists at once: a year's run
// can have thousands.
const pageSize = 100

// pagedRun lays out page (from 1) of a step's lines, with the count and
// total of every line; link gives the address of another page.
func pagedRun(items []domain.RunItem, step string, page int, link func(page int) string) RunTable {
	t := RunTable{Count: len(items), Total: runTotal(items, step), Pages: max(1, (len(items)+pageSize-1)/pageSize)}
	t.Page = min(max(page, 1), t.Pages)
	if t.Page > 1 {
		t.PrevURL = link(t.Page - 1)
	}
	if t.Page < t.Pages {
		t.NextURL = link(t.Page + 1)
	}
	for _, it := range items[(t.Page-1)*pageSize : min(t.Page*pageSize, len(items))] {
		url := "/staff/bills/" + it.BillID
		if it.Assessment != "" {
			url = "/staff/assessment/" + it.Assessment
		}
		t.Rows = append(t.Rows, RunRow{BillID: it.BillID, Account: it.Account, Parcel: it.Parcel, County: it.County.Title(), Owner: it.Owner, Principal: it.Principal.String(), Interest: it.Interest.String(), Penalty: it.Penalty.String(), Amount: runAmount(it, step).String(), URL: url})
	}
	return t
}

// pageParam reads a page number from the query; anything else is page 1.
func pageParam(r *http.Request, name string) int {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// showNovemberPage previews the year's November run, or shows what was
// posted and certified, with the per-county exports.
func (m *Module) showNovemberPage(w http.ResponseWriter, r *http.Request) {
	year := m.runYear(r)
	run, _, err := m.o.Reads().NovemberRun(year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	who := m.o.Who(r)
	now := domain.DateTimeOf(m.o.Now().In(m.o.Location()))
	v := November{Year: year, PenaltyDay: domain.PenaltyDay(year).String(), TaxRollDay: domain.TaxRollDay(year).String(), CanRun: staff.Allowed(who.Role, staff.CapNovemberRun),
		PenaltiesPosted: run.PenaltiesPosted(), Certified: run.RollCertified(), PenaltiesAt: run.PenaltiesAt.String(), CertifiedAt: run.CertifiedAt.String()}
	if run.PenaltiesOpen {
		v.PenaltiesPart = partPosted(run.Lines("penalties"), run.PenaltyTotal, run.PenaltiesAt)
	}
	if run.CertifyOpen {
		v.RollPart = partPosted(run.Lines("certify"), run.CertifiedTotal, run.CertifiedAt)
	}
	v.MayPost = !now.Date.Before(domain.PenaltyDay(year)) && !v.PenaltiesPosted
	v.MayCertify = domain.MayCertify(year, now, m.o.Ledger().Params()) && v.PenaltiesPosted && !v.Certified
	pen, err := m.stepLines(run, "penalties", v.PenaltiesPosted)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	link := func(penPage, rollPage int) string {
		return fmt.Sprintf("/staff/november?year=%d&pen=%d&roll=%d", year, penPage, rollPage)
	}
	penPage, rollPage := pageParam(r, "pen"), pageParam(r, "roll")
	v.Penalties = pagedRun(pen, "penalties", penPage, func(n int) string { return link(n, rollPage) + "#penalties" })
	cert, err := m.stepLines(run, "certify", v.Certified)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v.Roll = pagedRun(cert, "certify", rollPage, func(n int) string { return link(penPage, n) + "#roll" })
	for _, c := range []domain.County{domain.Dane, domain.Green} {
		n, total := 0, domain.Cents(0)
		for _, it := range cert {
			if it.County == c {
				n++
				total = total.Add(it.Balance)
			}
		}
		v.Counties = append(v.Counties, CountyTotal{County: c.Title(), Key: string(c), Count: n, Total: total.String()})
	}
	m.o.Render(w, r, http.StatusOK, NovemberPage(m.o.Frame(r, fmt.Sprintf("November run %d (§5.10)", year)), v))
}

// stepLines are the lines the run page lists for a step: what it posted
// once it is complete, else the preview of what it will post (for a step
// part of which is posted, what remains).
func (m *Module) stepLines(run domain.NovemberRun, step string, complete bool) ([]domain.RunItem, error) {
	if complete {
		return m.o.Reads().NovemberItems(run, step)
	}
	return m.novemberPreview(run.Year, step)
}

// partPosted says what the parts of a step posted so far hold.
func partPosted(lines int, total domain.Money, at domain.DateTime) string {
	return fmt.Sprintf("Part of this step is posted: %d lines, %s, since %s. The lines below remain; post them to finish the step.", lines, total, at)
}

// submitNovemberStep posts the penalties or certifies the roll for the
// bills the preview lists now.
func (m *Module) submitNovemberStep(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(m.o.Form(r, "year"))
	if err != nil {
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "§5.10", "The cycle year is missing."))
		return
	}
	step := m.o.Form(r, "step")
	if step != "penalties" && step != "certify" {
		m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "§5.10", "Unknown November run step %q.", step))
		return
	}
	if err := m.novemberStepOpen(year, step); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	items, err := m.novemberPreview(year, step)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	total := runTotal(items, step)
	if m.o.Form(r, "confirm") != "yes" {
		// A step posts every line at once and cannot be undone: show what
		// it will post first, with every line's count and total and the
		// first page of lines (the run page pages through them all).
		v := NovemberConfirm{Year: year, Step: step, Table: pagedRun(items, step, 1, func(int) string { return fmt.Sprintf("/staff/november?year=%d", year) }), Total: total, Count: len(items),
			PenaltyDay: domain.PenaltyDay(year).String(), TaxRollDay: domain.TaxRollDay(year).String(), Today: m.o.Today().String()}
		for _, c := range []domain.County{domain.Dane, domain.Green} {
			n, sum := 0, domain.Cents(0)
			for _, it := range items {
				if it.County == c {
					n++
					sum = sum.Add(runAmount(it, step))
				}
			}
			v.Counties = append(v.Counties, CountyTotal{County: c.Title(), Key: string(c), Count: n, Total: sum.String()})
		}
		m.o.Render(w, r, http.StatusOK, NovemberConfirmPage(m.o.Frame(r, fmt.Sprintf("Confirm the November run %d (§5.10)", year)), v))
		return
	}
	if m.o.Form(r, "count") != strconv.Itoa(len(items)) || m.o.Form(r, "total") != total {
		m.o.Fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.10", "The run changed since you confirmed it (now %d bills, %s): review it again.", len(items), total))
		return
	}
	for i, part := range runParts(step, year, items, m.o.LedgerFormat()) {
		if _, err := m.o.SubmitWith(r, domain.KindNovemberRun, func(c *domain.Command) { c.Payload = part }); err != nil {
			if i > 0 {
				// The parts before this one posted: the run page lists
				// what remains, and confirming again posts it.
				err = domain.Errorf(domain.ErrorCode(err), "§5.10", "%s %d of the step's parts posted before this one was not; review the run again to post the rest.", domain.ErrorMessage(err), i)
			}
			m.o.Fail(w, r, err)
			return
		}
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/november?year=%d", year))
}

// runParts splits a step's lines into the commands that post it: from
// ledger format 8 (domain.RunPartsFormat) parts of at most
// domain.RunPartBills lines, each but the last saying more follow, so
// that no log entry writes more than the ledger takes at once, however
// many bills the village has; a step with no line left (its last part
// was not posted) is one empty part that completes it. Before, the whole
// step is one command.
func runParts(step string, year int, items []domain.RunItem, format int) []*domain.NovemberStep {
	size := len(items)
	if format >= domain.RunPartsFormat {
		size = domain.RunPartBills
	}
	var parts []*domain.NovemberStep
	for start := 0; start == 0 || start < len(items); start += size {
		in := &domain.NovemberStep{Op: step, Year: year}
		for _, it := range items[start:min(start+size, len(items))] {
			if it.Assessment != "" {
				in.Assessments = append(in.Assessments, it.BillID)
				continue
			}
			in.Bills = append(in.Bills, it.BillID)
		}
		parts = append(parts, in)
		if size == 0 {
			break
		}
	}
	for _, in := range parts[:len(parts)-1] {
		in.More = true
	}
	return parts
}

// novemberStepOpen refuses, before the confirm page, a step the ledger
// would refuse now (applyNovemberStep): penalties before November 2 or a
// second time, a certification before November 15 ends, before the
// penalties, or a second time.
func (m *Module) novemberStepOpen(year int, step string) error {
	run, _, err := m.o.Reads().NovemberRun(year)
	if err != nil {
		return err
	}
	now := domain.DateTimeOf(m.o.Now().In(m.o.Location()))
	switch {
	case step == "penalties" && now.Date.Before(domain.PenaltyDay(year)):
		return domain.Errorf(domain.ECONFLICT, "§5.10", "Penalties for %d are posted on or after %s.", year, domain.PenaltyDay(year))
	case step == "penalties" && run.PenaltiesPosted():
		return domain.Errorf(domain.ECONFLICT, "§5.10", "The %d penalties were already posted (%s).", year, run.PenaltiesAt)
	case step == "certify" && !domain.MayCertify(year, now, m.o.Ledger().Params()):
		return domain.Errorf(domain.ECONFLICT, "§5.10", "The %d tax roll is certified after November 15 ends (the office's closing time that day).", year)
	case step == "certify" && !run.PenaltiesPosted():
		return domain.Errorf(domain.ECONFLICT, "§5.10", "Post the %d penalties before certifying the tax roll.", year)
	case step == "certify" && run.RollCertified():
		return domain.Errorf(domain.ECONFLICT, "§5.10", "The %d tax roll was already certified (%s).", year, run.CertifiedAt)
	}
	return nil
}

// showTaxRollCSV serves the certified roll of one county in the layout of
// TaxRollCSVHeader.
func (m *Module) showTaxRollCSV(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(r.PathValue("year"))
	county := domain.County(strings.TrimSuffix(r.PathValue("file"), ".csv"))
	if err != nil || !county.Valid() {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such tax roll export."))
		return
	}
	run, _, err := m.o.Reads().NovemberRun(year)
	if err != nil || !run.RollCertified() {
		m.o.Fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.10", "The %d tax roll is not certified yet.", year))
		return
	}
	certified, err := m.o.Reads().NovemberItems(run, "certify")
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	cw := m.o.CSV(w, fmt.Sprintf("tax-roll-%d-%s.csv", year, county))
	_ = cw.Write(TaxRollCSVHeader)
	for _, it := range certified {
		if it.County != county {
			continue
		}
		// The bill's number for people is the last column, so that a
		// reader of the earlier layout finds every other one where it was.
		shown := it.BillID
		if b, err := m.o.Ledger().Bill(it.BillID); err == nil {
			shown = b.Shown()
		}
		_ = cw.Write([]string{it.County.Title(), it.Parcel, it.Address, it.Owner, it.Account, it.BillID, it.Description, it.BilledOn.String(), it.Principal.String(), it.Interest.String(), it.Penalty.String(), it.Balance.String(), run.CertifiedAt.Date.String(), it.CommandID, domain.TaxRollDay(year).String(), shown})
	}
	if err := cw.Flush(); err != nil {
		m.o.Log().Error("tax roll export", "year", year, "county", county, "err", err)
	}
}
