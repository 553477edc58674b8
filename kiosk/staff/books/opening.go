package books

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The opening trial balance, imported once at conversion (docs/books.md,
// "Going live"), as the office imports its other files: every line of the
// CSV is checked, a dry run shows what the import would post, and the
// import takes the whole file or nothing.

// OpeningCSVHeader is the layout of the opening trial balance: a header
// naming these columns in any order; account, fund, debit and credit are
// required, name, type and control only on the lines of a balance-sheet
// account the chart lacks, which the import adds.
var OpeningCSVHeader = []string{"account", "fund", "debit", "credit", "name", "type", "control"}

// maxOpeningBytes bounds the file.
const maxOpeningBytes = 1 << 20

func (m *Module) showOpening(w http.ResponseWriter, r *http.Request) {
	v, err := m.openingView()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	m.o.Render(w, r, http.StatusOK, openingPage(m.o.Frame(r, "Opening trial balance"), v))
}

// openingView is the page before any file: the day the books opened and
// whether the import was made.
func (m *Module) openingView() (openingView, error) {
	v := openingView{Header: strings.Join(OpeningCSVHeader, ",")}
	st, err := m.read().BooksStatus()
	if err != nil {
		return v, err
	}
	v.Open = st.Open
	if st.Open {
		v.Opened = st.Opened.String()
	}
	if b := st.Balances; b != nil {
		v.Done = fmt.Sprintf("The opening trial balance of %s was imported on %s by %s (%d lines, %s).", b.On, b.At.Date, b.By, b.Lines, b.Source)
	}
	return v, nil
}

// submitOpening serves POST /staff/books/opening: mode=import posts the
// file as one command, when it has no problem; anything else is a dry run
// that lists every problem by line, or what the import would post.
func (m *Module) submitOpening(w http.ResponseWriter, r *http.Request) {
	frame := m.o.Frame(r, "Opening trial balance")
	v, err := m.openingView()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	text, name, err := openingFile(r)
	if err != nil {
		v.Errors = []string{domain.ErrorMessage(err)}
		m.o.Render(w, r, http.StatusUnprocessableEntity, openingPage(frame, v))
		return
	}
	v.CSV, v.Name = text, name
	ch, err := m.read().Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	st, err := m.read().BooksStatus()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	p, problems := parseOpeningCSV(strings.NewReader(text), ch)
	p.Source = "import " + name
	for _, e := range domain.CheckOpening(ch, p) {
		if len(problems) == 0 || errLine(e) > 0 {
			// A fund that does not balance is said once every line
			// reads: a line left out for its amount would skew it.
			problems = append(problems, e)
		}
	}
	slices.SortStableFunc(problems, func(a, b error) int { return lineOrder(a) - lineOrder(b) })
	for _, e := range problems {
		v.Errors = append(v.Errors, domain.ErrorMessage(e))
	}
	for _, l := range p.Lines {
		row := openingRow{Line: l.Line, Account: l.Account, Fund: l.Fund, Debit: dollarsOrBlank(l.Debit), Credit: dollarsOrBlank(l.Credit)}
		if a, ok := ch.Account(l.Account); ok {
			row.Name = a.Name
		}
		if i := slices.IndexFunc(p.Accounts, func(a domain.ChartAccount) bool { return a.Code == l.Account }); i >= 0 {
			row.Name, row.New = p.Accounts[i].Name, true
		}
		v.Rows = append(v.Rows, row)
	}
	if len(problems) > 0 {
		m.o.Render(w, r, http.StatusUnprocessableEntity, openingPage(frame, v))
		return
	}
	var carried []domain.BookLine
	if st.OpeningEntry != nil {
		carried = st.OpeningEntry.Lines
	}
	for _, l := range domain.OpeningLines(carried, p) {
		v.Posts = append(v.Posts, postRow{Account: l.Account, Fund: l.Fund, Debit: dollarsOrBlank(l.Debit), Credit: dollarsOrBlank(l.Credit), Memo: l.Memo})
	}
	if m.o.Form(r, "mode") != "import" {
		v.DryRun = true
		m.o.Render(w, r, http.StatusOK, openingPage(frame, v))
		return
	}
	if _, err := m.o.Submit(r, p); err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			v.Errors, v.Posts = []string{msg}, nil
			m.o.Render(w, r, status, openingPage(frame, v))
		})
		return
	}
	v.Imported, v.CSV = true, ""
	m.o.Render(w, r, http.StatusOK, openingPage(frame, v))
}

// openingFile returns the file the form carries: the uploaded "file",
// else the text pasted in "csv", and its name ("name" when a dry run
// already read it, else "pasted").
func openingFile(r *http.Request) (text, name string, err error) {
	if r.MultipartForm != nil {
		if fh := r.MultipartForm.File["file"]; len(fh) > 0 {
			f, err := fh[0].Open()
			if err != nil {
				return "", "", err
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, maxOpeningBytes+1))
			if err != nil {
				return "", "", err
			}
			if len(b) > maxOpeningBytes {
				return "", "", domain.Errorf(domain.EINVALID, "", "The file is larger than %d bytes.", maxOpeningBytes)
			}
			return string(b), fh[0].Filename, nil
		}
	}
	text, name = r.PostFormValue("csv"), strings.TrimSpace(r.PostFormValue("name"))
	if strings.TrimSpace(text) == "" {
		return "", "", domain.Errorf(domain.EINVALID, "", "Choose the CSV file of the trial balance, or paste it.")
	}
	if name == "" {
		name = "pasted"
	}
	return text, name, nil
}

// parseOpeningCSV reads an opening trial balance: its lines, the
// accounts it adds to chart ch, and every problem of a line that does
// not read (a missing account, an amount that is not one), named by its
// line; line 1 is the header. What the ledger checks of the lines that
// read is domain.CheckOpening's.
func parseOpeningCSV(rd io.Reader, ch domain.Chart) (*domain.BooksOpening, []error) {
	p := &domain.BooksOpening{}
	bad := func(line int, format string, args ...any) error {
		return domain.Errorf(domain.EINVALID, "", fmt.Sprintf("Line %d: ", line)+format, args...)
	}
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord, cr.TrimLeadingSpace = -1, true
	head, err := cr.Read()
	if err != nil {
		return p, []error{bad(1, "the file has no header line (%s).", strings.Join(OpeningCSVHeader, ","))}
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	var errs []error
	for _, c := range OpeningCSVHeader[:4] {
		if _, ok := col[c]; !ok {
			errs = append(errs, bad(1, "the header has no column %q (it needs %s).", c, strings.Join(OpeningCSVHeader[:4], ",")))
		}
	}
	if errs != nil {
		return p, errs
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			errs = append(errs, bad(line, "the line cannot be read as CSV."))
			break
		}
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		l := domain.OpeningLine{Line: line, Account: get("account"), Fund: get("fund")}
		if l.Account == "" {
			errs = append(errs, bad(line, "the account is missing."))
			continue
		}
		ok := true
		for _, side := range []struct {
			name string
			to   *domain.Money
		}{{"debit", &l.Debit}, {"credit", &l.Credit}} {
			s := get(side.name)
			if s == "" {
				continue
			}
			m, err := staff.ParseSignedAmount(fmt.Sprintf("Line %d: the %s", line, side.name), s)
			if err != nil {
				errs, ok = append(errs, err), false
				continue
			}
			*side.to = m
		}
		if !ok {
			continue
		}
		if _, known := ch.Account(l.Account); !known && get("type") != "" {
			if !slices.ContainsFunc(p.Accounts, func(a domain.ChartAccount) bool { return a.Code == l.Account }) {
				p.Accounts = append(p.Accounts, domain.ChartAccount{Code: l.Account, Type: domain.AccountType(strings.ToLower(get("type"))), Name: get("name"),
					Fund: l.Fund, Control: domain.Control(strings.ToLower(get("control")))})
			}
		}
		if l.Fund == "" {
			if a, known := ch.Account(l.Account); known {
				l.Fund = a.Fund
			}
		}
		p.Lines = append(p.Lines, l)
	}
	if len(p.Lines) == 0 && len(errs) == 0 {
		errs = append(errs, domain.Errorf(domain.EINVALID, "", "The file holds no lines below its header."))
	}
	if len(p.Lines) > domain.MaxOpeningLines {
		errs = append(errs, domain.Errorf(domain.EINVALID, "", "An opening trial balance has at most %d lines.", domain.MaxOpeningLines))
	}
	return p, errs
}

// errLine returns the line an import error names ("Line 4: …"), or 0.
func errLine(err error) int {
	var n int
	fmt.Sscanf(domain.ErrorMessage(err), "Line %d:", &n)
	return n
}

// lineOrder sorts the errors by their line, those of no line (a fund
// that does not balance) last.
func lineOrder(err error) int {
	if n := errLine(err); n > 0 {
		return n
	}
	return 1 << 30
}

// dollarsOrBlank writes an amount, or nothing for zero.
func dollarsOrBlank(m domain.Money) string {
	if m.IsZero() {
		return ""
	}
	return dollars(m)
}
