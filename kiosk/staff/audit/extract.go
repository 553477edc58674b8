package audit

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The auditors' extract (§5.15): a year of the ledger as CSV files in one
// zip, with a manifest of each file's SHA-256 and the journal's hash
// chain over the year, so that `appliance verify --extract FILE` proves
// the files are those the ledger gave and the journal links from the
// entry before the year to the head it names.

// ManifestName is the manifest's name in the archive.
const ManifestName = "manifest.json"

// JournalLines is the journal of the year as JSON lines, one entry a line
// with the hash of the entry before it: what the chain is verified on.
const JournalLines = "journal.jsonl"

// Manifest describes an extract.
type Manifest struct {
	Village   string         `json:"village"`
	Year      int            `json:"year"`
	Generated time.Time      `json:"generated"`
	Files     []ManifestFile `json:"files"`
	Journal   JournalSpan    `json:"journal"`
}

// ManifestFile is one file of the extract.
type ManifestFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
	Rows   int    `json:"rows"` // records, the header not counted
}

// JournalSpan is the part of the journal the extract holds: its entries
// from FirstSeq to LastSeq, the hash of the entry before the first (Prev,
// empty from the journal's beginning) and of the last (Head).
type JournalSpan struct {
	Entries  int    `json:"entries"`
	FirstSeq uint64 `json:"first_seq,omitempty"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
	Prev     string `json:"prev"`
	Head     string `json:"head"`
}

// journalLine is a journal entry as the ledger hashes it.
type journalLine struct {
	Seq       uint64          `json:"seq"`
	Index     uint64          `json:"index"`
	CommandID string          `json:"command_id"`
	Kind      domain.Kind     `json:"kind"`
	Actor     string          `json:"actor"`
	Node      string          `json:"node"`
	At        domain.DateTime `json:"at"`
	Outcome   string          `json:"outcome"`
	Error     string          `json:"error,omitempty"`
	Prev      string          `json:"prev"`
	Hash      string          `json:"hash"`
}

// extractFile is one file being written: its bytes and its row count.
type extractFile struct {
	name string
	buf  bytes.Buffer
	rows int
}

func (f *extractFile) csv(header []string, rows [][]string) error {
	w := staff.NewCSV(&f.buf)
	if err := w.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	f.rows = len(rows)
	return w.Flush()
}

// WriteExtract writes the extract of year to w: the journal (JSON lines
// and CSV), the books' trial balance as of December 31, the general
// ledger of the year, the budget against the actuals by fund, department
// and account, the receipts by month and account, the claims, the check
// register, the deposits and the investments, and the manifest. The
// actuals and the receipts are the books' for a year the books hold
// whole, else the ledger's own count (domain.YearActuals). generated
// dates the archive's entries, so the same ledger and the same moment
// give the same bytes.
func WriteExtract(w io.Writer, reads domain.Reads, journal staff.Journal, year int, generated time.Time) error {
	var files []*extractFile
	add := func(name string) *extractFile {
		f := &extractFile{name: name}
		files = append(files, f)
		return f
	}
	m := Manifest{Village: "Village of Belleville", Year: year, Generated: generated.UTC()}

	// The journal of the year, with the link before it.
	jl, jc := add(JournalLines), add("journal.csv")
	var rows [][]string
	prev := ""
	if journal == nil {
		return domain.Errorf(domain.EUNAVAILABLE, "§5.15", "This node runs without a journal reader: ask for the extract at a node of the cluster.")
	}
	err := journal.Journal(func(e staff.JournalEntry) error {
		switch y := e.At.Date.Year(); {
		case y < year:
			prev = e.Hash
			m.Journal.Prev = e.Hash
			return nil
		case y > year:
			return nil
		}
		if m.Journal.Entries == 0 {
			m.Journal.FirstSeq = e.Seq
		}
		line, err := json.Marshal(journalLine{Seq: e.Seq, Index: e.Index, CommandID: e.CommandID, Kind: e.Kind, Actor: e.Actor, Node: e.Node, At: e.At, Outcome: e.Outcome, Error: e.Error, Prev: prev, Hash: e.Hash})
		if err != nil {
			return err
		}
		jl.buf.Write(append(line, '\n'))
		rows = append(rows, []string{strconv.FormatUint(e.Seq, 10), strconv.FormatUint(e.Index, 10), e.At.String(), e.Actor, e.Node, string(e.Kind), e.CommandID, e.Outcome, e.Error, e.Hash})
		m.Journal.Entries++
		m.Journal.LastSeq, m.Journal.Head, prev = e.Seq, e.Hash, e.Hash
		return nil
	})
	if err != nil {
		return err
	}
	if m.Journal.Entries == 0 {
		m.Journal.Head = m.Journal.Prev
	}
	jl.rows = m.Journal.Entries
	if err := jc.csv([]string{"seq", "raft_index", "at", "actor", "node", "kind", "command_id", "outcome", "error", "hash"}, rows); err != nil {
		return err
	}

	if err := trialBalance(add("trial-balance.csv"), reads, year); err != nil {
		return err
	}
	if err := generalLedger(add("general-ledger.csv"), reads, year); err != nil {
		return err
	}
	acts, err := reads.YearActuals(year)
	if err != nil {
		return err
	}
	if err := budgetToActual(add("budget-to-actual.csv"), reads, acts); err != nil {
		return err
	}
	rows = nil
	for _, a := range acts.Months {
		if a.Receipts.IsZero() {
			continue
		}
		rows = append(rows, []string{itoa(a.Year), fmt.Sprintf("%02d", a.Month), a.Account, a.Receipts.String(), acts.From})
	}
	if err := add("receipts.csv").csv([]string{"year", "month", "account", "receipts", "from"}, rows); err != nil {
		return err
	}

	cls, err := reads.Claims(year)
	if err != nil {
		return err
	}
	rows = nil
	for _, c := range cls {
		var certs []string
		for _, x := range c.Certifications {
			certs = append(certs, x.What+" by "+x.By+" at "+x.At.String())
		}
		rows = append(rows, []string{c.ID, c.Line, c.Unit, c.Vendor, c.Invoice, c.InvoiceDate.String(), c.Amount.String(), c.Order, c.Description, c.Status,
			strings.TrimLeft(c.Check, "0"), strings.Join(certs, "; ")})
	}
	if err := add("claims.csv").csv([]string{"claim", "appropriation", "unit", "vendor", "invoice", "invoice_date", "amount", "order", "description", "status", "check", "certifications"}, rows); err != nil {
		return err
	}

	rows = nil
	for mo := 1; mo <= 12; mo++ {
		cks, err := reads.CheckRegister(fmt.Sprintf("%04d-%02d", year, mo))
		if err != nil {
			return err
		}
		for _, c := range cks {
			void := ""
			if c.Void != nil {
				void = c.Void.Reason
			}
			rows = append(rows, []string{c.On.String(), itoa(c.Number), c.Payee, c.Purpose, c.Line, c.Amount.String(), c.Claim, c.Run, strings.Join(c.Signatures, " "), void})
		}
	}
	if err := add("check-register.csv").csv([]string{"date", "check_number", "payee", "purpose", "appropriation", "amount", "claim", "run", "signatures", "void"}, rows); err != nil {
		return err
	}

	deps, err := reads.Deposits()
	if err != nil {
		return err
	}
	rows = nil
	for _, d := range deps {
		if d.At.Date.Year() != year {
			continue
		}
		rows = append(rows, []string{d.ID, d.At.String(), d.Depository, d.By, d.Cash.String(), d.CheckTotal.String(), d.Total.String(), strings.Join(d.Drawers, " ")})
	}
	if err := add("deposits.csv").csv([]string{"deposit", "at", "depository", "by", "cash", "checks", "total", "drawers"}, rows); err != nil {
		return err
	}

	invs, err := reads.Investments()
	if err != nil {
		return err
	}
	rows = nil
	for _, v := range invs {
		// An investment held at any time of the year.
		if v.PurchasedOn.Year() > year || !v.RedeemedOn.IsZero() && v.RedeemedOn.Year() < year {
			continue
		}
		rows = append(rows, []string{v.ID, v.Security, v.Institution, v.Ground, v.Fund, v.Amount.String(), v.PurchasedOn.String(), v.MaturesOn.String(), v.Rate,
			v.Interest.String(), dateOrEmpty(v.RedeemedOn)})
	}
	if err := add("investments.csv").csv([]string{"investment", "security", "institution", "legal_ground", "fund", "amount", "purchased_on", "matures_on", "rate_percent", "interest_received", "redeemed_on"}, rows); err != nil {
		return err
	}

	zw := zip.NewWriter(w)
	put := func(name string, b []byte) error {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: m.Generated})
		if err != nil {
			return err
		}
		_, err = fw.Write(b)
		return err
	}
	for _, f := range files {
		sum := sha256.Sum256(f.buf.Bytes())
		m.Files = append(m.Files, ManifestFile{Name: f.name, SHA256: hex.EncodeToString(sum[:]), Bytes: f.buf.Len(), Rows: f.rows})
		if err := put(f.name, f.buf.Bytes()); err != nil {
			return err
		}
	}
	man, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := put(ManifestName, append(man, '\n')); err != nil {
		return err
	}
	return zw.Close()
}

// trialBalance writes the books' trial balance as of December 31 of
// year: every account with postings to that day (the years before
// included, as a trial balance carries them), by fund and code, with its
// debits, credits and balance on its normal side, then the totals, whose
// debits equal their credits.
func trialBalance(f *extractFile, reads domain.Reads, year int) error {
	tb, err := reads.TrialBalance(domain.NewDate(year, 12, 31))
	if err != nil {
		return err
	}
	var rows [][]string
	for _, r := range tb.Rows {
		a := r.Account
		rows = append(rows, []string{a.Code, a.Name, a.Fund, string(a.Type), string(a.Control), r.Debit.String(), r.Credit.String(), r.Balance().String()})
	}
	rows = append(rows, []string{"total", "", "", "", "", tb.Debit.String(), tb.Credit.String(), ""})
	return f.csv([]string{"account", "name", "fund", "type", "control", "debit", "credit", "balance"}, rows)
}

// generalLedger writes every journal entry of the books dated in year,
// one line of the entry a row: entry numbers the entries of the file in
// date and log order (one log entry may post several on a day), and
// entry_memo is the entry's own memo (an adjusting entry's reason).
//
// A room tax return's entries are not listed one by one: each is one
// return's figures and its memos name the operator, which are
// confidential (§5.22(8)); the auditors read the returns themselves at
// the appliance, each read journaled. Their lines are summed by account
// into one entry a month, dated its last day, so the file still sums to
// the trial balance's movement.
func generalLedger(f *extractFile, reads domain.Reads, year int) error {
	all, err := reads.BookEntries(domain.NewDate(year, 1, 1), domain.NewDate(year, 12, 31), "")
	if err != nil {
		return err
	}
	var entries []domain.BookEntry
	roomTax := map[int]*domain.BookEntry{}
	for _, e := range all {
		if !slices.ContainsFunc(e.Lines, func(l domain.BookLine) bool { return strings.HasPrefix(l.Section, "§5.22") }) {
			entries = append(entries, e)
			continue
		}
		month := int(e.Date.Month())
		sum, ok := roomTax[month]
		if !ok {
			last := domain.NewDate(year, time.Month(month), 1).AddMonths(1).AddDays(-1)
			sum = &domain.BookEntry{Date: last, Memo: fmt.Sprintf("room tax returns of %04d-%02d, summed: returns are confidential (§5.22(8))", year, month)}
			roomTax[month] = sum
		}
		for _, l := range e.Lines {
			i := slices.IndexFunc(sum.Lines, func(x domain.BookLine) bool { return x.Account == l.Account })
			if i < 0 {
				sum.Lines = append(sum.Lines, domain.BookLine{Account: l.Account, Fund: l.Fund, Section: "§5.22"})
				i = len(sum.Lines) - 1
			}
			sum.Lines[i].Debit, sum.Lines[i].Credit = sum.Lines[i].Debit.Add(l.Debit), sum.Lines[i].Credit.Add(l.Credit)
		}
	}
	for _, month := range slices.Sorted(maps.Keys(roomTax)) {
		entries = append(entries, *roomTax[month])
	}
	slices.SortStableFunc(entries, func(a, b domain.BookEntry) int { return a.Date.Compare(b.Date) })
	var rows [][]string
	for n, e := range entries {
		index := ""
		if e.Index != 0 {
			index = strconv.FormatUint(e.Index, 10)
		}
		for _, l := range e.Lines {
			rows = append(rows, []string{e.Date.String(), itoa(n + 1), index, e.CommandID, string(e.Kind), l.Section,
				l.Account, l.Fund, moneyOrEmpty(l.Debit), moneyOrEmpty(l.Credit), l.Memo, e.Memo})
		}
	}
	return f.csv([]string{"date", "entry", "raft_index", "command_id", "kind", "section", "account", "fund", "debit", "credit", "memo", "entry_memo"}, rows)
}

// budgetToActual writes every line account of the year: by fund, unit
// and account, the budget (appropriation or anticipated revenue),
// amendments and carried amounts, expended, encumbered and available (the
// appropriation's own, §5.05), and the actual: revenue received or earned,
// expenditure made, from where acts come from (the books for a year they
// hold whole).
func budgetToActual(f *extractFile, reads domain.Reads, acts domain.YearActuals) error {
	year := acts.Year
	chart, err := reads.Chart()
	if err != nil {
		return err
	}
	apps, err := reads.Appropriations(year)
	if err != nil {
		return err
	}
	byLine := map[string]domain.Appropriation{}
	for _, a := range apps {
		byLine[a.Line] = a
	}
	budget, _, err := reads.Budget(year)
	if err != nil {
		return err
	}
	anticipated := map[string]domain.Money{}
	for _, l := range budget.Lines {
		anticipated[l.Account] = l.Amount
	}
	var rows [][]string
	for _, acct := range chart.Accounts {
		if !acct.Type.Line() {
			continue
		}
		received, spent := acts.Total(acct.Code)
		a, hasApp := byLine[acct.Code]
		_, budgeted := anticipated[acct.Code]
		if !hasApp && !budgeted && received.IsZero() && spent.IsZero() {
			continue
		}
		row := []string{acct.Fund, acct.Unit, acct.Code, acct.Name, string(acct.Type)}
		if acct.Type == domain.AccountRevenue {
			row = append(row, anticipated[acct.Code].String(), "", "", "", "", "", received.String())
		} else {
			row = append(row, a.Adopted.String(), a.Amended.String(), a.Carried.String(), a.Expended.String(), a.Encumbered.String(), a.Available().String(), spent.String())
		}
		rows = append(rows, append(row, acts.From))
	}
	return f.csv([]string{"fund", "unit", "account", "name", "type", "budget", "amended", "carried", "expended", "encumbered", "available", "actual", "actual_from"}, rows)
}

func itoa(n int) string { return strconv.Itoa(n) }

func moneyOrEmpty(m domain.Money) string {
	if m.IsZero() {
		return ""
	}
	return m.String()
}

func dateOrEmpty(d domain.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.String()
}
