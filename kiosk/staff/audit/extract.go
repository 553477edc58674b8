package audit

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
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

// extractFile is one file of the archive being written: what is written
// goes to the archive and to its checksum as it comes, so that no file is
// held in memory, and its bytes and records are counted.
type extractFile struct {
	w     io.Writer
	sum   hash.Hash
	bytes int
	rows  int
}

func (f *extractFile) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	f.sum.Write(p[:n])
	f.bytes += n
	return n, err
}

// csv writes header and rows as the file's records.
func (f *extractFile) csv(header []string, rows [][]string) error {
	w := f.csvWriter(header)
	for _, r := range rows {
		w.Write(r)
	}
	return w.Flush()
}

// csvWriter starts the file's CSV with its header.
func (f *extractFile) csvWriter(header []string) *rowWriter {
	w := &rowWriter{f: f, w: staff.NewCSV(f)}
	w.err = w.w.Write(header)
	return w
}

// rowWriter writes a file's records and counts them; the first error
// sticks, and Flush returns it.
type rowWriter struct {
	f   *extractFile
	w   *staff.CSVWriter
	err error
}

func (w *rowWriter) Write(rec []string) {
	if w.err == nil {
		w.err = w.w.Write(rec)
		w.f.rows++
	}
}

func (w *rowWriter) Flush() error {
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	return w.err
}

// extract is an archive being written: its files, one at a time, then
// the manifest of them.
type extract struct {
	zw *zip.Writer
	m  Manifest
}

// file writes the file name with write, and notes it in the manifest.
// write runs in a goroutine of its own and hands what it writes through
// a pipe to this one, which compresses it into the archive: reading the
// ledger and compressing go on at once, on two cores where there are two.
func (x *extract) file(name string, write func(f *extractFile) error) error {
	fw, err := x.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: x.m.Generated})
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	buf := bufio.NewWriterSize(pw, 64<<10)
	f := &extractFile{w: buf, sum: sha256.New()}
	done := make(chan error, 1)
	go func() {
		err := writeFile(f, write)
		if err == nil {
			err = buf.Flush()
		}
		pw.CloseWithError(err)
		done <- err
	}()
	_, cerr := io.Copy(fw, pr)
	pr.CloseWithError(cerr) // a producer still writing stops
	if err := <-done; err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if cerr != nil {
		return fmt.Errorf("%s: %w", name, cerr)
	}
	x.m.Files = append(x.m.Files, ManifestFile{Name: name, SHA256: hex.EncodeToString(f.sum.Sum(nil)), Bytes: f.bytes, Rows: f.rows})
	return nil
}

// writeFile calls write, answering a panic as an error: it runs outside
// the request's goroutine, where nothing would recover it.
func writeFile(f *extractFile, write func(f *extractFile) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return write(f)
}

// asideFile is a file of the archive written beside another, compressed
// into memory as it comes, with its checksums, sizes and records counted,
// then added to the archive whole (extract.raw).
type asideFile struct {
	buf  chunks
	zw   *flate.Writer
	crc  hash.Hash32
	file *extractFile
}

// open starts the file: what is written to the returned file is
// compressed into memory.
func (a *asideFile) open() (*extractFile, error) {
	zw, err := flate.NewWriter(&a.buf, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	a.zw, a.crc = zw, crc32.NewIEEE()
	a.file = &extractFile{w: io.MultiWriter(zw, a.crc), sum: sha256.New()}
	return a.file, nil
}

// close ends the file's compressed stream.
func (a *asideFile) close() error { return a.zw.Close() }

// raw adds a file written aside to the archive, as it was compressed, and
// notes it in the manifest.
func (x *extract) raw(name string, a *asideFile) error {
	fw, err := x.zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: x.m.Generated,
		CRC32: a.crc.Sum32(), CompressedSize64: uint64(a.buf.n), UncompressedSize64: uint64(a.file.bytes)})
	if err != nil {
		return err
	}
	if _, err := a.buf.WriteTo(fw); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	a.buf = chunks{}
	x.m.Files = append(x.m.Files, ManifestFile{Name: name, SHA256: hex.EncodeToString(a.file.sum.Sum(nil)), Bytes: a.file.bytes, Rows: a.file.rows})
	return nil
}

// chunks holds bytes in blocks of a fixed size, so that growing it never
// copies what it holds nor asks for twice its size at once.
type chunks struct {
	blocks [][]byte
	n      int
}

const chunkSize = 64 << 10

func (c *chunks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.blocks) == 0 || len(c.blocks[len(c.blocks)-1]) == chunkSize {
			c.blocks = append(c.blocks, make([]byte, 0, chunkSize))
		}
		last := &c.blocks[len(c.blocks)-1]
		k := min(len(p), chunkSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	c.n += n
	return n, nil
}

// WriteTo writes what c holds to w.
func (c *chunks) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for _, b := range c.blocks {
		n, err := w.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// journalChunk is the journal entries the extract reads at a time, each
// part in a read of the ledger of its own: at most two parts are held,
// the one being written and the next.
const journalChunk = 2000

// bookChunk is the journal entries of the books read at a time.
const bookChunk = 1000

// WriteExtract writes the extract of year to w: the journal (JSON lines
// and CSV), the books' trial balance as of December 31, the general
// ledger of the year, the budget against the actuals by fund, department
// and account, the receipts by month and account, the claims, the check
// register, the deposits and the investments, and the manifest. The
// actuals and the receipts are the books' for a year the books hold
// whole, else the ledger's own count (domain.YearActuals). generated
// dates the archive's entries, so the same ledger and the same moment
// give the same bytes.
//
// The archive is written as it is read: the long files (the journal, the
// general ledger) a part at a time, each part read in a read of the
// ledger of its own, so that neither the year nor a slow download's wait
// is held in memory or in an open read. The journal is read once, from
// the part of it that holds the year's entries (staff.JournalYear), for
// both of its files: the CSV is the one file held in memory, compressed,
// until the JSON lines are written. An error once the archive has started leaves
// it without its directory, which no zip reader opens.
func WriteExtract(w io.Writer, reads domain.Reads, journal staff.Journal, year int, generated time.Time) error {
	if journal == nil {
		return domain.Errorf(domain.EUNAVAILABLE, "§5.15", "This node runs without a journal reader: ask for the extract at a node of the cluster.")
	}
	span, err := journal.JournalYear(year)
	if err != nil {
		return err
	}
	x := &extract{zw: zip.NewWriter(w), m: Manifest{Village: "Village of Belleville", Year: year, Generated: generated.UTC()}}
	// Deflate's fastest level: a year's journal and books are tens of
	// megabytes, and the default level took more of a Pi's time than
	// reading them, for an archive about a fifth smaller.
	x.zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestSpeed)
	})

	// The journal of the year, with the link before it, in one walk: the
	// JSON lines go into the archive as they come, the CSV beside them is
	// compressed aside (a part of its size: hashes and ids compress
	// little, the rest much) and added whole after them.
	csvFile := &asideFile{}
	err = x.file(JournalLines, func(f *extractFile) error {
		// A line is the entry as json.Marshal writes it, then "\n".
		enc := json.NewEncoder(f)
		cf, err := csvFile.open()
		if err != nil {
			return err
		}
		w := cf.csvWriter([]string{"seq", "raft_index", "at", "actor", "node", "kind", "command_id", "outcome", "error", "hash"})
		js, err := yearJournal(journal, span, year, func(e staff.JournalEntry, prev string) error {
			f.rows++
			if err := enc.Encode(journalLine{Seq: e.Seq, Index: e.Index, CommandID: e.CommandID, Kind: e.Kind, Actor: e.Actor, Node: e.Node, At: e.At, Outcome: e.Outcome, Error: e.Error, Prev: prev, Hash: e.Hash}); err != nil {
				return err
			}
			w.Write([]string{strconv.FormatUint(e.Seq, 10), strconv.FormatUint(e.Index, 10), e.At.String(), e.Actor, e.Node, string(e.Kind), e.CommandID, e.Outcome, e.Error, e.Hash})
			return w.err
		})
		x.m.Journal = js
		if err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		return csvFile.close()
	})
	if err != nil {
		return err
	}
	if err := x.raw("journal.csv", csvFile); err != nil {
		return err
	}

	if err := x.file("trial-balance.csv", func(f *extractFile) error { return trialBalance(f, reads, year) }); err != nil {
		return err
	}
	if err := x.file("general-ledger.csv", func(f *extractFile) error { return generalLedger(f, reads, year) }); err != nil {
		return err
	}
	acts, err := reads.YearActuals(year)
	if err != nil {
		return err
	}
	if err := x.file("budget-to-actual.csv", func(f *extractFile) error { return budgetToActual(f, reads, acts) }); err != nil {
		return err
	}
	var rows [][]string
	for _, a := range acts.Months {
		if a.Receipts.IsZero() {
			continue
		}
		rows = append(rows, []string{itoa(a.Year), fmt.Sprintf("%02d", a.Month), a.Account, a.Receipts.String(), acts.From})
	}
	if err := x.file("receipts.csv", func(f *extractFile) error {
		return f.csv([]string{"year", "month", "account", "receipts", "from"}, rows)
	}); err != nil {
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
	if err := x.file("claims.csv", func(f *extractFile) error {
		return f.csv([]string{"claim", "appropriation", "unit", "vendor", "invoice", "invoice_date", "amount", "order", "description", "status", "check", "certifications"}, rows)
	}); err != nil {
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
	if err := x.file("check-register.csv", func(f *extractFile) error {
		return f.csv([]string{"date", "check_number", "payee", "purpose", "appropriation", "amount", "claim", "run", "signatures", "void"}, rows)
	}); err != nil {
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
	if err := x.file("deposits.csv", func(f *extractFile) error {
		return f.csv([]string{"deposit", "at", "depository", "by", "cash", "checks", "total", "drawers"}, rows)
	}); err != nil {
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
	if err := x.file("investments.csv", func(f *extractFile) error {
		return f.csv([]string{"investment", "security", "institution", "legal_ground", "fund", "amount", "purchased_on", "matures_on", "rate_percent", "interest_received", "redeemed_on"}, rows)
	}); err != nil {
		return err
	}

	man, err := json.MarshalIndent(x.m, "", "  ")
	if err != nil {
		return err
	}
	fw, err := x.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: x.m.Generated})
	if err != nil {
		return err
	}
	if _, err := fw.Write(append(man, '\n')); err != nil {
		return err
	}
	return x.zw.Close()
}

// yearJournal calls fn with each journal entry of intake year year, in
// journal order, with the hash of the entry before it (the year's entry
// before it, or the last entry of an earlier year), and returns the
// span of the journal the entries make. It reads the part of the journal
// span names, journalChunk entries at a time, the next part while this
// one is written (ahead): the entries before it are
// all of earlier years (the last one's hash is span.Prev), those after it
// of later years. Between, an entry of an earlier year (an offline
// command that reached the journal late) moves the link on, as the walk
// of the whole journal did; one of a later year is passed over.
func yearJournal(journal staff.Journal, span staff.JournalYear, year int, fn func(e staff.JournalEntry, prev string) error) (JournalSpan, error) {
	js := JournalSpan{Prev: span.Prev}
	prev := span.Prev
	read := func(hand func([]staff.JournalEntry) error) error {
		for from := span.First; span.First != 0 && from <= span.Last; from += journalChunk {
			part := make([]staff.JournalEntry, 0, min(span.Last-from+1, journalChunk))
			err := journal.JournalRange(from, min(span.Last, from+journalChunk-1), func(e staff.JournalEntry) error {
				part = append(part, e)
				return nil
			})
			if err == nil {
				err = hand(part)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	err := ahead(read, func(part []staff.JournalEntry) error {
		for _, e := range part {
			switch y := e.At.Date.Year(); {
			case y < year:
				prev, js.Prev = e.Hash, e.Hash
				continue
			case y > year:
				continue
			}
			if js.Entries == 0 {
				js.FirstSeq = e.Seq
			}
			if err := fn(e, prev); err != nil {
				return err
			}
			js.Entries++
			js.LastSeq, js.Head, prev = e.Seq, e.Hash, e.Hash
		}
		return nil
	})
	if js.Entries == 0 {
		js.Head = js.Prev
	}
	return js, err
}

// ahead calls read in a goroutine of its own, which hands each part it
// reads over to use, in this one: the next part is read while this one
// is written out. read must not change a part once it has handed it over.
// The first error of either ends both, and is returned.
func ahead[T any](read func(hand func(T) error) error, use func(T) error) error {
	parts := make(chan T, 1)
	quit := make(chan struct{})
	errStop := errors.New("the writing stopped")
	var rerr error
	go func() {
		defer close(parts)
		defer func() {
			if p := recover(); p != nil {
				rerr = fmt.Errorf("panic: %v", p)
			}
		}()
		rerr = read(func(p T) error {
			select {
			case parts <- p:
				return nil
			case <-quit:
				return errStop
			}
		})
	}()
	var uerr error
	for p := range parts {
		if uerr != nil {
			continue
		}
		if uerr = use(p); uerr != nil {
			close(quit)
		}
	}
	if uerr != nil {
		return uerr
	}
	return rerr
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
// into one entry a month, dated its last day, after the other entries of
// that day, so the file still sums to the trial balance's movement.
//
// The entries are read bookChunk at a time, in date order, the next part
// while this one is written (ahead): a month's sum is written once the
// entries have passed its last day.
func generalLedger(f *extractFile, reads domain.Reads, year int) error {
	w := f.csvWriter([]string{"date", "entry", "raft_index", "command_id", "kind", "section", "account", "fund", "debit", "credit", "memo", "entry_memo"})
	n := 0
	write := func(e domain.BookEntry) {
		n++
		index := ""
		if e.Index != 0 {
			index = strconv.FormatUint(e.Index, 10)
		}
		for _, l := range e.Lines {
			w.Write([]string{e.Date.String(), itoa(n), index, e.CommandID, string(e.Kind), l.Section,
				l.Account, l.Fund, moneyOrEmpty(l.Debit), moneyOrEmpty(l.Credit), l.Memo, e.Memo})
		}
	}
	roomTax := map[int]*domain.BookEntry{}
	// flush writes the sums of the months whose last day is before day
	// (every month's, for the zero Date), in month order.
	flush := func(day domain.Date) {
		for _, month := range slices.Sorted(maps.Keys(roomTax)) {
			if sum := roomTax[month]; day.IsZero() || sum.Date.Before(day) {
				write(*sum)
				delete(roomTax, month)
			}
		}
	}
	read := func(hand func([]domain.BookEntry) error) error {
		return reads.BookEntriesBy(domain.NewDate(year, 1, 1), domain.NewDate(year, 12, 31), "", bookChunk, hand)
	}
	err := ahead(read, func(part []domain.BookEntry) error {
		for _, e := range part {
			if !slices.ContainsFunc(e.Lines, func(l domain.BookLine) bool { return strings.HasPrefix(l.Section, "§5.22") }) {
				flush(e.Date)
				write(e)
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
		return w.err
	})
	if err != nil {
		return err
	}
	flush(domain.Date{})
	return w.Flush()
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
