package domain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// booksChart is a village chart with two funds: the general fund, whose
// line 48000 collects the village bills that name no revenue account and
// 44100 the status letter fees, and the water utility, whose bills name
// 46100.
func booksChart() *ChartChange {
	return &ChartChange{Accounts: []ChartAccount{
		{Code: "GF", Type: AccountFund, Name: "General fund", General: true},
		{Code: "WU", Type: AccountFund, Name: "Water utility"},
		{Code: "48000", Type: AccountRevenue, Name: "Miscellaneous revenue", Fund: "GF", Major: "Miscellaneous", Sources: []string{SourceBills}},
		{Code: "44100", Type: AccountRevenue, Name: "Status letter fees", Fund: "GF", Major: "Fees", Sources: []string{SourceStatusLetters}},
		{Code: "46100", Type: AccountRevenue, Name: "Water sales", Fund: "WU", Major: "Charges for services"},
		{Code: "WU-1010", Type: AccountAsset, Name: "Water utility checking", Fund: "WU", Control: ControlCash},
	}}
}

// booksT is what the books tests need of a test (testing.TB or rapid.T).
type booksT interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func booksRun(t booksT, tx *staffTx, k Kind, actor, at string, p Payload) Result {
	t.Helper()
	c := staffCmd(k, actor, at)
	c.Payload = p
	res, err := tryRun(tx, c)
	if err != nil {
		t.Fatalf("%s at %s: %v", k, at, err)
	}
	return res
}

// tryRun applies c as staffTx.run does: through the codec, on a copy kept
// only when the command succeeds, at a log index of its own (its
// sequence), so that the journal keeps one entry for each command.
func tryRun(tx *staffTx, c Command) (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	b, err := EncodeCommand(c)
	if err != nil {
		return Result{}, err
	}
	if c, err = DecodeCommand(b); err != nil {
		return Result{}, err
	}
	work := tx.clone()
	res, err := Apply(work, c, c.Seq, DefaultParams())
	if err == nil {
		*tx = *work
	}
	return res, err
}

// balances returns the trial balance by account code, and checks that it
// balances in total and in every fund.
func balances(t booksT, tx *staffTx, asOf string) map[string]Money {
	t.Helper()
	tb, err := ReadsOf(txRecords{tx}).TrialBalance(MustDate(asOf))
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Balanced() {
		t.Fatalf("the trial balance of %s does not balance: debits %s, credits %s", asOf, tb.Debit, tb.Credit)
	}
	funds := map[string]Money{}
	out := map[string]Money{}
	for _, r := range tb.Rows {
		funds[r.Account.Fund] = funds[r.Account.Fund].Add(r.Debit).Sub(r.Credit)
		out[r.Account.Code] = r.Balance()
	}
	for f, net := range funds {
		if !net.IsZero() {
			t.Fatalf("fund %s does not balance on %s: debits exceed credits by %s", f, asOf, net)
		}
	}
	return out
}

// TestBooksOfBillsAndCollections walks the receivables cycle through the
// books: bills issued in two funds, a card payment that overpays, a cash
// payment at the window, a drawer closed one dollar short and its deposit.
// Every entry balances in every fund, receivables are the principal still
// owed, the overpayment is owed back, and the money is where it went: the
// card's not yet deposited, the window's in the depository.
func TestBooksOfBillsAndCollections(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	if b := balances(t, tx, "2026-03-02"); !b["WU-121"].Equal(MustMoney("120.00")) || !b["GF-121"].Equal(MustMoney("80.00")) || !b["46100"].Equal(MustMoney("120.00")) || !b["48000"].Equal(MustMoney("80.00")) {
		t.Fatalf("after billing: %v", b)
	}
	booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T10:00", &PayBill{BillID: "B-W1", Amount: MustMoney("130.00"), Tender: Card, Reference: "SIM-1"})
	booksRun(t, tx, KindDrawerOpen, "clerk", "2026-03-11T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("100.00")})
	booksRun(t, tx, KindWindowPayment, "clerk", "2026-03-11T09:00", &WindowPayment{DrawerID: "D-1", BillID: "B-G1", Amount: MustMoney("50.00"), Tender: Cash, Tendered: MustMoney("50.00")})
	booksRun(t, tx, KindDrawerClose, "clerk", "2026-03-11T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("149.00")})
	booksRun(t, tx, KindDepository, "treasurer", "2026-03-11T16:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	booksRun(t, tx, KindDeposit, "treasurer", "2026-03-11T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})

	b := balances(t, tx, "2026-03-31")
	for code, want := range map[string]string{
		"WU-121": "0.00", "WU-212": "10.00", "WU-112": "130.00", "46100": "120.00",
		"GF-121": "30.00", "GF-112": "0.00", "GF-111": "49.00", "48000": "80.00", "GF-4999": "-1.00",
	} {
		if !b[code].Equal(MustMoney(want)) {
			t.Errorf("account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	// As of the day before the payments, only the bills stand.
	if b := balances(t, tx, "2026-03-09"); !b["WU-112"].IsZero() || !b["WU-121"].Equal(MustMoney("120.00")) {
		t.Errorf("as of March 9: %v", b)
	}
	// The water utility's cash account is the village's own, named in
	// the chart; the general fund's was added the first time it was
	// needed.
	ch, _ := ReadsOf(txRecords{tx}).Chart()
	if a, ok := ch.Account("GF-111"); !ok || a.Control != ControlCash || a.Fund != "GF" || a.Type != AccountAsset {
		t.Errorf("the general fund's cash account: %+v, %v", a, ok)
	}
	entries, err := ReadsOf(txRecords{tx}).BookEntries(MustDate("2026-01-01"), MustDate("2026-12-31"), "GF-111")
	if err != nil || len(entries) != 1 || entries[0].Kind != KindDeposit {
		t.Fatalf("the entries of GF-111: %+v, %v", entries, err)
	}
}

// TestBooksRefuseWhatDoesNotBalance: a kind whose lines do not balance in
// one fund (even if they do in total) is refused, and nothing of it is
// kept.
func TestBooksRefuseWhatDoesNotBalance(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	skewed := &Descriptor{Kind: "test_skewed", New: func() Payload { return new(testSkewed) },
		Apply: func(tx Tx, c Command, _ Env, _ *Result) error { return tx.Put("test-skewed", c.ID, true) },
		Books: func(l *Lines, _ Tx, _ Command, _ Result) string {
			l.Debit(l.Control("GF", ControlCash), MustMoney("5.00"), "", "")
			l.Credit(l.Control("WU", ControlCash), MustMoney("5.00"), "", "")
			return "skewed"
		}}
	table := Kinds.With(skewed)
	c := staffCmd("test_skewed", "clerk", "2026-03-02T09:00")
	c.Payload = &testSkewed{}
	work := tx.clone()
	_, err := table.Apply(work, c, Env{Index: 9, Params: DefaultParams()})
	if err == nil || !strings.Contains(err.Error(), "would not balance") || !strings.Contains(err.Error(), "fund GF") {
		t.Fatalf("lines balanced in total but not by fund: %v; want refused", err)
	}
	if b := balances(t, tx, "2026-12-31"); len(b) != 0 {
		t.Fatalf("the books after the refusal: %v", b)
	}
}

type testSkewed struct{}

func (*testSkewed) Kind() Kind { return "test_skewed" }

// TestBooksOpenWithTheChart: a ledger keeps no books until its chart
// names a general fund; the chart that does opens them with the bills
// then open as receivables against fund balance, and the payments after
// it find them there.
func TestBooksOpenWithTheChart(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("80.00")},
	}})
	booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("30.00"), Tender: Card, Reference: "SIM-1"})
	if b := balances(t, tx, "2026-12-31"); len(b) != 0 {
		t.Fatalf("books without a chart: %v", b)
	}
	work := billLister{tx}
	c := staffCmd(KindChart, "admin", "2026-04-01T09:00")
	c.Payload = booksChart()
	if _, err := Apply(work, c, 8, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	b := balances(t, tx, "2026-04-01")
	if !b["GF-121"].Equal(MustMoney("50.00")) || !b["GF-341"].Equal(MustMoney("50.00")) {
		t.Fatalf("the opening entry: %v; want the 50.00 still owed as receivable against fund balance", b)
	}
	// A month's interest (§5.10) has run on the 50.00: it is revenue.
	booksRun(t, tx, KindPayBill, "kiosk", "2026-04-10T10:00", &PayBill{BillID: "B-1", Amount: MustMoney("50.75"), Tender: Card, Reference: "SIM-2"})
	if b := balances(t, tx, "2026-04-30"); !b["GF-121"].IsZero() || !b["GF-112"].Equal(MustMoney("50.75")) || !b["48000"].Equal(MustMoney("0.75")) {
		t.Fatalf("after the last payment: %v", b)
	}
	// Opening twice posts nothing more.
	again := staffCmd(KindChart, "admin", "2026-04-02T09:00")
	again.Payload = &ChartChange{Accounts: []ChartAccount{{Code: "44200", Type: AccountRevenue, Name: "Permits", Fund: "GF", Major: "Licenses and permits"}}}
	if _, err := Apply(work, again, 9, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	if b := balances(t, tx, "2026-04-30"); !b["GF-341"].Equal(MustMoney("50.00")) {
		t.Fatalf("after a second chart change: %v", b)
	}
}

// billLister is a staffTx that lists its bills, as the replica's
// transaction does for the opening entry.
type billLister struct{ *staffTx }

func (t billLister) EachBill(fn func(Bill) error) error {
	for _, id := range sortedKeys(t.bills) {
		if err := fn(t.bills[id]); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestBooksBalanceAndTieUnderAnySequence: whatever bills are issued and
// paid, by card or in cash or by check at the window, whatever checks come
// back (from a drawer deposited or not), in whatever order and amounts,
// every fund balances and each fund's receivables are the principal its
// open bills (the returned-check fees among them) still owe.
func TestBooksBalanceAndTieUnderAnySequence(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tx := newStaffTx()
		booksRun(rt, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
		booksRun(rt, tx, KindDepository, "treasurer", "2026-01-02T09:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
		nBills := rapid.IntRange(1, 5).Draw(rt, "bills")
		var bills []NewBill
		for i := range nBills {
			rev := rapid.SampledFrom([]string{"", "46100"}).Draw(rt, "revenue")
			cents := rapid.Int64Range(100, 50000).Draw(rt, "principal")
			bills = append(bills, NewBill{ID: fmt.Sprintf("B-%d", i), Account: "100101", Parcel: "0601-141-2001", Description: "test",
				BilledOn: MustDate("2026-03-02"), Principal: Cents(cents), Revenue: rev})
		}
		booksRun(rt, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: bills})
		drawer := 1
		booksRun(rt, tx, KindDrawerOpen, "clerk", "2026-03-03T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
		type check struct {
			bill, receipt string
			drawer        int
			amount        Money
		}
		var checks []check      // taken and not returned
		var cash, checked Money // in the open drawer
		var fees []string
		steps := rapid.IntRange(0, 12).Draw(rt, "steps")
		for s := range steps {
			bill := bills[rapid.IntRange(0, nBills-1).Draw(rt, "bill")].ID
			amount := Cents(rapid.Int64Range(1, 60000).Draw(rt, "amount"))
			at := fmt.Sprintf("2026-%02d-%02dT10:%02d", 3+s/4, 3+s, s)
			switch rapid.IntRange(0, 4).Draw(rt, "step") {
			case 0: // by card at the kiosk
				c := staffCmd(KindPayBill, "kiosk", at)
				c.Payload = &PayBill{BillID: bill, Amount: amount, Tender: Card, Reference: "SIM"}
				tryRun(tx, c) // a refusal (over the limit) posts nothing
			case 1: // cash at the window
				c := staffCmd(KindWindowPayment, "clerk", at)
				c.Payload = &WindowPayment{DrawerID: fmt.Sprintf("D-%d", drawer), BillID: bill, Amount: amount, Tender: Cash, Tendered: amount}
				if _, err := tryRun(tx, c); err == nil {
					cash = cash.Add(amount)
				}
			case 2: // a check at the window
				c := staffCmd(KindWindowPayment, "clerk", at)
				c.Payload = &WindowPayment{DrawerID: fmt.Sprintf("D-%d", drawer), BillID: bill, Amount: amount, Tender: Check, Reference: fmt.Sprintf("%d", 1000+s)}
				if res, err := tryRun(tx, c); err == nil {
					checked = checked.Add(amount)
					checks = append(checks, check{bill, res.Receipt.Number, drawer, amount})
				}
			case 3: // a check comes back
				if len(checks) == 0 {
					continue
				}
				i := rapid.IntRange(0, len(checks)-1).Draw(rt, "returned")
				ch := checks[i]
				fee := fmt.Sprintf("FEE-%d", s)
				booksRun(rt, tx, KindReturnCheck, "treasurer", at, &ReturnCheck{ReturnID: fmt.Sprintf("RC-%d", s), BillID: ch.bill, Receipt: ch.receipt, FeeBillID: fee})
				fees = append(fees, fee)
				if ch.drawer == drawer {
					checked = checked.Sub(ch.amount)
				}
				checks = append(checks[:i:i], checks[i+1:]...)
			case 4: // the drawer is counted, deposited and a new one opened
				id := fmt.Sprintf("D-%d", drawer)
				booksRun(rt, tx, KindDrawerClose, "clerk", at, &DrawerClose{DrawerID: id, CountedCash: cash, CountedChecks: checked})
				booksRun(rt, tx, KindDeposit, "treasurer", at, &Deposit{DepositID: fmt.Sprintf("DEP-%d", s), Depository: "BOB", Drawers: []string{id}})
				drawer++
				cash, checked = Cents(0), Cents(0)
				booksRun(rt, tx, KindDrawerOpen, "clerk", at, &DrawerOpen{DrawerID: fmt.Sprintf("D-%d", drawer), Float: MustMoney("0.00")})
			}
		}
		counted := cash.Add(Cents(rapid.Int64Range(-300, 300).Draw(rt, "over or short")))
		if counted.IsNegative() {
			counted = Cents(0)
		}
		booksRun(rt, tx, KindDrawerClose, "clerk", "2026-06-30T16:00", &DrawerClose{DrawerID: fmt.Sprintf("D-%d", drawer), CountedCash: counted, CountedChecks: checked})
		b := balances(rt, tx, "2026-12-31")
		if ties := wantTies(rt, tx, "2026-12-31"); len(ties) == 0 {
			rt.Fatal("no control tied: the receivables of the bills should be")
		}
		owed := map[string]Money{}
		for _, id := range append(billIDs(bills), fees...) {
			bill, _, err := loadBill(tx, id, true)
			if err != nil {
				rt.Fatal(err)
			}
			fund := "GF"
			if bill.Revenue == "46100" {
				fund = "WU"
			}
			fig, err := bill.Figures(MustDate("2026-06-30"), DefaultParams())
			if err != nil {
				rt.Fatal(err)
			}
			owed[fund] = owed[fund].Add(fig.UnpaidPrincipal)
		}
		for _, fund := range []string{"GF", "WU"} {
			if !b[fund+"-121"].Equal(owed[fund]) {
				rt.Fatalf("fund %s: receivables %s, open bills owe %s (books %v)", fund, b[fund+"-121"], owed[fund], b)
			}
		}
	})
}

// payablesVillage is the budget tests' village with a water utility as
// well (fund WU, its department and lines), a 2027 budget adopted with
// both funds' lines, the signatures and check stock of a check run, and
// money in both funds' cash: an $800.00 general fund bill and a $300.00
// water bill paid at the window and deposited.
func payablesVillage(t *testing.T) *village {
	v := newVillage(t)
	v.do("admin", "2026-01-06T09:00", &ChartChange{Accounts: []ChartAccount{
		{Code: "WU", Type: AccountFund, Name: "Water utility"},
		{Code: "WATER", Type: AccountDepartment, Name: "Water department", Fund: "WU"},
		{Code: "WU-46100", Type: AccountRevenue, Name: "Water sales", Fund: "WU", Major: "Charges for services"},
		{Code: "WU-53700", Type: AccountExpenditure, Name: "Water distribution", Fund: "WU", Unit: "WATER", Major: "Utilities"},
	}})
	p := proposal2027()
	p.Lines = append(p.Lines, BudgetLine{Account: "WU-53700", Amount: MustMoney("60000.00")})
	v.do("admin", "2026-10-01T10:00", p)
	v.do("clerk", "2026-10-20T10:00", &BudgetNoticeChange{Year: 2027, BudgetNotice: BudgetNotice{Purpose: "hearing", Published: MustDate("2026-10-20"), Newspaper: "Belleville Recorder"}})
	v.do("clerk", "2026-11-04T20:00", &BudgetHearingChange{Year: 2027, BudgetHearing: BudgetHearing{On: MustDate("2026-11-04")}})
	vs, present := votes(5, 1, 1)
	v.do("clerk", "2026-11-04T21:00", &BudgetVoteChange{Year: 2027, Action: BudgetAdopt, On: MustDate("2026-11-04"), Votes: vs, Present: present})
	for _, s := range []SignatureChange{
		{Op: "approve", ID: "sig-wells", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion 2027-01-03 #5", ApprovedOn: MustDate("2027-01-03")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2027-01-03 #5", ApprovedOn: MustDate("2027-01-03")},
	} {
		v.do("clerk", "2027-01-04T09:05", &s)
	}
	v.do("treas", "2027-01-04T09:08", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2027-01", From: MustDate("2027-01-01"), Number: "000123456789"})
	v.do("treas", "2027-01-04T09:10", &CheckStock{Next: 5001, Account: "BOB"})
	v.do("clerk", "2027-02-01T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2027-02-01"), Principal: MustMoney("800.00")},
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q4", BilledOn: MustDate("2027-02-01"), Principal: MustMoney("300.00"), Revenue: "WU-46100"},
	}})
	v.do("clerk", "2027-02-02T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	for _, b := range []struct{ id, amount string }{{"B-G1", "800.00"}, {"B-W1", "300.00"}} {
		v.do("clerk", "2027-02-02T09:00", &WindowPayment{DrawerID: "D-1", BillID: b.id, Amount: MustMoney(b.amount), Tender: Cash, Tendered: MustMoney(b.amount)})
	}
	v.do("clerk", "2027-02-02T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("1100.00")})
	v.do("treas", "2027-02-02T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})
	return v
}

// allowClaim enters a claim without an order, gives it the four
// certifications of §5.07(3) and the treasurer's endorsement, at at; it
// returns its id.
func allowClaim(v *village, at, vendor string, amount Money, line string) string {
	v.t.Helper()
	id := v.do("clerk", at, &ClaimChange{Op: ClaimEnter, Vendor: vendor, Invoice: vendor + "-1", InvoiceDate: MustDate(at[:10]), Amount: amount, Line: line, Description: "work for " + line}).Ref
	for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, "motion of the board"}, {"admin", CertifyConformity, "work seen done"}, {"treas", CertifyValid, ""}} {
		v.do(x.who, at, &ClaimChange{Op: ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
	}
	v.do("treas", at, &ClaimChange{Op: ClaimEndorse, ID: id})
	return id
}

// wantBooks checks accounts against figures.
func wantBooks(t *testing.T, b map[string]Money, want map[string]string) {
	t.Helper()
	for code, w := range want {
		if !b[code].Equal(MustMoney(w)) {
			t.Errorf("account %s: %s, want %s (all: %v)", code, b[code], w, b)
		}
	}
}

// TestBooksOfClaimsAndChecks walks claims through the books (§5.07,
// §5.18): the funds certification encumbers (budgetary), the allowance
// is expenditure owed as vouchers payable, the check run pays each claim
// from its own fund's cash, a void reverses its check on the void's day,
// the new check pays it again without counting the expenditure twice,
// and a claim cancelled after its allowance is no longer owed.
func TestBooksOfClaimsAndChecks(t *testing.T) {
	v := payablesVillage(t)
	wantBooks(t, balances(t, v.tx, "2027-02-28"), map[string]string{"100-111": "800.00", "WU-111": "300.00"})

	// The funds certification alone: budgetary lines, nothing owed.
	id := v.do("clerk", "2027-03-02T09:00", &ClaimChange{Op: ClaimEnter, Vendor: "Sugar River Asphalt", Invoice: "SRA-1", InvoiceDate: MustDate("2027-03-01"), Amount: MustMoney("500.00"), Line: "100-53300", Description: "Pothole patching"}).Ref
	v.do("treas", "2027-03-02T09:10", &ClaimChange{Op: ClaimCertify, ID: id, Certification: CertifyFundsAvailable})
	wantBooks(t, balances(t, v.tx, "2027-03-02"), map[string]string{"100-191": "500.00", "100-342": "500.00", "100-53300": "0.00", "100-211": "0.00"})
	for _, x := range []struct{ who, what, basis string }{{"pwhead", CertifyAuthorized, "work order 17"}, {"admin", CertifyConformity, "patches seen done"}, {"treas", CertifyValid, ""}} {
		v.do(x.who, "2027-03-02T10:00", &ClaimChange{Op: ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
	}
	// The four certifications are not the allowance: the treasurer's
	// endorsement is (§5.07(3)).
	wantBooks(t, balances(t, v.tx, "2027-03-02"), map[string]string{"100-191": "500.00", "100-53300": "0.00", "100-211": "0.00"})
	v.do("treas", "2027-03-02T10:30", &ClaimChange{Op: ClaimEndorse, ID: id})
	wantBooks(t, balances(t, v.tx, "2027-03-02"), map[string]string{"100-53300": "500.00", "100-211": "500.00", "100-191": "0.00", "100-342": "0.00", "100-111": "800.00"})

	water := allowClaim(v, "2027-03-03T10:00", "Badger Meter", MustMoney("200.00"), "WU-53700")
	wantBooks(t, balances(t, v.tx, "2027-03-03"), map[string]string{"WU-53700": "200.00", "WU-211": "200.00", "100-211": "500.00"})

	// One run pays both, each from its own fund's cash.
	run := func(on string, claims ...string) *CheckRun {
		return &CheckRun{On: MustDate(on), Account: "BOB", Claims: claims, Signatures: []string{"sig-wells", "sig-treas"}}
	}
	v.do("treas", "2027-03-05T10:00", run("2027-03-05", id, water))
	wantBooks(t, balances(t, v.tx, "2027-03-05"), map[string]string{
		"100-211": "0.00", "100-111": "300.00", "100-53300": "500.00",
		"WU-211": "0.00", "WU-111": "100.00", "WU-53700": "200.00",
	})

	// The void, on March 12, reverses check 5001 alone: the claim is
	// owed again and the money back in cash; the books of March 11 keep
	// the check paid.
	v.do("treas", "2027-03-12T09:00", &CheckVoid{Number: 5001, Reason: "lost in the mail"})
	wantBooks(t, balances(t, v.tx, "2027-03-11"), map[string]string{"100-211": "0.00", "100-111": "300.00"})
	wantBooks(t, balances(t, v.tx, "2027-03-12"), map[string]string{"100-211": "500.00", "100-111": "800.00", "100-53300": "500.00", "WU-111": "100.00", "100-191": "0.00"})
	entries, err := v.reads().BookEntries(MustDate("2027-03-12"), MustDate("2027-03-12"), "100-111")
	if err != nil || len(entries) != 1 || entries[0].Kind != KindCheckVoid || len(entries[0].Lines) != 2 {
		t.Fatalf("the void's entry: %+v, %v", entries, err)
	}

	// The new check pays it again; the expenditure stays what it was.
	v.do("treas", "2027-03-12T10:00", run("2027-03-12", id))
	wantBooks(t, balances(t, v.tx, "2027-03-12"), map[string]string{"100-211": "0.00", "100-111": "300.00", "100-53300": "500.00"})

	// A claim allowed and then cancelled is no longer owed nor spent.
	gone := allowClaim(v, "2027-04-06T10:00", "Sign Co", MustMoney("75.00"), "100-53300")
	v.do("clerk", "2027-04-06T11:00", &ClaimChange{Op: ClaimCancel, ID: gone, Reason: "billed the county by mistake"})
	wantBooks(t, balances(t, v.tx, "2027-04-30"), map[string]string{"100-211": "0.00", "100-53300": "500.00", "100-191": "0.00"})
}

// TestBooksOfOrdersAndEncumbrances: an order's certification encumbers
// (budgetary, §5.12(6)); each delivery is expenditure owed as invoices
// payable and liquidates the encumbrance, the final one releases the rest
// (§5.12(8)); the order's claim moves the debt to vouchers payable without
// counting it again (§5.07(3)); an employment encumbers and the
// treasurer's expense against it is paid out of cash (§5.16, §5.05). The
// books' encumbrances are always the appropriations'.
func TestBooksOfOrdersAndEncumbrances(t *testing.T) {
	v := payablesVillage(t)
	encumbered := func(on string) {
		t.Helper()
		b := balances(t, v.tx, on)
		ap := v.appropriation(2027, "100-53300").Encumbered.Add(v.appropriation(2027, "100-51400").Encumbered)
		if !b["100-191"].Equal(ap) || !b["100-342"].Equal(ap) {
			t.Fatalf("on %s the books encumber %s (reserve %s), the appropriations %s", on, b["100-191"], b["100-342"], ap)
		}
	}
	o := v.do("admin", "2027-03-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Road salt", Category: CategorySupplies, Estimate: MustMoney("2000.00")}).Ref
	v.do("admin", "2027-03-02T10:00", &OrderChange{Op: OrderBidOp, ID: o, Bid: &OrderBid{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), Received: MustDate("2027-03-02")}})
	v.do("admin", "2027-03-03T10:00", &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), On: MustDate("2027-03-03"), Reasons: "sole source under contract"}})
	wantBooks(t, balances(t, v.tx, "2027-03-03"), map[string]string{"100-191": "0.00"})
	v.do("treas", "2027-03-03T11:00", &CertifyFunds{Order: o})
	wantBooks(t, balances(t, v.tx, "2027-03-03"), map[string]string{"100-191": "2000.00", "100-342": "2000.00"})
	encumbered("2027-03-03")
	v.do("admin", "2027-03-03T12:00", &OrderChange{Op: OrderIssue, ID: o})

	v.do("admin", "2027-03-10T10:00", &OrderReceipt{Order: o, Delivery: Delivery{On: MustDate("2027-03-10"), Inspector: "Pat Works", Conforms: true, Invoice: "M-1", Invoiced: MustMoney("1200.00")}})
	wantBooks(t, balances(t, v.tx, "2027-03-10"), map[string]string{"100-53300": "1200.00", "100-213": "1200.00", "100-191": "800.00"})
	encumbered("2027-03-10")
	v.do("admin", "2027-03-20T10:00", &OrderReceipt{Order: o, Delivery: Delivery{On: MustDate("2027-03-20"), Inspector: "Pat Works", Conforms: true, Invoice: "M-2", Invoiced: MustMoney("700.00"), Final: true,
		Tests: []TestCharge{{Description: "chloride content", Cost: MustMoney("40.00")}}}})
	wantBooks(t, balances(t, v.tx, "2027-03-20"), map[string]string{"100-53300": "1940.00", "100-213": "1940.00", "100-191": "0.00", "100-342": "0.00"})
	encumbered("2027-03-20")

	// The claim for both invoices: owed as a voucher now, spent once.
	cl := v.do("admin", "2027-03-21T09:00", &ClaimChange{Op: ClaimEnter, Vendor: "Morton Salt", Invoice: "M-1+2", InvoiceDate: MustDate("2027-03-20"), Amount: MustMoney("1900.00"), Line: "100-53300", Order: o, Description: "Road salt"}).Ref
	for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, ""}, {"admin", CertifyConformity, "inspected on delivery"}, {"treas", CertifyValid, ""}} {
		v.do(x.who, "2027-03-21T10:00", &ClaimChange{Op: ClaimCertify, ID: cl, Certification: x.what, Basis: x.basis})
	}
	v.do("treas", "2027-03-21T10:30", &ClaimChange{Op: ClaimEndorse, ID: cl})
	wantBooks(t, balances(t, v.tx, "2027-03-21"), map[string]string{"100-53300": "1940.00", "100-213": "40.00", "100-211": "1900.00", "100-191": "0.00"})
	v.do("treas", "2027-03-22T10:00", &CheckRun{On: MustDate("2027-03-22"), Account: "BOB", Claims: []string{cl}, Signatures: []string{"sig-wells", "sig-treas"}})
	wantBooks(t, balances(t, v.tx, "2027-03-22"), map[string]string{"100-211": "0.00", "100-111": "-1100.00", "100-53300": "1940.00"})

	// An employment encumbers; under ledger format 5 the treasurer's
	// payroll expense against it is spent and paid out of cash at once
	// (from format 6 the payroll is a claim: payrollclaim_test.go).
	emp := v.do("admin", "2027-04-01T09:00", &Employment{Line: "100-51400", Person: "Lee Park", Position: "Seasonal clerk", Amount: MustMoney("3000.00"), From: MustDate("2027-05-01"), Approval: "motion 2027-03-30 #4", ApprovedOn: MustDate("2027-03-30")}).Ref
	wantBooks(t, balances(t, v.tx, "2027-04-01"), map[string]string{"100-191": "3000.00"})
	encumbered("2027-04-01")
	v.doAt(BooksFormat, "treas", "2027-05-31T09:00", &Expense{Line: "100-51400", On: MustDate("2027-05-31"), Amount: MustMoney("1000.00"), Payee: "Lee Park", Description: "May payroll", Against: emp})
	wantBooks(t, balances(t, v.tx, "2027-05-31"), map[string]string{"100-51400": "1000.00", "100-111": "-2100.00", "100-191": "2000.00", "100-342": "2000.00"})
	encumbered("2027-05-31")

	// A certified order cancelled gives its encumbrance back.
	o2 := v.do("admin", "2027-06-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Cones", Category: CategorySupplies, Estimate: MustMoney("300.00")}).Ref
	v.do("admin", "2027-06-01T10:01", &OrderChange{Op: OrderBidOp, ID: o2, Bid: &OrderBid{Vendor: "Uline", Amount: MustMoney("300.00"), Received: MustDate("2027-06-01")}})
	v.do("admin", "2027-06-01T10:02", &OrderChange{Op: OrderAward, ID: o2, Award: &Award{Vendor: "Uline", Amount: MustMoney("300.00"), On: MustDate("2027-06-01"), Reasons: "one bidder"}})
	v.do("treas", "2027-06-01T10:03", &CertifyFunds{Order: o2})
	encumbered("2027-06-01")
	v.do("admin", "2027-06-02T10:00", &OrderChange{Op: OrderCancel, ID: o2, Reason: "cones found in the garage"})
	wantBooks(t, balances(t, v.tx, "2027-06-02"), map[string]string{"100-191": "2000.00"})
	encumbered("2027-06-02")
}

// TestBooksCloseTheYear: the close of 2027 (§5.05), taken on January 4,
// 2028, is dated December 31: every revenue and expenditure account holds
// nothing through that day, each fund's balance moved by its revenues
// less its expenditures, and what 2028 posted before the close stays in
// 2028. The encumbrance of the order carried forward stays.
func TestBooksCloseTheYear(t *testing.T) {
	v := payablesVillage(t)
	gf := allowClaim(v, "2027-03-02T10:00", "Sugar River Asphalt", MustMoney("500.00"), "100-53300")
	wu := allowClaim(v, "2027-03-03T10:00", "Badger Meter", MustMoney("200.00"), "WU-53700")
	v.do("treas", "2027-03-05T10:00", &CheckRun{On: MustDate("2027-03-05"), Account: "BOB", Claims: []string{gf, wu}, Signatures: []string{"sig-wells", "sig-treas"}})
	o := v.do("admin", "2027-11-01T10:00", &OrderChange{Op: OrderCreate, Line: "100-53300", Description: "Salt for the winter", Category: CategorySupplies, Estimate: MustMoney("2000.00")}).Ref
	v.do("admin", "2027-11-02T10:00", &OrderChange{Op: OrderBidOp, ID: o, Bid: &OrderBid{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), Received: MustDate("2027-11-02")}})
	v.do("admin", "2027-11-03T10:00", &OrderChange{Op: OrderAward, ID: o, Award: &Award{Vendor: "Morton Salt", Amount: MustMoney("2000.00"), On: MustDate("2027-11-03"), Reasons: "sole source under contract"}})
	v.do("treas", "2027-11-03T11:00", &CertifyFunds{Order: o})
	v.do("clerk", "2028-01-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-G2", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2028-01-02"), Principal: MustMoney("50.00")},
	}})

	before := balances(t, v.tx, "2027-12-31")
	wantBooks(t, before, map[string]string{"100-46100": "800.00", "100-53300": "500.00", "WU-46100": "300.00", "WU-53700": "200.00", "100-341": "0.00", "WU-341": "0.00"})
	v.do("treas", "2028-01-04T16:00", &YearEndClose{Year: 2027})

	after := balances(t, v.tx, "2027-12-31")
	chart, err := v.reads().Chart()
	if err != nil {
		t.Fatal(err)
	}
	for code, m := range after {
		if a, _ := chart.Account(code); a.Type.Line() && !m.IsZero() {
			t.Errorf("%s holds %s through 2027 after the close", code, m)
		}
	}
	wantBooks(t, after, map[string]string{"100-341": "300.00", "WU-341": "100.00", "100-191": "2000.00", "100-342": "2000.00", "100-111": "300.00", "WU-111": "100.00"})
	entries, err := v.reads().BookEntries(MustDate("2027-12-31"), MustDate("2027-12-31"), "")
	if err != nil || len(entries) != 1 || entries[0].Kind != KindYearEndClose {
		t.Fatalf("the closing entry: %+v, %v", entries, err)
	}
	wantBooks(t, balances(t, v.tx, "2028-01-31"), map[string]string{"100-46100": "50.00", "100-341": "300.00", "100-121": "50.00"})

	// The trial balance reads whole years from the years' totals and the
	// last year's days to the date: the same figures as every day summed.
	for _, asOf := range []string{"2026-12-31", "2027-01-01", "2027-02-02", "2027-03-04", "2027-12-30", "2027-12-31", "2028-01-01", "2028-01-04", "2029-06-30"} {
		tb, err := v.reads().TrialBalance(MustDate(asOf))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]AccountTotals{}
		for _, r := range tb.Rows {
			got[r.Account.Code] = AccountTotals{Debit: r.Debit, Credit: r.Credit}
		}
		want := map[string]AccountTotals{}
		for id, raw := range v.tx.records {
			code, day, ok := strings.Cut(strings.TrimPrefix(id, CollectionBookDays+"/"), "/")
			if !ok || !strings.HasPrefix(id, CollectionBookDays+"/") || MustDate(day).After(MustDate(asOf)) {
				continue
			}
			var d AccountTotals
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			w := want[code]
			w.Debit, w.Credit = w.Debit.Add(d.Debit), w.Credit.Add(d.Credit)
			want[code] = w
		}
		if len(got) != len(want) {
			t.Errorf("as of %s: %d accounts, the days give %d", asOf, len(got), len(want))
		}
		for code, w := range want {
			if g := got[code]; !g.Debit.Equal(w.Debit) || !g.Credit.Equal(w.Credit) {
				t.Errorf("as of %s, %s: %s/%s, the days give %s/%s", asOf, code, g.Debit, g.Credit, w.Debit, w.Credit)
			}
		}
	}
}

// TestBooksOfPayablesUnderAnySequence: whatever claims are allowed, paid,
// voided, paid again or cancelled, in whatever order, every fund
// balances, each fund's vouchers payable are its allowed claims not paid,
// each line's expenditure its claims not cancelled, and its cash what
// was deposited less the checks that stand (§5.07).
func TestBooksOfPayablesUnderAnySequence(t *testing.T) {
	base := payablesVillage(t).tx
	deposited := map[string]Money{"100": MustMoney("800.00"), "WU": MustMoney("300.00")}
	rapid.Check(t, func(rt *rapid.T) {
		tx := base.clone()
		run := func(actor, at string, p Payload) (Result, error) {
			c := staffCmd(p.Kind(), actor, at)
			c.Payload = p
			return tryRun(tx, c)
		}
		must := func(actor, at string, p Payload) Result {
			res, err := run(actor, at, p)
			if err != nil {
				rt.Fatalf("%s at %s: %v", p.Kind(), at, err)
			}
			return res
		}
		var approved, checks []string
		steps := rapid.IntRange(1, 12).Draw(rt, "steps")
		for s := range steps {
			at := MustDate("2027-03-01").AddDays(s).String() + "T10:00"
			switch op := rapid.IntRange(0, 3).Draw(rt, "op"); {
			case op == 0 || len(approved) == 0 && len(checks) == 0:
				line := rapid.SampledFrom([]string{"100-53300", "WU-53700"}).Draw(rt, "line")
				id := must("clerk", at, &ClaimChange{Op: ClaimEnter, Vendor: "Vendor", Invoice: fmt.Sprintf("INV-%d", s), InvoiceDate: MustDate("2027-03-01"),
					Amount: Cents(rapid.Int64Range(1, 150000).Draw(rt, "cents")), Line: line, Description: "work"}).Ref
				for _, x := range []struct{ who, what, basis string }{{"treas", CertifyFundsAvailable, ""}, {"admin", CertifyAuthorized, "motion"}, {"admin", CertifyConformity, "seen"}, {"treas", CertifyValid, ""}} {
					must(x.who, at, &ClaimChange{Op: ClaimCertify, ID: id, Certification: x.what, Basis: x.basis})
				}
				must("treas", at, &ClaimChange{Op: ClaimEndorse, ID: id})
				approved = append(approved, id)
			case op == 1 && len(approved) > 0:
				i := rapid.IntRange(0, len(approved)-1).Draw(rt, "claim")
				must("treas", at, &CheckRun{On: MustDate(at[:10]), Account: "BOB", Claims: []string{approved[i]}, Signatures: []string{"sig-wells", "sig-treas"}})
				cl, _ := ReadsOf(txRecords{tx}).Claim(approved[i])
				checks = append(checks, cl.Check)
				approved = slices.Delete(approved, i, i+1)
			case op == 2 && len(checks) > 0:
				i := rapid.IntRange(0, len(checks)-1).Draw(rt, "check")
				ck, _ := ReadsOf(txRecords{tx}).Check(mustAtoi(rt, checks[i]))
				must("treas", at, &CheckVoid{Number: ck.Number, Reason: "lost"})
				checks = slices.Delete(checks, i, i+1)
				approved = append(approved, ck.Claim)
			case len(approved) > 0:
				i := rapid.IntRange(0, len(approved)-1).Draw(rt, "cancel")
				must("clerk", at, &ClaimChange{Op: ClaimCancel, ID: approved[i], Reason: "withdrawn"})
				approved = slices.Delete(approved, i, i+1)
			}
		}
		b := balances(rt, tx, "2027-12-31")
		wantTies(rt, tx, "2027-12-31")
		claims, err := ReadsOf(txRecords{tx}).Claims(2027)
		if err != nil {
			rt.Fatal(err)
		}
		payable, spent, cash := map[string]Money{}, map[string]Money{}, maps.Clone(deposited)
		for _, cl := range claims {
			fund := strings.SplitN(cl.Line, "-", 2)[0]
			switch cl.Status {
			case ClaimApproved:
				payable[fund] = payable[fund].Add(cl.Amount)
				spent[cl.Line] = spent[cl.Line].Add(cl.Amount)
			case ClaimPaid:
				spent[cl.Line] = spent[cl.Line].Add(cl.Amount)
				cash[fund] = cash[fund].Sub(cl.Amount)
			}
		}
		for _, fund := range []string{"100", "WU"} {
			if !b[fund+"-211"].Equal(payable[fund]) || !b[fund+"-111"].Equal(cash[fund]) || !b[fund+"-191"].IsZero() {
				rt.Fatalf("fund %s: payable %s (want %s), cash %s (want %s), encumbrances %s; books %v", fund, b[fund+"-211"], payable[fund], b[fund+"-111"], cash[fund], b[fund+"-191"], b)
			}
		}
		for _, line := range []string{"100-53300", "WU-53700"} {
			if !b[line].Equal(spent[line]) {
				rt.Fatalf("line %s: expenditure %s, claims not cancelled %s", line, b[line], spent[line])
			}
		}
	})
}

func mustAtoi(t booksT, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBooksOfReturnedChecks: checks come back unpaid (§5.20), one from a
// drawer already deposited and one from a drawer still open. Each takes
// its payment off the books as it went on (principal back to receivables,
// the overpayment's refund no longer owed) and the money out of cash or
// out of the receipts not yet deposited; the fee is a bill issued. A
// check taken off a bill that a later payment also paid leaves that
// payment owing a month's interest more: the receivables follow the
// principal the bill now leaves unpaid, and revenue the interest paid.
func TestBooksOfReturnedChecks(t *testing.T) {
	tx := newStaffTx()
	fee := DefaultParams().At(MustDate("2026-05-20")).ReturnedCheckFee
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindDepository, "treasurer", "2026-01-02T09:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("100.00")},
	}})
	booksRun(t, tx, KindDrawerOpen, "clerk", "2026-03-10T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	w1 := booksRun(t, tx, KindWindowPayment, "clerk", "2026-03-10T09:00", &WindowPayment{DrawerID: "D-1", BillID: "B-W1", Amount: MustMoney("130.00"), Tender: Check, Reference: "2001"})
	g1 := booksRun(t, tx, KindWindowPayment, "clerk", "2026-03-10T09:30", &WindowPayment{DrawerID: "D-1", BillID: "B-G1", Amount: MustMoney("60.00"), Tender: Check, Reference: "2002"})
	booksRun(t, tx, KindDrawerClose, "clerk", "2026-03-10T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("0.00"), CountedChecks: MustMoney("190.00"), CheckCount: 2})
	booksRun(t, tx, KindDeposit, "treasurer", "2026-03-10T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})
	// Due April 1: with 40.00 unpaid, two months' interest (§5.10) is
	// 1.20, and the 20.00 pays it and 18.80 of principal.
	booksRun(t, tx, KindDrawerOpen, "clerk", "2026-05-10T08:00", &DrawerOpen{DrawerID: "D-2", Float: MustMoney("0.00")})
	booksRun(t, tx, KindWindowPayment, "clerk", "2026-05-10T09:00", &WindowPayment{DrawerID: "D-2", BillID: "B-G1", Amount: MustMoney("20.00"), Tender: Cash, Tendered: MustMoney("20.00")})
	if b := balances(t, tx, "2026-05-10"); !b["WU-1010"].Equal(MustMoney("130.00")) || !b["WU-212"].Equal(MustMoney("10.00")) || !b["GF-111"].Equal(MustMoney("60.00")) ||
		!b["GF-121"].Equal(MustMoney("21.20")) || !b["48000"].Equal(MustMoney("101.20")) {
		t.Fatalf("before the returns: %v", b)
	}

	// Both deposited checks come back on May 20.
	booksRun(t, tx, KindReturnCheck, "treasurer", "2026-05-20T10:00", &ReturnCheck{ReturnID: "RC-1", BillID: "B-W1", Receipt: w1.Receipt.Number, FeeBillID: "B-FEE-1"})
	booksRun(t, tx, KindReturnCheck, "treasurer", "2026-05-20T10:10", &ReturnCheck{ReturnID: "RC-2", BillID: "B-G1", Receipt: g1.Receipt.Number, FeeBillID: "B-FEE-2"})
	b := balances(t, tx, "2026-05-20")
	for code, want := range map[string]Money{
		// The water bill is unpaid again, its overpayment no longer owed
		// back, the money out of the water utility's depository account.
		"WU-121": MustMoney("120.00"), "WU-212": MustMoney("0.00"), "WU-1010": MustMoney("0.00"), "46100": MustMoney("120.00"),
		// Without the 60.00 the 20.00 paid 3.00 of interest on the
		// whole 100.00 and 17.00 of principal: 83.00 unpaid, 3.00 of
		// interest revenue; each fee is a bill of the general fund.
		"GF-121": MustMoney("83.00").Add(fee).Add(fee), "GF-111": MustMoney("0.00"), "GF-112": MustMoney("20.00"),
		"48000": MustMoney("103.00").Add(fee).Add(fee),
	} {
		if !b[code].Equal(want) {
			t.Errorf("after the deposited checks came back, account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	fig, err := tx.bill(t, "B-G1").Figures(MustDate("2026-05-20"), DefaultParams())
	if err != nil || !fig.UnpaidPrincipal.Equal(MustMoney("83.00")) {
		t.Fatalf("B-G1's unpaid principal: %v, %v; the receivables must tie to it", fig.UnpaidPrincipal, err)
	}

	// A check still in an open drawer comes back: out of the receipts
	// not yet deposited, and the deposit of that drawer leaves it out.
	w3 := booksRun(t, tx, KindWindowPayment, "clerk", "2026-05-21T09:00", &WindowPayment{DrawerID: "D-2", BillID: "B-W1", Amount: MustMoney("50.00"), Tender: Check, Reference: "3001"})
	if b := balances(t, tx, "2026-05-21"); !b["WU-112"].Equal(MustMoney("50.00")) || !b["WU-121"].Equal(MustMoney("73.60")) || !b["46100"].Equal(MustMoney("123.60")) {
		t.Fatalf("after the second water payment: %v", b)
	}
	booksRun(t, tx, KindReturnCheck, "treasurer", "2026-05-22T10:00", &ReturnCheck{ReturnID: "RC-3", BillID: "B-W1", Receipt: w3.Receipt.Number, FeeBillID: "B-FEE-3"})
	booksRun(t, tx, KindDrawerClose, "clerk", "2026-05-22T16:00", &DrawerClose{DrawerID: "D-2", CountedCash: MustMoney("20.00")})
	booksRun(t, tx, KindDeposit, "treasurer", "2026-05-22T16:30", &Deposit{DepositID: "DEP-2", Depository: "BOB", Drawers: []string{"D-2"}})
	b = balances(t, tx, "2026-05-31")
	for code, want := range map[string]Money{
		"WU-121": MustMoney("120.00"), "WU-112": MustMoney("0.00"), "WU-1010": MustMoney("0.00"), "46100": MustMoney("120.00"),
		"GF-121": MustMoney("83.00").Add(fee.MulInt(3)), "GF-112": MustMoney("0.00"), "GF-111": MustMoney("20.00"),
		"48000": MustMoney("103.00").Add(fee.MulInt(3)),
	} {
		if !b[code].Equal(want) {
			t.Errorf("on May 31, account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	entries, err := ReadsOf(txRecords{tx}).BookEntries(MustDate("2026-05-20"), MustDate("2026-05-22"), "WU-1010")
	if err != nil || len(entries) != 1 || entries[0].Kind != KindReturnCheck || entries[0].Lines[0].Section != "§5.20" {
		t.Fatalf("the entries of WU-1010 in May: %+v, %v", entries, err)
	}
}

// TestBooksOfRefunds: an overpayment at the window is owed back
// (§5.07(1)); approving its refund moves no money and posts nothing, and
// the refund check takes it off refunds payable and out of the fund's
// cash.
func TestBooksOfRefunds(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindDepository, "treasurer", "2026-01-02T09:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01"), Number: "000123456789"})
	booksRun(t, tx, KindCheckStock, "treasurer", "2026-01-02T09:15", &CheckStock{Next: 5001, Account: "BOB"})
	for _, s := range []SignatureChange{
		{Op: "approve", ID: "sig-wells", Official: "Howard Wells", Office: "president", Form: "facsimile", Approval: "motion 2026-01-02 #5", ApprovedOn: MustDate("2026-01-02")},
		{Op: "approve", ID: "sig-treas", Official: "Tom Treasurer", Office: "treasurer", Form: "digital", Approval: "motion 2026-01-02 #5", ApprovedOn: MustDate("2026-01-02")},
	} {
		booksRun(t, tx, KindSignature, "clerk", "2026-01-02T09:20", &s)
	}
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
	}})
	booksRun(t, tx, KindDrawerOpen, "clerk", "2026-03-10T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	pay := staffCmd(KindWindowPayment, "clerk", "2026-03-10T09:00")
	pay.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-W1", Amount: MustMoney("125.00"), Tender: Cash, Tendered: MustMoney("125.00")}
	if _, err := tryRun(tx, pay); err != nil {
		t.Fatal(err)
	}
	booksRun(t, tx, KindDrawerClose, "clerk", "2026-03-10T16:00", &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("125.00")})
	booksRun(t, tx, KindDeposit, "treasurer", "2026-03-10T16:30", &Deposit{DepositID: "DEP-1", Depository: "BOB", Drawers: []string{"D-1"}})
	booksRun(t, tx, KindIssueRefund, "treasurer", "2026-03-11T09:00", &IssueRefund{Op: "approve", BillID: "B-W1", CommandID: pay.ID})
	if b := balances(t, tx, "2026-03-11"); !b["WU-212"].Equal(MustMoney("5.00")) || !b["WU-1010"].Equal(MustMoney("125.00")) {
		t.Fatalf("after the approval: %v; want 5.00 still owed back, 125.00 in the bank", b)
	}
	booksRun(t, tx, KindIssueRefund, "clerk", "2026-03-12T09:00", &IssueRefund{Op: "check", BillID: "B-W1", CommandID: pay.ID, CheckNumber: "5001", Account: "BOB", Payee: "Ana Gutierrez", Signatures: []string{"sig-wells", "sig-treas"}})
	b := balances(t, tx, "2026-03-12")
	if !b["WU-212"].IsZero() || !b["WU-1010"].Equal(MustMoney("120.00")) || !b["WU-121"].IsZero() || !b["46100"].Equal(MustMoney("120.00")) {
		t.Fatalf("after the refund check: %v", b)
	}
	entries, err := ReadsOf(txRecords{tx}).BookEntries(MustDate("2026-03-11"), MustDate("2026-03-12"), "")
	if err != nil || len(entries) != 1 || entries[0].Kind != KindIssueRefund || entries[0].Memo != "refund check 5001 on B-W1" {
		t.Fatalf("the entries of the refund: %+v, %v; want only the check's", entries, err)
	}

	// The refund check voided: the refund is owed again, the money back
	// in the bank.
	booksRun(t, tx, KindCheckVoid, "treasurer", "2026-03-13T09:00", &CheckVoid{Number: 5001, Reason: "payee moved"})
	if b := balances(t, tx, "2026-03-13"); !b["WU-212"].Equal(MustMoney("5.00")) || !b["WU-1010"].Equal(MustMoney("125.00")) {
		t.Fatalf("after the void of the refund check: %v; want 5.00 owed back, 125.00 in the bank", b)
	}
}

// TestBooksOfInterestAndInvestments: interest a depository credits is
// cash of the fund of the revenue line named (§5.06); an investment moves
// the fund's money from cash to investments and back when it is redeemed,
// and its interest is cash and revenue of that fund (§5.09).
func TestBooksOfInterestAndInvestments(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:05", &ChartChange{Accounts: []ChartAccount{
		{Code: "48110", Type: AccountRevenue, Name: "Interest on deposits and investments", Fund: "GF", Major: "Miscellaneous"},
		{Code: "46910", Type: AccountRevenue, Name: "Water utility interest", Fund: "WU", Major: "Charges for services"},
	}})
	booksRun(t, tx, KindDepository, "treasurer", "2026-01-02T09:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	booksRun(t, tx, KindDepositoryInterest, "treasurer", "2026-01-31T15:00", &DepositoryInterest{Depository: "BOB", On: MustDate("2026-01-31"), Amount: MustMoney("12.34"), Revenue: "48110", Statement: "January"})
	booksRun(t, tx, KindDepositoryInterest, "treasurer", "2026-01-31T15:05", &DepositoryInterest{Depository: "BOB", On: MustDate("2026-01-31"), Amount: MustMoney("5.00"), Revenue: "46910", Statement: "January"})
	if b := balances(t, tx, "2026-01-31"); !b["GF-111"].Equal(MustMoney("12.34")) || !b["48110"].Equal(MustMoney("12.34")) || !b["WU-1010"].Equal(MustMoney("5.00")) || !b["46910"].Equal(MustMoney("5.00")) {
		t.Fatalf("after the depository's interest: %v", b)
	}
	booksRun(t, tx, KindInvestment, "treasurer", "2026-02-02T10:00", &InvestmentChange{Op: InvestmentBuy, ID: "INV-1", Security: "LGIP deposit", Institution: "State of Wisconsin Investment Board",
		Ground: "lgip", Fund: "GF", Amount: MustMoney("10.00"), PurchasedOn: MustDate("2026-02-02"), MaturesOn: MustDate("2026-08-02"), Rate: "4.25"})
	if b := balances(t, tx, "2026-02-02"); !b["GF-115"].Equal(MustMoney("10.00")) || !b["GF-111"].Equal(MustMoney("2.34")) {
		t.Fatalf("after the purchase: %v", b)
	}
	booksRun(t, tx, KindInvestmentInterest, "treasurer", "2026-05-01T10:00", &InvestmentInterest{Investment: "INV-1", On: MustDate("2026-05-01"), Amount: MustMoney("0.11"), Revenue: "48110"})
	booksRun(t, tx, KindInvestment, "treasurer", "2026-08-03T10:00", &InvestmentChange{Op: InvestmentRedeem, ID: "INV-1", RedeemedOn: MustDate("2026-08-03")})
	b := balances(t, tx, "2026-08-31")
	for code, want := range map[string]string{"GF-115": "0.00", "GF-111": "12.45", "48110": "12.45", "WU-1010": "5.00", "46910": "5.00"} {
		if !b[code].Equal(MustMoney(want)) {
			t.Errorf("account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	ch, _ := ReadsOf(txRecords{tx}).Chart()
	if a, ok := ch.Account("GF-115"); !ok || a.Control != ControlInvestments || a.Type != AccountAsset {
		t.Errorf("the general fund's investments account: %+v, %v", a, ok)
	}
}

// TestBooksOfTheNovemberRun: the penalty step posts nothing; certifying
// the tax roll (§5.10) takes each bill's unpaid principal out of its
// fund's receivables into what the county owes, with the interest and
// penalty certified, as revenue of the bill's line. A bill not on the roll
// stays a receivable, and the receivables still tie to the bills open.
func TestBooksOfTheNovemberRun(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("100.00")},
		// Due November 19: its cycle is next year's.
		{ID: "B-G2", Account: "100101", Parcel: "0601-141-2001", Description: "snow removal", BilledOn: MustDate("2026-10-20"), Principal: MustMoney("40.00")},
	}})
	// Half the water bill is paid in March, before it is due.
	booksRun(t, tx, KindPayBill, "kiosk", "2026-03-10T10:00", &PayBill{BillID: "B-W1", Amount: MustMoney("60.00"), Tender: Card, Reference: "SIM-1"})
	booksRun(t, tx, KindNovemberRun, "treasurer", "2026-11-02T09:00", &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-G1", "B-W1"}})
	if entries, err := ReadsOf(txRecords{tx}).BookEntries(MustDate("2026-11-02"), MustDate("2026-11-02"), ""); err != nil || len(entries) != 0 {
		t.Fatalf("the penalty step posted %+v, %v", entries, err)
	}
	booksRun(t, tx, KindNovemberRun, "treasurer", "2026-11-16T09:00", &NovemberStep{Op: "certify", Year: 2026, Bills: []string{"B-G1", "B-W1"}})
	// Interest runs from April 2 to November 2 (8 months at 1.5%) and
	// the penalty is 1.5% of the principal unpaid on November 2.
	b := balances(t, tx, "2026-11-30")
	for code, want := range map[string]string{
		"GF-121": "40.00", "GF-132": "113.50", "48000": "153.50",
		"WU-121": "0.00", "WU-132": "68.10", "46100": "128.10", "WU-112": "60.00",
	} {
		if !b[code].Equal(MustMoney(want)) {
			t.Errorf("account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	var run NovemberRun
	if _, err := tx.Get(CollectionNovemberRuns, "2026", &run); err != nil || !run.CertifiedTotal.Equal(MustMoney("181.60")) {
		t.Fatalf("the run certified %s, %v; the books' due from the county is 181.60", run.CertifiedTotal, err)
	}
}

// TestBooksOfPropertyTax: the November run certifies a weed-cutting bill
// and a water bill (§5.10), which come back as special items of the
// parcel's tax bill with a special assessment of the village's own. The
// first installment's general tax is owed to the taxing jurisdictions,
// the certified bills' items settle what the county owed each fund, and
// the assessment is revenue of the line collecting property tax (Ch. 74);
// the second payment's excess is owed back (§5.07(1)); a settlement paid
// to the school district takes the liability down against cash (§5.17).
func TestBooksOfPropertyTax(t *testing.T) {
	tx := newStaffTx()
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:05", &ChartChange{Accounts: []ChartAccount{
		{Code: "41100", Type: AccountRevenue, Name: "General property taxes", Fund: "GF", Major: "Taxes", Sources: []string{SourcePropertyTax}},
	}})
	booksRun(t, tx, KindCreateBills, "clerk", "2026-03-02T09:00", &CreateBills{Bills: []NewBill{
		{ID: "B-W1", Account: "100101", Parcel: "0601-141-2001", Description: "water Q1", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("120.00"), Revenue: "46100"},
		{ID: "B-G1", Account: "100101", Parcel: "0601-141-2001", Description: "weed cutting", BilledOn: MustDate("2026-03-02"), Principal: MustMoney("100.00")},
	}})
	booksRun(t, tx, KindNovemberRun, "treasurer", "2026-11-02T09:00", &NovemberStep{Op: "penalties", Year: 2026, Bills: []string{"B-G1", "B-W1"}})
	booksRun(t, tx, KindNovemberRun, "treasurer", "2026-11-16T09:00", &NovemberStep{Op: "certify", Year: 2026, Bills: []string{"B-G1", "B-W1"}})
	if b := balances(t, tx, "2026-11-30"); !b["GF-132"].Equal(MustMoney("113.50")) || !b["WU-132"].Equal(MustMoney("136.20")) {
		t.Fatalf("after the certification: %v", b)
	}
	tb := TaxBill{ID: TaxBillID(2026, "0601-141-2001"), Parcel: "0601-141-2001", County: Dane, TaxYear: 2026, IssuedOn: MustDate("2026-12-10"),
		GeneralTax: MustMoney("3001.25"),
		SpecialItems: []TaxItem{
			{Description: "Special charge: weed cutting", Amount: MustMoney("113.50"), BillID: "B-G1"},
			{Description: "Special charge: water", Amount: MustMoney("136.20"), BillID: "B-W1"},
			{Description: "Special assessment: sidewalk", Amount: MustMoney("50.00")},
		}}
	if err := PutTaxBill(tx, tb); err != nil {
		t.Fatal(err)
	}
	// The first installment: every special item and half the general tax.
	booksRun(t, tx, KindPayPropertyTax, "kiosk", "2026-12-15T10:00", &PayPropertyTax{TaxBillID: tb.ID, Option: TaxFirstInstallment, Amount: MustMoney("1800.33"), Tender: Card, Reference: "SIM-1"})
	b := balances(t, tx, "2026-12-31")
	for code, want := range map[string]string{
		"GF-221": "1500.63", "GF-132": "0.00", "41100": "50.00", "GF-112": "1664.13",
		"WU-132": "0.00", "WU-112": "136.20",
	} {
		if !b[code].Equal(MustMoney(want)) {
			t.Errorf("after the first installment, account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	// The rest, and ten dollars more.
	booksRun(t, tx, KindPayPropertyTax, "kiosk", "2027-01-20T10:00", &PayPropertyTax{TaxBillID: tb.ID, Option: TaxFull, Amount: MustMoney("1510.62"), Tender: Card, Reference: "SIM-2"})
	booksRun(t, tx, KindLevyApportionment, "treasurer", "2027-01-05T09:00", &LevyApportionment{County: Dane, TaxYear: 2026, ReceivedOn: MustDate("2026-12-01"), Total: MustMoney("3001.25"),
		Shares: []LevyShare{
			{Jurisdiction: "dane", Name: "Dane County", Kind: JurisdictionCounty, Levy: MustMoney("1000.00")},
			{Jurisdiction: "belleville", Name: "Village of Belleville", Kind: JurisdictionVillage, Levy: MustMoney("1001.25")},
			{Jurisdiction: "belleville-sd", Name: "Belleville School District", Kind: JurisdictionSchool, Levy: MustMoney("1000.00")},
		}})
	booksRun(t, tx, KindCountySettlement, "treasurer", "2027-01-21T09:00", &CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "belleville-sd", PaidOn: MustDate("2027-01-21"), Amount: MustMoney("500.00"), Reference: "7001"})
	b = balances(t, tx, "2027-01-31")
	// The card receipts have not reached the bank through any command
	// yet, so the settlement draws the general fund's cash below zero.
	for code, want := range map[string]string{
		"GF-221": "2501.25", "GF-212": "10.00", "GF-112": "3174.75", "GF-111": "-500.00", "41100": "50.00",
	} {
		if !b[code].Equal(MustMoney(want)) {
			t.Errorf("after the settlement, account %s: %s, want %s (all: %v)", code, b[code], want, b)
		}
	}
	// The village records its own share of the January settlement as
	// kept: owed to the governments no more, its property tax revenue; no
	// money moves.
	st, err := ReadsOf(txRecords{tx}).Settlement(Dane, 2026, SettleJanuary, MustDate("2027-01-31"))
	if err != nil || !st.VillageShare.IsPositive() {
		t.Fatalf("the January settlement: %+v, %v", st, err)
	}
	booksRun(t, tx, KindCountySettlement, "treasurer", "2027-01-22T09:00", &CountySettlement{County: Dane, TaxYear: 2026, Period: SettleJanuary, Jurisdiction: "belleville", PaidOn: MustDate("2027-01-22"), Amount: st.VillageShare})
	after := balances(t, tx, "2027-01-31")
	if !after["GF-221"].Equal(b["GF-221"].Sub(st.VillageShare)) || !after["41100"].Equal(b["41100"].Add(st.VillageShare)) || !after["GF-111"].Equal(b["GF-111"]) {
		t.Errorf("the village's share of %s kept: due to others %s → %s, property tax %s → %s, cash %s → %s", st.VillageShare, b["GF-221"], after["GF-221"], b["41100"], after["41100"], b["GF-111"], after["GF-111"])
	}
}

// wantTies checks that every control account ties to its records on
// today (ControlTies), with every bill of tx.
func wantTies(t booksT, tx *staffTx, today string) []ControlTie {
	t.Helper()
	bills := make([]Bill, 0, len(tx.bills))
	for id := range tx.bills {
		b, _, err := loadBill(tx, id, true)
		if err != nil {
			t.Fatal(err)
		}
		bills = append(bills, b)
	}
	ties, err := ReadsOf(txRecords{tx}).ControlTies(bills, MustDate(today), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ties {
		if !c.Ties() {
			t.Fatalf("fund %s's %s (%s) is %s in the books and %s in its %d records (%s)", c.Fund, c.Control, c.Account, c.Books, c.Records, c.Items, c.Source)
		}
	}
	return ties
}
