package kiosk

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
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
	now := domain.DateTimeOf(s.now().In(s.loc))
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
		switch found, err := s.findParcels(l.Query); {
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
	name, contact, err := domain.CheckStatusRequester(l.Name, l.Contact)
	switch {
	case name == "" || contact == "":
		if name == "" {
			l.Fields["name"] = &view.Problem{Message: p.T("letter.error.name"), Suggestion: p.T("letter.error.name_hint")}
		}
		if contact == "" {
			l.Fields["contact"] = &view.Problem{Message: p.T("letter.error.contact"), Suggestion: p.T("letter.error.contact_hint")}
		}
	case err != nil:
		l.Fields["name"] = &view.Problem{Message: p.T("letter.error.too_long"), Suggestion: p.T("letter.error.too_long_hint")}
	}
	if len(l.Fields) > 0 {
		for _, k := range []string{"q", "name", "contact"} {
			if pr := l.Fields[k]; pr != nil {
				l.Problem = &view.Problem{Message: p.T("letter.error.summary"), Suggestion: pr.Message}
				break
			}
		}
		s.render(w, r, http.StatusUnprocessableEntity, view.LetterPage(p, l))
		return
	}
	id, err := uuid.NewV7()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	lf := letterForm{Parcel: parcel.ID, Name: name, Contact: contact, Fee: l.Fee, CommandID: id.String(), Session: sessionFrom(r.Context())}
	s.renderLetterConfirm(w, r, http.StatusOK, lf, nil)
}

// letterForm is what the letter confirmation's form carries, signed for
// the session it was made for (see paymentForm).
type letterForm struct {
	Parcel, Name, Contact string
	Fee                   domain.Money
	CommandID             string
	Session               string
}

func (s *Server) signLetter(f letterForm) string {
	return mac(s.keys.form, string(domain.KindRequestStatusLetter), f.Parcel, f.Name, f.Contact, f.Fee.String(), f.CommandID, f.Session)
}

func (s *Server) verifyLetter(r *http.Request) (letterForm, bool) {
	v := r.PostForm
	fee, err := domain.ParseMoney(v.Get("fee"))
	f := letterForm{Parcel: v.Get("parcel"), Name: v.Get("name"), Contact: v.Get("contact"), Fee: fee, CommandID: v.Get("command_id"), Session: sessionFrom(r.Context())}
	if err != nil || fee.String() != v.Get("fee") || f.Parcel == "" || f.CommandID == "" || len(f.CommandID) > 64 || f.Session == "" {
		return f, false
	}
	return f, equal(s.signLetter(f), v.Get("sig"))
}

// renderLetterConfirm shows the request with its fee and ready-by date as
// of now, and the form that charges the fee.
func (s *Server) renderLetterConfirm(w http.ResponseWriter, r *http.Request, status int, f letterForm, problem *view.Problem) {
	pc, err := s.ledger.Parcel(f.Parcel)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	now := domain.DateTimeOf(s.now().In(s.loc))
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: now}, s.ledger.Params())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f.Fee = sl.Fee
	p := s.page(r, "/letters?parcel="+url.QueryEscape(pc.ID), "title.letter_confirm")
	c := view.LetterConfirm{
		Parcel: pc.ID, Address: pc.Address, Name: f.Name, Contact: f.Contact, Fee: f.Fee,
		ReceivedOn: sl.ReceivedOn, ReadyBy: sl.ReadyBy, Today: now.Date,
		CommandID: f.CommandID, Signature: s.signLetter(f), Action: "/letters/charge",
		ChangeURL: "/letters?parcel=" + url.QueryEscape(pc.ID), Problem: problem, Simulator: s.sim != nil,
	}
	if c.Simulator {
		c.Outcomes = outcomes()
	}
	s.render(w, r, status, view.LetterConfirmPage(p, c))
}

func outcomes() []string {
	var out []string
	for _, o := range terminal.Outcomes() {
		out = append(out, string(o))
	}
	return out
}

// submitLetterCharge takes the status letter fee the confirmation showed:
// it checks the signature, stamps the request_status_letter command (its
// intake time fixes the fee and the ready-by date), refuses to charge if
// the fee in effect at that moment is not the one shown, charges the card
// keyed by the command id, and records the request. The receipt page is
// the claim.
func (s *Server) submitLetterCharge(w http.ResponseWriter, r *http.Request) {
	if !s.takesCards() {
		s.showLetterCardOff(w, r)
		return
	}
	f, ok := s.verifyLetter(r)
	if !ok {
		s.refuseTampered(w, r)
		return
	}
	cmd, err := s.ledger.NewCommand(domain.KindRequestStatusLetter, "kiosk")
	if err != nil {
		s.fail(w, r, fmt.Errorf("new request_status_letter command: %w", err))
		return
	}
	cmd.ID = f.CommandID
	sl, err := domain.ComputeStatusLetter(domain.StatusLetterInput{RequestedAt: cmd.At}, s.ledger.Params())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !sl.Fee.Equal(f.Fee) {
		p := s.page(r, "/letters", "title.letter_confirm")
		s.renderLetterConfirm(w, r, http.StatusConflict, f, &view.Problem{Message: p.T("letter.error.fee_changed", "fee", p.Money(sl.Fee)), Suggestion: p.T("letter.error.fee_changed_hint")})
		return
	}
	approval, err := s.charge(r, f.CommandID, f.Fee)
	if err != nil {
		if !isTerminalOutcome(err) {
			err = chargeError{err}
		}
		status, msg, hint := errorStatus(err)
		s.log.Info("card not charged", "kind", cmd.Kind, "command", f.CommandID, "amount", f.Fee, "err", err)
		p := s.page(r, "/letters", "title.letter_confirm")
		s.renderLetterConfirm(w, r, status, f, &view.Problem{Message: p.T(msg), Suggestion: p.T(hint)})
		return
	}
	cmd.Payload = &domain.RequestStatusLetter{Parcel: f.Parcel, Requester: f.Name, Contact: f.Contact, Fee: f.Fee, Tender: domain.Card, Reference: approval.Reference}
	rc, readBack, err := s.record(r, cmd)
	if err != nil {
		s.log.Error("card charged but status letter request not recorded", "command", f.CommandID, "amount", f.Fee, "approval", approval.Reference, "err", err)
		s.showProblem(w, r, http.StatusBadGateway, "charge.not_recorded", "charge.not_recorded_hint", "/letters", "letter.back", "ref", approval.Reference)
		return
	}
	s.log.Info("status letter requested", "claim", rc.Number, "status", rc.Status, "parcel", f.Parcel, "command", rc.CommandID, "approval", approval.Reference)
	s.showRecorded(w, r, rc, readBack)
}
