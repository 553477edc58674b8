package purchasing

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
)

// The notices of a public contract, printed for the newspaper or for
// posting (§5.13(1), Wis. Stat. 62.15, ch. 985): the class 2 notice that
// advertises for proposals before bids are taken, for materials or
// supplies expected to cost more than the class 2 threshold, and the
// class 1 notice of a contract over the class 1 threshold, up to the
// class 2 one, published before it is let. Which one an order needs is
// the domain's answer (Order.NoticeClass). Each is a dated notice to the
// public on the office's letterhead, signed by the Purchasing Agent; it
// says when it is to be published, or when it was, once the insertions
// are recorded.

// showNoticePDF serves GET /staff/orders/{id}/notice.pdf: the notice the
// order needs, dated ?date= (default today); a class 2 notice opens bids
// on the day the order records, else on ?bids_open=.
func (m *Module) showNoticePDF(w http.ResponseWriter, r *http.Request) {
	o, err := m.o.Reads().Order(r.PathValue("id"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	on, err := m.o.LetterDate(r)
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	n, err := m.noticeOf(o, on, r.URL.Query().Get("bids_open"))
	if err != nil {
		m.o.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := m.writeNotice(&buf, n); err != nil {
		m.o.Fail(w, r, err)
		return
	}
	staff.ServePDF(w, fmt.Sprintf("class%d-notice-%s-%s.pdf", n.class, o.ID, on), buf.Bytes())
}

// orderNotice is a notice as it is printed.
type orderNotice struct {
	order    domain.Order
	class    int
	on       domain.Date // the notice's date
	open     domain.Date // the day bids open (class 2)
	inserted []domain.Date
	values   domain.Values
}

// noticeOf checks that order o needs a notice and that it can be dated
// on: a notice is dated before it is published, so on or before its
// first insertion when one is recorded, and, for a class 2 notice not yet
// published, early enough that both insertions can still run before
// bids open. A class 2 notice needs the day bids open: the one the
// order records (a different bidsOpen is refused), else bidsOpen.
func (m *Module) noticeOf(o domain.Order, on domain.Date, bidsOpen string) (orderNotice, error) {
	params := m.o.Ledger().Params()
	class, err := o.NoticeClass(on, params)
	if err != nil {
		return orderNotice{}, err
	}
	n := orderNotice{order: o, class: class, on: on, open: o.BidsOpen, inserted: sortedDates(o.Notices), values: params.At(on)}
	switch {
	case class == 0:
		return n, domain.Errorf(domain.ECONFLICT, "§5.13(1)", "Order %s needs no published notice: only a contract for materials or supplies over %s does (Village Code §5.13, Wis. Stat. 62.15).", o.ID, staff.Dollars(n.values.Class1NoticeThreshold))
	case len(n.inserted) == 0 && o.Status != domain.OrderDraft:
		return n, domain.Errorf(domain.ECONFLICT, "§5.13(1)", "Order %s is %s and records no notice: a notice is published before the bids and the award.", o.ID, o.Status)
	case len(n.inserted) > 0 && on.After(n.inserted[0]):
		return n, domain.Errorf(domain.EINVALID, "§5.13(1)", "The notice of order %s was first published on %s: date it on or before that day.", o.ID, staff.LongDate(n.inserted[0]))
	}
	if class == 1 {
		return n, nil
	}
	if s := strings.TrimSpace(bidsOpen); s != "" {
		d, err := staff.ParseDate("The day bids open", s)
		if err != nil {
			return n, err
		}
		if !n.open.IsZero() && d != n.open {
			return n, domain.Errorf(domain.EINVALID, "§5.13(1)", "Order %s records that bids open on %s, not %s.", o.ID, staff.LongDate(n.open), staff.LongDate(d))
		}
		n.open = d
	}
	if n.open.IsZero() {
		return n, domain.Errorf(domain.EINVALID, "§5.13(1)", "A class 2 notice says the day bids open: name it.")
	}
	if first, _ := domain.Class2Deadline(n.open); len(n.inserted) == 0 && on.After(first) {
		return n, domain.Errorf(domain.EINVALID, "§5.13(1)", "For bids opened on %s the class 2 notice is first published by %s, two weeks before: a notice dated %s is too late. Choose a later day to open the bids.", staff.LongDate(n.open), staff.LongDate(first), staff.LongDate(on))
	}
	return n, nil
}

func sortedDates(ds []domain.Date) []domain.Date {
	return slices.SortedFunc(slices.Values(ds), domain.Date.Compare)
}

// writeNotice writes the notice on one page.
func (m *Module) writeNotice(out *bytes.Buffer, n orderNotice) error {
	o, v := n.order, n.values
	head := m.o.Letterhead()
	village := head.VillageName()
	where := strings.Join(head.AddressLines(), ", ")
	what := fmt.Sprintf("%s (%s), purchase order %s", o.Description, strings.ReplaceAll(string(o.Category), "_", " "), o.ID)
	title := "Advertisement for bids"
	if n.class == 1 {
		title = "Notice of proposed public contract"
	}
	stamp := time.Date(n.on.Year(), n.on.Month(), n.on.Day(), 9, 0, 0, 0, m.o.Location())
	l := m.o.NewLetter(title+" - "+o.ID, stamp)
	l.Start(staff.LetterStart{Date: n.on, Heading: title, Public: true})
	if n.class == 2 {
		l.Para(staff.Sentence(fmt.Sprintf("Notice is hereby given that the %s will receive sealed proposals for %s, addressed to the Purchasing Agent at %s, until %s on %s, and will open them that day", village, what, where, staff.ClockText(m.o.Ledger().Params().At(n.open).OfficeCloses), staff.LongDate(n.open))))
		l.Para(fmt.Sprintf("This advertisement is required because the purchase is expected to cost more than %s (Village Code §5.13(1)). The contract will be let to the lowest responsible bidder (Village Code §5.13(2); Wis. Stat. 62.15).", staff.Dollars(v.Class2NoticeThreshold)))
	} else {
		l.Para(fmt.Sprintf("Notice is hereby given that the %s proposes to let a public contract for %s, expected to cost more than %s and not more than %s. The contract will be let only after this notice is published (Wis. Stat. 62.15(1)).", village, what, staff.Dollars(v.Class1NoticeThreshold), staff.Dollars(v.Class2NoticeThreshold)))
	}
	contact := "Questions about this notice go to the Purchasing Agent at " + where
	if head.Phone != "" {
		contact += ", telephone " + head.Phone
	}
	l.Para(staff.Sentence(contact))
	l.Para("Dated " + staff.LongDate(n.on) + ".")
	l.Sign("Purchasing Agent")
	l.Small(n.publication())
	l.End()
	return l.Output(out)
}

// publication says when the notice runs: its insertions once recorded,
// else what chapter 985 asks of its class.
func (n orderNotice) publication() string {
	var dates []string
	for _, d := range n.inserted {
		dates = append(dates, staff.LongDate(d))
	}
	if n.class == 1 {
		if len(dates) > 0 {
			return "Class 1 notice (Wis. Stat. ch. 985), published " + strings.Join(dates, " and ") + "."
		}
		return "Class 1 notice (Wis. Stat. ch. 985): publish once, before the contract is let."
	}
	if len(dates) > 0 {
		return "Class 2 notice (Wis. Stat. ch. 985), published " + strings.Join(dates, " and ") + "."
	}
	first, second := domain.Class2Deadline(n.open)
	return fmt.Sprintf("Class 2 notice (Wis. Stat. ch. 985): publish twice, once in each of two consecutive weeks, the first insertion on or before %s and the second on or before %s, a week before the bids are opened.", staff.LongDate(first), staff.LongDate(second))
}
