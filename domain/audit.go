package domain

import (
	"fmt"
	"strings"
)

// The auditors (§5.15): a certified public accounting firm engaged for
// each calendar year, the engagement confirmed by the board. What the
// auditors read is everything; they change nothing (kiosk/staff/roles.go).

// KindAuditEngagement records the firm engaged to audit a year.
const KindAuditEngagement Kind = "audit_engagement"

// CollectionAuditEngagements holds the engagements by year.
const CollectionAuditEngagements = "audit-engagements"

// AuditEngagement is the CPA firm engaged for a calendar year, with the
// board's confirmation.
type AuditEngagement struct {
	Year         int      `json:"year"`
	Firm         string   `json:"firm"`
	Contact      string   `json:"contact,omitempty"`
	Confirmation string   `json:"confirmation"` // the board's motion
	ConfirmedOn  Date     `json:"confirmed_on"`
	Recorded     DateTime `json:"recorded,omitzero"`
	By           string   `json:"by,omitempty"`
}

// Kind names the payload's kind.
func (*AuditEngagement) Kind() Kind { return KindAuditEngagement }

func (p *AuditEngagement) textFields() []textField {
	return []textField{oneLine("The firm", p.Firm), oneLine("The contact", p.Contact), oneLine("The board's motion", p.Confirmation)}
}

var auditEngagementKind = &Descriptor{
	Kind: KindAuditEngagement, Section: "§5.15", Since: 2,
	Roles: []Role{RoleClerk, RoleAdministrator, RoleTreasurer},
	New:   func() Payload { return new(AuditEngagement) },
	Apply: func(tx Tx, c Command, _ Env, res *Result) error {
		p := *c.Payload.(*AuditEngagement)
		switch {
		case p.Year < 1900 || p.Year > c.At.Date.Year()+1:
			return Errorf(EINVALID, "§5.15", "An engagement is for a calendar year up to next year, not %d.", p.Year)
		case strings.TrimSpace(p.Firm) == "":
			return Errorf(EINVALID, "§5.15", "Name the certified public accounting firm.")
		case strings.TrimSpace(p.Confirmation) == "" || p.ConfirmedOn.IsZero() || p.ConfirmedOn.After(c.At.Date):
			return Errorf(EINVALID, "§5.15", "The engagement needs the board's confirmation: its motion and the day, on or before today.")
		}
		p.Firm, p.Recorded, p.By = strings.TrimSpace(p.Firm), c.At, c.Actor
		res.Ref, res.Note = yearID(p.Year), fmt.Sprintf("%s engaged to audit %d", p.Firm, p.Year)
		return tx.Put(CollectionAuditEngagements, yearID(p.Year), p)
	},
}

// AuditEngagements returns the engagements, by year.
func (x Reads) AuditEngagements() ([]AuditEngagement, error) {
	return all[AuditEngagement](x.r, CollectionAuditEngagements, "")
}

// Deposits returns every deposit slip (§5.06), by id.
func (x Reads) Deposits() ([]DepositSlip, error) {
	return all[DepositSlip](x.r, CollectionDeposits, "")
}
