package kiosk

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/find"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/view"
)

// showLetterPage shows the status letter request form (§5.11) with the fee
// in effect today and the day a letter asked for now would be ready.
// ?parcel= fills in the parcel. The request is paid for by card as it is
// made, so a kiosk without a card terminal shows, instead of the form,
// the fee and what to bring to the clerk's window.
func (s *Server) showLetterPage(w http.ResponseWriter, r *http.Request) {
	p := s.page(r, selfURL(r), "title.letter")
	l, err := s.letterForm()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	l.Query = strings.TrimSpace(r.URL.Query().Get("parcel"))
	if !s.takesCards() {
		l.CardOff = letterCardOff(p, l.Fee)
	}
	s.render(w, r, http.StatusOK, view.LetterPage(p, l))
}

// letterForm returns the empty form with today's terms.
func (s *Server) letterForm() (view.Letter, error) {
	now := s.moment()
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: now}, s.ledger.Params())
	if err != nil {
		return view.Letter{}, err
	}
	return view.Letter{Action: "/letters", Fee: sl.Fee, ReceivedOn: sl.ReceivedOn, ReadyBy: sl.ReadyBy, Today: now.Date, Fields: map[string]*view.Problem{}}, nil
}

// submitLetter reads the request form. A parcel that cannot be found, a
// search that matches several parcels, or a missing name or contact shows
// the form again with what is wrong beside each field; a good request
// shows the confirmation with the fee before anything is charged.
func (s *Server) submitLetter(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showLetterCardOff(w, r)
		return
	}
	p := s.page(r, "/letters", "title.letter")
	l, err := s.letterForm()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f := r.PostForm
	l.Query, l.Name, l.Contact = strings.TrimSpace(f.Get("q")), f.Get("name"), f.Get("contact")
	var parcel domain.Parcel
	if id := f.Get("parcel"); id != "" {
		if parcel, err = s.ledger.Parcel(id); err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			s.fail(w, r, err)
			return
		}
	}
	if parcel.ID == "" {
		switch found, err := find.Parcels(s.ledger, l.Query); {
		case err != nil:
			s.fail(w, r, err)
			return
		case l.Query == "":
			l.Fields["q"] = &view.Problem{Message: p.T("letter.error.parcel_empty"), Suggestion: p.T("letter.error.parcel_empty_hint")}
		case len(found) == 0:
			l.Fields["q"] = &view.Problem{Message: p.T("letter.error.parcel_none", "query", l.Query), Suggestion: p.T("find.error.none_hint")}
		case len(found) == 1:
			parcel = found[0]
		default:
			l.Fields["q"] = &view.Problem{Message: p.T("letter.error.parcel_many", "query", l.Query), Suggestion: p.T("letter.error.parcel_many_hint")}
			for _, pc := range found {
				l.Choices = append(l.Choices, view.ParcelChoice{ID: pc.ID, Address: pc.Address})
			}
		}
	}
	// The name and the contact are checked each on its own (the other
	// given as valid), so that every field's problem is reported at once.
	name, _, nameErr := domain.CheckStatusRequester(l.Name, "-")
	_, contact, contactErr := domain.CheckStatusRequester("-", l.Contact)
	switch {
	case name == "":
		l.Fields["name"] = &view.Problem{Message: p.T("letter.error.name"), Suggestion: p.T("letter.error.name_hint")}
	case nameErr != nil:
		l.Fields["name"] = &view.Problem{Message: p.T("letter.error.too_long"), Suggestion: p.T("letter.error.too_long_hint")}
	}
	switch {
	case contact == "":
		l.Fields["contact"] = &view.Problem{Message: p.T("letter.error.contact"), Suggestion: p.T("letter.error.contact_hint")}
	case contactErr != nil:
		l.Fields["contact"] = &view.Problem{Message: p.T("letter.error.too_long"), Suggestion: p.T("letter.error.too_long_hint")}
	}
	if len(l.Fields) > 0 {
		// The summary at the top lists every problem, each leading to its
		// field, in the form's order.
		l.Problem = &view.Problem{Message: p.T("letter.error.summary")}
		for _, k := range []string{"q", "name", "contact"} {
			if pr := l.Fields[k]; pr != nil {
				l.Errors = append(l.Errors, view.FieldError{Field: k, Message: pr.Message})
			}
		}
		s.render(w, r, http.StatusUnprocessableEntity, view.LetterPage(p, l))
		return
	}
	lf, err := s.newForm(r, letterFees, parcel.ID, name, contact, l.Fee.String())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.showCheckout(w, r, lf)
}

// letterFees is the checkout of a status letter request and its fee
// (§5.11, request_status_letter): the confirmation is shown in the answer
// to the request form, and the fee charged is the one in effect at the
// command's intake time, which also fixes the ready-by date.
var letterFees = &checkout{
	kind:   domain.KindRequestStatusLetter,
	title:  "title.letter_confirm",
	fields: []string{"parcel", "name", "contact", "fee"},
	load:   (*Server).loadLetterFee,
	urls: func(f checkoutForm) checkoutURLs {
		return checkoutURLs{charge: "/letters/charge", change: "/letters?parcel=" + url.QueryEscape(f.get("parcel")), back: "/letters", backLabel: "letter.back"}
	},
	cardOff: func(s *Server, w http.ResponseWriter, r *http.Request) { s.showLetterCardOff(w, r) },
	receipt: (*Server).letterClaim,
}

// letterFee is a status letter request as its checkout form names it, with
// the terms of a request made now.
type letterFee struct {
	s      *Server
	f      checkoutForm
	parcel domain.Parcel
	fee    domain.Money // the fee the form shows
	terms  domain.StatusLetter
}

func (s *Server) loadLetterFee(f checkoutForm) (payable, error) {
	fee, err := domain.ParseMoney(f.get("fee"))
	if err != nil {
		return nil, err // not from a form the kiosk signed
	}
	pc, err := s.ledger.Parcel(f.get("parcel"))
	if err != nil {
		return nil, err
	}
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: s.moment()}, s.ledger.Params())
	if err != nil {
		return nil, err
	}
	return &letterFee{s: s, f: f, parcel: pc, fee: fee, terms: sl}, nil
}

func (p *letterFee) amount() domain.Money { return p.fee }

func (p *letterFee) attrs() []any { return []any{"parcel", p.parcel.ID} }

// paidBy answers false: requests are kept by claim number, and a second
// tap on the same form is the same command, which the ledger answers with
// its first claim.
func (p *letterFee) paidBy(string) (string, bool) { return "", false }

// refuse refuses to charge a fee that is not the one in effect at `at`
// (the fee changed since the page was shown): the confirmation shows again
// with the new fee, signed anew.
func (p *letterFee) refuse(w http.ResponseWriter, r *http.Request, at domain.DateTime) bool {
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: at}, p.s.ledger.Params())
	if err != nil {
		p.s.fail(w, r, err)
		return true
	}
	if sl.Fee.Equal(p.fee) {
		return false
	}
	f := p.f.with("fee", sl.Fee.String())
	now := &letterFee{s: p.s, f: f, parcel: p.parcel, fee: sl.Fee, terms: sl}
	t := p.s.catalog.Printer(langFrom(r.Context()))
	p.s.renderCheckout(w, r, http.StatusConflict, f, now, &view.Problem{
		Message:    t.T("letter.error.fee_changed", "fee", t.Money(sl.Fee)),
		Suggestion: t.T("letter.error.fee_changed_hint"),
	})
	return true
}

// confirmation shows the request with its fee and the ready-by date of a
// request made now.
func (p *letterFee) confirmation(pg view.Page, c chargeForm) (templ.Component, error) {
	return view.LetterConfirmPage(pg, view.LetterConfirm{
		Parcel: p.parcel.ID, Address: p.parcel.Address, Name: p.f.get("name"), Contact: p.f.get("contact"), Fee: p.fee,
		ReceivedOn: p.terms.ReceivedOn, ReadyBy: p.terms.ReadyBy, Today: p.s.today(),
		CommandID: c.commandID, Signature: c.signature, Action: c.action, ChangeURL: c.change,
		Problem: c.problem, Simulator: c.simulator, Outcomes: c.outcomes,
	}), nil
}

func (p *letterFee) payload(ref string, card *domain.CardShown) domain.Payload {
	return &domain.RequestStatusLetter{Parcel: p.parcel.ID, Requester: p.f.get("name"), Contact: p.f.get("contact"), Fee: p.fee, Tender: domain.Card, Reference: ref, Card: card}
}

// letterClaim fills in a status letter's claim: from the stored request
// once it has posted, else from the rule itself on the receipt's intake
// time, which gives the same dates.
func (s *Server) letterClaim(_ i18n.Lang, v *view.Receipt, rc domain.Receipt) error {
	v.Requester = rc.Payer
	if sr, err := s.reads.StatusRequest(rc.Number); err == nil {
		v.Address, v.ReceivedOn, v.ReadyBy, v.Requester = sr.Address, sr.ReceivedOn, sr.ReadyBy, sr.Requester
		return nil
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return err
	}
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: rc.At}, s.ledger.Params())
	if err != nil {
		return err
	}
	v.ReceivedOn, v.ReadyBy = sl.ReceivedOn, sl.ReadyBy
	if pc, err := s.ledger.Parcel(rc.Parcel); err == nil {
		v.Address = pc.Address
	}
	return nil
}
