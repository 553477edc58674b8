package domain

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCardShownCheck(t *testing.T) {
	for _, row := range []struct {
		name         string
		brand, last4 string
		ok           bool
	}{
		{"visa", "visa", "4242", true},
		{"brand with an underscore", "eftpos_au", "0005", true},
		{"brand the terminal does not know", "unknown", "1234", true},
		{"no brand", "", "4242", false},
		{"brand in capitals", "Visa", "4242", false},
		{"brand of two words", "visa debit", "4242", false},
		{"brand too long", "abcdefghijklmnopqrstu", "4242", false},
		{"brand with markup", "<b>visa</b>", "4242", false},
		{"three digits", "visa", "424", false},
		{"five digits", "visa", "42424", false},
		{"a full card number", "visa", "4242424242424242", false},
		{"a letter", "visa", "42a2", false},
		{"full-width digits", "visa", "４２４２", false},
		{"a newline", "visa", "424\n", false},
	} {
		t.Run("card/"+row.name, func(t *testing.T) {
			err := CardShown{Brand: row.brand, Last4: row.last4}.Check()
			if (err == nil) != row.ok {
				t.Fatalf("Check(%q, %q) = %v, want ok %v", row.brand, row.last4, err, row.ok)
			}
			if err != nil && ErrorCode(err) != EINVALID {
				t.Errorf("code %s, want %s", ErrorCode(err), EINVALID)
			}
		})
	}
}

func TestCardShownString(t *testing.T) {
	for c, want := range map[CardShown]string{
		{Brand: "visa", Last4: "4242"}:       "Visa •••• 4242",
		{Brand: "amex", Last4: "0005"}:       "American Express •••• 0005",
		{Brand: "unknown", Last4: "1881"}:    "•••• 1881",
		{Brand: "newnetwork", Last4: "0001"}: "•••• 0001",
	} {
		if got := c.String(); got != want {
			t.Errorf("%+v: %q, want %q", c, got, want)
		}
	}
}

// runAt applies c at ledger format f on a copy of tx, keeping the writes
// only when it is applied.
func runAt(t *testing.T, tx *residentTx, f int, c Command) (Result, error) {
	t.Helper()
	b, err := EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	if c, err = DecodeCommand(b); err != nil {
		return Result{}, err
	}
	work := tx.clone()
	res, err := Apply(formatTx{work, f}, c, 42, DefaultParams())
	if err == nil {
		*tx = *work
	}
	return res, err
}

// storedReceipt returns the JSON of the only receipt in tx.
func storedReceipt(t *testing.T, tx *residentTx) []byte {
	t.Helper()
	if len(tx.receipts) != 1 {
		t.Fatalf("%d receipts stored, want 1", len(tx.receipts))
	}
	for _, rc := range tx.receipts {
		b, err := json.Marshal(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return nil
}

// TestCardOnReceiptFromLedgerFormat3: from ledger format 3 a card
// payment's receipt records the card's brand and last four digits; at
// format 2 the same command stores the receipt byte for byte as without
// the card (as earlier releases stored it); a card that is more than a
// brand and four digits, or on a payment not by card, is refused at
// format 3 with nothing written.
func TestCardOnReceiptFromLedgerFormat3(t *testing.T) {
	visa := &CardShown{Brand: "visa", Last4: "4242"}
	bill := Bill{ID: "B-2026-0113", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-05-01"), Principal: MustMoney("90.00")}
	kinds := []struct {
		name string
		cmd  func(card *CardShown, tender Tender) Command
	}{
		{"pay_bill", func(card *CardShown, tender Tender) Command {
			c := cmdAt(KindPayBill, "2026-05-10T10:00", 7)
			c.Payload = &PayBill{BillID: bill.ID, Amount: MustMoney("90.00"), Tender: tender, Reference: "SIM000001", Card: card}
			return c
		}},
		{"request_status_letter", func(card *CardShown, tender Tender) Command {
			c := cmdAt(KindRequestStatusLetter, "2026-10-20T10:15", 12)
			c.Payload = &RequestStatusLetter{Parcel: "0601-141-2001", Requester: "Dana Title Co.", Contact: "608-555-0100", Fee: MustMoney("45.00"), Tender: tender, Reference: "SIM000002", Card: card}
			return c
		}},
	}
	fresh := func() *residentTx {
		tx := newResidentTx()
		tx.bills[bill.ID] = bill
		return tx
	}
	for _, k := range kinds {
		t.Run(k.name+"/format 3 records the card", func(t *testing.T) {
			tx := fresh()
			res, err := runAt(t, tx, 3, k.cmd(visa, Card))
			if err != nil {
				t.Fatal(err)
			}
			if res.Receipt == nil || res.Receipt.Card == nil || *res.Receipt.Card != *visa {
				t.Fatalf("receipt %+v", res.Receipt)
			}
			if b := storedReceipt(t, tx); !bytes.Contains(b, []byte(`"card":{"brand":"visa","last4":"4242"}`)) {
				t.Errorf("stored receipt %s", b)
			}
		})
		t.Run(k.name+"/format 2 stores the receipt as before", func(t *testing.T) {
			with, without := fresh(), fresh()
			if _, err := runAt(t, with, 2, k.cmd(visa, Card)); err != nil {
				t.Fatal(err)
			}
			if _, err := runAt(t, without, 2, k.cmd(nil, Card)); err != nil {
				t.Fatal(err)
			}
			a, b := storedReceipt(t, with), storedReceipt(t, without)
			if !bytes.Equal(a, b) {
				t.Errorf("at format 2 the card changed the stored receipt:\n%s\n%s", a, b)
			}
			if bytes.Contains(a, []byte("card\":")) || bytes.Contains(a, []byte("4242")) {
				t.Errorf("at format 2 the receipt records the card: %s", a)
			}
			// The receipt without a card is unchanged at format 3 too.
			at3 := fresh()
			if _, err := runAt(t, at3, 3, k.cmd(nil, Card)); err != nil {
				t.Fatal(err)
			}
			if c := storedReceipt(t, at3); !bytes.Equal(c, b) {
				t.Errorf("a receipt without a card differs at format 3:\n%s\n%s", c, b)
			}
		})
		for _, bad := range []struct {
			name   string
			card   CardShown
			tender Tender
			says   string
		}{
			{"a full card number", CardShown{Brand: "visa", Last4: "4242424242424242"}, Card, "exactly 4 digits"},
			{"a brand that is a sentence", CardShown{Brand: "Visa ending 4242 exp 12/29", Last4: "4242"}, Card, "short word"},
			{"a card on a check", CardShown{Brand: "visa", Last4: "4242"}, Check, "no card"},
		} {
			t.Run(k.name+"/format 3 refuses "+bad.name, func(t *testing.T) {
				tx := fresh()
				card := bad.card
				_, err := runAt(t, tx, 3, k.cmd(&card, bad.tender))
				// pay_bill refuses a tender other than a card before it
				// reads the card (the window takes cash and checks).
				says := k.name != "pay_bill" || bad.tender == Card
				if ErrorCode(err) != EINVALID || says && !strings.Contains(err.Error(), bad.says) {
					t.Fatalf("err %v, want %s saying %q", err, EINVALID, bad.says)
				}
				if len(tx.receipts) != 0 || len(tx.records) != 0 || len(tx.bills[bill.ID].Payments) != 0 {
					t.Error("a refused payment wrote records")
				}
			})
		}
	}
}

// TestCardOfEveryCardPaidKind: each kind the kiosk takes by card carries
// the card in its payload (encoded as "card", decoded back) and its
// provisional receipt shows it; a card Check refuses is not shown.
func TestCardOfEveryCardPaidKind(t *testing.T) {
	visa := &CardShown{Brand: "visa", Last4: "4242"}
	payloads := map[Kind]func(*CardShown) Payload{
		KindPayBill: func(c *CardShown) Payload {
			return &PayBill{BillID: "B-1", Amount: MustMoney("1.00"), Tender: Card, Reference: "R", Card: c}
		},
		KindRequestStatusLetter: func(c *CardShown) Payload {
			return &RequestStatusLetter{Parcel: "P", Requester: "Dana", Contact: "608-555-0100", Fee: MustMoney("45.00"), Tender: Card, Reference: "R", Card: c}
		},
		KindPayPropertyTax: func(c *CardShown) Payload {
			return &PayPropertyTax{TaxBillID: "T", Option: TaxFull, Amount: MustMoney("1.00"), Tender: Card, Reference: "R", Card: c}
		},
		KindPayRoomTax: func(c *CardShown) Payload {
			return &PayRoomTax{Return: "sugar-rooms_2026-Q1", Amount: MustMoney("1.00"), Reference: "R", Card: c}
		},
		KindPayBills: func(c *CardShown) Payload {
			return &PayBills{Account: "100101", Bills: []BillAmount{{BillID: "B-1", Amount: MustMoney("1.00")}}, Tender: Card, Reference: "R", Card: c}
		},
		KindPayAssessment: func(c *CardShown) Payload {
			return &PayAssessment{AssessmentID: "SA", Option: PayInFull, Amount: MustMoney("1.00"), Tender: Card, Reference: "R", Card: c}
		},
	}
	for k, mk := range payloads {
		t.Run(string(k), func(t *testing.T) {
			c := cmdAt(k, "2026-05-10T10:00", 3)
			c.Payload = mk(visa)
			b, err := EncodeCommand(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(`"card":{"brand":"visa","last4":"4242"}`)) {
				t.Errorf("encoded %s", b)
			}
			back, err := DecodeCommand(b)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := Kinds.Lookup(k)
			if rc := d.Receipt(back); rc.Card == nil || *rc.Card != *visa {
				t.Errorf("provisional receipt %+v", rc)
			}
			c.Payload = mk(nil)
			if b, _ := EncodeCommand(c); bytes.Contains(b, []byte("card\":")) {
				t.Errorf("a payment without a card encodes one: %s", b)
			}
			c.Payload = mk(&CardShown{Brand: "visa", Last4: "42"})
			if rc := d.Receipt(c); rc.Card != nil {
				t.Errorf("a provisional receipt shows a card Check refuses: %+v", rc.Card)
			}
		})
	}
}
