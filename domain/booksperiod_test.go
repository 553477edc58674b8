package domain

import (
	"strings"
	"testing"
)

// post applies p by actor at at through the codec, at a log index of its
// own (tryRun), so that the journal keeps one entry for each command, and
// fails the test if the ledger refuses it.
func (v *village) post(actor, at string, p Payload) Result {
	v.t.Helper()
	c := staffCmd(p.Kind(), actor, at)
	c.Payload = p
	res, err := tryRun(v.tx, c)
	if err != nil {
		v.t.Fatalf("%s by %s at %s: %v", p.Kind(), actor, at, err)
	}
	return res
}

// refusedPost is refused for the commands of post.
func (v *village) refusedPost(actor, at string, p Payload, code Code, want string) {
	v.t.Helper()
	before := v.tx.clone()
	c := staffCmd(p.Kind(), actor, at)
	c.Payload = p
	_, err := tryRun(v.tx, c)
	if ErrorCode(err) != code || !strings.Contains(ErrorMessage(err), want) {
		v.t.Fatalf("%s by %s at %s: err = %v (%s), want %s containing %q", p.Kind(), actor, at, err, ErrorCode(err), code, want)
	}
	if !maps2Equal(before.records, v.tx.records) {
		v.t.Fatalf("%s was refused but changed the ledger", p.Kind())
	}
}

// closeVillage is the budget tests' village with a bill of 80.00 issued
// on March 2, 2026 (its revenue is 100-46100, the line collecting village
// bills), and a drawer open at the window from March 2.
func closeVillage(t *testing.T) *village {
	v := newVillage(t)
	v.post("clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	return v
}

// TestBooksPeriodClose: the treasurer closes March on April 6; a card
// payment dated March 31 that reaches the ledger after (taken offline) is
// refused, one of April 6 is taken; the administrator reopens March with a
// reason and the March payment is taken; who may close and reopen, and
// which days close, are the ledger's to say.
func TestBooksPeriodClose(t *testing.T) {
	v := closeVillage(t)
	for _, x := range []struct {
		name, actor, at string
		p               *BooksPeriod
		code            Code
		want            string
	}{
		{"administrator closes", "admin", "2026-04-06T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-31")}, EFORBIDDEN, "Only the treasurer closes"},
		{"clerk closes", "clerk", "2026-04-06T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-31")}, EFORBIDDEN, "Only the treasurer closes"},
		{"not a month end", "treas", "2026-04-06T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-15")}, EINVALID, "2026-03-31 is"},
		{"month not ended", "treas", "2026-04-06T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-04-30")}, EINVALID, "from 2026-05-01"},
		{"on its last day", "treas", "2026-03-31T17:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-31")}, EINVALID, "once it has ended"},
		{"nothing to reopen", "treas", "2026-04-06T09:00", &BooksPeriod{Op: BooksReopen, Reason: "typo"}, ECONFLICT, "No period"},
		{"reopen without a reason", "treas", "2026-04-06T09:00", &BooksPeriod{Op: BooksReopen}, EINVALID, "reason"},
	} {
		t.Run(x.name, func(t *testing.T) {
			v.t = t
			v.refusedPost(x.actor, x.at, x.p, x.code, x.want)
		})
	}
	v.t = t
	v.post("treas", "2026-04-06T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-31")})
	v.refusedPost("treas", "2026-04-06T09:05", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-02-28")}, ECONFLICT, "closed through 2026-03-31 already")

	late := &PayBill{BillID: "B-1", Amount: MustMoney("30.00"), Tender: Card, Reference: "SIM-LATE"}
	v.refusedPost("kiosk", "2026-03-31T15:00", late, ECONFLICT, "The books are closed through 2026-03-31; post a dated adjusting entry instead")
	v.post("kiosk", "2026-04-06T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("20.00"), Tender: Card, Reference: "SIM-APR"})
	wantBooks(t, balances(v.t, v.tx, "2026-04-30"), map[string]string{"100-112": "20.00"})

	st, err := v.reads().BooksStatus()
	if err != nil || !st.Open || st.ClosedThrough != MustDate("2026-03-31") || len(st.Closes) != 1 || st.Closes[0].By != "treas" {
		t.Fatalf("the status after the close: %+v, %v", st, err)
	}

	v.refusedPost("clerk", "2026-04-07T09:00", &BooksPeriod{Op: BooksReopen, Reason: "late payment"}, EFORBIDDEN, "treasurer or the administrator")
	v.post("admin", "2026-04-07T09:00", &BooksPeriod{Op: BooksReopen, Reason: "a card payment of March 31 reached the ledger late"})
	st, _ = v.reads().BooksStatus()
	if !st.ClosedThrough.IsZero() || st.Closes[0].Reopened == nil || st.Closes[0].Reopened.Reason != "a card payment of March 31 reached the ledger late" {
		t.Fatalf("the status after the reopening: %+v", st)
	}
	v.post("kiosk", "2026-03-31T15:00", late)
	wantBooks(t, balances(v.t, v.tx, "2026-03-31"), map[string]string{"100-121": "50.00", "100-112": "30.00"})
	// Closed again, through March then April.
	v.post("treas", "2026-04-08T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-31")})
	v.post("treas", "2026-05-04T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-04-30")})
	v.refusedPost("kiosk", "2026-04-30T23:00", &PayBill{BillID: "B-1", Amount: MustMoney("1.00"), Tender: Card, Reference: "SIM-X"}, ECONFLICT, "closed through 2026-04-30")
	// Reopening takes back the latest close only.
	v.post("treas", "2026-05-04T10:00", &BooksPeriod{Op: BooksReopen, Reason: "April's bank statement"})
	if st, _ := v.reads().BooksStatus(); st.ClosedThrough != MustDate("2026-03-31") || len(st.Closes) != 3 {
		t.Fatalf("after reopening April: %+v", st)
	}
}

// TestBooksPeriodCloseAndTheYearEnd: the close of 2027 (§5.05) is dated
// December 31; closing December first does not stop it (its entry is
// exempt from the close of its own last day), but a close through a later
// month does until that month is reopened.
func TestBooksPeriodCloseAndTheYearEnd(t *testing.T) {
	v := payablesVillage(t)
	v.post("treas", "2028-01-03T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2027-12-31")})
	v.refusedPost("clerk", "2027-12-31T16:00", &CreateBills{Bills: []NewBill{
		{ID: "B-LATE", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2027-12-31"), Principal: MustMoney("50.00")},
	}}, ECONFLICT, "closed through 2027-12-31")

	w := &village{t: t, tx: v.tx.clone()}
	w.post("treas", "2028-02-01T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2028-01-31")})
	w.refusedPost("treas", "2028-02-01T10:00", &YearEndClose{Year: 2027}, ECONFLICT, "closed through 2028-01-31")
	w.post("treas", "2028-02-01T11:00", &BooksPeriod{Op: BooksReopen, Reason: "the year 2027 is to be closed"})
	w.post("treas", "2028-02-01T12:00", &YearEndClose{Year: 2027})

	v.post("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})
	wantBooks(t, balances(t, v.tx, "2027-12-31"), map[string]string{"100-46100": "0.00", "WU-46100": "0.00", "100-341": "800.00", "WU-341": "300.00"})
}

// TestBooksAdjustingEntry: the treasurer reclassifies a bill's revenue by
// an adjusting entry dated in the open period; it shows in the trial
// balance as of its date, not before. One that does not balance, one
// dated in a closed period or after today, one to a fund, to a budgetary
// account or to an account the chart lacks, and one by the clerk, are
// refused and change nothing.
func TestBooksAdjustingEntry(t *testing.T) {
	v := closeVillage(t)
	v.post("admin", "2026-03-03T09:00", &ChartChange{Accounts: []ChartAccount{{Code: "100-191", Type: AccountAsset, Name: "Encumbrances", Fund: "100", Control: ControlEncumbrances}}})
	v.post("treas", "2026-04-06T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-03-31")})
	reclass := func(on string, debit, credit string) *BooksAdjust {
		return &BooksAdjust{On: MustDate(on), Reason: "weed cutting is a property tax special charge", Lines: []AdjustLine{
			{Account: "100-46100", Debit: MustMoney(debit), Memo: "out of charges for services"},
			{Account: "100-41110", Credit: MustMoney(credit), Memo: "into general property taxes"},
		}}
	}
	for _, x := range []struct {
		name, actor string
		p           *BooksAdjust
		code        Code
		want        string
	}{
		{"unbalanced", "treas", reclass("2026-04-06", "80.00", "70.00"), EINVALID, "would not balance"},
		{"in a closed period", "treas", reclass("2026-03-31", "80.00", "80.00"), ECONFLICT, "closed through 2026-03-31; date the adjusting entry after"},
		{"after today", "treas", reclass("2026-04-07", "80.00", "80.00"), EINVALID, "on or before today"},
		{"by the clerk", "clerk", reclass("2026-04-06", "80.00", "80.00"), EFORBIDDEN, "Only the treasurer"},
		{"no reason", "treas", &BooksAdjust{On: MustDate("2026-04-06"), Lines: reclass("2026-04-06", "1.00", "1.00").Lines}, EINVALID, "reason"},
		{"both sides", "treas", &BooksAdjust{On: MustDate("2026-04-06"), Reason: "x", Lines: []AdjustLine{{Account: "100-46100", Debit: MustMoney("1.00"), Credit: MustMoney("1.00")}, {Account: "100-41110"}}}, EINVALID, "Line 1: a line is a debit or a credit"},
		{"to a fund", "treas", &BooksAdjust{On: MustDate("2026-04-06"), Reason: "x", Lines: []AdjustLine{{Account: "100", Debit: MustMoney("1.00")}, {Account: "100-41110", Credit: MustMoney("1.00")}}}, EINVALID, "Line 1: 100 is a fund"},
		{"budgetary", "treas", &BooksAdjust{On: MustDate("2026-04-06"), Reason: "x", Lines: []AdjustLine{{Account: "100-41110", Debit: MustMoney("1.00")}, {Account: "100-191", Credit: MustMoney("1.00")}}}, EINVALID, "Line 2: account 100-191 is budgetary"},
		{"unknown account", "treas", &BooksAdjust{On: MustDate("2026-04-06"), Reason: "x", Lines: []AdjustLine{{Account: "100-41110", Debit: MustMoney("1.00")}, {Account: "100-999", Credit: MustMoney("1.00")}}}, EINVALID, "Line 2: the chart has no account 100-999"},
	} {
		t.Run(x.name, func(t *testing.T) {
			v.t = t
			v.refusedPost(x.actor, "2026-04-06T10:00", x.p, x.code, x.want)
		})
	}
	v.t = t
	res := v.post("treas", "2026-04-08T10:00", reclass("2026-04-06", "80.00", "80.00"))
	if !strings.HasPrefix(res.Ref, "ADJ-") {
		t.Errorf("the adjusting entry's ref: %q", res.Ref)
	}
	wantBooks(t, balances(t, v.tx, "2026-04-05"), map[string]string{"100-46100": "80.00", "100-41110": "0.00"})
	wantBooks(t, balances(t, v.tx, "2026-04-06"), map[string]string{"100-46100": "0.00", "100-41110": "80.00", "100-121": "80.00"})
	entries, err := v.reads().BookEntries(MustDate("2026-04-06"), MustDate("2026-04-06"), "100-41110")
	if err != nil || len(entries) != 1 || entries[0].Kind != KindBooksAdjust || !strings.Contains(entries[0].Memo, "special charge") || entries[0].Lines[0].Memo != "out of charges for services" {
		t.Fatalf("the adjusting entry in the journal: %+v, %v", entries, err)
	}
}

// openingVillage is a ledger whose books open on April 1, 2026 over a bill
// of 80.00 issued on March 2 (the automatic opening entry carries it as
// the general fund's receivable), with 30.00 paid on it by card on April
// 10. The chart is the books tests' of two funds.
func openingVillage(t *testing.T) *village {
	v := &village{t: t, tx: newStaffTx()}
	for _, u := range []StaffUserChange{
		{Op: StaffAdd, Username: "admin", Name: "Ada Admin", Role: RoleAdministrator, PasswordHash: "h"},
		{Op: StaffAdd, Username: "treas", Name: "Tom Treasurer", Role: RoleTreasurer, PasswordHash: "h"},
		{Op: StaffAdd, Username: "clerk", Name: "Cleo Clerk", Role: RoleClerk, PasswordHash: "h"},
	} {
		v.post("setup", "2026-01-05T09:00", &u)
	}
	v.post("clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	c := staffCmd(KindChart, "admin", "2026-04-01T09:00")
	c.Payload = booksChart()
	if _, err := Apply(billLister{v.tx}, c, 8, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	v.post("kiosk", "2026-04-10T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("30.00"), Tender: Card, Reference: "SIM-1"})
	return v
}

// openingFile is the opening trial balance of openingVillage's old books
// on April 1: the general fund's checking account (new to the chart), the
// receivable the bill is, and its fund balance; the water utility's cash
// and a fund balance account of its own (new).
func openingFile() *BooksOpening {
	return &BooksOpening{Source: "import old-books.csv",
		Accounts: []ChartAccount{
			{Code: "GF-101", Type: AccountAsset, Name: "General checking", Fund: "GF", Control: ControlCash},
			{Code: "WU-3400", Type: AccountFundBalance, Name: "Water utility net position", Fund: "WU", Control: ControlFundBalance},
		},
		Lines: []OpeningLine{
			{Line: 2, Account: "GF-101", Fund: "GF", Debit: MustMoney("1000.00")},
			{Line: 3, Account: "GF-121", Fund: "GF", Debit: MustMoney("80.00")},
			{Line: 4, Account: "GF-341", Fund: "GF", Credit: MustMoney("1080.00")},
			{Line: 5, Account: "WU-1010", Fund: "WU", Debit: MustMoney("500.00")},
			{Line: 6, Account: "WU-3400", Fund: "WU", Credit: MustMoney("500.00")},
		}}
}

// TestBooksOpeningBalances: the opening trial balance sets every account
// to the file's figure on the day the books opened: what the automatic
// opening entry carried (the receivable) posts nothing again, the rest
// posts its difference, the accounts it names are added to the chart, and
// the payment made since stays a movement after the opening. It is taken
// once, from the treasurer.
func TestBooksOpeningBalances(t *testing.T) {
	v := openingVillage(t)
	v.refusedPost("admin", "2026-04-15T09:00", openingFile(), EFORBIDDEN, "Only the treasurer")
	v.post("treas", "2026-04-15T09:00", openingFile())
	wantBooks(t, balances(t, v.tx, "2026-04-01"), map[string]string{"GF-101": "1000.00", "GF-121": "80.00", "GF-341": "1080.00", "WU-1010": "500.00", "WU-3400": "500.00"})
	wantBooks(t, balances(t, v.tx, "2026-04-30"), map[string]string{"GF-101": "1000.00", "GF-112": "30.00", "GF-341": "1080.00"})
	ch, _ := v.reads().Chart()
	if a, ok := ch.Account("WU-3400"); !ok || a.Control != ControlFundBalance || a.ChangedBy != "treas" {
		t.Errorf("the account the import added: %+v, %v", a, ok)
	}
	entries, _ := v.reads().BookEntries(MustDate("2026-04-01"), MustDate("2026-04-01"), "")
	var imported *BookEntry
	for i := range entries {
		if entries[i].Kind == KindBooksOpening {
			imported = &entries[i]
		}
	}
	if imported == nil || len(imported.Lines) != 4 || !strings.Contains(imported.Memo, "old-books.csv") {
		t.Fatalf("the imported entry (GF-121 posts nothing): %+v", imported)
	}
	st, _ := v.reads().BooksStatus()
	if st.Balances == nil || st.Balances.On != MustDate("2026-04-01") || st.Balances.Lines != 5 {
		t.Fatalf("the record of the import: %+v", st.Balances)
	}
	v.refusedPost("treas", "2026-04-16T09:00", openingFile(), ECONFLICT, "was imported on 2026-04-15")
}

// TestBooksOpeningNamesEveryBadLine: a file with an unknown account, a
// line on both sides, a negative amount, an account of another fund, an
// account listed twice and an added account that is no balance-sheet
// account names each of those lines; a file whose funds do not balance
// says which; nothing is imported either way. An import after the day the
// books opened was closed is refused.
func TestBooksOpeningNamesEveryBadLine(t *testing.T) {
	v := openingVillage(t)
	bad := openingFile()
	bad.Accounts = append(bad.Accounts, ChartAccount{Code: "GF-4100", Type: AccountRevenue, Name: "Taxes", Fund: "GF", Major: "Taxes"})
	bad.Lines = append(bad.Lines,
		OpeningLine{Line: 7, Account: "GF-999", Fund: "GF", Debit: MustMoney("1.00")},
		OpeningLine{Line: 8, Account: "48000", Fund: "GF", Debit: MustMoney("1.00"), Credit: MustMoney("1.00")},
		OpeningLine{Line: 9, Account: "44100", Fund: "GF", Debit: MustMoney("-5.00")},
		OpeningLine{Line: 10, Account: "46100", Fund: "GF", Credit: MustMoney("5.00")},
		OpeningLine{Line: 11, Account: "GF-101", Fund: "GF", Debit: MustMoney("5.00")},
		OpeningLine{Line: 12, Account: "GF-4100", Fund: "GF", Credit: MustMoney("5.00")},
	)
	ch, _ := v.reads().Chart()
	errs := CheckOpening(ch, bad)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, ErrorMessage(e))
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		"Line 7: the chart has no account GF-999",
		"Line 8: a balance is a debit or a credit, not both",
		"Line 9: the amounts are positive",
		"Line 10: account 46100 is of fund WU, not GF",
		"Line 11: account GF-101 is listed twice (first on line 2)",
		"Line 12: account GF-4100 is not in the chart; the import adds only balance-sheet accounts",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the errors do not say %q:\n%s", want, all)
		}
	}
	v.refusedPost("treas", "2026-04-15T09:00", bad, EINVALID, "Line 7: the chart has no account GF-999")

	skewed := openingFile()
	skewed.Lines[4].Credit = MustMoney("499.00")
	if errs := CheckOpening(ch, skewed); len(errs) != 1 || !strings.Contains(ErrorMessage(errs[0]), "Fund WU does not balance: debits $500.00, credits $499.00") {
		t.Fatalf("an unbalanced fund: %v", errs)
	}
	v.refusedPost("treas", "2026-04-15T09:00", skewed, EINVALID, "Fund WU does not balance")

	v.post("treas", "2026-05-04T09:00", &BooksPeriod{Op: BooksClose, Through: MustDate("2026-04-30")})
	v.refusedPost("treas", "2026-05-04T10:00", openingFile(), ECONFLICT, "closed through 2026-04-30")
}
