package domain

// CardShown is what a receipt may show of the card that paid: its brand
// and the last four digits of its number, as the card terminal reports
// them. Nothing else of a card is ever recorded (no full number, no
// expiry, no name, no fingerprint), and a payment records it only when the
// terminal gave it.
//
// The card-paid kinds carry it as an optional field, `card`, of their
// payload (PayBill, RequestStatusLetter, PayPropertyTax, PayRoomTax,
// PayAssessment), and their receipt copies it (receiptCard) from ledger
// format 3: a node of an earlier release refuses a payload field it does
// not know, so a node sends the field only once the cluster's ledger is at
// format 3, and below it the receipt is as it always was.
type CardShown struct {
	// Brand is the card network as the processor names it, a short
	// lower-case word ("visa", "mastercard", "amex", "eftpos_au"), or
	// "unknown".
	Brand string `json:"brand"`
	// Last4 is the last four digits of the card number.
	Last4 string `json:"last4"`
}

// CardShownSince is the ledger format from which a receipt records the
// card that paid.
const CardShownSince = 3

// cardBrands are the networks a receipt names by their own name; another
// brand a processor reports (a short word) is shown as a card.
var cardBrands = map[string]string{
	"visa":             "Visa",
	"mastercard":       "Mastercard",
	"amex":             "American Express",
	"discover":         "Discover",
	"diners":           "Diners Club",
	"jcb":              "JCB",
	"unionpay":         "UnionPay",
	"interac":          "Interac",
	"eftpos_au":        "eftpos",
	"cartes_bancaires": "Cartes Bancaires",
}

// Check refuses a card that is more than a brand and four digits: a brand
// that is not a short lower-case word (letters, digits, "_", at most 20)
// and last four digits that are not exactly four ASCII digits.
func (c CardShown) Check() error {
	if n := len(c.Brand); n == 0 || n > 20 {
		return Errorf(EINVALID, "", "The card's brand must be a short word like \"visa\"; got %q.", c.Brand)
	}
	for _, r := range c.Brand {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return Errorf(EINVALID, "", "The card's brand must be a short word like \"visa\"; got %q.", c.Brand)
		}
	}
	if len(c.Last4) != 4 {
		return Errorf(EINVALID, "", "The card's last four digits must be exactly 4 digits; got %d characters.", len(c.Last4))
	}
	for i := range 4 {
		if c.Last4[i] < '0' || c.Last4[i] > '9' {
			return Errorf(EINVALID, "", "The card's last four digits must be exactly 4 digits.")
		}
	}
	return nil
}

// BrandName returns the brand as a receipt prints it ("Visa"), or "" for
// a brand it does not name (the page then says "Card").
func (c CardShown) BrandName() string { return cardBrands[c.Brand] }

// String is the card as a receipt prints it: "Visa •••• 4242", or
// "•••• 4242" for a brand BrandName does not name (the tender already
// says it was a card).
func (c CardShown) String() string {
	if b := c.BrandName(); b != "" {
		return b + " •••• " + c.Last4
	}
	return "•••• " + c.Last4
}

// shown returns a copy of c for a provisional receipt (a command queued,
// not yet applied), or nil when c is nil or Check refuses it.
func (c *CardShown) shown() *CardShown {
	if c == nil || c.Check() != nil {
		return nil
	}
	return &CardShown{Brand: c.Brand, Last4: c.Last4}
}

// receiptCard returns the card a card payment's receipt records: nil below
// ledger format 3 (the field is not recorded, and the receipt is as
// earlier releases wrote it) or when the payload names none. From format
// 3 a card on a payment that is not by card, or one that Check refuses, is
// refused, so nothing is posted.
func receiptCard(tx Tx, card *CardShown, tender Tender) (*CardShown, error) {
	if card == nil || RulesFormat(tx) < CardShownSince {
		return nil, nil
	}
	if tender != Card {
		return nil, Errorf(EINVALID, "", "A %s payment has no card to show on its receipt.", tender)
	}
	if err := card.Check(); err != nil {
		return nil, err
	}
	return &CardShown{Brand: card.Brand, Last4: card.Last4}, nil
}
