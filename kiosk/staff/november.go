package staff

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// TaxRollCSVHeader is the layout of the per-county tax roll export
// (docs/clerks-guide.md, "The November run"): one line per certified bill.
// certified_on is the date on the roll, the day the November run certified
// it; tax_roll_on is the day §5.10 names (a bill unpaid at its end goes on
// the roll).
var TaxRollCSVHeader = []string{"county", "parcel", "address", "owner", "account", "bill_id", "description", "billed_on", "principal", "interest", "penalty", "amount_certified", "certified_on", "command_id", "tax_roll_on"}

// runYear returns the cycle year the November run page shows by default:
// this year once November 2 has come, else last year.
func (s *Server) runYear(r *http.Request) int {
	if y, err := strconv.Atoi(r.URL.Query().Get("year")); err == nil && y > 2000 && y < 9999 {
		return y
	}
	return cycleYear(s.today())
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
func (s *Server) novemberAlerts() ([]view.Alert, error) {
	now := domain.DateTimeOf(s.now().In(s.loc))
	year := cycleYear(now.Date)
	run, _, err := s.reads.NovemberRun(year)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("/staff/november?year=%d", year)
	var out []view.Alert
	if run.PenaltiesCommand == "" {
		items, err := s.novemberPreview(year, "penalties")
		if err != nil {
			return nil, err
		}
		if len(items) > 0 {
			out = append(out, view.Alert{TestID: "alert-november-penalties", URL: url,
				Text: fmt.Sprintf("The %d November penalties are not posted: %d bill(s) unpaid on November 1 owe the penalty since %s (§5.10).", year, len(items), domain.PenaltyDay(year))})
		}
	}
	if run.CertifyCommand == "" && domain.MayCertify(year, now, s.ledger.Params()) {
		items, err := s.novemberPreview(year, "certify")
		if err != nil {
			return nil, err
		}
		if len(items) > 0 {
			_, total := runRows(items, "certify")
			out = append(out, view.Alert{TestID: "alert-november-roll", URL: url,
				Text: fmt.Sprintf("The %d tax roll is not certified: %d bill(s), %s, unpaid at the end of %s are not on the roll until the November run certifies them (§5.10).", year, len(items), total, domain.TaxRollDay(year))})
		}
	}
	return out, nil
}

// novemberPreview lists every bill of the ledger that belongs in a step
// of the year's run, with its parcel's county.
func (s *Server) novemberPreview(year int, step string) ([]domain.RunItem, error) {
	parcels, err := s.ledger.Parcels()
	if err != nil {
		return nil, err
	}
	var out []domain.RunItem
	for _, pc := range parcels {
		bills, err := s.ledger.BillsByParcel(pc.ID)
		if err != nil {
			return nil, err
		}
		for _, b := range bills {
			it, ok, err := domain.NovemberItemOn(b, step, year, s.today(), s.ledger.Params())
			if err != nil {
				return nil, fmt.Errorf("bill %s: %w", b.ID, err)
			}
			if ok {
				it.County, it.Address, it.Owner = pc.County, pc.Address, pc.Owner
				out = append(out, it)
			}
		}
	}
	if step == "certify" {
		// Special assessment installments not paid by their date are
		// extended on the roll as a delinquent tax (§5.14(12)).
		items, err := s.reads.AssessmentRollItems(year)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if pc, err := s.ledger.Parcel(it.Parcel); err == nil {
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

func runRows(items []domain.RunItem, step string) ([]view.RunRow, string) {
	total := domain.Cents(0)
	var rows []view.RunRow
	for _, it := range items {
		amt := runAmount(it, step)
		total = total.Add(amt)
		url := "/staff/bills/" + it.BillID
		if it.Assessment != "" {
			url = "/staff/assessment/" + it.Assessment
		}
		rows = append(rows, view.RunRow{BillID: it.BillID, Account: it.Account, Parcel: it.Parcel, County: it.County.Title(), Owner: it.Owner, Principal: it.Principal.String(), Interest: it.Interest.String(), Penalty: it.Penalty.String(), Amount: amt.String(), URL: url})
	}
	return rows, total.String()
}

// showNovemberPage previews the year's November run, or shows what was
// posted and certified, with the per-county exports.
func (s *Server) showNovemberPage(w http.ResponseWriter, r *http.Request) {
	year := s.runYear(r)
	run, _, err := s.reads.NovemberRun(year)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	pr, _ := principalFrom(r.Context())
	now := domain.DateTimeOf(s.now().In(s.loc))
	v := view.November{Year: year, PenaltyDay: domain.PenaltyDay(year).String(), TaxRollDay: domain.TaxRollDay(year).String(), CanRun: Allowed(pr.user.Role, CapNovemberRun),
		PenaltiesPosted: run.PenaltiesCommand != "", Certified: run.CertifyCommand != "", PenaltiesAt: run.PenaltiesAt.String(), CertifiedAt: run.CertifiedAt.String()}
	v.MayPost = !now.Date.Before(domain.PenaltyDay(year)) && !v.PenaltiesPosted
	v.MayCertify = domain.MayCertify(year, now, s.ledger.Params()) && v.PenaltiesPosted && !v.Certified
	pen := run.Penalties
	if !v.PenaltiesPosted {
		if pen, err = s.novemberPreview(year, "penalties"); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	v.Penalties, v.PenaltyTotal = runRows(pen, "penalties")
	cert := run.Certified
	if !v.Certified {
		if cert, err = s.novemberPreview(year, "certify"); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	v.Roll, v.RollTotal = runRows(cert, "certify")
	for _, c := range []domain.County{domain.Dane, domain.Green} {
		n, total := 0, domain.Cents(0)
		for _, it := range cert {
			if it.County == c {
				n++
				total = total.Add(it.Balance)
			}
		}
		v.Counties = append(v.Counties, view.CountyTotal{County: c.Title(), Key: string(c), Count: n, Total: total.String()})
	}
	s.render(w, r, http.StatusOK, view.NovemberPage(s.page(r, fmt.Sprintf("November run %d (§5.10)", year)), v))
}

// submitNovemberStep posts the penalties or certifies the roll for the
// bills the preview lists now.
func (s *Server) submitNovemberStep(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(formValue(r, "year"))
	if err != nil {
		s.fail(w, r, domain.Errorf(domain.EINVALID, "§5.10", "The cycle year is missing."))
		return
	}
	step := formValue(r, "step")
	if step != "penalties" && step != "certify" {
		s.fail(w, r, domain.Errorf(domain.EINVALID, "§5.10", "Unknown November run step %q.", step))
		return
	}
	if err := s.novemberStepOpen(year, step); err != nil {
		s.fail(w, r, err)
		return
	}
	items, err := s.novemberPreview(year, step)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows, total := runRows(items, step)
	if formValue(r, "confirm") != "yes" {
		// A step posts every line at once and cannot be undone: show what
		// it will post first.
		v := view.NovemberConfirm{Year: year, Step: step, Rows: rows, Total: total, Count: len(rows), PenaltyDay: domain.PenaltyDay(year).String(), TaxRollDay: domain.TaxRollDay(year).String(),
			Today: s.today().String()}
		for _, c := range []domain.County{domain.Dane, domain.Green} {
			n, sum := 0, domain.Cents(0)
			for _, it := range items {
				if it.County == c {
					n++
					sum = sum.Add(runAmount(it, step))
				}
			}
			v.Counties = append(v.Counties, view.CountyTotal{County: c.Title(), Key: string(c), Count: n, Total: sum.String()})
		}
		s.render(w, r, http.StatusOK, view.NovemberConfirmPage(s.page(r, fmt.Sprintf("Confirm the November run %d (§5.10)", year)), v))
		return
	}
	if formValue(r, "count") != strconv.Itoa(len(rows)) || formValue(r, "total") != total {
		s.fail(w, r, domain.Errorf(domain.ECONFLICT, "§5.10", "The run changed since you confirmed it (now %d bills, %s): review it again.", len(rows), total))
		return
	}
	in := domain.NovemberStep{Op: step, Year: year}
	for _, it := range items {
		if it.Assessment != "" {
			in.Assessments = append(in.Assessments, it.BillID)
			continue
		}
		in.Bills = append(in.Bills, it.BillID)
	}
	if _, err := s.submit(r, domain.KindNovemberRun, func(c *domain.Command) { c.Payload = &in }); err != nil {
		s.fail(w, r, err)
		return
	}
	redirect(w, r, fmt.Sprintf("/staff/november?year=%d", year))
}

// novemberStepOpen refuses, before the confirm page, a step the ledger
// would refuse now (applyNovemberStep): penalties before November 2 or a
// second time, a certification before November 15 ends, before the
// penalties, or a second time.
func (s *Server) novemberStepOpen(year int, step string) error {
	run, _, err := s.reads.NovemberRun(year)
	if err != nil {
		return err
	}
	now := domain.DateTimeOf(s.now().In(s.loc))
	switch {
	case step == "penalties" && now.Date.Before(domain.PenaltyDay(year)):
		return domain.Errorf(domain.ECONFLICT, "§5.10", "Penalties for %d are posted on or after %s.", year, domain.PenaltyDay(year))
	case step == "penalties" && run.PenaltiesCommand != "":
		return domain.Errorf(domain.ECONFLICT, "§5.10", "The %d penalties were already posted (%s).", year, run.PenaltiesAt)
	case step == "certify" && !domain.MayCertify(year, now, s.ledger.Params()):
		return domain.Errorf(domain.ECONFLICT, "§5.10", "The %d tax roll is certified after November 15 ends (the office's closing time that day).", year)
	case step == "certify" && run.PenaltiesCommand == "":
		return domain.Errorf(domain.ECONFLICT, "§5.10", "Post the %d penalties before certifying the tax roll.", year)
	case step == "certify" && run.CertifyCommand != "":
		return domain.Errorf(domain.ECONFLICT, "§5.10", "The %d tax roll was already certified (%s).", year, run.CertifiedAt)
	}
	return nil
}

// showTaxRollCSV serves the certified roll of one county in the layout of
// TaxRollCSVHeader.
func (s *Server) showTaxRollCSV(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(r.PathValue("year"))
	county := domain.County(strings.TrimSuffix(r.PathValue("file"), ".csv"))
	if err != nil || !county.Valid() {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "", "There is no such tax roll export."))
		return
	}
	run, _, err := s.reads.NovemberRun(year)
	if err != nil || run.CertifyCommand == "" {
		s.fail(w, r, domain.Errorf(domain.ENOTFOUND, "§5.10", "The %d tax roll is not certified yet.", year))
		return
	}
	cw := startCSV(w, fmt.Sprintf("tax-roll-%d-%s.csv", year, county))
	_ = cw.Write(TaxRollCSVHeader)
	for _, it := range run.Certified {
		if it.County != county {
			continue
		}
		_ = cw.Write([]string{it.County.Title(), it.Parcel, it.Address, it.Owner, it.Account, it.BillID, it.Description, it.BilledOn.String(), it.Principal.String(), it.Interest.String(), it.Penalty.String(), it.Balance.String(), run.CertifiedAt.Date.String(), it.CommandID, domain.TaxRollDay(year).String()})
	}
	if err := cw.Flush(); err != nil {
		s.log.Error("tax roll export", "year", year, "county", county, "err", err)
	}
}
