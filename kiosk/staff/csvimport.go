package staff

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// The clerk's CSV imports (bills, parcel rolls) read their files alike: a
// header line naming the columns in any order, then one record a line,
// every error named by its line (line 1 is the header).

// CSVFile is an import file whose header has been read.
type CSVFile struct {
	r   *csv.Reader
	col map[string]int // column index by lower-case name
}

// OpenCSV reads the header line of rd and checks that it names every
// column of need; layout is the header the import documents, for the
// messages.
func OpenCSV(rd io.Reader, need, layout []string) (*CSVFile, []error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, []error{domain.Errorf(domain.EINVALID, "", "Line 1: the file has no header line (%s).", strings.Join(layout, ","))}
	}
	f := &CSVFile{r: cr, col: map[string]int{}}
	for i, h := range head {
		f.col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	var errs []error
	for _, c := range need {
		if _, ok := f.col[c]; !ok {
			errs = append(errs, domain.Errorf(domain.EINVALID, "", "Line 1: the header has no column %q (it needs %s).", c, strings.Join(need, ",")))
		}
	}
	if errs != nil {
		return nil, errs
	}
	return f, nil
}

// Each calls fn with the line number of every line that is not empty and
// a function returning its field in a column (trimmed; empty when the
// line has no such field). A line that cannot be read as CSV ends the
// file, with its error.
func (f *CSVFile) Each(fn func(line int, get func(column string) string)) error {
	for {
		rec, err := f.r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := f.r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return domain.Errorf(domain.EINVALID, "", "Line %d: the line cannot be read as CSV.", line)
		}
		if strings.Join(rec, "") == "" {
			continue
		}
		fn(line, func(name string) string {
			i, ok := f.col[name]
			if !ok || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		})
	}
}

// ImportedCSV returns the file an import form carries: the uploaded file
// "file", else the text pasted in "csv", and its name: the file's, else
// "name" (the file a confirmed dry run checked), else "pasted".
func ImportedCSV(r *http.Request) (text, name string, err error) {
	text, name = r.PostForm.Get("csv"), "pasted"
	if r.MultipartForm != nil {
		if fh := r.MultipartForm.File["file"]; len(fh) > 0 {
			f, err := fh[0].Open()
			if err != nil {
				return "", "", err
			}
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, maxCSVBytes))
			if err != nil {
				return "", "", err
			}
			return string(b), fh[0].Filename, nil
		}
	}
	if n := formValue(r, "name"); n != "" {
		name = n
	}
	return text, name, nil
}

// ErrLine returns the line an import error names ("Line 4: …"), or 0.
func ErrLine(err error) int {
	var n int
	fmt.Sscanf(domain.ErrorMessage(err), "Line %d:", &n)
	return n
}

// Found reports whether a read found its record: false with no error
// when the ledger has none (ENOTFOUND), the error itself otherwise.
func Found(err error) (bool, error) {
	if err == nil {
		return true, nil
	}
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		return false, nil
	}
	return false, err
}
