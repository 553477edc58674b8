// Package cards is the back office's side of the card terminal: the daily
// card reconciliation for the treasurer and the auditors, and the start
// page's word on whether the kiosk takes cards now.
//
// The reconciliation of a day sets the processor's balance transactions
// created that day (read through the terminal's driver, terminal.Statement)
// beside the ledger's card receipts of that day, matched by command id
// (the driver puts it in the metadata of every charge and refund). A
// transaction without a receipt, or a receipt without a transaction, is
// flagged; so is a pair whose amounts differ. The payout compared is the
// processor's payouts created that day against the deposit the ledger
// expects: the day's card receipts less the processor's fees on them.
// (Reading: a processor pays a day's charges out later, on its own
// schedule; the page shows what it paid out that day beside what the day's
// receipts should bring, and the treasurer follows a difference up.)
package cards

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// Receipts is the ledger's side: the card receipts whose intake date is
// day. The appliance reads them from the journal and the commands'
// results.
type Receipts interface {
	CardReceipts(day domain.Date) ([]domain.Receipt, error)
}

// DayReceipts is Receipts that also counts a day's card receipts and
// reads them a page at a time. The appliance's ledger keeps each day's
// count and total as the receipts post, so a day of thirty thousand card
// payments with no processor's statement to match (every receipt is a
// line of its own, and unmatched) is shown a page at a time without
// reading the day whole.
type DayReceipts interface {
	Receipts
	// CardReceiptsPage returns the count and total of the card receipts
	// whose intake date is day, and at most n of them (all when n is
	// 0) from the from-th on (0 the first), in the order CardReceipts
	// gives them.
	CardReceiptsPage(day domain.Date, from, n int) (ReceiptsPage, error)
	// EachCardReceipt calls fn with the first n card receipts whose
	// intake date is day (all when n is 0), in the order CardReceipts
	// gives them, until fn returns an error: each with its number,
	// command id and amount alone, what the day's CSV lists.
	EachCardReceipt(day domain.Date, n int, fn func(domain.Receipt) error) error
}

// ReceiptsPage is a page of a day's card receipts, with the day's count
// and total.
type ReceiptsPage struct {
	Count    int
	Total    domain.Money
	Receipts []domain.Receipt
}

// Module mounts the reconciliation page, its CSV and the start-page alert.
type Module struct {
	statement terminal.Statement           // nil: this node drives no terminal with a statement
	receipts  Receipts                     // the ledger's card receipts
	status    func() (ok bool, why string) // whether the kiosk takes cards now; nil: no kiosk here
	o         *staff.Office
}

// New returns the module. statement may be nil (the node has no card
// terminal), as may status (the node serves no kiosk).
func New(statement terminal.Statement, receipts Receipts, status func() (bool, string)) *Module {
	return &Module{statement: statement, receipts: receipts, status: status}
}

// Mount adds the page, the CSV, the link and the alert.
func (m *Module) Mount(o *staff.Office) error {
	m.o = o
	o.Page("GET /staff/cards", staff.CapCardReconcile, m.showReconciliationPage)
	o.Page("GET /staff/cards.csv", staff.CapCardReconcile, m.exportReconciliation)
	o.Page("POST /staff/cards/settle", staff.CapTreasury, m.submitSettlement)
	o.Nav(staff.CapCardReconcile, "Card reconciliation", "/staff/cards")
	o.Alert(m.alerts)
	return nil
}

// alerts says on the start page that the kiosk takes no cards now, and why:
// to the people who look after the appliance (the processor or the reader
// needs fixing) and to those who take or reconcile the money that comes to
// the window instead. Why the processor refused is internal: a hotel
// operator, a board member or a department head is not told.
func (m *Module) alerts(_ context.Context, who staff.Who) ([]staffview.Alert, error) {
	if m.status == nil {
		return nil, nil
	}
	if !staff.Allowed(who.Role, staff.CapOperations) && !staff.Allowed(who.Role, staff.CapWindow) && !staff.Allowed(who.Role, staff.CapCardReconcile) {
		return nil, nil
	}
	if ok, why := m.status(); !ok {
		return []staffview.Alert{{TestID: "alert-cards", Text: "Card payments at the kiosk are unavailable: " + why + ". Residents are sent to the window.", URL: "/staff/cards"}}, nil
	}
	return nil, nil
}

// Line is one row of the reconciliation: a transaction and the receipt of
// the same command id, or either alone.
type Line struct {
	CommandID   string
	Receipt     *domain.Receipt
	Transaction *terminal.Transaction
	Problem     string // "" when both sides agree
	Note        string // what a line that agrees is, when it needs saying
}

// voidSuffix ends the key of the kiosk's refund of a charge the ledger
// refused (kiosk.refundCharge): the charge and its refund cancel out and
// neither has a receipt.
const voidSuffix = "-void"

// Reconciliation is one day's.
type Reconciliation struct {
	Day          domain.Date
	Lines        []Line
	Payouts      []terminal.Transaction
	Receipts     domain.Money // the day's card receipts
	Fees         domain.Money // the processor's fees on the day's transactions
	Expected     domain.Money // Receipts − refunds to cards − Fees: the deposit the ledger expects
	PaidOut      domain.Money // the payouts created that day (positive)
	Difference   domain.Money // PaidOut − Expected
	Unmatched    int
	NoStatement  bool // the node has no processor statement to read
	CardsWorking bool
	// The page shows Lines[First:First+linesPerPage]; Prev and Next link
	// to the pages around it ("": none). The CSV has every line.
	First      int
	Prev, Next string
	// paged is set when Lines holds the page's lines only, of count
	// lines in all (pagedReconciliation).
	paged bool
	count int
}

// linesPerPage is the lines of the reconciliation a page shows: a day of
// thirty thousand card payments is reconciled whole (its totals, its
// unmatched lines listed first) and shown a page at a time.
const linesPerPage = 500

// Shown returns the lines of the page.
func (r Reconciliation) Shown() []Line {
	if r.paged {
		return r.Lines
	}
	return r.Lines[min(r.First, len(r.Lines)):min(r.First+linesPerPage, len(r.Lines))]
}

// LineCount returns how many lines the reconciliation has in all.
func (r Reconciliation) LineCount() int {
	if r.paged {
		return r.count
	}
	return len(r.Lines)
}

// noCharge is the problem of a receipt no transaction matches.
const noCharge = "receipt in the ledger, no charge at the processor"

// pagedReconciliation is the reconciliation of a day with no processor's
// statement, from the day's count and total and the receipts of one page
// of it, the page's lines starting at first. It is what reconcile makes
// of the day's receipts alone: every receipt a line of its own (a
// command has one receipt), unmatched, in the receipts' order; the
// deposit expected is their total.
func pagedReconciliation(day domain.Date, first int, p ReceiptsPage) Reconciliation {
	rec := Reconciliation{Day: day, First: first, NoStatement: true, paged: true, count: p.Count, Receipts: p.Total, Unmatched: p.Count}
	for i := range p.Receipts {
		rc := p.Receipts[i]
		rec.Lines = append(rec.Lines, Line{CommandID: rc.CommandID, Receipt: &rc, Problem: noCharge})
	}
	rec.Expected = rec.Receipts.Sub(rec.Fees) // no refunds, no fees: no statement
	rec.Difference = rec.PaidOut.Sub(rec.Expected)
	return rec
}

// reconcile builds the reconciliation of day from both sides.
func reconcile(day domain.Date, rcs []domain.Receipt, txns []terminal.Transaction) Reconciliation {
	rec := Reconciliation{Day: day}
	byID := map[string]*Line{}
	var order []string
	line := func(id string) *Line {
		if l, ok := byID[id]; ok {
			return l
		}
		l := &Line{CommandID: id}
		byID[id] = l
		order = append(order, id)
		return l
	}
	for i := range rcs {
		rc := rcs[i]
		rec.Receipts = rec.Receipts.Add(rc.Amount)
		line(rc.CommandID).Receipt = &rc
	}
	for i := range txns {
		t := txns[i]
		switch t.Type {
		case "payout":
			rec.Payouts = append(rec.Payouts, t)
			rec.PaidOut = rec.PaidOut.Add(t.Amount.Neg())
			continue
		}
		rec.Fees = rec.Fees.Add(t.Fee)
		id := t.CommandID
		if id == "" {
			id = "(none: " + t.ID + ")"
		}
		l := line(id)
		if l.Transaction != nil { // a second movement of one command: a refund of it
			l = line(id + " · " + t.ID)
		}
		l.Transaction = &t
	}
	refunds := domain.Money{}
	for _, id := range order {
		l := byID[id]
		switch {
		case l.Transaction != nil && l.Transaction.Type == "refund":
			if strings.HasSuffix(l.CommandID, voidSuffix) {
				l.Note = "the kiosk refunded a charge the ledger refused"
				break
			}
			refunds = refunds.Add(l.Transaction.Amount.Neg())
			l.Note = "refund to the card"
		case l.Receipt == nil:
			if v, ok := byID[id+voidSuffix]; ok && v.Transaction != nil && v.Transaction.Amount.Neg().Equal(l.Transaction.Amount) {
				l.Note = "charged and refunded: the ledger refused the payment"
				break
			}
			l.Problem = "charged at the processor, no receipt in the ledger"
		case l.Transaction == nil:
			l.Problem = noCharge
		case !l.Receipt.Amount.Equal(l.Transaction.Amount):
			l.Problem = "amounts differ"
		}
		if l.Problem != "" {
			rec.Unmatched++
		}
		rec.Lines = append(rec.Lines, *l)
	}
	sort.SliceStable(rec.Lines, func(i, j int) bool { return (rec.Lines[i].Problem != "") && (rec.Lines[j].Problem == "") })
	rec.Expected = rec.Receipts.Sub(refunds).Sub(rec.Fees)
	rec.Difference = rec.PaidOut.Sub(rec.Expected)
	return rec
}

// day reads the day v names (default yesterday: a day's transactions
// are complete once it has ended).
func (m *Module) day(v string) (domain.Date, error) {
	if v == "" {
		return m.o.Today().AddDays(-1), nil
	}
	d, err := domain.ParseDate(v)
	if err != nil {
		return domain.Date{}, domain.Errorf(domain.EINVALID, "", "%q is not a date like 2026-11-30.", v)
	}
	return d, nil
}

// paged returns the ledger's receipts when a reconciliation reads them a
// page at a time: with no processor's statement to match, from a ledger
// that counts its days (DayReceipts).
func (m *Module) paged() (DayReceipts, bool) {
	dr, ok := m.receipts.(DayReceipts)
	return dr, ok && m.statement == nil
}

// load reads both sides of the day v names, the page's lines from first
// on.
func (m *Module) load(r *http.Request, v string, first int) (Reconciliation, error) {
	day, err := m.day(v)
	if err != nil {
		return Reconciliation{}, err
	}
	if dr, ok := m.paged(); ok {
		p, err := dr.CardReceiptsPage(day, first, linesPerPage)
		if err != nil {
			return Reconciliation{}, err
		}
		return pagedReconciliation(day, first, p), nil
	}
	rcs, err := m.receipts.CardReceipts(day)
	if err != nil {
		return Reconciliation{}, err
	}
	if m.statement == nil {
		rec := reconcile(day, rcs, nil)
		rec.NoStatement = true
		rec.First = first
		return rec, nil
	}
	loc := m.o.Location()
	from := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, loc)
	next := day.AddDays(1)
	to := time.Date(next.Year(), next.Month(), next.Day(), 0, 0, 0, 0, loc)
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	txns, err := m.statement.Transactions(ctx, from, to)
	if err != nil {
		return Reconciliation{}, domain.Errorf(domain.EUNAVAILABLE, "", "The card processor's statement cannot be read now: %v", err)
	}
	rec := reconcile(day, rcs, txns)
	rec.First = first
	return rec, nil
}

func (m *Module) showReconciliationPage(w http.ResponseWriter, r *http.Request) {
	m.reconciliationPage(w, r, r.URL.Query().Get("day"), http.StatusOK, "", nil)
}

// reconciliationPage draws the reconciliation of the day v names, with
// msg and the values of form beside the settlement form when a
// settlement was refused.
func (m *Module) reconciliationPage(w http.ResponseWriter, r *http.Request, v string, status int, msg string, form map[string]string) {
	first := 0
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			m.o.Fail(w, r, domain.Errorf(domain.EINVALID, "", "%q is not a line number.", v))
			return
		}
		first = n
	}
	rec, err := m.load(r, v, first)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	page := func(first int) string {
		return "/staff/cards?" + url.Values{"day": {rec.Day.String()}, "from": {strconv.Itoa(first)}}.Encode()
	}
	if rec.First > 0 {
		rec.Prev = page(max(rec.First-linesPerPage, 0))
	}
	if rec.First+linesPerPage < rec.LineCount() {
		rec.Next = page(rec.First + linesPerPage)
	}
	s, err := m.settlement(m.o.Who(r), rec.Day, form, msg)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, status, reconciliationPage(m.o.Frame(r, "Card reconciliation "+rec.Day.String()), rec, s))
}

func (m *Module) exportReconciliation(w http.ResponseWriter, r *http.Request) {
	if dr, ok := m.paged(); ok {
		m.exportPaged(w, r, dr)
		return
	}
	rec, err := m.load(r, r.URL.Query().Get("day"), 0)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	c := m.o.CSV(w, "cards-"+rec.Day.String()+".csv")
	_ = c.Write(csvHeader)
	for _, l := range rec.Lines {
		_ = c.Write(csvLine(rec.Day, l))
	}
	for _, p := range rec.Payouts {
		_ = c.Write([]string{rec.Day.String(), "", "", "", p.ID, "payout", p.Amount.String(), p.Fee.String(), p.Net.String(), ""})
	}
	writeTotals(c, rec)
	_ = c.Flush()
}

// exportPaged writes the CSV of a day with no processor's statement from
// the ledger's count of the day and its receipts as the ledger streams
// them (DayReceipts.EachCardReceipt): the lines and totals the whole
// day's reconciliation would give, the day never held whole. It lists as
// many receipts as the count it started with (a receipt of the day that
// posts meanwhile comes after them).
func (m *Module) exportPaged(w http.ResponseWriter, r *http.Request, dr DayReceipts) {
	day, err := m.day(r.URL.Query().Get("day"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	p, err := dr.CardReceiptsPage(day, 0, 1)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	rec := pagedReconciliation(day, 0, ReceiptsPage{Count: p.Count, Total: p.Total})
	c := m.o.CSV(w, "cards-"+day.String()+".csv")
	_ = c.Write(csvHeader)
	if rec.count > 0 {
		// One row, filled again for each of a day's tens of thousands of
		// receipts: at the unit's heap limit every allocation here is
		// paid again in the collector's work.
		row, on := make([]string, len(csvHeader)), day.String()
		err = dr.EachCardReceipt(day, rec.count, func(rc domain.Receipt) error {
			fillCSVLine(row, on, rc.CommandID, &rc, nil, noCharge)
			return c.Write(row)
		})
	}
	if err == nil {
		writeTotals(c, rec)
		err = c.Flush()
	}
	if err != nil {
		m.o.Log().Error("card reconciliation export", "day", day, "err", err)
	}
}

var csvHeader = []string{"day", "command_id", "receipt", "receipt_amount", "transaction", "type", "amount", "fee", "net", "problem"}

// csvLine is a line of the reconciliation in its CSV.
func csvLine(day domain.Date, l Line) []string {
	row := make([]string, len(csvHeader))
	fillCSVLine(row, day.String(), l.CommandID, l.Receipt, l.Transaction, l.Problem)
	return row
}

// fillCSVLine fills row (of csvHeader's length) with a line of the
// reconciliation.
func fillCSVLine(row []string, day, commandID string, rc *domain.Receipt, t *terminal.Transaction, problem string) {
	clear(row)
	row[0], row[1], row[9] = day, commandID, problem
	if rc != nil {
		row[2], row[3] = rc.Number, rc.Amount.String()
	}
	if t != nil {
		row[4], row[5], row[6], row[7], row[8] = t.ID, t.Type, t.Amount.String(), t.Fee.String(), t.Net.String()
	}
}

// writeTotals writes the CSV's closing rows: the deposit expected and
// what was paid out.
func writeTotals(c *staff.CSVWriter, rec Reconciliation) {
	_ = c.Write([]string{rec.Day.String(), "", "", "", "", "expected_deposit", rec.Expected.String(), rec.Fees.String(), "", ""})
	_ = c.Write([]string{rec.Day.String(), "", "", "", "", "paid_out", rec.PaidOut.String(), "", rec.Difference.String(), differenceWord(rec)})
}

func differenceWord(rec Reconciliation) string {
	if rec.Difference.IsZero() {
		return ""
	}
	return "payout differs from the deposit expected"
}
