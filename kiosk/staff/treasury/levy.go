package treasury

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/view"
)

// levyRows is how many jurisdictions the apportionment form offers.
const levyRows = 8

// levyRow is one jurisdiction of the apportionment form.
type levyRow struct {
	N                  int
	Code, Name, Levy   string
	Kinds              []view.Option
	RecordedShare      bool // a row of the recorded apportionment
	KindTitle, Percent string
}

// levyView is the page of a roll's levy apportionment: what is recorded,
// the roll's bills, and the form.
type levyView struct {
	County, CountyTitle string
	Year                int
	Counties            []view.Option
	Recorded            bool
	RecordedBy          string
	ReceivedOn          string
	Total               string
	Revision            int
	Locked              bool // shares are paid: it can no longer change
	Shares              []levyRow
	Bills               int
	BillsTax            string
	Rows                []levyRow
	FormTotal           string
	FormReceived        string
	CanAct              bool
	ReadsTreasury       bool // the treasury's other pages are open to the viewer (not to the clerk)
	Error               string
	Today               string
	Settlement          string
}

// rollOf reads the county and roll year of a request (?county=&year=),
// last year's Dane roll by default.
func (m *Module) rollOf(get func(string) string) (domain.County, int, error) {
	county := domain.County(get("county"))
	if county == "" {
		county = domain.Dane
	}
	if !county.Valid() {
		return "", 0, domain.Errorf(domain.ENOTFOUND, "§5.17", "%q is not a county of the village.", county)
	}
	year := m.o.Today().Year() - 1
	if s := get("year"); s != "" {
		y, err := strconv.Atoi(s)
		if err != nil || y < 1900 || y > 9998 {
			return "", 0, domain.Errorf(domain.ENOTFOUND, "§5.17", "There is no roll year %q.", s)
		}
		year = y
	}
	return county, year, nil
}

func kindOptions(selected domain.JurisdictionKind) []view.Option {
	var out []view.Option
	for _, k := range domain.JurisdictionKinds() {
		out = append(out, view.Option{Value: string(k), Label: k.Title(), Selected: k == selected})
	}
	return out
}

func (m *Module) showLevy(w http.ResponseWriter, r *http.Request) {
	m.levyPage(w, r, http.StatusOK, "", nil)
}

// levyPage draws the page; form is the posted form to show again with an
// error, nil for a fresh page (the recorded apportionment, or the rows of
// a new one: the county and the village filled in).
func (m *Module) levyPage(w http.ResponseWriter, r *http.Request, status int, msg string, form map[string]string) {
	get := r.URL.Query().Get
	if form != nil {
		get = func(k string) string { return form[k] }
	}
	county, year, err := m.rollOf(get)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	reads := m.o.Reads()
	ap, ok, err := reads.LevyApportionment(county, year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	tax, n, err := reads.RollGeneralTax(county, year)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	v := levyView{County: string(county), CountyTitle: county.Title(), Year: year, Recorded: ok, Bills: n, BillsTax: dollars(tax),
		CanAct: staff.Allowed(m.o.Who(r).Role, staff.CapLevy), ReadsTreasury: staff.Allowed(m.o.Who(r).Role, staff.CapReadTreasury), Error: msg, Today: m.o.Today().String(),
		Settlement: settlementURL(county, year, domain.SettleJanuary)}
	for _, c := range []domain.County{domain.Dane, domain.Green} {
		v.Counties = append(v.Counties, view.Option{Value: string(c), Label: c.Title(), Selected: c == county})
	}
	if ok {
		v.RecordedBy, v.ReceivedOn, v.Total, v.Revision, v.Locked = ap.By+" at "+ap.At.String(), ap.ReceivedOn.String(), dollars(ap.Total), ap.Revision, ap.PaidShares
		for i, s := range ap.Shares {
			v.Shares = append(v.Shares, levyRow{N: i + 1, Code: s.Jurisdiction, Name: s.Name, Levy: dollars(s.Levy), KindTitle: s.Kind.Title(), Percent: percent(s.Levy, ap.Total), RecordedShare: true})
		}
	}
	for i := 1; i <= levyRows; i++ {
		row := levyRow{N: i}
		kind := domain.JurisdictionKind("")
		switch {
		case form != nil:
			row.Code, row.Name, row.Levy = form[fmt.Sprintf("code%d", i)], form[fmt.Sprintf("name%d", i)], form[fmt.Sprintf("levy%d", i)]
			kind = domain.JurisdictionKind(form[fmt.Sprintf("kind%d", i)])
		case ok && i <= len(ap.Shares):
			s := ap.Shares[i-1]
			row.Code, row.Name, row.Levy, kind = s.Jurisdiction, s.Name, s.Levy.String(), s.Kind
		case !ok:
			kind = []domain.JurisdictionKind{domain.JurisdictionState, domain.JurisdictionCounty, domain.JurisdictionVillage, domain.JurisdictionSchool, domain.JurisdictionTechnicalCollege, domain.JurisdictionSpecial, domain.JurisdictionSpecial, domain.JurisdictionSpecial}[i-1]
			switch kind {
			case domain.JurisdictionCounty:
				row.Code, row.Name = string(county), county.Title()+" County"
			case domain.JurisdictionVillage:
				row.Code, row.Name = "belleville", "Village of Belleville"
			}
		}
		row.Kinds = kindOptions(kind)
		v.Rows = append(v.Rows, row)
	}
	v.FormTotal, v.FormReceived = get("total"), get("received_on")
	if form == nil && ok {
		v.FormTotal, v.FormReceived = ap.Total.String(), ap.ReceivedOn.String()
	}
	if v.FormReceived == "" {
		v.FormReceived = v.Today
	}
	m.o.Render(w, r, status, levyPage(m.o.Frame(r, "Levy apportionment of the tax roll"), v))
}

// percent is part's share of whole, to two decimals rounded half up, for
// people (the shares themselves are computed exactly, domain.ShareOut).
func percent(part, whole domain.Money) string {
	if !whole.IsPositive() || part.IsNegative() {
		return ""
	}
	a, b := part.Cents(), whole.Cents()
	h := (a*10000*2 + b) / (2 * b) // hundredths of a percent
	return fmt.Sprintf("%d.%02d%%", h/100, h%100)
}

// submitLevy records a roll's apportionment from the form: the rows with
// a code, name or levy are the jurisdictions, in order.
func (m *Module) submitLevy(w http.ResponseWriter, r *http.Request) {
	keys := []string{"county", "year", "received_on", "total"}
	for i := 1; i <= levyRows; i++ {
		keys = append(keys, fmt.Sprintf("code%d", i), fmt.Sprintf("name%d", i), fmt.Sprintf("kind%d", i), fmt.Sprintf("levy%d", i))
	}
	form := formOf(r, m.o, keys...)
	show := func(status int, msg string) { m.levyPage(w, r, status, msg, form) }
	var p domain.LevyApportionment
	m.o.Record(w, r, show, func() (domain.Payload, error) {
		county, year, err := m.rollOf(func(k string) string { return form[k] })
		if err != nil {
			return nil, err
		}
		p = domain.LevyApportionment{County: county, TaxYear: year}
		if p.ReceivedOn, err = staff.ParseDate("The day the roll was received", form["received_on"]); err != nil {
			return nil, err
		}
		if p.Total, err = staff.ParseAmount("The roll's general property tax", form["total"]); err != nil {
			return nil, err
		}
		for i := 1; i <= levyRows; i++ {
			code, name, levy := strings.TrimSpace(form[fmt.Sprintf("code%d", i)]), form[fmt.Sprintf("name%d", i)], form[fmt.Sprintf("levy%d", i)]
			if code == "" && strings.TrimSpace(name) == "" && strings.TrimSpace(levy) == "" {
				continue
			}
			s := domain.LevyShare{Jurisdiction: code, Name: name, Kind: domain.JurisdictionKind(form[fmt.Sprintf("kind%d", i)])}
			if s.Levy, err = staff.ParseAmount(fmt.Sprintf("The levy of jurisdiction %d", i), levy); err != nil {
				return nil, err
			}
			p.Shares = append(p.Shares, s)
		}
		return &p, m.o.Reads().CheckLevyApportionment(p, m.o.Today())
	}, func() string { return fmt.Sprintf("/staff/levy?county=%s&year=%d", p.County, p.TaxYear) })
}

func (m *Module) apiLevy(w http.ResponseWriter, r *http.Request) {
	county, year, err := m.rollOf(r.PathValue)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	ap, ok, err := m.o.Reads().LevyApportionment(county, year)
	if err == nil && !ok {
		err = domain.Errorf(domain.ENOTFOUND, "§5.17", "The levy apportionment of the %d %s roll is not recorded.", year, county.Title())
	}
	m.o.Answer(w, ap, err)
}

func (m *Module) apiLevyChange(w http.ResponseWriter, r *http.Request) {
	staff.APICommand[domain.LevyApportionment](m.o, w, r, "a levy apportionment", func(p *domain.LevyApportionment) error {
		return m.o.Reads().CheckLevyApportionment(*p, m.o.Today())
	})
}
