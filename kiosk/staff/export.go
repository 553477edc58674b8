package staff

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"net/http"
	"strings"
)

// csvExport writes a CSV download. Every export of the clerk's office goes
// through it, so that every cell is neutralised (safeCell) on its way out:
// the files are opened in a spreadsheet by the county, the auditors and
// the treasurer, and some of their cells (bill descriptions, owners'
// names, addresses) come from imports and forms.
type csvExport struct {
	w    *csv.Writer
	buf  *bufio.Writer // between w and the response; nil for a file
	safe []string      // the cells of the record being written, reused
}

// downloadBuffer is how much of a download is held before it goes to the
// client. A year's export runs to megabytes, and net/http sends each
// write that passes its own 4 KiB buffer as a chunk, a TLS record and a
// system call of its own.
const downloadBuffer = 64 << 10

// startCSV sets the headers of a CSV download named filename and returns
// its writer.
func startCSV(w http.ResponseWriter, filename string) *csvExport {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, filename))
	buf := bufio.NewWriterSize(w, downloadBuffer)
	return &csvExport{w: csv.NewWriter(buf), buf: buf}
}

// Write writes one record, each cell through safeCell. The cells are
// copied into a slice the writer keeps: a year's export writes some
// hundreds of thousands of records.
func (e *csvExport) Write(record []string) error {
	e.safe = e.safe[:0]
	for _, cell := range record {
		e.safe = append(e.safe, safeCell(cell))
	}
	return e.w.Write(e.safe)
}

// Flush writes what is buffered and returns the first write error.
func (e *csvExport) Flush() error {
	e.w.Flush()
	if err := e.w.Error(); err != nil || e.buf == nil {
		return err
	}
	return e.buf.Flush()
}

// plainNumber reports whether a cell is nothing but a decimal number,
// such as a negative amount: an optional "-", digits, and optionally a
// point and more digits ("-12.50", "7", "-0.37").
func plainNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, point := strings.Cut(s, ".")
	return digits(whole) && (!point || digits(frac))
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// safeCell neutralises a cell that a spreadsheet would run as a formula
// (OWASP, "CSV Injection"): one that starts with =, +, -, @, TAB or CR is
// prefixed with a single quote, which spreadsheets take to mean "text",
// so "=HYPERLINK(…)" or "+cmd|' /C calc'!A0" shows as typed instead of
// opening a link or a program. The full-width forms of = + - @ are
// prefixed too, since some spreadsheets read them as the ASCII ones.
//
// One reading is ours: a cell that is only a decimal number ("-12.50",
// an over/short or a credit) is left as it is. OWASP prefixes every cell
// starting with "-", but a number alone cannot call a function or reach
// another program, whereas a quoted amount becomes text that the county's
// and the auditors' sums skip without a warning. Anything more than a
// plain number after the "-" ("-1+2", "-2+3+cmd|…") is prefixed.
func safeCell(s string) string {
	if s == "" || plainNumber(s) {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	for _, wide := range []string{"＝", "＋", "－", "＠"} {
		if strings.HasPrefix(s, wide) {
			return "'" + s
		}
	}
	return s
}
