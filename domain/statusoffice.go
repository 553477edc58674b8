package domain

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// A status letter requested at the clerk's window or through the API
// (§5.11): most often a title company's, before a closing. It is a kind
// of its own, not the kiosk's request_status_letter with more fields: the
// kiosk's kind is a resident's, which a kiosk node may sign, and nothing a
// kiosk signs may bill a village account or take a check into a drawer.

// KindOfficeStatusLetter is a status letter request taken by the clerk's
// office, with its fee paid by card or check or billed on account.
const KindOfficeStatusLetter Kind = "office_status_letter"

// How a status letter goes to its requester. A request that names none
// (every kiosk request) is picked up.
const (
	DeliverPickup = "pickup"
	DeliverEmail  = "email"
	DeliverMail   = "mail"
)

// How the fee of a request taken by the office is paid.
const (
	PayCard    = "card"    // on the window's card terminal
	PayCheck   = "check"   // a check taken into the cashier's drawer
	PayAccount = "account" // billed to the requester's village account
)

// OfficeStatusLetter asks for a statement of real property status of a
// parcel for a requester the office deals with at a distance: the letter
// is e-mailed, mailed or picked up, and the fee is paid by card on the
// window's terminal, by check into the cashier's drawer, or billed on the
// requester's village account. A check and a bill both name the account
// and the fee's bill (its id made before the command enters the log), so
// that a check that comes back is returned as any window check (§5.20).
type OfficeStatusLetter struct {
	Parcel    string `json:"parcel"`
	Requester string `json:"requester"` // the title company, or the person asking
	Contact   string `json:"contact"`   // whom to ask for, and how to reach them
	Email     string `json:"email,omitempty"`
	ClosingOn Date   `json:"closing_on,omitzero"` // the sale's closing date, when given
	Delivery  string `json:"delivery"`            // DeliverEmail, DeliverPickup or DeliverMail
	MailTo    string `json:"mail_to,omitempty"`   // the postal address, when mailed
	Fee       Money  `json:"fee"`                 // the fee the requester was told
	Payment   string `json:"payment"`             // PayCard, PayCheck or PayAccount
	// Reference is the card terminal's approval, or the check's number.
	Reference string     `json:"reference,omitempty"`
	Card      *CardShown `json:"card,omitempty"`
	DrawerID  string     `json:"drawer_id,omitempty"` // a check: the cashier's open drawer
	Account   string     `json:"account,omitempty"`   // a check or on account: the account billed
	BillID    string     `json:"bill_id,omitempty"`   // a check or on account: the fee's bill
}

// Kind names the payload's kind.
func (*OfficeStatusLetter) Kind() Kind { return KindOfficeStatusLetter }

func (p *OfficeStatusLetter) textFields() []textField {
	return []textField{oneLine("The parcel number", p.Parcel), oneLine("The requester's name", p.Requester), oneLine("The contact", p.Contact),
		oneLine("The e-mail address", p.Email), oneLine("The delivery", p.Delivery), manyLines("The mailing address", p.MailTo),
		oneLine("The payment", p.Payment), oneLine("The reference", p.Reference), oneLine("The drawer", p.DrawerID),
		oneLine("The account number", p.Account), oneLine("The bill number", p.BillID)}
}

// Check refuses a request whose requester, e-mail address or delivery the
// ledger would refuse, needing no ledger: the office asks it before a
// card is charged for the request, so that a card is never charged for a
// request refused for what the form says.
func (p *OfficeStatusLetter) Check() error {
	_, _, _, _, err := p.check()
	return err
}

// check is Check, returning the requester's name and contact, the e-mail
// address and the mailing address as the ledger keeps them.
func (p *OfficeStatusLetter) check() (name, contact, email, mailTo string, err error) {
	if name, contact, err = CheckStatusRequester(p.Requester, p.Contact); err != nil {
		return
	}
	if strings.TrimSpace(p.Email) != "" || p.Delivery == DeliverEmail {
		if email, err = CheckEmail(p.Email); err != nil {
			return
		}
	}
	mailTo = strings.TrimSpace(p.MailTo)
	switch p.Delivery {
	case DeliverEmail, DeliverPickup:
		if mailTo != "" {
			err = Errorf(EINVALID, sectionStatusLetter, "A mailing address is given only for a letter that is mailed.")
		}
	case DeliverMail:
		if mailTo == "" {
			err = Errorf(EINVALID, sectionStatusLetter, "The mailing address is required to mail the letter.")
		} else if utf8.RuneCountInString(mailTo) > maxMailToLen {
			err = Errorf(EINVALID, sectionStatusLetter, "The mailing address is longer than %d characters.", maxMailToLen)
		}
	default:
		err = Errorf(EINVALID, sectionStatusLetter, "A letter is e-mailed, mailed or picked up, not %q.", p.Delivery)
	}
	return
}

// Longest e-mail address and mailing address a request keeps.
const (
	maxEmailLen  = 254
	maxMailToLen = 300
)

// CheckEmail returns the bare e-mail address in s ("closings@title.example"),
// or an error a person can act on: one address, no name, a domain with a
// dot.
func CheckEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", Errorf(EINVALID, sectionStatusLetter, "An e-mail address is required to e-mail the letter.")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || len(a.Address) > maxEmailLen || !strings.Contains(a.Address[strings.LastIndex(a.Address, "@")+1:], ".") {
		return "", Errorf(EINVALID, sectionStatusLetter, "%q is not an e-mail address like closings@title.example.", s)
	}
	return a.Address, nil
}

// applyOfficeStatusLetter files a request taken by the office as the
// kiosk's are filed (applyRequestStatusLetter: the parcel, the received
// day and ready-by date on the command's intake time, the fee in force
// then), with how the letter goes out, and takes the fee: a card payment
// is a receipt as at the kiosk; a check or a bill on account bills the
// fee to the requester's account, on a parcel of that account (the
// account owes it, not the owner of the parcel the letter is about), and
// a check pays that bill at once, into the cashier's own open drawer.
func applyOfficeStatusLetter(tx Tx, c Command, index uint64, p *Params, res *Result) error {
	in := c.Payload.(*OfficeStatusLetter)
	name, contact, email, mailTo, err := in.check()
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
	ref := strings.TrimSpace(in.Reference)
	rc := Receipt{Number: claim, Kind: KindOfficeStatusLetter, CommandID: c.ID, Status: Posted, Parcel: pc.ID, Payer: name, At: c.At, Amount: sl.Fee, Reference: ref, Node: c.Node, Index: index}
	switch in.Payment {
	case PayCard:
		if in.DrawerID != "" || in.Account != "" || in.BillID != "" {
			return Errorf(EINVALID, sectionStatusLetter, "A fee paid by card names no drawer, account or bill.")
		}
		if ref == "" {
			return Errorf(EINVALID, sectionStatusLetter, "A card payment carries the terminal's approval.")
		}
		if rc.Card, err = receiptCard(tx, in.Card, Card); err != nil {
			return err
		}
		rc.Tender = Card
	case PayCheck:
		if in.DrawerID == "" {
			return Errorf(EINVALID, sectionStatusLetter, "Open a drawer at the window to take a check.")
		}
		if in.Card != nil {
			return Errorf(EINVALID, "", "A check payment has no card to show on its receipt.")
		}
		d, dp, err := windowTake(tx, c, in.DrawerID, Check, sl.Fee, sl.Fee, ref, name, in.BillID, p)
		if err != nil {
			return err
		}
		bill, err := billLetterFee(tx, c, in, pc, claim, sl.Fee)
		if err != nil {
			return err
		}
		line, err := postOnBill(tx, &bill, BillPayment{CommandID: c.ID, Receipt: claim, At: c.At, Amount: sl.Fee, Tender: Check, Reference: ref, Drawer: d.ID}, p)
		if err != nil {
			return err
		}
		rc.Tender, rc.BillID, rc.Account, rc.Allocation, rc.Balance = Check, bill.ID, bill.Account, line.Allocation, line.Balance
		if err := recordWindowTake(tx, d, dp, res); err != nil {
			return err
		}
	case PayAccount:
		if in.DrawerID != "" || ref != "" || in.Card != nil {
			return Errorf(EINVALID, sectionStatusLetter, "A fee billed on account names no drawer, check or card.")
		}
		if _, err := billLetterFee(tx, c, in, pc, claim, sl.Fee); err != nil {
			return err
		}
	default:
		return Errorf(EINVALID, sectionStatusLetter, "The fee is paid by card or check, or billed on account, not %q.", in.Payment)
	}
	sr := StatusRequest{
		Claim: claim, CommandID: c.ID, Parcel: pc.ID, Address: pc.Address, County: pc.County,
		Requester: name, Contact: contact, RequestedAt: c.At, ReceivedOn: sl.ReceivedOn, ReadyBy: sl.ReadyBy,
		Fee: sl.Fee, Tender: rc.Tender, Reference: ref, Node: c.Node, Index: index, State: StatusRequested,
		Email: email, ClosingOn: in.ClosingOn, Delivery: in.Delivery, MailTo: mailTo, Payment: in.Payment, Account: strings.TrimSpace(in.Account), BillID: in.BillID,
	}
	if err := tx.Put(StatusRequests, claim, sr); err != nil {
		return err
	}
	if err := tx.Index(StatusRequestsByReadyDate, sr.ReadyKey()); err != nil {
		return err
	}
	res.Ref = claim
	if in.Payment == PayAccount {
		res.Note = fmt.Sprintf("status letter %s: fee %s billed on %s", claim, sl.Fee, in.BillID)
		return nil
	}
	if err := tx.PutReceipt(rc); err != nil {
		return err
	}
	res.Receipt = &rc
	res.Note = fmt.Sprintf("status letter %s: fee %s paid by %s", claim, sl.Fee, rc.Tender)
	return nil
}

// billLetterFee bills a status letter's fee as a village bill (§5.10: it
// is due in 30 days and earns interest after, as any bill) to the
// requester's account, on the first parcel of that account: the bill is
// the account's debt, so it is never listed among the bills of the parcel
// the letter is about, nor put on that parcel's tax roll. Its receipts
// are status letter fees (the chart's account collecting them).
func billLetterFee(tx Tx, c Command, in *OfficeStatusLetter, pc Parcel, claim string, fee Money) (Bill, error) {
	number := strings.TrimSpace(in.Account)
	if number == "" {
		return Bill{}, Errorf(EINVALID, sectionStatusLetter, "Name the requester's village account that the fee is billed to.")
	}
	acct, ok, err := tx.Account(number)
	if err != nil {
		return Bill{}, err
	}
	if !ok {
		return Bill{}, Errorf(ENOTFOUND, sectionStatusLetter, "There is no account %q.", number)
	}
	if len(acct.Parcels) == 0 {
		return Bill{}, Errorf(EINVALID, sectionStatusLetter, "Account %s holds no parcel, so it cannot be billed (§5.10 bills an account on its own parcel).", number)
	}
	if err := validRecordID("bill", in.BillID); err != nil {
		return Bill{}, err
	}
	revenue := ""
	if chart, err := loadChart(tx); err != nil {
		return Bill{}, err
	} else {
		revenue = chart.Collector(SourceStatusLetters)
	}
	nb := NewBill{ID: in.BillID, Account: acct.Number, Parcel: acct.Parcels[0], BilledOn: c.At.Date, Principal: fee,
		Description: fmt.Sprintf("Statement of real property status %s, parcel %s (§5.11)", claim, pc.ID)}
	if errs := CheckNewBills([]NewBill{nb}, txBillReader{tx}); len(errs) > 0 {
		return Bill{}, errs[0]
	}
	b := Bill{ID: nb.ID, Account: nb.Account, Parcel: nb.Parcel, Description: nb.Description, BilledOn: nb.BilledOn, Principal: nb.Principal, Revenue: revenue}
	if err := tx.PutBill(b); err != nil {
		return Bill{}, err
	}
	if err := tx.Put(CollectionBillOrigins, b.ID, BillOrigin{BillID: b.ID, CommandID: c.ID, Actor: c.Actor, At: c.At, Source: "status letter " + claim}); err != nil {
		return Bill{}, err
	}
	return b, nil
}

// officeStatusLetterLines post a request's fee: by card, the receipt as
// the kiosk's (receipts not yet deposited, status letter fees); by check
// or on account, the bill issued (receivable, status letter fees) and, by
// check, its payment (receipts not yet deposited, out of the receivable).
func officeStatusLetterLines(l *Lines, tx Tx, c Command, res Result) string {
	in := c.Payload.(*OfficeStatusLetter)
	if in.Payment != PayCard {
		billLines(l, tx, []string{in.BillID})
	}
	receiptLines(l, tx, res.Receipt, SourceStatusLetters)
	return "status letter fee " + res.Ref + " (" + in.Payment + ")"
}

var officeStatusLetterKind = &Descriptor{
	Kind: KindOfficeStatusLetter, Section: "§5.11", Since: DocumentsFormat, Roles: []Role{RoleClerk, RoleTreasurer},
	New: func() Payload { return new(OfficeStatusLetter) },
	Apply: func(tx Tx, c Command, e Env, res *Result) error {
		return applyOfficeStatusLetter(tx, c, e.Index, e.Params, res)
	},
	Books: officeStatusLetterLines,
}
