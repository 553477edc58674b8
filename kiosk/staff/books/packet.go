package books

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/villagehall/appliance/domain"
)

// The board's monthly financial packet (?month=YYYY-MM, the last whole
// month by default): the PDF the clerk hands the Village Board each
// month, read from the books as of the month's last day. A cover with
// its contents; cash and investments by fund; the balance sheet by fund;
// for each fund, revenues and expenditures beside the budget, the month
// and the year to date; and the month's check register.

// PacketBooks is what the packet reads: the statements as of the month's
// end and the checks written in it. domain.Reads answers it.
type PacketBooks interface {
	Chart() (domain.Chart, error)
	BalanceSheet(asOf domain.Date) (domain.BalanceSheet, error)
	// FundStatementThrough returns fund's revenues and expenditures
	// beside its budget, the month that through ends and the year to
	// date.
	FundStatementThrough(fund string, through domain.Date) (domain.MonthStatement, error)
	// CheckRegister returns every check written in month (YYYY-MM),
	// claims' and refunds', voided ones too.
	CheckRegister(month string) ([]domain.CheckRecord, error)
}

// packetBooks returns what the packet reads: the module's own books when
// they can answer it, else the office's ledger.
func (m *Module) packetBooks() (PacketBooks, error) {
	if m.books == nil {
		return m.o.Reads(), nil
	}
	if p, ok := m.books.(PacketBooks); ok {
		return p, nil
	}
	return nil, fmt.Errorf("the books read by this office cannot make the board's packet")
}

// packetMonth reads ?month=: a month written YYYY-MM that has ended by
// today, the last whole month when it is absent. It returns the month's
// last day.
func packetMonth(r *http.Request, today domain.Date) (domain.Date, error) {
	lastWhole := domain.NewDate(today.Year(), today.Month(), 1).AddDays(-1)
	s := r.URL.Query().Get("month")
	if s == "" {
		return lastWhole, nil
	}
	first, err := domain.ParseDate(s + "-01")
	if err != nil || len(s) != 7 {
		return domain.Date{}, domain.Errorf(domain.EMALFORMED, "", "The month %q is not a month written as YYYY-MM (?month=%s).", s, lastWhole.String()[:7])
	}
	if through := first.LastOfMonth(); !through.Before(today) {
		return domain.Date{}, domain.Errorf(domain.EMALFORMED, "", "The month %s has not ended yet: the packet reports a whole month, the last being %s.", s, lastWhole.String()[:7])
	}
	return first.LastOfMonth(), nil
}

// packetOf reads the books for the packet of the month ending through.
func packetOf(b PacketBooks, village string, through, prepared domain.Date) (packet, error) {
	p := packet{Village: village, Through: through, Prepared: prepared}
	var err error
	if p.Chart, err = b.Chart(); err != nil {
		return packet{}, err
	}
	if p.Sheet, err = b.BalanceSheet(through); err != nil {
		return packet{}, err
	}
	for _, f := range p.Sheet.Funds {
		st, err := b.FundStatementThrough(f, through)
		if err != nil {
			return packet{}, err
		}
		p.Statements = append(p.Statements, st)
	}
	if p.Checks, err = b.CheckRegister(through.String()[:7]); err != nil {
		return packet{}, err
	}
	return p, nil
}

func (m *Module) showPacket(w http.ResponseWriter, r *http.Request) {
	today := m.o.Today()
	through, err := packetMonth(r, today)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	b, err := m.packetBooks()
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	p, err := packetOf(b, m.o.Village(), through, today)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	// Dated the day it was prepared: the same books on the same day give
	// the same bytes.
	if err := packetPDF(&buf, p, domain.NewDateTime(today, 12, 0, 0).Time(m.o.Location())); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `inline; filename="board-packet-`+through.String()[:7]+`.pdf"`)
	_, _ = w.Write(buf.Bytes())
}
