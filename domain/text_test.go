package domain

import (
	"strings"
	"testing"
)

func TestCheckText(t *testing.T) {
	for _, tc := range []struct {
		name     string
		text     string
		line, ml bool // accepted as one line, as several lines
	}{
		{"plain", "Weed cutting, 141 W Main St", true, true},
		{"accents", "Ana Gutiérrez-Müller", true, true},
		{"apostrophe and quotes", `O'Brien "Dan"`, true, true},
		{"right-to-left script", "محمد عبد الله", true, true},
		{"Hebrew", "שלום", true, true},
		{"emoji with joiner", "👩‍👩‍👧 family", true, true},
		{"formula stays text", "=HYPERLINK(\"x\")", true, true},
		{"empty", "", true, true},
		{"NUL", "Snow\x00removal", false, false},
		{"bell", "a\x07b", false, false},
		{"escape", "a\x1b[2Jb", false, false},
		{"DEL", "a\x7fb", false, false},
		{"C1 next line", "a\u0085b", false, false},
		{"C1 CSI", "a\u009bb", false, false},
		{"right-to-left override", "Bill \u202e00.09", false, false},
		{"left-to-right embedding", "\u202ax", false, false},
		{"pop directional formatting", "x\u202c", false, false},
		{"isolates", "\u2066x\u2069", false, false},
		{"first strong isolate", "\u2068x", false, false},
		{"left-to-right mark", "x\u200e", false, false},
		{"right-to-left mark", "x\u200f", false, false},
		{"Arabic letter mark", "x\u061c", false, false},
		{"line separator", "a\u2028b", false, false},
		{"paragraph separator", "a\u2029b", false, false},
		{"invalid UTF-8", "a\xffb", false, false},
		{"newline", "first line\nsecond line", false, true},
		{"CR LF", "first line\r\nsecond line", false, true},
		{"tab", "a\tb", false, true},
		{"lone CR", "paid in full\rnot paid", false, false},
		{"CR at the end", "paid\r", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckText("The text", tc.text); (err == nil) != tc.line {
				t.Errorf("CheckText = %v, want accepted %v", err, tc.line)
			} else if err != nil && (ErrorCode(err) != EINVALID || !strings.HasPrefix(ErrorMessage(err), "The text contains")) {
				t.Errorf("CheckText = %v", err)
			}
			if err := CheckNote("The note", tc.text); (err == nil) != tc.ml {
				t.Errorf("CheckNote = %v, want accepted %v", err, tc.ml)
			}
		})
	}
}

// TestStaffCommandsRefuseHiddenText: every clerk's office command that
// carries free text is refused by the ledger itself when the text holds a
// hidden character, whichever adapter built it, and writes nothing.
func TestStaffCommandsRefuseHiddenText(t *testing.T) {
	bill := NewBill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting", BilledOn: MustDate("2026-11-02"), Principal: MustMoney("90.00"), Line: 3}
	evil := bill
	evil.Description = "Weed cutting \u202e00.09"
	for _, tc := range []struct {
		name string
		kind Kind
		fill func(*Command)
		says string
	}{
		{"bill description", KindCreateBills, func(c *Command) { c.Payload = &CreateBills{Bills: []NewBill{bill, evil}} }, "Line 3: the description contains a hidden character (U+202E"},
		{"import file name", KindCreateBills, func(c *Command) { c.Payload = &CreateBills{Bills: []NewBill{bill}, Source: "bills\x00.csv"} }, "The file name"},
		{"person's name", KindStaffUser, func(c *Command) {
			c.Payload = &StaffUserChange{Op: StaffAdd, Username: "eve", Name: "Eve\x00", Role: RoleClerk, PasswordHash: "$argon2id$x"}
		}, "The person's name"},
		{"token label", KindAPIToken, func(c *Command) {
			c.Payload = &APITokenChange{Op: "issue", ID: "t1", Username: "jdoe", Label: "export\u2066", SecretHash: strings.Repeat("a", 64)}
		}, "The token label"},
		{"drawer id", KindDrawerOpen, func(c *Command) { c.Payload = &DrawerOpen{DrawerID: "D\x1b1", Float: MustMoney("1.00")} }, "The drawer id"},
		{"payer", KindWindowPayment, func(c *Command) {
			c.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-1", Amount: MustMoney("1.00"), Tender: Cash, Tendered: MustMoney("1.00"), Payer: "Ana\u200f"}
		}, "The payer's name"},
		{"referral note", KindReturnCheck, func(c *Command) {
			c.Payload = &ReturnCheck{ReturnID: "RC-1", BillID: "B-1", Receipt: "r", FeeBillID: "F-1", Referral: "to the DA\rpaid"}
		}, "The referral note"},
		{"letter notes", KindStatusLetter, func(c *Command) { c.Payload = &StatusLetterWork{Op: "complete", Claim: "c1", Notes: "none\x00"} }, "The notes"},
		{"charge line", KindCharge, func(c *Command) {
			c.Payload = &NewCharge{ChargeID: "CH-1", BillID: "B-2", What: ChargeChargeback, Account: "100101", Parcel: "0601-141-2001", Reference: "inv 7",
				Items: []ChargeItem{{Description: "Mowing", Amount: MustMoney("1.00")}, {Description: "\u202eMowing", Amount: MustMoney("1.00")}}}
		}, "Line 2's description"},
		{"refund check number", KindIssueRefund, func(c *Command) {
			c.Payload = &IssueRefund{Op: "check", BillID: "B-1", CommandID: "x", CheckNumber: "10\u202e01"}
		}, "The check number"},
		{"depository", KindDeposit, func(c *Command) {
			c.Payload = &Deposit{DepositID: "DEP-1", Depository: "Bank\x00", Drawers: []string{"D-1"}}
		}, "The depository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := newStaffTx()
			before := len(tx.records) + len(tx.bills) + len(tx.receipts)
			c := staffCmd(tc.kind, "clerk", "2026-11-02T10:00")
			tc.fill(&c)
			_, err := tx.run(t, c)
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.says) {
				t.Fatalf("err = %v, want one saying %q", err, tc.says)
			}
			if after := len(tx.records) + len(tx.bills) + len(tx.receipts); after != before {
				t.Fatalf("the refused command wrote %d records", after-before)
			}
		})
	}
	// A note of several lines, as a textarea sends it, is fine.
	c := staffCmd(KindReturnCheck, "clerk", "2026-11-02T10:00")
	c.Payload = &ReturnCheck{Referral: "Referred to the district attorney.\r\nSecond notice sent."}
	if err := c.CheckText(); err != nil {
		t.Fatalf("a multi-line referral: %v", err)
	}
	// The resident and API kinds are covered by the same check.
	pay := staffCmd(KindPayBill, "api", "2026-11-02T10:00")
	pay.Payload = &PayBill{BillID: "B-1", Amount: MustMoney("1.00"), Tender: Card, Reference: "A1", Payer: "x\u202ey"}
	if err := pay.CheckText(); err == nil || !strings.Contains(ErrorMessage(err), "payer's name") {
		t.Fatalf("pay_bill payer: %v", err)
	}
}
