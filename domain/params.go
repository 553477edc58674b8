package domain

import (
	_ "embed"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// defaultParams is the parameter file shipped in the binary. Configuration
// layers an override file over it with Merge.
//
//go:embed params.txt
var defaultParams []byte

// Params holds every rate, threshold, fee and count of Chapter 5 as
// effective-dated rows, plus the village holidays. A Params is immutable:
// Merge, WithFeeSchedule and WithHolidays return new values, so one Params
// can be shared by every rule and every goroutine of an adapter.
type Params struct {
	rows     map[string][]paramRow // by name, ascending by effective date, one row a date
	holidays []Date                // ascending, no duplicates
	cal      Calendar
	// rates holds receivableRates by the dates its rows take effect,
	// worked out on first use (every payment asks, on every replica).
	rates atomic.Pointer[ratesIndex]
}

// receivableRows are the parameters a bill's §5.10 account is computed with.
var receivableRows = [...]string{"receivable_due_days", "receivable_interest", "receivable_penalty"}

// paramRow is one line of a parameter file.
type paramRow struct {
	effective Date
	val       paramValue
	raw       string
	note      string
}

// paramValue holds a parsed value; which field is meaningful depends on the
// parameter's kind.
type paramValue struct {
	money Money
	rate  Rate
	n     int
	clock ClockTime
}

type paramKind int

const (
	kindMoney paramKind = iota
	kindRate
	kindCount
	kindClock
)

// paramDef describes one parameter: its name in files, its kind, the bounds
// of a count (a count of 0 business days, or of a million, is a typo that
// would hang or break a rule, so it is refused at start), and where its value
// goes in Values.
type paramDef struct {
	name     string
	kind     paramKind
	min, max int
	set      func(*Values, paramValue)
}

// paramDefs is the immutable table of every parameter the rules read. Its
// order is the order of the bits in Values.has.
var paramDefs = [...]paramDef{
	{"receivable_due_days", kindCount, 0, 366, func(v *Values, x paramValue) { v.ReceivableDueDays = x.n }},
	{"receivable_interest", kindRate, 0, 0, func(v *Values, x paramValue) { v.ReceivableInterest = x.rate }},
	{"receivable_penalty", kindRate, 0, 0, func(v *Values, x paramValue) { v.ReceivablePenalty = x.rate }},
	{"status_letter", kindMoney, 0, 0, func(v *Values, x paramValue) { v.StatusLetterFee = x.money }},
	{"returned_check", kindMoney, 0, 0, func(v *Values, x paramValue) { v.ReturnedCheckFee = x.money }},
	{"office_closes", kindClock, 0, 0, func(v *Values, x paramValue) { v.OfficeCloses = x.clock }},
	{"status_letter_business_days", kindCount, 1, 365, func(v *Values, x paramValue) { v.StatusLetterBusinessDays = x.n }},
	{"refund_business_days", kindCount, 1, 365, func(v *Values, x paramValue) { v.RefundBusinessDays = x.n }},
	{"room_tax_rate", kindRate, 0, 0, func(v *Values, x paramValue) { v.RoomTaxRate = x.rate }},
	{"room_tax_interest_monthly", kindRate, 0, 0, func(v *Values, x paramValue) { v.RoomTaxInterestMonthly = x.rate }},
	{"room_tax_late_filing_fee", kindMoney, 0, 0, func(v *Values, x paramValue) { v.RoomTaxLateFilingFee = x.money }},
	{"room_tax_extension_months", kindCount, 0, 12, func(v *Values, x paramValue) { v.RoomTaxExtensionMonths = x.n }},
	{"room_tax_delinquent_days", kindCount, 0, 366, func(v *Values, x paramValue) { v.RoomTaxDelinquentDays = x.n }},
	{"board_approval_threshold", kindMoney, 0, 0, func(v *Values, x paramValue) { v.BoardApprovalThreshold = x.money }},
	{"emergency_limit_purchasing_agent", kindMoney, 0, 0, func(v *Values, x paramValue) { v.EmergencyLimitPurchasingAgent = x.money }},
	{"emergency_limit_department_head", kindMoney, 0, 0, func(v *Values, x paramValue) { v.EmergencyLimitDepartmentHead = x.money }},
	{"class1_notice_threshold", kindMoney, 0, 0, func(v *Values, x paramValue) { v.Class1NoticeThreshold = x.money }},
	{"class2_notice_threshold", kindMoney, 0, 0, func(v *Values, x paramValue) { v.Class2NoticeThreshold = x.money }},
	{"board_size", kindCount, 1, 99, func(v *Values, x paramValue) { v.BoardSize = x.n }},
	{"hearing_min_days", kindCount, 0, 366, func(v *Values, x paramValue) { v.HearingMinDays = x.n }},
	{"hearing_max_days", kindCount, 0, 366, func(v *Values, x paramValue) { v.HearingMaxDays = x.n }},
	{"repair_publish_days", kindCount, 0, 366, func(v *Values, x paramValue) { v.RepairPublishDays = x.n }},
	{"repair_mail_days", kindCount, 0, 366, func(v *Values, x paramValue) { v.RepairMailDays = x.n }},
	{"claim_disallowance_days", kindCount, 0, 3660, func(v *Values, x paramValue) { v.ClaimDisallowanceDays = x.n }},
	{"claim_suit_months", kindCount, 0, 120, func(v *Values, x paramValue) { v.ClaimSuitMonths = x.n }},
	{"installment_threshold", kindMoney, 0, 0, func(v *Values, x paramValue) { v.InstallmentThreshold = x.money }},
	{"payment_limit", kindMoney, 0, 0, func(v *Values, x paramValue) { v.PaymentLimit = x.money }},
	// §5.22 room tax: the annual return, records, and the tourism share.
	{"room_tax_annual_days", kindCount, 1, 366, func(v *Values, x paramValue) { v.RoomTaxAnnualDays = x.n }},
	{"room_tax_records_years", kindCount, 1, 50, func(v *Values, x paramValue) { v.RoomTaxRecordsYears = x.n }},
	{"room_tax_tourism_share", kindRate, 0, 0, func(v *Values, x paramValue) { v.RoomTaxTourismShare = x.rate }},
	{"room_tax_retained_amount", kindMoney, 0, 0, func(v *Values, x paramValue) { v.RoomTaxRetainedAmount = x.money }},

	// §5.14 special assessment projects (assessmentproject.go).
	{"assessment_appeal_days", kindCount, 1, 3660, func(v *Values, x paramValue) { v.AssessmentAppealDays = x.n }},
	{"notice_posting_places", kindCount, 1, 99, func(v *Values, x paramValue) { v.NoticePostingPlaces = x.n }},
}

// Values.has holds one bit per parameter: a 65th parameter must widen it
// (this line stops the build before a bit is silently lost).
var _ [64 - len(paramDefs)]struct{}

// paramIndex returns the position of name in paramDefs, or −1.
func paramIndex(name string) int {
	for i := range paramDefs {
		if paramDefs[i].name == name {
			return i
		}
	}
	return -1
}

// Values are the parameters in force on one date, as the rules read them.
// A parameter with no row effective on or before that date is absent: its
// field is zero and Has reports false.
type Values struct {
	ReceivableDueDays  int  // §5.10: days after billing to pay without interest (30)
	ReceivableInterest Rate // §5.10: interest a month or fraction (0.015)
	ReceivablePenalty  Rate // §5.10: added once to bills unpaid on November 1 (0.015)

	StatusLetterFee          Money     // §5.11: fee schedule `status_letter`
	ReturnedCheckFee         Money     // §5.20: fee schedule `returned_check`
	OfficeCloses             ClockTime // §5.11: a request at or after this time is received the next business day
	StatusLetterBusinessDays int       // §5.11: business days to prepare a letter (2)
	RefundBusinessDays       int       // §5.07(1): business days to refund an excess (15)

	RoomTaxRate            Rate  // §5.22: 0.07
	RoomTaxInterestMonthly Rate  // §5.22: 12% a year taken as 0.01 a month
	RoomTaxLateFilingFee   Money // §5.22: 100.00
	RoomTaxExtensionMonths int   // §5.22: longest extension, in calendar months (1)
	RoomTaxDelinquentDays  int   // §5.22: grace after a timely return before delinquency (30)

	BoardApprovalThreshold        Money // §5.12: board approval at this amount or more (3,000.00)
	EmergencyLimitPurchasingAgent Money // §5.12: emergency purchase strictly under this (2,500.00)
	EmergencyLimitDepartmentHead  Money // §5.12: emergency purchase strictly under this (500.00)
	Class1NoticeThreshold         Money // Wis. Stat. 62.15: class 1 notice from here (5,000.00)
	Class2NoticeThreshold         Money // §5.13: class 2 notice strictly over this (25,000.00)

	BoardSize int // §5.03: members of the village board (7)

	HearingMinDays    int // §5.14(4): earliest hearing, days after notice (10)
	HearingMaxDays    int // §5.14(4): latest hearing, days after notice (40)
	RepairPublishDays int // §5.14(13): publish or post, days before the hearing (20)
	RepairMailDays    int // §5.14(13): mail, days before the hearing (10)

	ClaimDisallowanceDays int // §5.08: a claim not acted on is disallowed after (120)
	ClaimSuitMonths       int // §5.08: months to sue after a disallowance is served (6)

	InstallmentThreshold Money // Ch. 74: installments from this general tax (100.00)

	PaymentLimit Money // the largest single payment any channel takes (kiosk, window, API)

	RoomTaxAnnualDays     int   // §5.22(3)(b): the annual return is filed within this many days of the year's close (90)
	RoomTaxRecordsYears   int   // §5.22(7): records are kept this many years from the filing period (5)
	RoomTaxTourismShare   Rate  // Wis. Stat. 66.0615(1m): share of collections beyond the retained amount for tourism (0.70)
	RoomTaxRetainedAmount Money // Wis. Stat. 66.0615(1m): collections a year the village retains before the share
	AssessmentAppealDays  int   // Wis. Stat. 66.0703(12): days after the final resolution is published to appeal (90)
	NoticePostingPlaces   int   // §5.14(6), §5.14(13): public places a posted notice goes up in, at least (3)

	has uint64 // bit i set when paramDefs[i] has a row in force
}

// Has reports whether parameter name has a value in force.
func (v Values) Has(name string) bool {
	i := paramIndex(name)
	return i >= 0 && v.has&(1<<i) != 0
}

// require returns an EINVALID error naming the first of names with no value
// in force on d: a date before the first resolution that set it.
func (v Values) require(section string, d Date, names ...string) error {
	for _, n := range names {
		if !v.Has(n) {
			if d.IsZero() {
				return Errorf(EINVALID, section, "No value of %q is in force.", n)
			}
			return Errorf(EINVALID, section, "No value of %q is in force on %s.", n, d)
		}
	}
	return nil
}

// DefaultParams returns the parameters embedded in the binary. It panics
// only if the embedded file is broken, which a test rules out.
func DefaultParams() *Params {
	p, err := ParseParams("params.txt", defaultParams)
	if err != nil {
		panic(err)
	}
	if err := p.Complete(); err != nil {
		panic(err)
	}
	return p
}

// ParseParams reads a parameter file: rows "EFFECTIVE NAME VALUE [NOTE…]",
// holidays "holiday DATE [NAME…]", comments starting with # and blank lines.
// Errors name the file, the line and the reason, like
// `params.txt:12: unknown parameter "foo"`. An override file may set only
// some parameters; see Merge and Complete.
func ParseParams(name string, data []byte) (*Params, error) {
	p := &Params{rows: make(map[string][]paramRow)}
	bad := func(line int, format string, args ...any) (*Params, error) {
		return nil, Errorf(EINVALID, "", "%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	seenHoliday := make(map[Date]int)
	seenRow := make(map[string]int)
	for i, text := range strings.Split(string(data), "\n") {
		line := i + 1
		text = strings.TrimSpace(strings.TrimSuffix(text, "\r"))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if f[0] == "holiday" {
			if len(f) < 2 {
				return bad(line, "holiday without a date")
			}
			d, err := ParseDate(f[1])
			if err != nil {
				return bad(line, "bad holiday date %q", f[1])
			}
			if prev, dup := seenHoliday[d]; dup {
				return bad(line, "holiday %s already listed on line %d", d, prev)
			}
			seenHoliday[d] = line
			p.holidays = append(p.holidays, d)
			continue
		}
		if len(f) < 3 {
			return bad(line, "want \"EFFECTIVE NAME VALUE [NOTE]\", got %q", text)
		}
		eff, err := ParseDate(f[0])
		if err != nil {
			return bad(line, "bad effective date %q", f[0])
		}
		idx := paramIndex(f[1])
		if idx < 0 {
			return bad(line, "unknown parameter %q", f[1])
		}
		def := paramDefs[idx]
		val, reason := parseParamValue(def, f[2])
		if reason != "" {
			return bad(line, "%s: %s", def.name, reason)
		}
		key := def.name + " " + eff.String()
		if prev, dup := seenRow[key]; dup {
			return bad(line, "%s already has a row effective %s on line %d", def.name, eff, prev)
		}
		seenRow[key] = line
		p.rows[def.name] = append(p.rows[def.name], paramRow{eff, val, f[2], strings.Join(f[3:], " ")})
	}
	for _, rows := range p.rows {
		slices.SortStableFunc(rows, func(a, b paramRow) int { return a.effective.Compare(b.effective) })
	}
	slices.SortFunc(p.holidays, Date.Compare)
	p.cal = NewCalendar(p.holidays)
	return p, nil
}

func parseParamValue(def paramDef, s string) (paramValue, string) {
	var v paramValue
	switch def.kind {
	case kindMoney:
		m, err := ParseMoney(s)
		if err != nil {
			return v, "want an amount like 35.00, got " + strconv.Quote(s)
		}
		v.money = m
	case kindRate:
		r, err := ParseRate(s)
		if err != nil {
			return v, "want a rate like 0.015 or 1.5%, got " + strconv.Quote(s)
		}
		v.rate = r
	case kindCount:
		n, err := strconv.Atoi(s)
		if err != nil || n < def.min || n > def.max {
			return v, fmt.Sprintf("want a whole number from %d to %d, got %q", def.min, def.max, s)
		}
		v.n = n
	case kindClock:
		c, err := ParseClockTime(s)
		if err != nil {
			return v, "want a time of day like 16:30, got " + strconv.Quote(s)
		}
		v.clock = c
	}
	return v, ""
}

// Complete returns an error naming the first parameter that has no row at
// all. The shipped defaults are complete; an override file need not be.
func (p *Params) Complete() error {
	for _, def := range paramDefs {
		if len(p.rows[def.name]) == 0 {
			return Errorf(EINVALID, "", "parameter %q has no row", def.name)
		}
	}
	return nil
}

// At returns, for each parameter, the value of its latest row effective on
// or before d (never the first: a later resolution supersedes an earlier
// one).
func (p *Params) At(d Date) Values { return p.first(d, len(paramDefs)) }

// receivableAt is At for §5.10's three parameters only (the first three of
// paramDefs): the receivable's account asks for them once a month of
// every bill it figures, and the other rows are not its business.
//
// It sets the three fields itself rather than through paramDefs' setters
// (as first does): a Values passed to a setter escapes to the heap, and
// this is asked of every month of every bill a page or a run figures.
// TestReceivableParamsComeFirst checks that it answers as At does.
func (p *Params) receivableAt(d Date) Values {
	var v Values
	if x, ok := p.valueOn("receivable_due_days", d); ok {
		v.ReceivableDueDays = x.n
		v.has |= 1 << 0
	}
	if x, ok := p.valueOn("receivable_interest", d); ok {
		v.ReceivableInterest = x.rate
		v.has |= 1 << 1
	}
	if x, ok := p.valueOn("receivable_penalty", d); ok {
		v.ReceivablePenalty = x.rate
		v.has |= 1 << 2
	}
	return v
}

// valueOn returns the value of parameter name in force on d: its latest
// row effective on or before d.
func (p *Params) valueOn(name string, d Date) (paramValue, bool) {
	rows := p.rows[name]
	n, _ := slices.BinarySearchFunc(rows, d, func(r paramRow, d Date) int {
		if r.effective.After(d) {
			return 1
		}
		return -1
	})
	if n == 0 {
		return paramValue{}, false
	}
	return rows[n-1].val, true
}

// receivableParams is how many of paramDefs, from the first, are §5.10's.
const receivableParams = 3

// first returns the values in force on d of the first n parameters.
func (p *Params) first(d Date, n int) Values {
	var v Values
	for i := range paramDefs[:n] {
		rows := p.rows[paramDefs[i].name]
		// The number of rows effective on or before d; the last of them rules.
		n, _ := slices.BinarySearchFunc(rows, d, func(r paramRow, d Date) int {
			if r.effective.After(d) {
				return 1
			}
			return -1
		})
		if n > 0 {
			paramDefs[i].set(&v, rows[n-1].val)
			v.has |= 1 << i
		}
	}
	return v
}

// Latest returns the value of each parameter's latest row, for rules whose
// input carries no date.
func (p *Params) Latest() Values { return p.At(NewDate(9999, time.December, 31)) }

// valuesOn returns the values in force on d, or the latest for a zero d.
func (p *Params) valuesOn(d Date) Values {
	if d.IsZero() {
		return p.Latest()
	}
	return p.At(d)
}

// receivableRates returns a fingerprint of the §5.10 rows (the due days,
// the interest and the penalty) effective on or before d. A bill's summary
// (BillSummary) records it for the day of its latest payment: the account
// it keeps was computed with those rows, and a row added or replaced on or
// before that day (a payment taken offline can be dated before a
// resolution that applied first; a configuration file can replace a row)
// would change the full computation, so then the bill is recomputed.
func (p *Params) receivableRates(d Date) string {
	idx := p.rates.Load()
	if idx == nil {
		idx = p.indexRates()
		p.rates.Store(idx)
	}
	// The rows in force change only on the days rows take effect: d
	// has the fingerprint of the latest such day on or before it.
	i, found := slices.BinarySearchFunc(idx.from, d, Date.Compare)
	if !found {
		if i == 0 {
			return idx.before
		}
		i--
	}
	return idx.print[i]
}

// ratesIndex is receivableRates of every day on which one of its rows
// takes effect (from, ascending), and of the days before them all.
type ratesIndex struct {
	from   []Date
	print  []string
	before string
}

func (p *Params) indexRates() *ratesIndex {
	idx := &ratesIndex{}
	for _, name := range receivableRows {
		for _, r := range p.rows[name] {
			idx.from = append(idx.from, r.effective)
		}
	}
	slices.SortFunc(idx.from, Date.Compare)
	idx.from = slices.Compact(idx.from)
	for _, d := range idx.from {
		idx.print = append(idx.print, p.ratesOn(d))
	}
	idx.before = p.ratesOn(Date{}) // no row in force
	return idx
}

// ratesOn is receivableRates worked out from the rows.
func (p *Params) ratesOn(d Date) string {
	h := fnv.New64a()
	for _, name := range receivableRows {
		for _, r := range p.rows[name] {
			if r.effective.After(d) {
				break
			}
			fmt.Fprintf(h, "%s %s %s\n", name, r.effective, r.raw)
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// Holidays returns the village holidays in date order.
func (p *Params) Holidays() []Date { return slices.Clone(p.holidays) }

// Calendar returns the business-day calendar of the village holidays.
func (p *Params) Calendar() Calendar { return p.cal }

// Merge returns p overlaid with o, the parameters of a configuration file:
// a row of o replaces p's row of the same parameter and effective date and
// adds to the others; a year in which o lists any holiday takes o's holidays
// for that year instead of p's.
func (p *Params) Merge(o *Params) *Params {
	q := p.clone()
	for name, orows := range o.rows {
		rows := slices.Clone(q.rows[name])
		for _, r := range orows {
			i, found := slices.BinarySearchFunc(rows, r.effective, func(x paramRow, d Date) int { return x.effective.Compare(d) })
			if found {
				rows[i] = r
			} else {
				rows = slices.Insert(rows, i, r)
			}
		}
		q.rows[name] = rows
	}
	if len(o.holidays) > 0 {
		years := make(map[int]bool)
		for _, h := range o.holidays {
			years[h.Year()] = true
		}
		days := slices.DeleteFunc(slices.Clone(q.holidays), func(d Date) bool { return years[d.Year()] })
		q = q.WithHolidays(append(days, o.holidays...))
	}
	return q
}

// FeeRow is one row of the village fee schedule as cases and resolutions
// give it: the date it takes effect and the fees it sets.
type FeeRow struct {
	Effective     Date  `json:"effective"`
	StatusLetter  Money `json:"status_letter"`
	ReturnedCheck Money `json:"returned_check"`
}

// UnmarshalJSON reads a fee row strictly: all three fields, no others, no
// negative fee.
func (r *FeeRow) UnmarshalJSON(b []byte) error {
	var row FeeRow
	if err := decodeObject("", "fee schedule row", b,
		req("effective", &row.Effective),
		req("status_letter", &row.StatusLetter),
		req("returned_check", &row.ReturnedCheck),
	); err != nil {
		return err
	}
	if row.StatusLetter.IsNegative() || row.ReturnedCheck.IsNegative() {
		return Errorf(EINVALID, "", "A fee in the fee schedule is negative.")
	}
	*r = row
	return nil
}

// WithFeeSchedule returns a copy of p whose fee rows (status_letter and
// returned_check) are exactly rows; of two rows with the same effective
// date, the later in the list wins.
func (p *Params) WithFeeSchedule(rows []FeeRow) *Params {
	q := p.clone()
	var letter, check []paramRow
	for _, r := range rows {
		letter = append(letter, paramRow{effective: r.Effective, val: paramValue{money: r.StatusLetter}, raw: r.StatusLetter.String(), note: "fee schedule"})
		check = append(check, paramRow{effective: r.Effective, val: paramValue{money: r.ReturnedCheck}, raw: r.ReturnedCheck.String(), note: "fee schedule"})
	}
	q.rows["status_letter"] = dedupeRows(letter)
	q.rows["returned_check"] = dedupeRows(check)
	return q
}

// dedupeRows sorts rows by date, keeping the last of rows with equal dates.
func dedupeRows(rows []paramRow) []paramRow {
	slices.SortStableFunc(rows, func(a, b paramRow) int { return a.effective.Compare(b.effective) })
	out := rows[:0]
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].effective == r.effective {
			out[n-1] = r
			continue
		}
		out = append(out, r)
	}
	return out
}

// WithHolidays returns a copy of p whose holiday list is days.
func (p *Params) WithHolidays(days []Date) *Params {
	q := &Params{rows: p.rows}
	q.holidays = slices.Clone(days)
	slices.SortFunc(q.holidays, Date.Compare)
	q.holidays = slices.Compact(q.holidays)
	q.cal = NewCalendar(q.holidays)
	return q
}

// clone copies the row map (not the row slices, which are never modified in
// place) so that a derived Params can replace a parameter's rows.
func (p *Params) clone() *Params {
	q := &Params{rows: make(map[string][]paramRow, len(p.rows)), holidays: p.holidays, cal: p.cal}
	for k, v := range p.rows {
		q.rows[k] = v
	}
	return q
}

// ParamRow is one effective-dated parameter row, for listings and audits.
type ParamRow struct {
	Effective Date   `json:"effective"`
	Name      string `json:"name"`
	Value     string `json:"value"`
	Note      string `json:"note,omitempty"`
}

// Rows returns every parameter row, by parameter (in the order of the rule
// table) and then by effective date.
func (p *Params) Rows() []ParamRow {
	var out []ParamRow
	for _, def := range paramDefs {
		for _, r := range p.rows[def.name] {
			out = append(out, ParamRow{r.effective, def.name, r.raw, r.note})
		}
	}
	return out
}
