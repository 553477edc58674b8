package budget

import (
	"bytes"
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

// The chart of accounts: the administrator keeps it by form, one account
// at a time, or by a CSV import checked in full first (a dry run shows
// every error with its line, and an import is all or nothing).

// chartColumns are the columns of a chart CSV, in order.
var chartColumns = []string{"code", "type", "name", "fund", "unit", "major", "general", "reserve", "sources", "closed"}

// maxChartBytes bounds an import.
const maxChartBytes = 1 << 20

func (m *Module) showChart(w http.ResponseWriter, r *http.Request) {
	m.chartPage(w, r, http.StatusOK, accountForm{Type: string(domain.AccountExpenditure)}, "")
}

func (m *Module) chartPage(w http.ResponseWriter, r *http.Request, status int, f accountForm, saved string) {
	chart, err := m.o.Reads().Chart()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := chartView{Form: f, Saved: saved, CanEdit: staff.Allowed(m.o.Who(r).Role, staff.CapChart)}
	for _, a := range chart.Accounts {
		v.Accounts = append(v.Accounts, accountRow(a))
	}
	for _, t := range domain.AccountTypes() {
		v.Types = append(v.Types, option{Value: string(t), Label: string(t), Selected: string(t) == f.Type})
	}
	v.Sources = domain.ReceiptSources()
	m.o.Render(w, r, status, chartPage(m.o.Frame(r, "Chart of accounts"), v))
}

func accountRow(a domain.ChartAccount) accountView {
	return accountView{Code: a.Code, Type: string(a.Type), Name: a.Name, Fund: a.Fund, Unit: a.Unit, Major: a.Major, General: a.General, Reserve: a.Reserve,
		Sources: strings.Join(a.Sources, ", "), Closed: a.Closed, Changed: a.Changed.String(), ChangedBy: a.ChangedBy}
}

func (m *Module) submitAccount(w http.ResponseWriter, r *http.Request) {
	f := accountForm{Code: m.o.Form(r, "code"), Type: m.o.Form(r, "type"), Name: m.o.Form(r, "name"), Fund: m.o.Form(r, "fund"), Unit: m.o.Form(r, "unit"),
		Major: m.o.Form(r, "major"), General: r.PostForm.Get("general") != "", Reserve: r.PostForm.Get("reserve") != "", Closed: r.PostForm.Get("closed") != "",
		Sources: r.PostForm["sources"]}
	a := domain.ChartAccount{Code: f.Code, Type: domain.AccountType(f.Type), Name: f.Name, Fund: f.Fund, Unit: f.Unit, Major: f.Major,
		General: f.General, Reserve: f.Reserve, Closed: f.Closed, Sources: f.Sources}
	if _, err := m.o.Submit(r, &domain.ChartChange{Accounts: []domain.ChartAccount{a}, Source: "form"}); err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			f.Error = msg
			m.chartPage(w, r, status, f, "")
		})
		return
	}
	m.chartPage(w, r, http.StatusOK, accountForm{Type: f.Type, Fund: f.Fund}, a.Code)
}

func (m *Module) showChartImport(w http.ResponseWriter, r *http.Request) {
	m.o.Render(w, r, http.StatusOK, chartImportPage(m.o.Frame(r, "Import the chart of accounts"), chartImport{Columns: strings.Join(chartColumns, ",")}))
}

// submitChartImport serves POST /staff/chart/import: mode=dry-run checks
// every line and shows what an import would do; mode=import records the
// whole file as one change of the chart, or nothing.
func (m *Module) submitChartImport(w http.ResponseWriter, r *http.Request) {
	v := chartImport{Columns: strings.Join(chartColumns, ",")}
	frame := m.o.Frame(r, "Import the chart of accounts")
	file, hdr, err := r.FormFile("file")
	if err != nil {
		v.Errors = []string{"Choose the CSV file to import."}
		m.o.Render(w, r, http.StatusUnprocessableEntity, chartImportPage(frame, v))
		return
	}
	defer file.Close()
	body, err := io.ReadAll(io.LimitReader(file, maxChartBytes+1))
	if err != nil || len(body) > maxChartBytes {
		v.Errors = []string{fmt.Sprintf("The file is larger than %d bytes.", maxChartBytes)}
		m.o.Render(w, r, http.StatusRequestEntityTooLarge, chartImportPage(frame, v))
		return
	}
	v.File = hdr.Filename
	accounts, lines, errs := parseChartCSV(body)
	if len(errs) == 0 {
		// The ledger's own checks (references, one general fund …) are
		// asked of the whole file before anything is recorded.
		chart, err := m.o.Reads().Chart()
		if err != nil {
			m.o.Fail(w, r, err)
			return
		}
		if i, err := chart.CheckChange(accounts); err != nil {
			if i >= 0 {
				errs = []string{fmt.Sprintf("Line %d: %s", lines[i], domain.ErrorMessage(err))}
			} else {
				errs = []string{domain.ErrorMessage(err)}
			}
		}
	}
	if len(errs) > 0 {
		v.Errors = errs
		m.o.Render(w, r, http.StatusUnprocessableEntity, chartImportPage(frame, v))
		return
	}
	for _, a := range accounts {
		v.Rows = append(v.Rows, accountRow(a))
	}
	if m.o.Form(r, "mode") != "import" {
		v.DryRun = true
		m.o.Render(w, r, http.StatusOK, chartImportPage(frame, v))
		return
	}
	if _, err := m.o.Submit(r, &domain.ChartChange{Accounts: accounts, Source: "import " + hdr.Filename}); err != nil {
		m.formFail(w, r, err, func(status int, msg string) {
			v.Rows, v.Errors = nil, []string{msg}
			m.o.Render(w, r, status, chartImportPage(frame, v))
		})
		return
	}
	v.Imported = true
	m.o.Render(w, r, http.StatusOK, chartImportPage(frame, v))
}

// parseChartCSV reads a chart file: a header naming the columns
// (chartColumns, in any order, the unknown refused), then one account a
// line. Every problem is reported with its line.
func parseChartCSV(body []byte) (accounts []domain.ChartAccount, lines []int, errs []string) {
	rd := csv.NewReader(bytes.NewReader(body))
	rd.FieldsPerRecord = -1
	header, err := rd.Read()
	if err != nil {
		return nil, nil, []string{"The file is empty or not CSV: the first line names the columns (" + strings.Join(chartColumns, ",") + ")."}
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !slices.Contains(chartColumns, h) {
			errs = append(errs, fmt.Sprintf("Line 1: unknown column %q (the columns are %s).", h, strings.Join(chartColumns, ", ")))
			continue
		}
		col[h] = i
	}
	for _, need := range []string{"code", "type", "name"} {
		if _, ok := col[need]; !ok {
			errs = append(errs, fmt.Sprintf("Line 1: the column %q is missing.", need))
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	var out []domain.ChartAccount
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := rd.FieldPos(0)
		if err != nil {
			errs = append(errs, fmt.Sprintf("Line %d: %v.", line, err))
			break
		}
		cell := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		flag := func(name string) (bool, error) {
			switch strings.ToLower(cell(name)) {
			case "", "no", "false", "0":
				return false, nil
			case "yes", "true", "1", "x":
				return true, nil
			}
			return false, fmt.Errorf("the %s column is yes or no, not %q", name, cell(name))
		}
		a := domain.ChartAccount{Code: cell("code"), Type: domain.AccountType(strings.ToLower(cell("type"))), Name: cell("name"), Fund: cell("fund"), Unit: cell("unit"), Major: cell("major")}
		var ferr error
		for _, f := range []struct {
			name string
			v    *bool
		}{{"general", &a.General}, {"reserve", &a.Reserve}, {"closed", &a.Closed}} {
			if *f.v, err = flag(f.name); err != nil && ferr == nil {
				ferr = err
			}
		}
		a.Sources = append(a.Sources, strings.FieldsFunc(cell("sources"), func(r rune) bool { return r == ';' || r == ' ' || r == '|' })...)
		if ferr != nil {
			errs = append(errs, fmt.Sprintf("Line %d: %v.", line, ferr))
			continue
		}
		c := domain.Command{Kind: domain.KindChart, Payload: &domain.ChartChange{Accounts: []domain.ChartAccount{a}}}
		if err := c.CheckText(); err != nil {
			errs = append(errs, fmt.Sprintf("Line %d: %s", line, domain.ErrorMessage(err)))
			continue
		}
		if d, ok := domain.Kinds.Lookup(domain.KindChart); ok {
			if err := d.Check(c); err != nil {
				errs = append(errs, fmt.Sprintf("Line %d: %s", line, domain.ErrorMessage(err)))
				continue
			}
		}
		if slices.ContainsFunc(out, func(x domain.ChartAccount) bool { return x.Code == a.Code }) {
			errs = append(errs, fmt.Sprintf("Line %d: account %s is listed twice.", line, a.Code))
			continue
		}
		out = append(out, a)
		lines = append(lines, line)
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, "The file has no accounts below its header.")
	}
	return out, lines, errs
}

func (m *Module) apiChart(w http.ResponseWriter, r *http.Request) {
	chart, err := m.o.Reads().Chart()
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"accounts": staff.NonNil(chart.Accounts)})
}

func (m *Module) apiChartChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.ChartChange](m.o, w, r, "a change of the chart", nil)
}
