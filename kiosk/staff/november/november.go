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
	"sync"

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
// forgotten run leaves the roll and the bills' state wrong. The alerts
// need only each step's count and total: one pass over the year's bills
// gives both, and reads no parcel.
func (m *Module) novemberAlerts() ([]staffview.Alert, error) {
	now := domain.DateTimeOf(m.o.Now().In(m.o.Location()))
	year := cycleYear(now.Date)
	run, _, err := m.o.Reads().NovemberRun(year)
	if err != nil {
		return nil, err
	}
	var asks []stepAsk
	if !run.PenaltiesPosted() {
		asks = append(asks, stepAsk{step: "penalties"})
	}
	if !run.RollCertified() && domain.MayCertify(year, now, m.o.Ledger().Params()) {
		asks = append(asks, stepAsk{step: "certify"})
	}
	if len(asks) == 0 {
		return nil, nil
	}
	previews, err := m.previewSteps(year, asks...)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("/staff/november?year=%d", year)
	var out []staffview.Alert
	for i, a := range asks {
		pv := previews[i]
		switch {
		case pv.Count == 0:
		case a.step == "penalties":
			out = append(out, staffview.Alert{TestID: "alert-november-penalties", URL: url, Due: domain.PenaltyDay(year).String(), Count: pv.Count,
				Text: fmt.Sprintf("The %d November penalties are not posted: %d bill(s) unpaid on November 1 owe the penalty since %s (§5.10).", year, pv.Count, domain.PenaltyDay(year))})
		default:
			out = append(out, staffview.Alert{TestID: "alert-november-roll", URL: url, Due: domain.TaxRollDay(year).String(), Count: pv.Count,
				Text: fmt.Sprintf("The %d tax roll is not certified: %d bill(s), %s, unpaid at the end of %s are not on the roll until the November run certifies them (§5.10).", year, pv.Count, pv.Total, domain.TaxRollDay(year))})
		}
	}
	return out, nil
}

// stepAsk says what a page needs of a step's preview: its count and total
// always; the lines of one page in full (page from 1; 0 for none); the
// count and total of each county, which need the county of every line;
// and every line's id, to post the step.
type stepAsk struct {
	step     string // "penalties" | "certify"
	page     int
	counties bool
	ids      bool
}

// stepPreview is what a step of the run posts, as a stepAsk asked for it.
type stepPreview struct {
	Count  int
	Total  domain.Money
	counts map[domain.County]int // when asked for counties (countyTotals)
	totals map[domain.County]domain.Money
	Rows   []domain.RunItem // the page's lines, with their parcels' county, address and owner
	Page   int              // the page Rows are (from 1)
	Lines  []runLine        // every line, when asked for ids
}

// runLine is a line of a step as posting needs it: the bill's id, or the
// special assessment installment's key.
type runLine struct {
	id         string
	assessment bool
}

// add counts the step's next line, in the step's order, and keeps what a
// asks of it. A bill's line comes as its id and parcel alone (stub): the
// lines a page shows are figured in full afterwards (figureRows).
func (pv *stepPreview) add(a stepAsk, it domain.RunItem, amount domain.Money, county func(string) (domain.County, error)) error {
	i := pv.Count
	pv.Count++
	pv.Total = pv.Total.Add(amount)
	if a.counties {
		c, err := county(it.Parcel)
		if err != nil {
			return err
		}
		if pv.totals == nil {
			pv.counts, pv.totals = map[domain.County]int{}, map[domain.County]domain.Money{}
		}
		pv.counts[c]++
		pv.totals[c] = pv.totals[c].Add(amount)
	}
	if a.page > 0 && i >= (a.page-1)*pageSize && i < a.page*pageSize {
		pv.Rows = append(pv.Rows, it)
	}
	if a.ids {
		pv.Lines = append(pv.Lines, runLine{id: it.BillID, assessment: it.Assessment != ""})
	}
	return nil
}

// countyTotals lays out the count and total of each county, Dane then
// Green.
func (pv stepPreview) countyTotals() []CountyTotal {
	var out []CountyTotal
	for _, c := range []domain.County{domain.Dane, domain.Green} {
		out = append(out, CountyTotal{County: c.Title(), Key: string(c), Count: pv.counts[c], Total: pv.totals[c].String()})
	}
	return out
}

// previewSteps previews steps of the year's run in one pass over the
// year's bills: each step's lines are its bills in id order, then for the
// certification the special assessment installments it extends on the
// roll. Each bill's part in both steps comes from the ledger
// (domain.Lookups.NovemberBills: the node keeps each bill's figures once
// figured, and figures again only the bills written since). The penalty
// step takes bills of every standing, since it asks what was unpaid on
// November 1 (a bill paid since still owes its penalty); the
// certification only open ones, since a bill paid in full, or certified
// already, has no balance to certify. A penalty step part of which is
// posted (domain.RunPartsFormat) lists the bills it has yet to post. The
// lines a page shows are figured in full from their bills, with their
// parcels; the county totals, when asked for, read every parcel's county
// from the ledger's index.
func (m *Module) previewSteps(year int, asks ...stepAsk) ([]stepPreview, error) {
	out := make([]stepPreview, len(asks))
	var posted map[string]bool
	for _, a := range asks {
		if a.step == "penalties" {
			var err error
			if posted, err = m.o.Reads().NovemberPosted(year, a.step); err != nil {
				return nil, err
			}
		}
	}
	today := m.o.Today()
	var counties map[string]domain.County
	county := func(id string) (domain.County, error) {
		if counties == nil {
			// The county totals need the county of (nearly) every
			// line: the ledger's index of parcels by county gives them
			// all at less cost than a read of each.
			var err error
			if counties, err = m.o.Ledger().ParcelCounties(); err != nil {
				return "", err
			}
		}
		return counties[id], nil
	}
	err := m.o.Ledger().NovemberBills(year, today, func(nb domain.NovemberBill) error {
		for i, a := range asks {
			line := nb.Step(a.step)
			switch {
			case !line.Takes:
			case a.step == "penalties" && posted[nb.ID]:
			case a.step == "certify" && nb.Standing != domain.BillOpen:
			default:
				if err := out[i].add(a, domain.RunItem{BillID: nb.ID, Parcel: nb.Parcel, Year: year}, line.Amount, county); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, a := range asks {
		if a.step != "certify" {
			continue
		}
		// Special assessment installments not paid by their date are
		// extended on the roll as a delinquent tax (§5.14(12)).
		items, err := m.o.Reads().AssessmentRollItems(year)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if err := out[i].add(a, it, it.StepAmount(a.step), county); err != nil {
				return nil, err
			}
		}
	}
	for i, a := range asks {
		out[i].Page = a.page
		if err := m.figureRows(year, a.step, out[i].Rows); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// figureRows figures in full the lines a page of a step shows, which the
// preview counted from each bill's amount alone, and adds their parcels'
// county, address and owner.
func (m *Module) figureRows(year int, step string, rows []domain.RunItem) error {
	params, today := m.o.Ledger().Params(), m.o.Today()
	for j, row := range rows {
		if row.Assessment == "" {
			b, err := m.o.Ledger().Bill(row.BillID)
			if err != nil {
				return err
			}
			it, ok, err := domain.NovemberItemOn(b, step, year, today, params)
			if err != nil {
				return fmt.Errorf("bill %s: %w", b.ID, err)
			}
			if ok {
				// A bill written since the count was taken shows as it
				// stands now.
				rows[j] = it
			}
		}
		pc, err := m.o.Ledger().Parcel(rows[j].Parcel)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return err
		}
		rows[j].County, rows[j].Address, rows[j].Owner = pc.County, pc.Address, pc.Owner
	}
	return nil
}

// postedPreview is a complete step's lines (domain.Reads.NovemberItems)
// laid out as a preview asked as a.
func postedPreview(items []domain.RunItem, a stepAsk) stepPreview {
	var pv stepPreview
	for _, it := range items {
		pv.add(a, it, it.StepAmount(a.step), func(string) (domain.County, error) { return it.County, nil })
	}
	pv.Page = a.page
	return pv
}

// pageSize is how many lines of a step a page lists at once: a year's run
// can have thousands.
const pageSize = 100

// pages is how many pages a step of n lines takes.
func pages(n int) int { return max(1, (n+pageSize-1)/pageSize) }

// pagedRun lays out a step's page of lines (pv.Rows, page pv.Page) with
// the count and total of every line; link gives the address of another
// page.
func pagedRun(pv stepPreview, step string, link func(page int) string) RunTable {
	t := RunTable{Count: pv.Count, Total: pv.Total.String(), Pages: pages(pv.Count)}
	t.Page = min(max(pv.Page, 1), t.Pages)
	if t.Page > 1 {
		t.PrevURL = link(t.Page - 1)
	}
	if t.Page < t.Pages {
		t.NextURL = link(t.Page + 1)
	}
	for _, it := range pv.Rows {
		url := "/staff/bills/" + it.BillID
		if it.Assessment != "" {
			url = "/staff/assessment/" + it.Assessment
		}
		t.Rows = append(t.Rows, RunRow{BillID: it.BillID, Account: it.Account, Parcel: it.Parcel, County: it.County.Title(), Owner: it.Owner, Principal: it.Principal.String(), Interest: it.Interest.String(), Penalty: it.Penalty.String(), Amount: it.StepAmount(step).String(), URL: url})
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
	link := func(penPage, rollPage int) string {
		return fmt.Sprintf("/staff/november?year=%d&pen=%d&roll=%d", year, penPage, rollPage)
	}
	asks := []stepAsk{{step: "penalties", page: pageParam(r, "pen")}, {step: "certify", page: pageParam(r, "roll"), counties: true}}
	pvs, err := m.stepLines(run, asks, []bool{v.PenaltiesPosted, v.Certified})
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	pen, cert := pvs[0], pvs[1]
	v.Penalties = pagedRun(pen, "penalties", func(n int) string { return link(n, cert.Page) + "#penalties" })
	v.Roll = pagedRun(cert, "certify", func(n int) string { return link(pen.Page, n) + "#roll" })
	v.Counties = cert.countyTotals()
	m.o.Render(w, r, http.StatusOK, NovemberPage(m.o.Frame(r, fmt.Sprintf("November run %d (§5.10)", year)), v))
}

// stepLines are the lines the run page lists for each step asked: what
// it posted once it is complete (the page's lines alone, unless the
// county totals need every line), else the preview of what it will post
// (for a step part of which is posted, what remains). The steps still to
// post are previewed in one pass over the year's bills. A page past the
// last is the last.
func (m *Module) stepLines(run domain.NovemberRun, asks []stepAsk, complete []bool) ([]stepPreview, error) {
	out := make([]stepPreview, len(asks))
	var todo []stepAsk
	var at []int
	for i, a := range asks {
		if !complete[i] {
			todo, at = append(todo, a), append(at, i)
			continue
		}
		if !a.counties {
			// The run keeps the step's count and total: read only the
			// page's lines.
			pv := stepPreview{Count: run.Lines(a.step), Total: run.PenaltyTotal}
			if a.step == "certify" {
				pv.Total = run.CertifiedTotal
			}
			pv.Page = min(a.page, pages(pv.Count))
			var err error
			if pv.Rows, err = m.o.Reads().NovemberItemsPage(run, a.step, (pv.Page-1)*pageSize, pageSize); err != nil {
				return nil, err
			}
			out[i] = pv
			continue
		}
		items, err := m.o.Reads().NovemberItems(run, a.step)
		if err != nil {
			return nil, err
		}
		a.page = min(a.page, pages(len(items)))
		out[i] = postedPreview(items, a)
	}
	if len(todo) == 0 {
		return out, nil
	}
	pvs, err := m.previewSteps(run.Year, todo...)
	if err != nil {
		return nil, err
	}
	var again []stepAsk
	for j, pv := range pvs {
		if last := pages(pv.Count); todo[j].page > last {
			todo[j].page = last
			again = append(again, todo[j])
		}
	}
	if len(again) > 0 {
		// Asked for a page past the last: show the last, which a second
		// pass reads now that the count is known.
		if pvs, err = m.previewSteps(run.Year, todo...); err != nil {
			return nil, err
		}
	}
	for j, pv := range pvs {
		out[at[j]] = pv
	}
	return out, nil
}

// partPosted says what the parts of a step posted so far hold.
func partPosted(lines int, total domain.Money, at domain.DateTime) string {
	return fmt.Sprintf("Part of this step is posted: %d lines, %s, since %s. The lines below remain; post them to finish the step.", lines, total, at)
}

// submitNovemberStep posts the penalties or certifies the roll for the
// bills the preview lists now. Without confirm it shows the confirm page:
// the count and total, per county, and the first page of lines; with
// confirm it previews the step again (only its lines' ids, count and
// total), refuses a step that changed since, and posts it in parts.
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
	confirmed := m.o.Form(r, "confirm") == "yes"
	ask := stepAsk{step: step, page: 1, counties: true}
	if confirmed {
		ask = stepAsk{step: step, ids: true}
	}
	pvs, err := m.previewSteps(year, ask)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	pv := pvs[0]
	total := pv.Total.String()
	if !confirmed {
		// A step posts every line at once and cannot be undone: show what
		// it will post first, with every line's count and total and the
		// first page of lines (the run page pages through them all).
		v := NovemberConfirm{Year: year, Step: step, Table: pagedRun(pv, step, func(int) string { return fmt.Sprintf("/staff/november?year=%d", year) }), Total: total, Count: pv.Count,
			PenaltyDay: domain.PenaltyDay(year).String(), TaxRollDay: domain.TaxRollDay(year).String(), Today: m.o.Today().String(), Counties: pv.countyTotals()}
		m.o.Render(w, r, http.StatusOK, NovemberConfirmPage(m.o.Frame(r, fmt.Sprintf("Confirm the November run %d (§5.10)", year)), v))
		return
	}
	if m.o.Form(r, "count") != strconv.Itoa(pv.Count) || m.o.Form(r, "total") != total {
		m.o.Fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.10", "The run changed since you confirmed it (now %d bills, %s): review it again.", pv.Count, total))
		return
	}
	if err := m.postParts(r, runParts(step, year, pv.Lines, m.o.LedgerFormat())); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Redirect(w, r, fmt.Sprintf("/staff/november?year=%d", year))
}

// partsInFlight is how many parts of a step the office submits at once.
// The parts of a step name different bills and each is checked against
// the ledger as it stands when it applies, so their order does not
// matter; submitting the next while the last is replicated and applied
// saves a round trip per part. Not more: a part waits for those ahead of
// it to apply, and one that waits past the node's submit wait is
// answered provisionally, which stops the posting (on a loaded machine,
// four at a time did).
const partsInFlight = 2

// postParts submits a step's parts: every part but the last, partsInFlight
// at a time, then the last, which says no more follow and so completes
// the step (domain.RunPartsFormat): only after every other part posted,
// so that a step is never complete without all its lines. A part refused
// stops the parts not submitted yet; the parts posted stay posted, and
// the run page lists what remains.
func (m *Module) postParts(r *http.Request, parts []*domain.NovemberStep) error {
	submit := func(part *domain.NovemberStep) error {
		_, err := m.o.SubmitWith(r, domain.KindNovemberRun, func(c *domain.Command) { c.Payload = part })
		return err
	}
	var (
		mu     sync.Mutex
		first  error
		posted int
		next   int
		wg     sync.WaitGroup
	)
	head := parts[:len(parts)-1]
	for range min(partsInFlight, len(head)) {
		wg.Go(func() {
			for {
				mu.Lock()
				if first != nil || next == len(head) {
					mu.Unlock()
					return
				}
				part := head[next]
				next++
				mu.Unlock()
				err := submit(part)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				} else if err == nil {
					posted++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first == nil {
		if first = submit(parts[len(parts)-1]); first == nil {
			return nil
		}
	}
	if posted > 0 {
		// The parts that posted stay posted: the run page lists what
		// remains, and confirming again posts it.
		return domain.Errorf(domain.ErrorCode(first), "§5.10", "%s %d of the step's parts posted, this one did not; review the run again to post the rest.", domain.ErrorMessage(first), posted)
	}
	return first
}

// runParts splits a step's lines into the commands that post it: from
// ledger format 8 (domain.RunPartsFormat) parts of at most
// domain.RunPartBills lines, each but the last saying more follow, so
// that no log entry writes more than the ledger takes at once, however
// many bills the village has; a step with no line left (its last part
// was not posted) is one empty part that completes it. Before, the whole
// step is one command.
func runParts(step string, year int, lines []runLine, format int) []*domain.NovemberStep {
	size := len(lines)
	if format >= domain.RunPartsFormat {
		size = domain.RunPartBills
	}
	var parts []*domain.NovemberStep
	for start := 0; start == 0 || start < len(lines); start += size {
		in := &domain.NovemberStep{Op: step, Year: year}
		for _, l := range lines[start:min(start+size, len(lines))] {
			if l.assessment {
				in.Assessments = append(in.Assessments, l.id)
				continue
			}
			in.Bills = append(in.Bills, l.id)
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
	// The bill's number for people is the last column, so that a reader
	// of the earlier layout finds every other one where it was: the
	// year's bills as their records hold them give it, without their
	// payments.
	numbers := map[string]string{}
	q := domain.BillQuery{Year: year, Limit: domain.MaxBillPage, Bare: true}
	for {
		bills, err := m.o.Ledger().BillsOfYear(q)
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		for _, b := range bills {
			numbers[b.ID] = b.Shown()
		}
		if len(bills) < q.Bound() {
			break
		}
		q.After = bills[len(bills)-1].ID
	}
	cw := m.o.CSV(w, fmt.Sprintf("tax-roll-%d-%s.csv", year, county))
	_ = cw.Write(TaxRollCSVHeader)
	for _, it := range certified {
		if it.County != county {
			continue
		}
		shown, ok := numbers[it.BillID]
		if !ok {
			shown = it.BillID
		}
		_ = cw.Write([]string{it.County.Title(), it.Parcel, it.Address, it.Owner, it.Account, it.BillID, it.Description, it.BilledOn.String(), it.Principal.String(), it.Interest.String(), it.Penalty.String(), it.Balance.String(), run.CertifiedAt.Date.String(), it.CommandID, domain.TaxRollDay(year).String(), shown})
	}
	if err := cw.Flush(); err != nil {
		m.o.Log().Error("tax roll export", "year", year, "county", county, "err", err)
	}
}
