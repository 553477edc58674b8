package domain

import (
	"fmt"
	"unicode/utf8"
)

// Free text that people type or import (names, descriptions, references,
// notes) is stored in the replicated ledger and shown again on pages,
// receipts, letters and exports. Two kinds of character in it do harm
// without being visible: control characters (NUL cuts a string short in C
// libraries and PDF writers; the others move the cursor, ring terminals
// or end lines in logs and CSV files) and the Unicode bidirectional
// controls, which reorder how the text around them is displayed, so that
// "Bill for 10.00" can read as something else on the screen than it is in
// the record ("Trojan Source", CVE-2021-42574). The domain refuses both in
// every command that carries free text, whichever channel the command
// came through.

// CheckText says what is wrong with s as one line of free text, or nil.
// It refuses text that is not valid UTF-8 (encoding/json would silently
// replace the bad bytes, so the record would differ from what was
// checked); every C0 control (U+0000–U+001F, TAB included: a form field
// holds one line) and DEL (U+007F); every C1 control (U+0080–U+009F); the
// bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E and
// U+2066–U+2069; and the line and paragraph separators U+2028 and U+2029,
// which are line breaks in disguise. what names the field for the message
// ("The payer's name").
func CheckText(what, s string) error { return checkText(what, s, false) }

// CheckNote is CheckText for text of several lines (a referral note, a
// status letter's answers): line feeds, carriage returns immediately
// before a line feed (browsers send a textarea's line breaks as CR LF)
// and TAB are allowed; a carriage return on its own, which lets later
// text overwrite earlier text on a terminal, is not.
func CheckNote(what, s string) error { return checkText(what, s, true) }

func checkText(what, s string, multiline bool) error {
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "", "%s contains bytes that are not text. Retype it rather than pasting it.", what)
	}
	for i, r := range s {
		if multiline && (r == '\n' || r == '\t' || r == '\r' && i+1 < len(s) && s[i+1] == '\n') {
			continue
		}
		if name := forbiddenRune(r); name != "" {
			return Errorf(EINVALID, "", "%s contains a hidden character (U+%04X, %s) that is not allowed. Retype it rather than pasting it.", what, r, name)
		}
	}
	return nil
}

// forbiddenRune returns what kind of hidden character r is, or "" when
// free text may hold it.
func forbiddenRune(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f:
		return "a control character"
	case r >= 0x80 && r <= 0x9f:
		return "a control character"
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "a text-direction control"
	case r == 0x2028 || r == 0x2029:
		return "a line break"
	}
	return ""
}

// textField is one free-text field of a command: its value, how the
// message names it, and whether it may hold several lines.
type textField struct {
	what      string
	value     string
	multiline bool
}

func oneLine(what, value string) textField { return textField{what: what, value: value} }
func manyLines(what, value string) textField {
	return textField{what: what, value: value, multiline: true}
}

// CheckText checks every free-text field the command carries with
// CheckText, or CheckNote for the fields that are notes of several lines,
// and returns the first problem. Ids are checked too, the command's own
// among them: some come from API clients, and all come over the log like
// the rest. The lines of a status
// letter are not: the adapter copies them from records the ledger already
// holds (bill descriptions checked when the bills were made), they are
// not typed.
func (c Command) CheckText() error {
	if err := CheckText("The command id", c.ID); err != nil {
		return err
	}
	if t, ok := c.Payload.(interface{ checkText() error }); ok {
		if err := t.checkText(); err != nil {
			return err
		}
	}
	var fields []textField
	if t, ok := c.Payload.(interface{ textFields() []textField }); ok {
		fields = t.textFields()
	}
	for _, f := range fields {
		if err := checkText(f.what, f.value, f.multiline); err != nil {
			return err
		}
	}
	return nil
}

// CheckText checks the bill's free text with CheckText, naming its
// import line in the message, so that an import's dry run lists every
// such line as the ledger would refuse it.
func (nb NewBill) CheckText() error {
	for _, what := range []struct{ name, value string }{{"bill id", nb.ID}, {"account number", nb.Account}, {"parcel number", nb.Parcel}, {"description", nb.Description}, {"Spanish description", nb.DescriptionES}} {
		name := "The " + what.name
		if w := nb.where(); w != "" {
			name = w + "the " + what.name
		}
		if err := CheckText(name, what.value); err != nil {
			return err
		}
	}
	return nil
}

// The free text of each kind's payload. A kind with free text declares it
// with a method of its payload, in its own file: textFields lists the
// fields checked as they are, checkText checks more.

func (p *PayBill) textFields() []textField {
	fields := []textField{oneLine("The bill number", p.BillID), oneLine("The reference", p.Reference), oneLine("The payer's name", p.Payer)}
	return fields
}

func (p *RequestStatusLetter) textFields() []textField {
	fields := []textField{oneLine("The parcel number", p.Parcel), oneLine("The requester's name", p.Requester), oneLine("The contact", p.Contact), oneLine("The reference", p.Reference)}
	return fields
}

func (p *PayPropertyTax) textFields() []textField {
	fields := []textField{oneLine("The tax bill number", p.TaxBillID), oneLine("The reference", p.Reference), oneLine("The payer's name", p.Payer)}
	return fields
}

func (p *StaffUserChange) textFields() []textField {
	fields := []textField{oneLine("The username", p.Username), oneLine("The person's name", p.Name), oneLine("The unit", p.Unit)}
	return fields
}

func (p *APITokenChange) textFields() []textField {
	fields := []textField{oneLine("The token id", p.ID), oneLine("The username", p.Username), oneLine("The token label", p.Label)}
	return fields
}

func (p *CreateBills) checkText() error {
	if err := CheckText("The file name", p.Source); err != nil {
		return err
	}
	for _, nb := range p.Bills {
		if err := nb.CheckText(); err != nil {
			return err
		}
	}
	return nil
}

func (p *DrawerOpen) textFields() []textField {
	fields := []textField{oneLine("The drawer id", p.DrawerID)}
	return fields
}

func (p *WindowPayment) textFields() []textField {
	fields := []textField{oneLine("The drawer id", p.DrawerID), oneLine("The bill number", p.BillID), oneLine("The check number", p.Reference), oneLine("The payer's name", p.Payer)}
	return fields
}

func (p *DrawerClose) textFields() []textField {
	fields := []textField{oneLine("The drawer id", p.DrawerID)}
	return fields
}

func (p *Deposit) textFields() []textField {
	fields := []textField{oneLine("The deposit id", p.DepositID), oneLine("The depository", p.Depository)}
	for _, d := range p.Drawers {
		fields = append(fields, oneLine("A drawer id", d))
	}
	return fields
}

func (p *ReturnCheck) textFields() []textField {
	fields := []textField{oneLine("The return id", p.ReturnID), oneLine("The bill number", p.BillID), oneLine("The receipt number", p.Receipt), oneLine("The fee's bill number", p.FeeBillID), manyLines("The referral note", p.Referral)}
	return fields
}

func (p *IssueRefund) textFields() []textField {
	fields := []textField{oneLine("The operation", p.Op), oneLine("The bill number", p.BillID), oneLine("The payment's command id", p.CommandID), oneLine("The check number", p.CheckNumber), oneLine("The account", p.Account), oneLine("The payee", p.Payee)}
	for _, id := range p.Signatures {
		fields = append(fields, oneLine("A signature id", id))
	}
	return fields
}

func (p *StatusLetterWork) textFields() []textField {
	fields := []textField{oneLine("The claim number", p.Claim), manyLines("The changes in assessments", p.AssessmentChanges), manyLines("The deferred assessments", p.Deferred),
		manyLines("The contemplated improvements", p.Improvements), manyLines("The floodplain status", p.Floodplain), manyLines("The code violations", p.Violations),
		manyLines("The notes", p.Notes), oneLine("The delivery", p.Delivery), oneLine("The delivery note", p.DeliveryNote)}
	return fields
}

func (p *NovemberStep) textFields() []textField {
	fields := []textField{oneLine("The step", p.Op)}
	for _, id := range p.Bills {
		fields = append(fields, oneLine("A bill number", id))
	}
	for _, id := range p.Assessments {
		fields = append(fields, oneLine("An assessment installment", id))
	}
	return fields
}

func (p *NewCharge) textFields() []textField {
	fields := []textField{oneLine("The charge id", p.ChargeID), oneLine("The bill number", p.BillID), oneLine("The kind of charge", p.What), oneLine("The account number", p.Account),
		oneLine("The parcel number", p.Parcel), oneLine("The reference", p.Reference), oneLine("The placed bill's number", p.Placed)}
	for i, it := range p.Items {
		fields = append(fields, oneLine(fmt.Sprintf("Line %d's description", i+1), it.Description))
	}

	return fields
}
