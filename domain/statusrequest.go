package domain

import (
	"strings"
	"unicode/utf8"
)

// Collections and indexes of status letter requests (§5.11). The clerk's
// queue lists StatusRequestsByReadyDate, whose keys are "<ready-by>/<claim>",
// so the letters due first come first in a prefix scan.
const (
	StatusRequests            = "status-requests"
	StatusRequestsByReadyDate = "status-requests-by-ready-date"
)

// Status request states. The kiosk files a request as StatusRequested; the
// clerk's pages move it on.
const (
	StatusRequested = "requested"
)

// RequestStatusLetter asks for a statement of real property status (§5.11)
// of a parcel, with its fee paid when the request is made.
type RequestStatusLetter struct {
	Parcel    string `json:"parcel"`
	Requester string `json:"requester"`
	Contact   string `json:"contact"` // a telephone number or an e-mail address
	Fee       Money  `json:"fee"`     // the fee the requester was shown and paid
	Tender    Tender `json:"tender"`
	Reference string `json:"reference,omitempty"` // card terminal approval
	// Card is what the terminal showed of the card (card.go); the kiosk
	// sends it from ledger format 3.
	Card *CardShown `json:"card,omitempty"`
}

// StatusRequest is a request for a status letter as the ledger keeps it:
// who asked, about which parcel, when it counts as received, when the
// letter must be ready, and the fee paid. Its claim number is the number of
// the receipt for the fee, "<node>-<sequence>", made where the request was
// taken, so it is unique even offline.
type StatusRequest struct {
	Claim       string   `json:"claim"`
	CommandID   string   `json:"command_id"`
	Parcel      string   `json:"parcel"`
	Address     string   `json:"address,omitempty"`
	County      County   `json:"county,omitempty"`
	Requester   string   `json:"requester"`
	Contact     string   `json:"contact"`
	RequestedAt DateTime `json:"requested_at"` // intake time
	ReceivedOn  Date     `json:"received_on"`
	ReadyBy     Date     `json:"ready_by"`
	Fee         Money    `json:"fee"`
	Tender      Tender   `json:"tender"`
	Reference   string   `json:"reference,omitempty"`
	Node        string   `json:"node"`
	Index       uint64   `json:"index,omitempty"`
	State       string   `json:"state"`

	// What a request taken by the office records as well (statusoffice.go,
	// ledger format 7); a kiosk request leaves them empty, and its letter
	// is picked up.
	Email     string `json:"email,omitempty"`     // the address the letter is e-mailed to
	ClosingOn Date   `json:"closing_on,omitzero"` // the sale's closing date, when given
	Delivery  string `json:"delivery,omitempty"`  // DeliverEmail, DeliverPickup or DeliverMail; "" is pickup
	MailTo    string `json:"mail_to,omitempty"`   // the postal address of a mailed letter
	Payment   string `json:"payment,omitempty"`   // PayCard, PayCheck or PayAccount
	Account   string `json:"account,omitempty"`   // the account billed, by check or on account
	BillID    string `json:"bill_id,omitempty"`   // the fee's bill, by check or on account
}

// HowDelivered returns how the letter goes to its requester: DeliverPickup
// for a request that names none (the kiosk's).
func (r StatusRequest) HowDelivered() string {
	if r.Delivery == "" {
		return DeliverPickup
	}
	return r.Delivery
}

// ReadyKey returns the request's key in StatusRequestsByReadyDate.
func (r StatusRequest) ReadyKey() string { return r.ReadyBy.String() + "/" + r.Claim }

// Longest requester name and contact a request keeps.
const (
	maxRequesterLen = 120
	maxContactLen   = 120
)

// CheckStatusRequester checks the requester's name and contact as a form
// gives them (surrounding space trimmed) and returns them cleaned. Both are
// required: the clerk must know whom the letter is for and how to reach
// them when it is ready.
func CheckStatusRequester(name, contact string) (string, string, error) {
	name = strings.Join(strings.Fields(name), " ")
	contact = strings.TrimSpace(contact)
	switch {
	case name == "":
		return name, contact, Errorf(EINVALID, sectionStatusLetter, "The requester's name is required.")
	case contact == "":
		return name, contact, Errorf(EINVALID, sectionStatusLetter, "A telephone number or e-mail address is required.")
	case utf8.RuneCountInString(name) > maxRequesterLen:
		return name, contact, Errorf(EINVALID, sectionStatusLetter, "The requester's name is longer than %d characters.", maxRequesterLen)
	case utf8.RuneCountInString(contact) > maxContactLen:
		return name, contact, Errorf(EINVALID, sectionStatusLetter, "The contact is longer than %d characters.", maxContactLen)
	}
	return name, contact, nil
}

// applyRequestStatusLetter files a status letter request under §5.11: the
// parcel must exist; the received day, ready-by date and fee are
// ComputeStatusLetter's on the command's intake time (never the commit
// time), and the fee paid must be that fee. It writes the request, indexes
// it by ready-by date for the clerk's queue, and writes the receipt for the
// fee, whose number is the claim number.
func applyRequestStatusLetter(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	in := c.Payload.(*RequestStatusLetter)
	name, contact, err := CheckStatusRequester(in.Requester, in.Contact)
	if err != nil {
		return err
	}
	if !in.Tender.Valid() {
		return Errorf(EINVALID, "", "Unknown tender %q.", in.Tender)
	}
	card, err := receiptCard(tx, in.Card, in.Tender)
	if err != nil {
		return err
	}
	pc, ok, err := tx.Parcel(in.Parcel)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(ENOTFOUND, sectionStatusLetter, "There is no parcel %q.", in.Parcel)
	}
	sl, err := ComputeStatusLetter(StatusLetterInput{RequestedAt: c.At}, p)
	if err != nil {
		return err
	}
	if !in.Fee.Equal(sl.Fee) {
		return Errorf(ECONFLICT, sectionStatusLetter, "The status letter fee on %s is %s, not %s.", c.At.Date, sl.Fee, in.Fee)
	}
	claim := c.ReceiptNumber()
	var prev StatusRequest
	if found, err := tx.Get(StatusRequests, claim, &prev); err != nil {
		return err
	} else if found {
		return Errorf(ECONFLICT, sectionStatusLetter, "Claim %s is already taken.", claim)
	}
	sr := StatusRequest{
		Claim:       claim,
		CommandID:   c.ID,
		Parcel:      pc.ID,
		Address:     pc.Address,
		County:      pc.County,
		Requester:   name,
		Contact:     contact,
		RequestedAt: c.At,
		ReceivedOn:  sl.ReceivedOn,
		ReadyBy:     sl.ReadyBy,
		Fee:         sl.Fee,
		Tender:      in.Tender,
		Reference:   in.Reference,
		Node:        c.Node,
		Index:       index,
		State:       StatusRequested,
	}
	if err := tx.Put(StatusRequests, claim, sr); err != nil {
		return err
	}
	if err := tx.Index(StatusRequestsByReadyDate, sr.ReadyKey()); err != nil {
		return err
	}
	rc := Receipt{
		Number:    claim,
		Kind:      KindRequestStatusLetter,
		CommandID: c.ID,
		Status:    Posted,
		Parcel:    pc.ID,
		Payer:     name,
		At:        c.At,
		Amount:    sl.Fee,
		Tender:    in.Tender,
		Reference: in.Reference,
		Card:      card,
		Node:      c.Node,
		Index:     index,
	}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	return nil
}

// KindRequestStatusLetter is a request for a status letter and its fee
// (§5.11), at the kiosk.
const KindRequestStatusLetter Kind = "request_status_letter"

// Kind names the payload's kind.
func (*RequestStatusLetter) Kind() Kind { return KindRequestStatusLetter }

var requestStatusLetterKind = &Descriptor{
	Kind: KindRequestStatusLetter, Section: "§5.11", Offline: true, Resident: true,
	New: func() Payload { return new(RequestStatusLetter) },
	Apply: func(tx Tx, c Command, e Env, res *Result) error {
		return applyRequestStatusLetter(tx, c, e.Index, e.Params, res)
	},
	Books: func(l *Lines, tx Tx, c Command, res Result) string {
		receiptLines(l, tx, res.Receipt, SourceStatusLetters)
		return "status letter fee " + res.Receipt.Number
	},
	Receipt: func(c Command) *Receipt {
		p := c.Payload.(*RequestStatusLetter)
		rc := provisional(c)
		rc.Parcel, rc.Payer, rc.Amount, rc.Tender, rc.Reference, rc.Card = p.Parcel, p.Requester, p.Fee, p.Tender, p.Reference, p.Card.shown()
		return rc
	},
}
