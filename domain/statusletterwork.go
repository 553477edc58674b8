package domain

import (
	"fmt"
	"strings"
)

// Collections of the clerk's work on status letters (§5.11). Requests are
// StatusRequests (statusrequest.go); the finished letters are here.
const (
	CollectionStatusLetters = "status-letters"        // id: claim → StatusLetterDoc
	CollectionLetterNumbers = "status-letter-numbers" // id: year → LetterCounter
)

// Status request states after the clerk's work (the kiosk files them as
// StatusRequested).
const (
	StatusCompleted = "completed" // the letter is written and numbered
	StatusDelivered = "delivered" // picked up or e-mailed
)

// LetterLine is one fact a status letter states, with an amount where it
// has one.
type LetterLine struct {
	Topic  string `json:"topic"` // "Special charges", "Taxes", "Special assessments" …
	Text   string `json:"text"`
	Amount Money  `json:"amount"`
}

// StatusLetterDoc is a numbered statement of real property status (§5.11):
// the facts the ledger held as of a date, and what the clerk added that the
// ledger does not hold.
type StatusLetterDoc struct {
	Claim     string       `json:"claim"`
	Number    string       `json:"number"` // "SL-2026-0001"
	Parcel    string       `json:"parcel"`
	Address   string       `json:"address,omitempty"`
	County    County       `json:"county,omitempty"`
	Requester string       `json:"requester"`
	Contact   string       `json:"contact"`
	AsOf      Date         `json:"as_of"`
	Lines     []LetterLine `json:"lines,omitempty"`

	AssessmentChanges string `json:"assessment_changes"`
	Deferred          string `json:"deferred"`
	Improvements      string `json:"improvements"` // contemplated improvements
	Floodplain        string `json:"floodplain"`
	Violations        string `json:"violations"` // building and health code violations
	Notes             string `json:"notes,omitempty"`

	CommandID   string   `json:"command_id"`
	CompletedAt DateTime `json:"completed_at"`
	CompletedBy string   `json:"completed_by"`

	Delivery     string   `json:"delivery,omitempty"` // "pickup" | "email" | "mail" (from ledger format 7)
	DeliveryNote string   `json:"delivery_note,omitempty"`
	DeliveredAt  DateTime `json:"delivered_at,omitzero"`
	DeliveredBy  string   `json:"delivered_by,omitempty"`
}

// LetterCounter numbers the letters of a year.
type LetterCounter struct {
	Last int `json:"last"`
}

// StatusLetterWork completes a letter or records its delivery.
type StatusLetterWork struct {
	Op                string       `json:"op"` // "complete" | "deliver"
	Claim             string       `json:"claim"`
	AsOf              Date         `json:"as_of,omitzero"`
	Lines             []LetterLine `json:"lines,omitempty"`
	AssessmentChanges string       `json:"assessment_changes,omitempty"`
	Deferred          string       `json:"deferred,omitempty"`
	Improvements      string       `json:"improvements,omitempty"`
	Floodplain        string       `json:"floodplain,omitempty"`
	Violations        string       `json:"violations,omitempty"`
	Notes             string       `json:"notes,omitempty"`
	Delivery          string       `json:"delivery,omitempty"`
	DeliveryNote      string       `json:"delivery_note,omitempty"`
}

// applyStatusLetterWork completes a requested letter (§5.11: the letter
// covers special assessments, deferred assessments, changes in
// assessments, taxes, contemplated improvements, floodplain status and
// building and health code violations; each must be answered, "none" being
// an answer) and numbers it in the year of completion, or records that a
// completed letter was picked up or e-mailed.
func applyStatusLetterWork(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*StatusLetterWork)
	var req StatusRequest
	ok, err := tx.Get(StatusRequests, in.Claim, &req)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(ENOTFOUND, sectionStatusLetter, "There is no status letter request %q.", in.Claim)
	}
	switch in.Op {
	case "complete":
		if req.State != StatusRequested {
			return Errorf(ECONFLICT, sectionStatusLetter, "The letter for claim %s is already %s.", in.Claim, req.State)
		}
		if in.AsOf.IsZero() || in.AsOf.After(c.At.Date) {
			return Errorf(EINVALID, sectionStatusLetter, "The letter's \"as of\" date must be given and not later than today.")
		}
		for _, f := range []struct{ name, v string }{
			{"changes in assessments", in.AssessmentChanges},
			{"deferred assessments", in.Deferred},
			{"contemplated improvements", in.Improvements},
			{"floodplain status", in.Floodplain},
			{"building and health code violations", in.Violations},
		} {
			if strings.TrimSpace(f.v) == "" {
				return Errorf(EINVALID, sectionStatusLetter, "The letter must state the %s (write \"none\" if there are none).", f.name)
			}
		}
		var n LetterCounter
		year := fmt.Sprint(c.At.Date.Year())
		if _, err := tx.Get(CollectionLetterNumbers, year, &n); err != nil {
			return err
		}
		n.Last++
		if err := tx.Put(CollectionLetterNumbers, year, n); err != nil {
			return err
		}
		doc := StatusLetterDoc{Claim: req.Claim, Number: fmt.Sprintf("SL-%s-%04d", year, n.Last), Parcel: req.Parcel, Address: req.Address, County: req.County, Requester: req.Requester, Contact: req.Contact, AsOf: in.AsOf, Lines: in.Lines,
			AssessmentChanges: strings.TrimSpace(in.AssessmentChanges), Deferred: strings.TrimSpace(in.Deferred), Improvements: strings.TrimSpace(in.Improvements), Floodplain: strings.TrimSpace(in.Floodplain), Violations: strings.TrimSpace(in.Violations), Notes: strings.TrimSpace(in.Notes),
			CommandID: c.ID, CompletedAt: c.At, CompletedBy: c.Actor}
		req.State = StatusCompleted
		res.Note = "status letter " + doc.Number
		if err := tx.Put(CollectionStatusLetters, doc.Claim, doc); err != nil {
			return err
		}
	case "deliver":
		var doc StatusLetterDoc
		if ok, err := tx.Get(CollectionStatusLetters, in.Claim, &doc); err != nil {
			return err
		} else if !ok || req.State == StatusRequested {
			return Errorf(ECONFLICT, sectionStatusLetter, "The letter for claim %s is not written yet.", in.Claim)
		}
		if doc.Delivery != "" {
			return Errorf(ECONFLICT, sectionStatusLetter, "Letter %s was already delivered (%s).", doc.Number, doc.Delivery)
		}
		switch {
		case in.Delivery == DeliverPickup || in.Delivery == DeliverEmail:
		case in.Delivery == DeliverMail && RulesFormat(tx) >= DocumentsFormat:
			// A letter a title company asked to have mailed (ledger
			// format 7).
		case RulesFormat(tx) >= DocumentsFormat:
			return Errorf(EINVALID, sectionStatusLetter, "A letter is picked up, e-mailed or mailed.")
		default:
			return Errorf(EINVALID, sectionStatusLetter, "A letter is picked up or e-mailed.")
		}
		doc.Delivery, doc.DeliveryNote, doc.DeliveredAt, doc.DeliveredBy = in.Delivery, strings.TrimSpace(in.DeliveryNote), c.At, c.Actor
		req.State = StatusDelivered
		res.Note = "status letter " + doc.Number + " " + in.Delivery
		if err := tx.Put(CollectionStatusLetters, doc.Claim, doc); err != nil {
			return err
		}
	default:
		return Errorf(EINVALID, "", "Unknown status letter operation %q.", in.Op)
	}
	return tx.Put(StatusRequests, req.Claim, req)
}

// KindStatusLetter completes a status letter, or records its delivery
// (§5.11).
const KindStatusLetter Kind = "status_letter"

// Kind names the payload's kind.
func (*StatusLetterWork) Kind() Kind { return KindStatusLetter }

var statusLetterKind = &Descriptor{
	Kind: KindStatusLetter, Section: "§5.11", Roles: []Role{RoleClerk, RoleTreasurer},
	New:   func() Payload { return new(StatusLetterWork) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyStatusLetterWork(tx, c, res) },
}
