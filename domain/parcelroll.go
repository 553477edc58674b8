package domain

import (
	"fmt"
	"slices"
	"strings"
)

// The village's parcels come from the counties' rolls (Dane and Green):
// the clerk imports the roll, and imports it again when the county sends
// a new one. The roll is the county's word on a parcel's address, owner
// and floodplain flag; the village's own billing accounts (a payer and
// the parcels it pays for) may be named beside each parcel.

// KindParcelRoll adds parcels from a county roll and updates those the
// ledger holds already; it may name the billing account of each.
const KindParcelRoll Kind = "parcel_roll"

// CollectionParcelOrigins holds, for each parcel a roll added or
// changed, the last command that did: id: parcel id → ParcelOrigin.
const CollectionParcelOrigins = "parcel-origins"

// MaxParcelsPerCommand bounds one roll import, so that one log entry and
// its transaction stay small (a parcel writes at most three records).
const MaxParcelsPerCommand = 2000

// RollParcel is one line of a county roll. Account, when given, is the
// village billing account that pays for the parcel: made with the name
// AccountName (or the owner's, when empty) if the ledger has no such
// account, and the parcel added to its parcels. Mailing, when given, is
// the owner's mailing address (ledger format 7, mailing.go): a line
// without one keeps the address the ledger holds. Line is its line in the
// imported file, so that errors can name it.
type RollParcel struct {
	ID          string `json:"id"`
	Address     string `json:"address"`
	County      County `json:"county"`
	Owner       string `json:"owner"`
	Floodplain  bool   `json:"floodplain,omitempty"`
	Account     string `json:"account,omitempty"`
	AccountName string `json:"account_name,omitempty"`
	Line        int    `json:"line,omitempty"`
	// Mailing is sent only once the ledger is at DocumentsFormat.
	Mailing MailingAddress `json:"mailing,omitzero"`
}

// ParcelRoll is one import of a roll: all its lines or, when one is
// refused, none.
type ParcelRoll struct {
	Parcels []RollParcel `json:"parcels"`
	Source  string       `json:"source,omitempty"` // the imported file's name
}

// ParcelOrigin records which roll import last wrote a parcel.
type ParcelOrigin struct {
	Parcel    string   `json:"parcel"`
	CommandID string   `json:"command_id"`
	Actor     string   `json:"actor"`
	At        DateTime `json:"at"`
	Source    string   `json:"source,omitempty"`
	Line      int      `json:"line,omitempty"`
}

// Kind names the payload's kind.
func (*ParcelRoll) Kind() Kind { return KindParcelRoll }

var parcelRollKind = &Descriptor{
	Kind:  KindParcelRoll,
	Since: 3,
	Roles: []Role{RoleClerk, RoleTreasurer},
	New:   func() Payload { return new(ParcelRoll) },
	Check: func(c Command) error {
		errs := CheckRoll(c.Payload.(*ParcelRoll).Parcels)
		if len(errs) > 0 {
			return errs[0]
		}
		return nil
	},
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyParcelRoll(tx, c, res) },
}

// where names a roll line in an error: its import line, else its parcel.
func (p RollParcel) where() string {
	if p.Line > 0 {
		return fmt.Sprintf("Line %d: ", p.Line)
	}
	return fmt.Sprintf("Parcel %s: ", p.ID)
}

// validParcelID reports whether id can name a parcel: the counties' parcel
// numbers ("0601-141-2001" in Dane County, "23026 0001.0000" in Green) are
// digits and letters with dashes, dots and single spaces between them.
func validParcelID(id string) bool {
	if id == "" || len(id) > 32 || strings.TrimSpace(id) != id || strings.Contains(id, "  ") {
		return false
	}
	for _, r := range id {
		switch {
		case r >= '0' && r <= '9', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '-', r == '.', r == ' ':
		default:
			return false
		}
	}
	return true
}

// Check validates the parts of a roll line that need no ledger.
func (p RollParcel) Check() error {
	w := p.where()
	if !validParcelID(p.ID) {
		return Errorf(EINVALID, "", "%sthe parcel number %q is not one a county writes (digits and letters with dashes, dots or single spaces, at most 32).", w, p.ID)
	}
	switch {
	case strings.TrimSpace(p.Address) == "":
		return Errorf(EINVALID, "", "%sthe address is missing.", w)
	case !p.County.Valid():
		return Errorf(EINVALID, "", "%sthe county %q is not Dane or Green.", w, p.County)
	case strings.TrimSpace(p.Owner) == "":
		return Errorf(EINVALID, "", "%sthe owner is missing.", w)
	case p.Account == "" && p.AccountName != "":
		return Errorf(EINVALID, "", "%san account name is given without an account number.", w)
	case p.Account != "" && (len(p.Account) > 32 || strings.ContainsAny(p.Account, "/ ")):
		return Errorf(EINVALID, "", "%sthe account number %q has spaces or slashes, or is longer than 32.", w, p.Account)
	}
	for _, f := range []struct{ name, value string }{{"address", p.Address}, {"owner", p.Owner}, {"account number", p.Account}, {"account name", p.AccountName}} {
		if err := CheckText(w+"the "+f.name, f.value); err != nil {
			return err
		}
	}
	return p.Mailing.Check(w + "the mailing address")
}

// CheckRoll validates a roll as applying it would, without the ledger:
// each line on its own (Check), at most MaxParcelsPerCommand lines, each
// parcel once. It returns every error found, in input order, so that an
// import's dry run lists them all.
func CheckRoll(parcels []RollParcel) []error {
	if len(parcels) == 0 {
		return []error{Errorf(EINVALID, "", "The roll holds no parcels.")}
	}
	var errs []error
	if len(parcels) > MaxParcelsPerCommand {
		errs = append(errs, Errorf(EINVALID, "", "At most %d parcels can be imported at once; split the roll into several files.", MaxParcelsPerCommand))
	}
	seen := map[string]RollParcel{}
	for _, p := range parcels {
		if err := p.Check(); err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := seen[p.ID]; dup {
			errs = append(errs, Errorf(EINVALID, "", "%sthe parcel %s is already on %s.", p.where(), p.ID, strings.ToLower(strings.TrimSuffix(prev.where(), ": "))))
			continue
		}
		seen[p.ID] = p
	}
	return errs
}

// RollChange is what importing one roll line does to the ledger.
type RollChange string

// What a roll line does.
const (
	RollNew       RollChange = "new"       // a parcel the ledger did not hold
	RollChanged   RollChange = "changed"   // the address, owner, county, floodplain flag or mailing address changed
	RollUnchanged RollChange = "unchanged" // the ledger holds it as the roll says
)

// RollLine is one line of a roll as the ledger would take it.
type RollLine struct {
	RollParcel
	Change     RollChange
	Was        *Parcel // the parcel as the ledger holds it, when it does
	NewAccount bool    // the account is made by this import
	Linked     bool    // the parcel is added to the account's parcels
}

// RollReader reads what planning a roll needs.
type RollReader interface {
	Parcel(id string) (Parcel, bool, error)
	Account(number string) (Account, bool, error)
}

// PlanRoll says what importing the roll would do, line by line, as its
// command would apply now: for the dry run, and for the rule itself. The
// roll must have passed CheckRoll.
func PlanRoll(parcels []RollParcel, r RollReader) ([]RollLine, error) {
	out := make([]RollLine, 0, len(parcels))
	made := map[string]bool{}
	for _, p := range parcels {
		l := RollLine{RollParcel: p, Change: RollNew}
		was, ok, err := r.Parcel(p.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			l.Was, l.Change = &was, RollUnchanged
			if was != p.parcelOver(&was) {
				l.Change = RollChanged
			}
		}
		if p.Account != "" {
			a, ok, err := r.Account(p.Account)
			if err != nil {
				return nil, err
			}
			l.NewAccount = !ok && !made[p.Account]
			made[p.Account] = true
			l.Linked = !slices.Contains(a.Parcels, p.ID)
		}
		out = append(out, l)
	}
	return out, nil
}

// parcel returns the ledger's record of the line.
func (p RollParcel) parcel() Parcel {
	return Parcel{ID: p.ID, Address: strings.TrimSpace(p.Address), County: p.County, Owner: strings.TrimSpace(p.Owner), Floodplain: p.Floodplain, Mailing: p.Mailing.Clean()}
}

// parcelOver returns the ledger's record of the line over the parcel it
// holds (nil when new): a line without a mailing address keeps the one
// recorded, which the clerk may have entered.
func (p RollParcel) parcelOver(was *Parcel) Parcel {
	pc := p.parcel()
	if was != nil && pc.Mailing.IsZero() {
		pc.Mailing = was.Mailing
	}
	return pc
}

// applyParcelRoll imports every line of the roll, or none: a line that
// does not check refuses the whole command, so a bad file changes
// nothing. A parcel the ledger holds takes the roll's address, owner,
// county and flag; one it does not is added. A parcel left out of the
// roll is kept (its bills and letters name it). An account named is made
// if new (with the line's mailing address) and the parcel added to it; an
// account's name and mailing address are never changed by a roll. A
// mailing address is recorded only from ledger format 7
// (DocumentsFormat): a roll carrying one at an earlier format is refused,
// so a format-6 ledger replays as it was written.
func applyParcelRoll(tx Tx, c Command, res *Result) error {
	in := c.Payload.(*ParcelRoll)
	if errs := CheckRoll(in.Parcels); len(errs) > 0 {
		return errs[0]
	}
	if RulesFormat(tx) < DocumentsFormat {
		for _, p := range in.Parcels {
			if !p.Mailing.IsZero() {
				return Errorf(EINVALID, "", "%sthe ledger records owners' mailing addresses only from ledger format %d.", p.where(), DocumentsFormat)
			}
		}
	}
	plan, err := PlanRoll(in.Parcels, tx)
	if err != nil {
		return err
	}
	counts := map[RollChange]int{}
	accounts := map[string]Account{}
	var changed []string // accounts made or given a parcel, in roll order
	for _, l := range plan {
		counts[l.Change]++
		if l.Change != RollUnchanged {
			if err := tx.PutParcel(l.parcelOver(l.Was)); err != nil {
				return err
			}
			o := ParcelOrigin{Parcel: l.ID, CommandID: c.ID, Actor: c.Actor, At: c.At, Source: in.Source, Line: l.Line}
			if err := tx.Put(CollectionParcelOrigins, l.ID, o); err != nil {
				return err
			}
		}
		if l.Account == "" {
			continue
		}
		a, held := accounts[l.Account]
		if !held {
			var ok bool
			if a, ok, err = tx.Account(l.Account); err != nil {
				return err
			} else if !ok {
				name := strings.TrimSpace(l.AccountName)
				if name == "" {
					name = l.parcel().Owner
				}
				a = Account{Number: l.Account, Name: name, Mailing: l.Mailing.Clean()}
				changed = append(changed, l.Account)
			}
		}
		if !slices.Contains(a.Parcels, l.ID) {
			a.Parcels = append(a.Parcels, l.ID)
			if !slices.Contains(changed, l.Account) {
				changed = append(changed, l.Account)
			}
		}
		accounts[l.Account] = a
	}
	for _, n := range changed {
		if err := tx.PutAccount(accounts[n]); err != nil {
			return err
		}
	}
	res.Note = fmt.Sprintf("parcel roll: %d new, %d changed, %d unchanged; %d accounts made or given parcels", counts[RollNew], counts[RollChanged], counts[RollUnchanged], len(changed))
	return nil
}
