package domain

import (
	"fmt"
	"slices"
	"strings"
)

// Legal claims (§5.08; part of its text sits under the published "§5.11"
// heading, see RULES.md). A claim for money against the village, its
// officers, officials, agents or employees goes through Wis. Stat. 893.80:
// a written notice of the circumstances of the claim, and an itemized
// statement of the relief sought (the claim). The Village Administrator
// contacts the Village President immediately; the President may, at their
// discretion, contact the Village Attorney before the board meets; the
// board allows or disallows the claim, and a notice of disallowance is
// served (by certified mail) stating that no action may be brought after
// six months from its service. A claim the board does not act on within
// 120 days of its service is deemed disallowed. The deadlines are the
// rule 5.08/legal-claim (ComputeLegalClaim, claim.go), used as it is.

// KindLegalClaim records a step of a legal claim.
const KindLegalClaim Kind = "legal_claim"

// CollectionLegalClaims holds the legal claims by id.
const CollectionLegalClaims = "legal-claims"

// IndexLegalClaims lists the legal claims by the date they were received:
// "<received on>/<id>".
const IndexLegalClaims = "legal-claims-by-date"

// Operations on a legal claim.
const (
	LegalClaimFile     = "file"     // a notice of circumstances and/or an itemized claim received
	LegalClaimItemize  = "itemize"  // the itemized claim served after the notice of circumstances
	LegalClaimNotify   = "notify"   // the Village President notified: recorded by the administrator or the President
	LegalClaimAttorney = "attorney" // the President's decision on contacting the Village Attorney: the President's alone
	LegalClaimDecide   = "decide"   // the board allowed or disallowed the claim
	LegalClaimNotice   = "notice"   // the notice of disallowance served, by certified mail
)

// Board decisions on a legal claim.
const (
	LegalClaimAllow    = "allow"
	LegalClaimDisallow = "disallow"
)

// LegalClaimChange records one step of a legal claim.
type LegalClaimChange struct {
	Op string `json:"op"`
	ID string `json:"id"` // chosen by the client on file; "LC-2026-…"
	// file
	Claimant    string `json:"claimant,omitempty"`
	Address     string `json:"address,omitempty"` // where the notice of disallowance goes
	Against     string `json:"against,omitempty"` // the village, or the officer, agent or employee named
	Description string `json:"description,omitempty"`
	NoticeOn    Date   `json:"notice_on,omitzero"` // notice of circumstances served
	// file, itemize
	ClaimOn Date  `json:"claim_on,omitzero"` // itemized claim served: the 120 days run from here
	Amount  Money `json:"amount,omitzero"`   // the relief the itemized claim seeks
	// notify, attorney, decide, notice
	On   Date   `json:"on,omitzero"` // the day the step happened
	Note string `json:"note,omitempty"`
	// attorney
	Contact bool `json:"contact,omitempty"` // the President contacted the attorney (false: decided not to)
	// decide
	Decision string `json:"decision,omitempty"`
	Meeting  string `json:"meeting,omitempty"` // the board meeting and motion
	Allowed  Money  `json:"allowed,omitzero"`  // the amount allowed
	// notice
	Tracking string `json:"tracking,omitempty"` // certified-mail tracking number
}

// Kind names the payload's kind.
func (*LegalClaimChange) Kind() Kind { return KindLegalClaim }

func (p *LegalClaimChange) textFields() []textField {
	return []textField{oneLine("The claim", p.ID), oneLine("The claimant", p.Claimant), oneLine("The address", p.Address),
		oneLine("Who the claim is against", p.Against), manyLines("The description", p.Description), manyLines("The note", p.Note),
		oneLine("The meeting", p.Meeting), oneLine("The tracking number", p.Tracking)}
}

// legalStepRoles are the roles that record the President's steps
// (§5.08): "The Village Administrator shall immediately contact the
// Village President", so the notice is the administrator's to record, or
// the President's who received it; "The Village President shall, at
// their discretion, contact the Village Attorney", so that decision is
// the President's alone. Chapter 5 names no one to act in the President's
// absence, so no one else records it; the other steps (file, itemize,
// decide, notice) are the administrator's or any board member's,
// the President among them.
var legalStepRoles = map[string][]Role{
	LegalClaimNotify:   {RoleAdministrator, RolePresident},
	LegalClaimAttorney: {RolePresident},
}

var legalClaimKind = &Descriptor{
	Kind: KindLegalClaim, Section: sectionClaim, Since: 2,
	Roles: []Role{RoleAdministrator, RoleBoard},
	New:   func() Payload { return new(LegalClaimChange) },
	Apply: applyLegalClaim,
}

// LegalStep is a recorded step of a legal claim: when, by whom, a note.
type LegalStep struct {
	On   Date     `json:"on"`
	At   DateTime `json:"at"`
	By   string   `json:"by"`
	Note string   `json:"note,omitempty"`
}

// LegalClaimRecord is a legal claim in the register.
type LegalClaimRecord struct {
	ID          string   `json:"id"`
	Claimant    string   `json:"claimant"`
	Address     string   `json:"address,omitempty"`
	Against     string   `json:"against"`
	Description string   `json:"description"`
	NoticeOn    Date     `json:"notice_on,omitzero"`
	ClaimOn     Date     `json:"claim_on,omitzero"`
	Amount      Money    `json:"amount"`
	Recorded    DateTime `json:"recorded"`
	RecordedBy  string   `json:"recorded_by"`

	President *LegalStep `json:"president,omitempty"` // the President notified
	Attorney  *LegalStep `json:"attorney,omitempty"`  // the President's decision on the attorney
	Contacted bool       `json:"contacted,omitempty"` // … and whether the attorney was contacted

	Decision *LegalStep `json:"decision,omitempty"`
	Outcome  string     `json:"outcome,omitempty"` // allow or disallow
	Meeting  string     `json:"meeting,omitempty"`
	Allowed  Money      `json:"allowed"`

	Notice   *LegalStep `json:"notice,omitempty"` // the notice of disallowance served
	Tracking string     `json:"tracking,omitempty"`
}

// ReceivedOn is the first day the village had the claim: its notice of
// circumstances or, without one, its itemized claim.
func (l LegalClaimRecord) ReceivedOn() Date {
	if !l.NoticeOn.IsZero() {
		return l.NoticeOn
	}
	return l.ClaimOn
}

// Deadlines returns the claim's deadlines by the rule 5.08/legal-claim
// (ComputeLegalClaim): deemed disallowed 120 days after the itemized
// claim was served and, once a notice of disallowance was served, the
// last day to sue. ok is false for a notice of circumstances without an
// itemized claim yet: no clock runs.
func (l LegalClaimRecord) Deadlines(p *Params) (LegalClaim, bool, error) {
	if l.ClaimOn.IsZero() {
		return LegalClaim{}, false, nil
	}
	in := LegalClaimInput{ServedOn: l.ClaimOn}
	if l.Notice != nil {
		in.DisallowanceServedOn = l.Notice.On
	}
	d, err := ComputeLegalClaim(in, p)
	return d, err == nil, err
}

// Open reports whether the claim still waits for the board, or for its
// notice of disallowance.
func (l LegalClaimRecord) Open() bool {
	return l.Decision == nil || (l.Outcome == LegalClaimDisallow && l.Notice == nil)
}

func loadLegalClaim(tx Tx, id string) (LegalClaimRecord, error) {
	var l LegalClaimRecord
	ok, err := tx.Get(CollectionLegalClaims, id, &l)
	if err == nil && !ok {
		err = Errorf(ENOTFOUND, sectionClaim, "There is no legal claim %q.", id)
	}
	return l, err
}

func applyLegalClaim(tx Tx, c Command, env Env, res *Result) error {
	p := c.Payload.(*LegalClaimChange)
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionClaim, format, args...) }
	if err := validRecordID("legal claim", p.ID); err != nil {
		return err
	}
	today := c.At.Date
	if p.Op == LegalClaimFile {
		return fileLegalClaim(tx, c, p, env, res)
	}
	l, err := loadLegalClaim(tx, p.ID)
	if err != nil {
		return err
	}
	if who, ok := legalStepRoles[p.Op]; ok {
		u, found, err := actor(tx, c)
		if err != nil {
			return err
		}
		if !found || !slices.Contains(who, u.Role) {
			if p.Op == LegalClaimAttorney {
				return Errorf(EFORBIDDEN, sectionClaim, "Contacting the Village Attorney about a claim is the Village President's decision (§5.08): only the President records it.")
			}
			return Errorf(EFORBIDDEN, sectionClaim, "The Village Administrator contacts the Village President about a claim (§5.08): the administrator or the President records it.")
		}
	}
	step := func() (*LegalStep, error) {
		if p.On.IsZero() || p.On.After(today) {
			return nil, bad("Give the day it happened, on or before today.")
		}
		if p.On.Before(l.ReceivedOn()) {
			return nil, bad("The day (%s) is before the village received the claim (%s).", p.On, l.ReceivedOn())
		}
		return &LegalStep{On: p.On, At: c.At, By: c.Actor, Note: strings.TrimSpace(p.Note)}, nil
	}
	switch p.Op {
	case LegalClaimItemize:
		switch {
		case !l.ClaimOn.IsZero():
			return Errorf(ECONFLICT, sectionClaim, "Claim %s already has its itemized claim, served %s.", l.ID, l.ClaimOn)
		case p.ClaimOn.IsZero() || p.ClaimOn.After(today):
			return bad("Give the day the itemized claim was served, on or before today.")
		case p.ClaimOn.Before(l.NoticeOn):
			return bad("The itemized claim (%s) cannot be served before the notice of circumstances (%s).", p.ClaimOn, l.NoticeOn)
		case !p.Amount.IsPositive():
			return bad("The itemized claim states the relief sought: an amount more than $0.00.")
		}
		l.ClaimOn, l.Amount = p.ClaimOn, p.Amount
		res.Note = fmt.Sprintf("claim %s itemized: %s served %s", l.ID, l.Amount, l.ClaimOn)
	case LegalClaimNotify:
		if l.President != nil {
			return Errorf(ECONFLICT, sectionClaim, "The Village President was notified of claim %s on %s by %s.", l.ID, l.President.On, l.President.By)
		}
		s, err := step()
		if err != nil {
			return err
		}
		l.President = s
		res.Note = fmt.Sprintf("claim %s: the Village President notified on %s", l.ID, s.On)
	case LegalClaimAttorney:
		switch {
		case l.President == nil:
			return Errorf(ECONFLICT, sectionClaim, "Notify the Village President of claim %s first: contacting the attorney is the President's decision.", l.ID)
		case l.Attorney != nil:
			return Errorf(ECONFLICT, sectionClaim, "The President's decision on the attorney is recorded already for claim %s.", l.ID)
		case l.Decision != nil:
			return Errorf(ECONFLICT, sectionClaim, "The board has acted on claim %s: the attorney is contacted before the board's meeting.", l.ID)
		}
		s, err := step()
		if err != nil {
			return err
		}
		l.Attorney, l.Contacted = s, p.Contact
		res.Note = fmt.Sprintf("claim %s: attorney contacted %v", l.ID, p.Contact)
	case LegalClaimDecide:
		switch {
		case l.Decision != nil:
			return Errorf(ECONFLICT, sectionClaim, "The board already %sed claim %s on %s.", l.Outcome, l.ID, l.Decision.On)
		case l.ClaimOn.IsZero():
			return bad("Claim %s has no itemized claim yet: the board allows or disallows an itemized claim.", l.ID)
		case p.Decision != LegalClaimAllow && p.Decision != LegalClaimDisallow:
			return bad("The board's decision is allow or disallow.")
		case strings.TrimSpace(p.Meeting) == "":
			return bad("Name the board meeting and motion that decided the claim.")
		}
		if p.Decision == LegalClaimDisallow {
			// A disallowance dated before the claim: the rule refuses it.
			if _, err := ComputeLegalClaim(LegalClaimInput{ServedOn: l.ClaimOn, DisallowanceServedOn: p.On}, env.Params); err != nil {
				return err
			}
		}
		if p.Decision == LegalClaimAllow && (!p.Allowed.IsPositive() || l.Amount.LessThan(p.Allowed)) {
			return bad("The amount allowed must be more than $0.00 and at most the claim (%s).", l.Amount)
		}
		s, err := step()
		if err != nil {
			return err
		}
		if s.On.Before(l.ClaimOn) {
			return bad("The board's decision (%s) cannot be before the itemized claim was served (%s).", s.On, l.ClaimOn)
		}
		l.Decision, l.Outcome, l.Meeting = s, p.Decision, strings.TrimSpace(p.Meeting)
		if p.Decision == LegalClaimAllow {
			l.Allowed = p.Allowed
		}
		res.Note = fmt.Sprintf("claim %s %sed on %s", l.ID, l.Outcome, s.On)
	case LegalClaimNotice:
		switch {
		case l.Outcome != LegalClaimDisallow:
			return Errorf(ECONFLICT, sectionClaim, "Claim %s was not disallowed by the board: there is no notice of disallowance to serve.", l.ID)
		case l.Notice != nil:
			return Errorf(ECONFLICT, sectionClaim, "The notice of disallowance of claim %s was served on %s.", l.ID, l.Notice.On)
		case strings.TrimSpace(p.Tracking) == "":
			return bad("The notice of disallowance goes by certified mail: give its tracking number.")
		}
		if _, err := ComputeLegalClaim(LegalClaimInput{ServedOn: l.ClaimOn, DisallowanceServedOn: p.On}, env.Params); err != nil {
			return err
		}
		s, err := step()
		if err != nil {
			return err
		}
		if s.On.Before(l.Decision.On) {
			return bad("The notice (%s) cannot be served before the board disallowed the claim (%s).", s.On, l.Decision.On)
		}
		l.Notice, l.Tracking = s, strings.TrimSpace(p.Tracking)
		res.Note = fmt.Sprintf("claim %s: notice of disallowance served %s, certified mail %s", l.ID, s.On, l.Tracking)
	default:
		return bad("Unknown step %q of a legal claim (file, itemize, notify, attorney, decide or notice).", p.Op)
	}
	res.Ref = l.ID
	return tx.Put(CollectionLegalClaims, l.ID, l)
}

func fileLegalClaim(tx Tx, c Command, p *LegalClaimChange, env Env, res *Result) error {
	bad := func(format string, args ...any) error { return Errorf(EINVALID, sectionClaim, format, args...) }
	today := c.At.Date
	switch {
	case strings.TrimSpace(p.Claimant) == "":
		return bad("A legal claim needs the claimant's name.")
	case strings.TrimSpace(p.Description) == "":
		return bad("Describe the circumstances of the claim.")
	case p.NoticeOn.IsZero() && p.ClaimOn.IsZero():
		return bad("Give the day the notice of circumstances or the itemized claim was served.")
	case p.NoticeOn.After(today) || p.ClaimOn.After(today):
		return bad("A claim cannot be served after today.")
	case !p.NoticeOn.IsZero() && !p.ClaimOn.IsZero() && p.ClaimOn.Before(p.NoticeOn):
		return bad("The itemized claim (%s) cannot be served before the notice of circumstances (%s).", p.ClaimOn, p.NoticeOn)
	case !p.ClaimOn.IsZero() && !p.Amount.IsPositive():
		return bad("The itemized claim states the relief sought: an amount more than $0.00.")
	case p.ClaimOn.IsZero() && !p.Amount.IsZero():
		return bad("A notice of circumstances alone states no amount; record the amount with the itemized claim.")
	}
	var old LegalClaimRecord
	if ok, err := tx.Get(CollectionLegalClaims, p.ID, &old); err != nil {
		return err
	} else if ok {
		return Errorf(ECONFLICT, sectionClaim, "Legal claim %s already exists.", p.ID)
	}
	against := strings.TrimSpace(p.Against)
	if against == "" {
		against = "Village of Belleville"
	}
	l := LegalClaimRecord{ID: p.ID, Claimant: strings.TrimSpace(p.Claimant), Address: strings.TrimSpace(p.Address), Against: against,
		Description: strings.TrimSpace(p.Description), NoticeOn: p.NoticeOn, ClaimOn: p.ClaimOn, Amount: p.Amount, Recorded: c.At, RecordedBy: c.Actor}
	if _, _, err := l.Deadlines(env.Params); err != nil {
		return err
	}
	if err := tx.Put(CollectionLegalClaims, l.ID, l); err != nil {
		return err
	}
	res.Ref = l.ID
	res.Note = fmt.Sprintf("legal claim %s of %s recorded", l.ID, l.Claimant)
	return tx.Index(IndexLegalClaims, l.ReceivedOn().String()+"/"+l.ID)
}

// LegalClaims returns the register of legal claims, the latest received
// first.
func (x Reads) LegalClaims() ([]LegalClaimRecord, error) {
	out, err := byIndex[LegalClaimRecord](x.r, IndexLegalClaims, "", CollectionLegalClaims, "legal claim")
	slices.Reverse(out)
	return out, err
}

// LegalClaim returns one legal claim.
func (x Reads) LegalClaim(id string) (LegalClaimRecord, error) {
	return must[LegalClaimRecord](x.r, CollectionLegalClaims, id, "legal claim")
}
