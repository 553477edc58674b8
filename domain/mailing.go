package domain

import (
	"fmt"
	"strings"
)

// The owner of a parcel often does not live on it: a landlord, an estate,
// a company. What the village mails about a parcel (its bills, notices of
// delinquency, the letters of a special assessment) goes to the owner's
// mailing address when the village knows it, else to the parcel itself.
// The county roll may carry it, and the clerk may record or correct it on
// the parcel's or the billing account's page. It is recorded from ledger
// format 7 (DocumentsFormat): a format-6 ledger holds none.

// KindMailingAddress records, changes or removes the owner's mailing
// address of a parcel or of a billing account.
const KindMailingAddress Kind = "mailing_address"

// MailingAddress is where mail for an owner goes: a name (the addressee),
// one or two street lines, the city, the state's two-letter code and the
// ZIP code. Its zero value is "none known".
type MailingAddress struct {
	Name    string `json:"name,omitempty"`
	Street  string `json:"street,omitempty"`
	Street2 string `json:"street2,omitempty"`
	City    string `json:"city,omitempty"`
	State   string `json:"state,omitempty"`
	ZIP     string `json:"zip,omitempty"`
}

// IsZero reports whether no mailing address is recorded.
func (a MailingAddress) IsZero() bool { return a == MailingAddress{} }

// Lines returns the address as it is written on an envelope: the name,
// the street lines, then "City, ST 12345".
func (a MailingAddress) Lines() []string {
	if a.IsZero() {
		return nil
	}
	out := []string{a.Name, a.Street}
	if a.Street2 != "" {
		out = append(out, a.Street2)
	}
	return append(out, a.City+", "+a.State+" "+a.ZIP)
}

// Clean returns the address with its fields trimmed, the state in capitals.
func (a MailingAddress) Clean() MailingAddress {
	t := strings.TrimSpace
	return MailingAddress{Name: t(a.Name), Street: t(a.Street), Street2: t(a.Street2), City: t(a.City), State: strings.ToUpper(t(a.State)), ZIP: t(a.ZIP)}
}

// maxAddressField bounds each field, so that an address fits the window
// of an envelope on one line a field.
const maxAddressField = 60

// Check validates an address that is not zero: a name, a street, a city,
// a state of two letters and a ZIP code of five digits or ZIP+4
// ("53508" or "53508-1234"); what names it in the message ("Line 4: the
// mailing address").
func (a MailingAddress) Check(what string) error {
	a = a.Clean()
	if a.IsZero() {
		return nil
	}
	switch {
	case a.Name == "":
		return Errorf(EINVALID, "", "%s has no name to address it to.", what)
	case a.Street == "":
		return Errorf(EINVALID, "", "%s has no street or post office box.", what)
	case a.City == "":
		return Errorf(EINVALID, "", "%s has no city.", what)
	case !validState(a.State):
		return Errorf(EINVALID, "", "%s has the state %q; write its two-letter code, like WI.", what, a.State)
	case !validZIP(a.ZIP):
		return Errorf(EINVALID, "", "%s has the ZIP code %q; write five digits, or ZIP+4 like 53508-1234.", what, a.ZIP)
	}
	for _, f := range []struct{ name, value string }{{"name", a.Name}, {"street", a.Street}, {"second street line", a.Street2}, {"city", a.City}} {
		if len(f.value) > maxAddressField {
			return Errorf(EINVALID, "", "%s: the %s is longer than %d characters.", what, f.name, maxAddressField)
		}
		if err := CheckText(what+": the "+f.name, f.value); err != nil {
			return err
		}
	}
	return nil
}

func validState(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func validZIP(s string) bool {
	digits := func(s string) bool {
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	five, four, plus := strings.Cut(s, "-")
	return len(five) == 5 && digits(five) && (!plus || len(four) == 4 && digits(four))
}

// MailingAddressChange records the owner's mailing address of a parcel or
// of a billing account (exactly one of them); a zero Address removes the
// one recorded, so mail goes to the parcel again.
type MailingAddressChange struct {
	Parcel  string         `json:"parcel,omitempty"`
	Account string         `json:"account,omitempty"`
	Address MailingAddress `json:"address,omitzero"`
}

// Kind names the payload's kind.
func (*MailingAddressChange) Kind() Kind { return KindMailingAddress }

var mailingAddressKind = &Descriptor{
	Kind:  KindMailingAddress,
	Since: DocumentsFormat,
	Roles: []Role{RoleClerk, RoleTreasurer},
	New:   func() Payload { return new(MailingAddressChange) },
	Check: func(c Command) error {
		p := c.Payload.(*MailingAddressChange)
		if (p.Parcel == "") == (p.Account == "") {
			return Errorf(EINVALID, "", "A mailing address is recorded for a parcel or for an account: name one of them.")
		}
		return p.Address.Check("The mailing address")
	},
	Apply: func(tx Tx, c Command, _ Env, res *Result) error { return applyMailingAddress(tx, c, res) },
}

// applyMailingAddress records the address on the parcel or the account.
func applyMailingAddress(tx Tx, c Command, res *Result) error {
	p := c.Payload.(*MailingAddressChange)
	if err := p.Address.Check("The mailing address"); err != nil {
		return err
	}
	addr := p.Address.Clean()
	if p.Parcel != "" {
		pc, ok, err := tx.Parcel(p.Parcel)
		if err != nil {
			return err
		} else if !ok {
			return Errorf(ENOTFOUND, "", "There is no parcel %s.", p.Parcel)
		}
		pc.Mailing = addr
		if err := tx.PutParcel(pc); err != nil {
			return err
		}
		res.Ref = pc.ID
		res.Note = fmt.Sprintf("mailing address of parcel %s %s", pc.ID, changed(addr))
		return nil
	}
	a, ok, err := tx.Account(p.Account)
	if err != nil {
		return err
	} else if !ok {
		return Errorf(ENOTFOUND, "", "There is no account %s.", p.Account)
	}
	a.Mailing = addr
	if err := tx.PutAccount(a); err != nil {
		return err
	}
	res.Ref = a.Number
	res.Note = fmt.Sprintf("mailing address of account %s %s", a.Number, changed(addr))
	return nil
}

func changed(a MailingAddress) string {
	if a.IsZero() {
		return "removed"
	}
	return "recorded"
}

// MailTo returns where mail about a bill of account a on parcel pc goes:
// the account's mailing address, else the parcel owner's, else the
// parcel itself, addressed to the account's name (or the owner's) at the
// site address in the village (its city line given as siteCity, "Belleville, WI 53508").
func MailTo(a Account, pc Parcel, siteCity string) []string {
	switch {
	case !a.Mailing.IsZero():
		return a.Mailing.Lines()
	case !pc.Mailing.IsZero():
		return pc.Mailing.Lines()
	}
	name := a.Name
	if name == "" {
		name = pc.Owner
	}
	var out []string
	for _, l := range []string{name, pc.Address, siteCity} {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
