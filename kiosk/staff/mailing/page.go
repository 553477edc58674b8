package mailing

import (
	"net/http"
	"strconv"

	"github.com/villagehall/appliance/domain"
	staffview "github.com/villagehall/appliance/kiosk/staff/view"
)

// showMailingPage is the mailing page, its dates today.
func (m *Module) showMailingPage(w http.ResponseWriter, r *http.Request) {
	today := m.o.Today()
	v := Mailing{Today: today.String(), Year: strconv.Itoa(today.Year())}
	for i, k := range Kinds {
		v.Kinds = append(v.Kinds, staffview.Option{Value: k, Label: kindTitle(k), Selected: i == 0})
	}
	// From November 2 the notice due is the final one.
	final := !today.Before(domain.PenaltyDay(today.Year()))
	for _, n := range []string{NoticeNovember, NoticeTaxRoll, NoticeInstallment} {
		v.Notices = append(v.Notices, staffview.Option{Value: n, Label: noticeTitle(n), Selected: n == NoticeTaxRoll && final || n == NoticeNovember && !final})
	}
	m.o.Render(w, r, http.StatusOK, MailingPage(m.o.Frame(r, "Mailing bills and notices"), v))
}
