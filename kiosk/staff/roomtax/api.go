package roomtax

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/villagehall/appliance/domain"
)

// The API (Authorization: Bearer, a token acting with its account's
// role): a hotel operator's token files and reads its own operator's
// returns only; the treasurer's files for anyone and administers; the
// auditors' and granted officials' read. Every read is recorded first,
// like a page's, and its command id is in the answer ("read").

// apiReturn is a return as the API answers it.
type apiReturn struct {
	ID             string                        `json:"id"`
	Operator       string                        `json:"operator"`
	Period         domain.Quarter                `json:"period"`
	Status         string                        `json:"status"`
	RetainUntil    domain.Date                   `json:"retain_until"`
	AsOf           domain.Date                   `json:"as_of"`
	Figures        *domain.RoomTaxReturn         `json:"figures,omitempty"`
	Filings        []domain.RoomTaxFiling        `json:"filings,omitempty"`
	Extension      *domain.RoomTaxExtension      `json:"extension,omitempty"`
	Payments       []domain.RoomTaxPayment       `json:"payments,omitempty"`
	Determinations []domain.RoomTaxDetermination `json:"determinations,omitempty"`
}

func (m *Module) apiView(ret domain.QuarterlyReturn, asOf domain.Date) (apiReturn, error) {
	a := apiReturn{ID: ret.ID, Operator: ret.Operator, Period: ret.Period, Status: statusOf(ret), RetainUntil: ret.Period.RetainUntil(m.o.Ledger().Params()),
		AsOf: asOf, Filings: ret.Filings, Extension: ret.Extension, Payments: ret.Payments, Determinations: ret.Determinations}
	if _, ok := ret.Input(asOf); ok {
		f, err := ret.Figures(asOf, m.o.Ledger().Params())
		if err != nil {
			return a, err
		}
		a.Figures = &f
	}
	return a, nil
}

// apiReason returns the reason an API read gives: the filer's own, or the
// reason query parameter, which anyone else must send.
func (m *Module) apiReason(r *http.Request) (string, error) {
	if m.who(r).Role == domain.RoleHotelOperator {
		return filerReason, nil
	}
	if s := strings.TrimSpace(r.URL.Query().Get("reason")); s != "" {
		return s, nil
	}
	return "", domain.Errorf(domain.EINVALID, "§5.22(8)", "Every read of a return records why: send ?reason=….")
}

// apiAsOf reads ?as_of= (default today).
func (m *Module) apiAsOf(r *http.Request) (domain.Date, error) {
	s := r.URL.Query().Get("as_of")
	if s == "" {
		return m.o.Today(), nil
	}
	d, err := domain.ParseDate(s)
	if err != nil {
		return d, domain.Errorf(domain.EINVALID, "", "as_of must be a date like 2026-04-30.")
	}
	return d, nil
}

// apiOperator returns the operator an API call is about: a hotel
// operator's own (a different one named is refused), or the one named.
func (m *Module) apiOperator(r *http.Request, named string) (string, error) {
	who := m.who(r)
	if who.Role != domain.RoleHotelOperator {
		if named == "" {
			return "", domain.Errorf(domain.EINVALID, "", "Name the operator (operator=…; * for every operator).")
		}
		return named, nil
	}
	op, ok, err := m.o.Reads().RoomTaxOperatorOf(who.Username)
	if err != nil {
		return "", err
	}
	if !ok || named != "" && named != op.ID {
		return "", domain.Errorf(domain.EFORBIDDEN, "§5.22(8)", "Your login files only for its own operator account.")
	}
	return op.ID, nil
}

// apiReturns answers GET /api/v1/room-tax/returns?operator=…&reason=…:
// the operator's returns (every operator's with operator=*, for the
// treasurer's office and the auditors) with their figures as of as_of, by
// operator then period, a page at a time: year= keeps the quarters of one
// year; after= (a return's reference) starts after that return; limit= is
// the most one page holds (returnsPerPage unless asked, at most
// domain.MaxReadSubjects, the most one recorded read may name). The
// answer's count is how many returns match, and next the after= of the
// next page, absent on the last. The read recorded names the page's
// returns.
func (m *Module) apiReturns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	operator, err := m.apiOperator(r, q.Get("operator"))
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	reason, err := m.apiReason(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	asOf, err := m.apiAsOf(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	page, err := returnsPageOf(q)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	var returns []domain.QuarterlyReturn
	switch {
	case operator == domain.AllOperators && page.year != 0:
		returns, err = m.o.Reads().RoomTaxReturnsOfYear(page.year)
	case operator == domain.AllOperators:
		returns, err = m.o.Reads().RoomTaxReturns()
	case domain.ValidOperatorID(operator):
		returns, err = m.o.Reads().RoomTaxReturnsOf(operator)
	}
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	shown, count, next := page.of(returns)
	readID, err := m.record(r, domain.ReadReturns, operator, ids(shown), reason)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	out := []apiReturn{}
	for _, ret := range shown {
		a, err := m.apiView(ret, asOf)
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		out = append(out, a)
	}
	answer := map[string]any{"read": readID, "returns": out, "count": count}
	if next != "" {
		answer["next"] = next
	}
	m.o.WriteJSON(w, http.StatusOK, answer)
}

// returnsPerPage is how many returns a page of the API holds unless asked.
const returnsPerPage = 100

// returnsPage is a page of returns the API is asked for.
type returnsPage struct {
	year  int        // 0: every year
	after *returnKey // nil: from the first
	limit int
}

// returnKey is where a return sorts: by operator, then period.
type returnKey struct {
	operator string
	period   domain.Quarter
}

func (k returnKey) compare(r domain.QuarterlyReturn) int {
	if c := strings.Compare(r.Operator, k.operator); c != 0 {
		return c
	}
	return r.Period.Compare(k.period)
}

// returnsPageOf reads year=, after= and limit=, each optional.
func returnsPageOf(q url.Values) (returnsPage, error) {
	p := returnsPage{limit: returnsPerPage}
	if s := q.Get("year"); s != "" {
		y, err := strconv.Atoi(s)
		if err != nil || y < 2000 || y > 9999 {
			return p, domain.Errorf(domain.EINVALID, "", "year=%q is not a year like 2026.", s)
		}
		p.year = y
	}
	if s := q.Get("after"); s != "" {
		op, period, err := domain.ParseQuarterlyReturnID(s)
		if err != nil {
			return p, err
		}
		p.after = &returnKey{op, period}
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > domain.MaxReadSubjects {
			return p, domain.Errorf(domain.EINVALID, "", "limit=%q: a page holds 1 to %d returns.", s, domain.MaxReadSubjects)
		}
		p.limit = n
	}
	return p, nil
}

// of returns the page of returns (sorted by operator then period), how
// many match the page's year, and the after= of the next page ("" on the
// last).
func (p returnsPage) of(returns []domain.QuarterlyReturn) (shown []domain.QuarterlyReturn, count int, next string) {
	if p.year != 0 {
		returns = slices.DeleteFunc(slices.Clone(returns), func(r domain.QuarterlyReturn) bool { return r.Period.Year != p.year })
	}
	count = len(returns)
	start := 0
	if p.after != nil {
		var found bool
		start, found = slices.BinarySearchFunc(returns, *p.after, func(r domain.QuarterlyReturn, k returnKey) int { return k.compare(r) })
		if found {
			start++
		}
	}
	end := min(start+p.limit, len(returns))
	shown = returns[start:end]
	if end < len(returns) && len(shown) > 0 {
		next = shown[len(shown)-1].ID
	}
	return shown, count, next
}

// apiReturn answers GET /api/v1/room-tax/returns/{id}?reason=….
func (m *Module) apiReturn(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	id := domain.QuarterlyReturnID(opID, q)
	reason, err := m.apiReason(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	asOf, err := m.apiAsOf(r)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	readID, err := m.record(r, domain.ReadReturn, opID, []string{id}, reason)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	ret, err := m.o.Reads().RoomTaxReturn(id)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	a, err := m.apiView(ret, asOf)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"read": readID, "return": a})
}

// apiFiling is the body of a return or an amendment.
type apiFiling struct {
	CommandID     string                     `json:"command_id"`
	Operator      string                     `json:"operator,omitempty"`
	Period        string                     `json:"period,omitempty"`
	GrossReceipts domain.Money               `json:"gross_receipts"`
	ExemptSales   []domain.RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	Signer        string                     `json:"signer"`
	Capacity      string                     `json:"capacity"`
	Year          *domain.RoomTaxYear        `json:"year,omitempty"`
	Reason        string                     `json:"reason,omitempty"`
}

func (m *Module) answer(w http.ResponseWriter, res domain.Result, err error, id string) {
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	m.o.WriteJSON(w, http.StatusOK, map[string]any{"command_id": res.CommandID, "index": res.Index, "return": id})
}

// apiFile answers POST /api/v1/room-tax/returns: files a quarterly return.
func (m *Module) apiFile(w http.ResponseWriter, r *http.Request) {
	var body apiFiling
	if err := m.o.DecodeJSON(w, r, &body, "a room tax return"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	operator, err := m.apiOperator(r, body.Operator)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	q, err := domain.ParseQuarter(body.Period)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitAPI(r, body.CommandID, &domain.FileRoomTaxReturn{Operator: operator, Period: q, GrossReceipts: body.GrossReceipts, ExemptSales: body.ExemptSales,
		Signer: body.Signer, Capacity: body.Capacity, Year: body.Year})
	m.answer(w, res, err, domain.QuarterlyReturnID(operator, q))
}

// apiAmend answers POST /api/v1/room-tax/returns/{id}/amendments.
func (m *Module) apiAmend(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	var body apiFiling
	if err := m.o.DecodeJSON(w, r, &body, "an amended room tax return"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	if _, err := m.apiOperator(r, opID); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitAPI(r, body.CommandID, &domain.AmendRoomTaxReturn{Operator: opID, Period: q, GrossReceipts: body.GrossReceipts, ExemptSales: body.ExemptSales,
		Signer: body.Signer, Capacity: body.Capacity, Reason: body.Reason})
	m.answer(w, res, err, domain.QuarterlyReturnID(opID, q))
}

// apiExtend answers POST /api/v1/room-tax/returns/{id}/extension.
func (m *Module) apiExtend(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	var body struct {
		CommandID string      `json:"command_id"`
		To        domain.Date `json:"to"`
		Cause     string      `json:"cause"`
	}
	if err := m.o.DecodeJSON(w, r, &body, "an extension"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitAPI(r, body.CommandID, &domain.RoomTaxExtend{Operator: opID, Period: q, To: body.To, Cause: body.Cause})
	m.answer(w, res, err, domain.QuarterlyReturnID(opID, q))
}

// apiDetermine answers POST /api/v1/room-tax/returns/{id}/determinations.
func (m *Module) apiDetermine(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	var body struct {
		CommandID     string                     `json:"command_id"`
		Type          string                     `json:"type"`
		Basis         string                     `json:"basis"`
		GrossReceipts domain.Money               `json:"gross_receipts"`
		ExemptSales   []domain.RoomTaxExemptSale `json:"exempt_sales,omitempty"`
	}
	if err := m.o.DecodeJSON(w, r, &body, "a determination"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	res, err := m.o.SubmitAPI(r, body.CommandID, &domain.RoomTaxDetermine{Operator: opID, Period: q, Type: body.Type, Basis: body.Basis, GrossReceipts: body.GrossReceipts, ExemptSales: body.ExemptSales})
	m.answer(w, res, err, domain.QuarterlyReturnID(opID, q))
}

// apiPay answers POST /api/v1/room-tax/returns/{id}/payments, for the
// treasurer's office: a card payment taken by a payment processor (the
// processor's approval as the reference), or cash or a check, which go
// into the caller's open drawer as at the window. The ledger applies it
// to the tax first (5.22/room-tax-return). The answer names the receipt,
// not the return's figures.
func (m *Module) apiPay(w http.ResponseWriter, r *http.Request) {
	opID, q, err := domain.ParseQuarterlyReturnID(r.PathValue("id"))
	if err != nil {
		m.o.WriteAPIError(w, domain.Errorf(domain.ENOTFOUND, "", "There is no such return."))
		return
	}
	var body struct {
		CommandID string        `json:"command_id"`
		Amount    domain.Money  `json:"amount"`
		Tender    domain.Tender `json:"tender"`
		Reference string        `json:"reference"`
		Payer     string        `json:"payer,omitempty"`
	}
	if err := m.o.DecodeJSON(w, r, &body, "a room tax payment"); err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	id := domain.QuarterlyReturnID(opID, q)
	var p domain.Payload
	switch body.Tender {
	case domain.Card:
		p = &domain.PayRoomTax{Return: id, Amount: body.Amount, Reference: body.Reference, Payer: body.Payer}
	case domain.Cash, domain.Check:
		d, open, err := m.o.Reads().OpenDrawer(m.who(r).Username)
		if err != nil {
			m.o.WriteAPIError(w, err)
			return
		}
		if !open {
			m.o.WriteAPIError(w, domain.Errorf(domain.ECONFLICT, "", "A %s payment goes into an open drawer: open one at the window first.", body.Tender))
			return
		}
		p = &domain.RoomTaxWindowPayment{Return: id, DrawerID: d.ID, Amount: body.Amount, Tender: body.Tender, Tendered: body.Amount, Reference: body.Reference, Payer: body.Payer}
	default:
		m.o.WriteAPIError(w, domain.Errorf(domain.EINVALID, "", "tender must be card, cash or check."))
		return
	}
	res, err := m.o.SubmitAPI(r, body.CommandID, p)
	if err != nil {
		m.o.WriteAPIError(w, err)
		return
	}
	answer := map[string]any{"command_id": res.CommandID, "index": res.Index, "return": id}
	if res.Receipt != nil {
		answer["receipt"] = res.Receipt.Number
	}
	m.o.WriteJSON(w, http.StatusOK, answer)
}
