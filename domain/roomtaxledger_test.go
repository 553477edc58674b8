package domain

import (
	"slices"
	"strings"
	"testing"
)

// roomTaxLedger is a map-backed ledger with the staff accounts the room
// tax commands are checked against, and one operator registered.
type roomTaxLedger struct {
	t   *testing.T
	tx  *residentTx
	seq uint64
}

func newRoomTaxLedger(t *testing.T) *roomTaxLedger {
	l := &roomTaxLedger{t: t, tx: newResidentTx()}
	for _, u := range []StaffUser{
		{Username: "treas", Role: RoleTreasurer}, {Username: "audit", Role: RoleAuditor}, {Username: "pclerk", Role: RoleClerk},
		{Username: "admin", Role: RoleAdministrator}, {Username: "trustee", Role: RoleBoard},
		{Username: "innkeeper", Role: RoleHotelOperator}, {Username: "rival", Role: RoleHotelOperator}, {Username: "unlinked", Role: RoleHotelOperator},
	} {
		if err := l.tx.Put(CollectionStaffUsers, u.Username, u); err != nil {
			t.Fatal(err)
		}
	}
	l.ok("treas", "2026-01-05T09:00", &RoomTaxOperatorChange{Op: OperatorRegister, ID: "belle-inn", LegalName: "Belle Inn LLC",
		Establishments: []Establishment{{Name: "Belle Inn", Address: "12 Vine St"}}, SellersPermit: "456-1027384756-02", Contact: "Ann Belle, 608-555-0100"})
	l.ok("treas", "2026-01-05T09:01", &RoomTaxOperatorChange{Op: OperatorLink, ID: "belle-inn", Login: "innkeeper"})
	l.ok("treas", "2026-01-05T09:02", &RoomTaxOperatorChange{Op: OperatorRegister, ID: "sugar-rooms", LegalName: "Sugar River Rooms", Marketplace: true, SellersPermit: "456-99", Contact: "ops@example.com"})
	l.ok("treas", "2026-01-05T09:03", &RoomTaxOperatorChange{Op: OperatorLink, ID: "sugar-rooms", Login: "rival"})
	return l
}

func (l *roomTaxLedger) cmd(actor, at string, p Payload) Command {
	l.seq++
	c := cmdAt(p.Kind(), at, l.seq)
	c.ID = c.ID + "-" + string(rune('a'+l.seq%26)) + strings.Repeat("x", int(l.seq/26))
	c.Actor, c.Node = actor, "hall-clerk"
	c.Payload = p
	return c
}

func (l *roomTaxLedger) run(actor, at string, p Payload) (Result, error) {
	l.t.Helper()
	return l.tx.run(l.t, l.cmd(actor, at, p))
}

func (l *roomTaxLedger) ok(actor, at string, p Payload) Result {
	l.t.Helper()
	res, err := l.run(actor, at, p)
	if err != nil {
		l.t.Fatalf("%s by %s at %s: %v", p.Kind(), actor, at, err)
	}
	return res
}

func (l *roomTaxLedger) refused(actor, at string, p Payload, code Code) *Error {
	l.t.Helper()
	_, err := l.run(actor, at, p)
	if ErrorCode(err) != code {
		l.t.Fatalf("%s by %s at %s: %v, want %s", p.Kind(), actor, at, err, code)
	}
	return err.(*Error)
}

func (l *roomTaxLedger) ret(id string) QuarterlyReturn {
	l.t.Helper()
	var r QuarterlyReturn
	if ok, err := l.tx.Get(CollectionRoomTaxReturns, id, &r); err != nil || !ok {
		l.t.Fatalf("return %s: %v %v", id, ok, err)
	}
	return r
}

func (l *roomTaxLedger) figures(id, asOf string) RoomTaxReturn {
	l.t.Helper()
	fig, err := l.ret(id).Figures(MustDate(asOf), DefaultParams())
	if err != nil {
		l.t.Fatal(err)
	}
	return fig
}

var calendarYear = &RoomTaxYear{Basis: YearCalendar, EndMonth: 12}

// q1Belle is Belle Inn's first quarter: 20,000.00 of gross receipts, a
// valid exemption (a federal agency, billed in its name, with a purchase
// order) and an invalid one (a nonprofit without its certificate number).
func q1Belle() *FileRoomTaxReturn {
	return &FileRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 1}, GrossReceipts: MustMoney("20000.00"),
		ExemptSales: []RoomTaxExemptSale{
			{Amount: MustMoney("1000.00"), Entity: EntityFederal, Buyer: "US Forest Service", BilledToEntity: true, Document: "purchase_order", DocumentNumber: "PO-7731"},
			{Amount: MustMoney("500.00"), Entity: EntityNonprofit, Buyer: "Green County 4-H", BilledToEntity: true, Document: "certificate_number"},
		},
		Signer: "Ann Belle", Capacity: "owner", Year: calendarYear}
}

func TestRoomTaxOperatorAccounts(t *testing.T) {
	l := newRoomTaxLedger(t)
	reg := func(ch RoomTaxOperatorChange) *RoomTaxOperatorChange { ch.Op = OperatorRegister; return &ch }
	good := RoomTaxOperatorChange{ID: "hale-bnb", LegalName: "Hale St B&B", Establishments: []Establishment{{Name: "Hale", Address: "305 Hale St"}}, SellersPermit: "456-1", Contact: "x@example.com"}
	rows := []struct {
		section, name, actor string
		p                    Payload
		code                 Code
	}{
		{"§5.22(3)(a)", "a clerk registers", "pclerk", reg(good), EFORBIDDEN},
		{"§5.22(3)(a)", "an operator registers itself", "innkeeper", reg(good), EFORBIDDEN},
		{"§5.22", "no seller's permit", "treas", reg(RoomTaxOperatorChange{ID: "x1", LegalName: "X", Establishments: good.Establishments, Contact: "c"}), EINVALID},
		{"§5.22", "no establishment and not a marketplace", "treas", reg(RoomTaxOperatorChange{ID: "x2", LegalName: "X", SellersPermit: "1", Contact: "c"}), EINVALID},
		{"§5.22", "a marketplace with an establishment", "treas", reg(RoomTaxOperatorChange{ID: "x3", LegalName: "X", Marketplace: true, Establishments: good.Establishments, SellersPermit: "1", Contact: "c"}), EINVALID},
		{"§5.22", "a bad id", "treas", reg(RoomTaxOperatorChange{ID: "Bad Id", LegalName: "X", Marketplace: true, SellersPermit: "1", Contact: "c"}), EINVALID},
		{"§5.22", "an id taken", "treas", reg(RoomTaxOperatorChange{ID: "belle-inn", LegalName: "X", Marketplace: true, SellersPermit: "1", Contact: "c"}), ECONFLICT},
		{"§5.22", "a clerk's login linked", "treas", &RoomTaxOperatorChange{Op: OperatorLink, ID: "belle-inn", Login: "pclerk"}, EINVALID},
		{"§5.22", "a login linked twice", "treas", &RoomTaxOperatorChange{Op: OperatorLink, ID: "belle-inn", Login: "rival"}, ECONFLICT},
		{"§5.22", "close without a reason", "treas", &RoomTaxOperatorChange{Op: OperatorClose, ID: "belle-inn", ClosedOn: MustDate("2026-02-01")}, EINVALID},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			before := len(l.tx.records)
			l.refused(row.actor, "2026-02-02T10:00", row.p, row.code)
			if len(l.tx.records) != before {
				t.Fatal("a refused change wrote records")
			}
		})
	}
	l.ok("treas", "2026-02-02T10:00", reg(good))
	var op RoomTaxOperator
	if _, err := l.tx.Get(CollectionRoomTaxOperators, "hale-bnb", &op); err != nil || op.LegalName != "Hale St B&B" || op.RegisteredBy != "treas" {
		t.Fatalf("registered: %+v %v", op, err)
	}
	l.ok("treas", "2026-02-02T10:01", &RoomTaxOperatorChange{Op: OperatorLink, ID: "hale-bnb", Login: "unlinked"})
	l.ok("treas", "2026-02-02T10:02", &RoomTaxOperatorChange{Op: OperatorUnlink, ID: "hale-bnb", Login: "unlinked"})
	// Unlinked, the login acts for nobody.
	l.refused("unlinked", "2026-04-02T10:00", &FileRoomTaxReturn{Operator: "hale-bnb", Period: Quarter{2026, 1}, GrossReceipts: Cents(0), Signer: "U", Capacity: "owner", Year: calendarYear}, EFORBIDDEN)
	l.ok("treas", "2026-02-03T10:00", &RoomTaxOperatorChange{Op: OperatorClose, ID: "hale-bnb", ClosedOn: MustDate("2026-02-01"), Reason: "sold"})
	l.refused("treas", "2026-02-03T10:01", &RoomTaxOperatorChange{Op: OperatorUpdate, ID: "hale-bnb", LegalName: "Y", Marketplace: true, SellersPermit: "1", Contact: "c"}, ECONFLICT)
	// A closed operator still files for the quarter it closed in; not for a later one.
	l.ok("treas", "2026-04-02T10:00", &FileRoomTaxReturn{Operator: "hale-bnb", Period: Quarter{2026, 1}, GrossReceipts: MustMoney("100.00"), Signer: "Hale", Capacity: "owner", Year: calendarYear})
	l.refused("treas", "2026-07-02T10:00", &FileRoomTaxReturn{Operator: "hale-bnb", Period: Quarter{2026, 2}, GrossReceipts: Cents(0), Signer: "Hale", Capacity: "owner"}, ECONFLICT)
}

func TestRoomTaxQuarterlyReturn(t *testing.T) {
	l := newRoomTaxLedger(t)
	id := QuarterlyReturnID("belle-inn", Quarter{2026, 1})

	// The operator's own login only, and only once the quarter has ended.
	early := q1Belle()
	l.refused("innkeeper", "2026-03-31T12:00", early, EINVALID)
	l.refused("rival", "2026-04-10T09:00", q1Belle(), EFORBIDDEN)
	l.refused("pclerk", "2026-04-10T09:00", q1Belle(), EFORBIDDEN)
	l.refused("audit", "2026-04-10T09:00", q1Belle(), EFORBIDDEN)
	noElection := q1Belle()
	noElection.Year = nil
	if e := l.refused("innkeeper", "2026-04-10T09:00", noElection, EINVALID); !strings.Contains(e.Message, "elect") {
		t.Errorf("the first return without an election: %v", e)
	}
	unsigned := q1Belle()
	unsigned.Signer = ""
	l.refused("innkeeper", "2026-04-10T09:00", unsigned, EINVALID)
	badEntity := q1Belle()
	badEntity.ExemptSales[0].Entity = "church"
	l.refused("innkeeper", "2026-04-10T09:00", badEntity, EINVALID)

	// Exempt sales above gross receipts: the rule refuses, and the ledger's
	// refusal (journaled) carries none of the figures.
	tooMuch := q1Belle()
	tooMuch.GrossReceipts = MustMoney("900.00")
	e := l.refused("innkeeper", "2026-04-10T09:00", tooMuch, EINVALID)
	if strings.Contains(e.Error(), "900") || strings.Contains(e.Error(), "1000") || strings.Contains(e.Error(), "1,000") {
		t.Errorf("the refusal shows the return's figures: %q", e.Error())
	}
	// The form's preview gives the rule's own reason.
	if _, err := (QuarterlyReturn{Period: Quarter{2026, 1}}).PreviewFiling(RoomTaxFiling{GrossReceipts: tooMuch.GrossReceipts, ExemptSales: tooMuch.ExemptSales}, mustDateTime("2026-04-10T09:00"), DefaultParams()); err == nil || !strings.Contains(err.Error(), "900.00") {
		t.Errorf("the preview's reason: %v", err)
	}

	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	fig := l.figures(id, "2026-04-10")
	// 20,000 − 1,000 valid = 19,000 taxable × 7% = 1,330.00; the nonprofit's
	// claim has no certificate number: rejected and taxed.
	if fig.Tax.String() != "1330.00" || fig.ExemptSales.String() != "1000.00" || !slices.Equal(fig.RejectedExemptions, []int{1}) || fig.LateFilingFee.String() != "0.00" {
		t.Fatalf("Q1 figures: %+v", fig)
	}
	var op RoomTaxOperator
	l.tx.Get(CollectionRoomTaxOperators, "belle-inn", &op)
	if op.Year == nil || op.Year.Basis != YearCalendar || op.Year.ElectedOn != MustDate("2026-04-10") || !slices.Equal(op.Periods, []Quarter{{2026, 1}}) {
		t.Fatalf("the election and periods: %+v", op)
	}
	// A second return for the quarter is refused: amend instead.
	if e := l.refused("innkeeper", "2026-04-11T09:00", q1Belle(), ECONFLICT); !strings.Contains(e.Message, "amended") {
		t.Errorf("a second filing: %v", e)
	}
	// The amendment replaces the figures; the original stays as history.
	am := &AmendRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 1}, GrossReceipts: MustMoney("20000.00"),
		ExemptSales: []RoomTaxExemptSale{q1Belle().ExemptSales[0], {Amount: MustMoney("500.00"), Entity: EntityNonprofit, Buyer: "Green County 4-H", BilledToEntity: true, Document: "certificate_number", DocumentNumber: "ES-40221"}},
		Signer:      "Ann Belle", Capacity: "owner", Reason: "found the 4-H certificate"}
	l.refused("rival", "2026-04-12T09:00", am, EFORBIDDEN)
	am.Reason = ""
	l.refused("innkeeper", "2026-04-12T09:00", am, EINVALID)
	am.Reason = "found the 4-H certificate"
	l.ok("innkeeper", "2026-04-12T09:00", am)
	r := l.ret(id)
	if len(r.Filings) != 2 || r.Filings[0].Amends || !r.Filings[1].Amends || r.Filings[1].Reason == "" {
		t.Fatalf("history: %+v", r.Filings)
	}
	if fig := l.figures(id, "2026-04-12"); fig.Tax.String() != "1295.00" || len(fig.RejectedExemptions) != 0 {
		t.Fatalf("amended: %+v", fig)
	}
	// As of the day before the amendment, the original figures.
	if fig := l.figures(id, "2026-04-11"); fig.Tax.String() != "1330.00" {
		t.Fatalf("as of before the amendment: %+v", fig)
	}
	if got := (Quarter{2026, 1}).RetainUntil(DefaultParams()); got != MustDate("2031-03-31") {
		t.Errorf("records of 2026-Q1 kept until %s, want 2031-03-31 (§5.22(7))", got)
	}
}

func TestRoomTaxPaymentsLateAndExtension(t *testing.T) {
	l := newRoomTaxLedger(t)
	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	q1 := QuarterlyReturnID("belle-inn", Quarter{2026, 1})

	// Part by card at the kiosk: a receipt that shows what was paid.
	res := l.ok("kiosk", "2026-04-20T10:00", &PayRoomTax{Return: "Belle-Inn_2026-q1", Amount: MustMoney("1000.00"), Reference: "SIM-1", Payer: "Ann Belle"})
	if res.Receipt == nil || res.Receipt.BillID != q1 || res.Receipt.Kind != KindPayRoomTax || !res.Receipt.Balance.IsZero() {
		t.Fatalf("receipt: %+v", res.Receipt)
	}
	l.refused("kiosk", "2026-04-20T10:01", &PayRoomTax{Return: "belle-inn_2026-Q3", Amount: MustMoney("1.00"), Reference: "SIM-2"}, ENOTFOUND)
	l.refused("kiosk", "2026-04-20T10:01", &PayRoomTax{Return: q1, Amount: MustMoney("0.00"), Reference: "SIM-2"}, EINVALID)
	// The rest is paid late (June 2): the payment goes to the tax first;
	// the 330.00 paid after the due date bears 1% × 2 months.
	fig := l.figures(q1, "2026-06-02")
	if fig.Interest.String() != "6.60" || fig.Balance.String() != "336.60" || !fig.Delinquent {
		t.Fatalf("as of June 2, unpaid: %+v", fig)
	}

	// At the window: the treasurer's office, into her open drawer.
	l.ok("treas", "2026-06-02T09:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("50.00")})
	l.refused("pclerk", "2026-06-02T09:05", &RoomTaxWindowPayment{Return: q1, DrawerID: "D-1", Amount: MustMoney("330.00"), Tender: Check, Reference: "1101"}, EFORBIDDEN)
	l.refused("treas", "2026-06-02T09:05", &RoomTaxWindowPayment{Return: q1, DrawerID: "D-1", Amount: MustMoney("330.00"), Tender: Card}, EINVALID)
	l.ok("treas", "2026-06-02T09:05", &RoomTaxWindowPayment{Return: q1, DrawerID: "D-1", Amount: MustMoney("330.00"), Tender: Check, Reference: "1101", Payer: "Belle Inn LLC"})
	fig = l.figures(q1, "2026-06-02")
	if fig.Paid.String() != "1330.00" || fig.Interest.String() != "6.60" || fig.Balance.String() != "6.60" {
		t.Fatalf("the tax paid first, interest left: %+v", fig)
	}
	var d Drawer
	l.tx.Get(CollectionDrawers, "D-1", &d)
	if len(d.Payments) != 1 || d.Payments[0].BillID != q1 || d.Payments[0].Tender != Check {
		t.Fatalf("drawer: %+v", d)
	}

	// Q2 filed late (August 5, due July 31): the 100.00 fee and a month's interest.
	q2 := &FileRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 2}, GrossReceipts: MustMoney("10000.00"), Signer: "Ann Belle", Capacity: "owner"}
	l.ok("innkeeper", "2026-08-05T09:00", q2)
	fig = l.figures(QuarterlyReturnID("belle-inn", Quarter{2026, 2}), "2026-08-05")
	if fig.Tax.String() != "700.00" || fig.LateFilingFee.String() != "100.00" || fig.Interest.String() != "7.00" || fig.Balance.String() != "807.00" || !fig.Delinquent {
		t.Fatalf("late Q2: %+v", fig)
	}

	// Extensions: only the treasurer, at most a month, with cause, before filing.
	ext := &RoomTaxExtend{Operator: "belle-inn", Period: Quarter{2026, 3}, To: MustDate("2026-12-01"), Cause: "flooded office"}
	l.refused("treas", "2026-10-20T09:00", ext, EINVALID) // Oct 31 + 1 month = Nov 30
	ext.To = MustDate("2026-11-30")
	l.refused("innkeeper", "2026-10-20T09:00", ext, EFORBIDDEN)
	ext.Cause = ""
	l.refused("treas", "2026-10-20T09:00", ext, EINVALID)
	ext.Cause = "flooded office"
	l.ok("treas", "2026-10-20T09:00", ext)
	q3 := &FileRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 3}, GrossReceipts: MustMoney("5000.00"), Signer: "Ann Belle", Capacity: "owner"}
	l.ok("innkeeper", "2026-11-25T09:00", q3)
	fig = l.figures(QuarterlyReturnID("belle-inn", Quarter{2026, 3}), "2026-11-25")
	if fig.EffectiveDueOn != MustDate("2026-11-30") || fig.LateFilingFee.String() != "0.00" || fig.Interest.String() != "0.00" {
		t.Fatalf("extended Q3: %+v", fig)
	}
	l.refused("treas", "2026-11-26T09:00", &RoomTaxExtend{Operator: "belle-inn", Period: Quarter{2026, 3}, To: MustDate("2026-11-30"), Cause: "again"}, ECONFLICT)
}

func TestRoomTaxDeterminations(t *testing.T) {
	l := newRoomTaxLedger(t)
	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	l.ok("kiosk", "2026-04-20T10:00", &PayRoomTax{Return: "belle-inn_2026-Q1", Amount: MustMoney("1330.00"), Reference: "SIM-1"})
	q1 := QuarterlyReturnID("belle-inn", Quarter{2026, 1})
	audit := &RoomTaxDetermine{Operator: "belle-inn", Period: Quarter{2026, 1}, Type: DeterminationField, Basis: "The books show 18,000.00 of room sales; the 4-H sale was exempt.",
		GrossReceipts: MustMoney("18000.00"), ExemptSales: []RoomTaxExemptSale{{Amount: MustMoney("1000.00"), Entity: EntityFederal, Buyer: "US Forest Service", BilledToEntity: true, Document: "purchase_order", DocumentNumber: "PO-7731"}}}
	l.refused("audit", "2026-06-01T09:00", audit, EFORBIDDEN)
	l.refused("innkeeper", "2026-06-01T09:00", audit, EFORBIDDEN)
	noBasis := *audit
	noBasis.Basis = ""
	l.refused("treas", "2026-06-01T09:00", &noBasis, EINVALID)
	l.ok("treas", "2026-06-01T09:00", audit)
	r := l.ret(q1)
	d := r.Determinations[0]
	// 17,000 × 7% = 1,190.00 determined; 1,330.00 paid: 140.00 to refund.
	if d.Tax.String() != "1190.00" || d.RefundDue.String() != "140.00" || d.Kind != DeterminationField {
		t.Fatalf("determination: %+v", d)
	}
	// An amendment after the determination does not override it.
	l.ok("innkeeper", "2026-06-02T09:00", &AmendRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 1}, GrossReceipts: MustMoney("25000.00"), Signer: "Ann", Capacity: "owner", Reason: "typo"})
	if fig := l.figures(q1, "2026-06-02"); fig.Tax.String() != "1190.00" || fig.Overpayment.String() != "140.00" {
		t.Fatalf("after the amendment: %+v", fig)
	}
	l.ok("treas", "2026-06-02T10:00", &RoomTaxWithholdInterest{Operator: "belle-inn", Period: Quarter{2026, 1}, Ground: "careless", Note: "paid without reading the return"})
	if r := l.ret(q1); r.NoInterest == nil || r.NoInterest.Ground != "careless" {
		t.Fatalf("no interest: %+v", r.NoInterest)
	}
	l.refused("treas", "2026-06-02T10:00", &RoomTaxWithholdInterest{Operator: "belle-inn", Period: Quarter{2026, 1}, Ground: "sunny"}, EINVALID)

	// Sugar River Rooms never filed Q1: an estimate, with the fee (never filed) and interest.
	est := &RoomTaxDetermine{Operator: "sugar-rooms", Period: Quarter{2026, 1}, Type: DeterminationEstimate, Basis: "Listings show about 60 nights at 100.00.", GrossReceipts: MustMoney("6000.00")}
	l.refused("treas", "2026-04-15T09:00", est, EINVALID) // not due yet
	l.ok("treas", "2026-06-15T09:00", est)
	fig := l.figures(QuarterlyReturnID("sugar-rooms", Quarter{2026, 1}), "2026-06-15")
	if fig.Tax.String() != "420.00" || fig.LateFilingFee.String() != "100.00" || fig.Interest.String() != "8.40" || !fig.Delinquent {
		t.Fatalf("estimate: %+v", fig)
	}
	l.refused("treas", "2026-06-15T09:00", &RoomTaxDetermine{Operator: "belle-inn", Period: Quarter{2026, 1}, Type: DeterminationEstimate, Basis: "x", GrossReceipts: Cents(1)}, ECONFLICT)
}

func TestRoomTaxAnnualReturn(t *testing.T) {
	l := newRoomTaxLedger(t)
	fiscal := &RoomTaxYear{Basis: YearFiscal, EndMonth: 6}
	first := &FileRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2025, 3}, GrossReceipts: MustMoney("1000.00"), Signer: "Ann", Capacity: "owner", Year: &RoomTaxYear{Basis: YearFiscal, EndMonth: 5}}
	l.refused("innkeeper", "2025-10-10T09:00", first, EINVALID)
	first.Year = fiscal
	l.ok("innkeeper", "2025-10-10T09:00", first)
	for _, x := range []struct {
		q  Quarter
		at string
	}{{Quarter{2025, 4}, "2026-01-10T09:00"}, {Quarter{2026, 1}, "2026-04-10T09:00"}} {
		l.ok("innkeeper", x.at, &FileRoomTaxReturn{Operator: "belle-inn", Period: x.q, GrossReceipts: MustMoney("1000.00"), Signer: "Ann", Capacity: "owner"})
	}
	annual := &AnnualRoomTaxReturn{Operator: "belle-inn", Year: 2026, Signer: "Ann", Capacity: "owner", Quarters: []AnnualFigures{
		{Period: Quarter{2025, 3}, GrossReceipts: MustMoney("1000.00")}, {Period: Quarter{2025, 4}, GrossReceipts: MustMoney("1000.00")},
		{Period: Quarter{2026, 1}, GrossReceipts: MustMoney("1200.00")}, {Period: Quarter{2026, 2}, GrossReceipts: MustMoney("1000.00")}}}
	l.refused("innkeeper", "2026-06-30T09:00", annual, EINVALID) // the year has not closed
	// Q2 of 2026 is not filed yet.
	l.refused("innkeeper", "2026-07-10T09:00", annual, ECONFLICT)
	l.ok("innkeeper", "2026-07-10T09:00", &FileRoomTaxReturn{Operator: "belle-inn", Period: Quarter{2026, 2}, GrossReceipts: MustMoney("1000.00"), Signer: "Ann", Capacity: "owner"})
	l.refused("rival", "2026-07-11T09:00", annual, EFORBIDDEN)
	l.ok("innkeeper", "2026-07-11T09:00", annual)
	var a AnnualReturn
	l.tx.Get(CollectionRoomTaxAnnual, "belle-inn_2026", &a)
	// 2026-Q1 reconciled from 1,000.00 to 1,200.00: 14.00 more tax.
	if a.FiledTax.String() != "280.00" || a.Tax.String() != "294.00" || a.Difference.String() != "14.00" || a.DueOn != MustDate("2026-09-28") || a.Late() {
		t.Fatalf("annual: %+v", a)
	}
	if !a.Quarters[2].Corrected || a.Quarters[0].Corrected {
		t.Fatalf("corrected quarters: %+v", a.Quarters)
	}
	r := l.ret(QuarterlyReturnID("belle-inn", Quarter{2026, 1}))
	if last := r.Filings[len(r.Filings)-1]; !last.Amends || last.Annual != "belle-inn_2026" {
		t.Fatalf("the correction as an amendment: %+v", last)
	}
	l.refused("innkeeper", "2026-07-12T09:00", annual, ECONFLICT)
	if got := fiscal.YearOf(Quarter{2025, 3}); got != 2026 {
		t.Errorf("2025-Q3 belongs to the fiscal year ending June %d", got)
	}
}

func TestRoomTaxReadAccess(t *testing.T) {
	l := newRoomTaxLedger(t)
	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	q1 := QuarterlyReturnID("belle-inn", Quarter{2026, 1})
	read := func(operator string, subjects ...string) *RoomTaxRead {
		return &RoomTaxRead{What: ReadReturn, Operator: operator, Subjects: subjects, Reason: "review"}
	}
	rows := []struct {
		section, name, actor string
		p                    *RoomTaxRead
		code                 Code
		basis                string
	}{
		{"§5.22(8)(a)", "the filer", "innkeeper", read("belle-inn", q1), "", BasisFiler},
		{"§5.22(8)", "the treasurer's office", "treas", read("belle-inn", q1), "", BasisTreasurer},
		{"§5.22(8)(c)", "an auditor", "audit", read("belle-inn", q1), "", BasisAuditor},
		{"§5.22(8)(c)", "an auditor, every operator", "audit", read(AllOperators), "", BasisAuditor},
		{"§5.22(8)", "another operator", "rival", read("belle-inn", q1), EFORBIDDEN, ""},
		{"§5.22(8)", "an operator naming its own but another's return", "rival", read("sugar-rooms", q1), EINVALID, ""},
		{"§5.22(8)", "an unlinked login", "unlinked", read("belle-inn", q1), EFORBIDDEN, ""},
		{"§5.22(8)(d)", "a clerk without a grant", "pclerk", read("belle-inn", q1), EFORBIDDEN, ""},
		{"§5.22(8)(d)", "an administrator without a grant", "admin", read("belle-inn", q1), EFORBIDDEN, ""},
		{"§5.22(8)(d)", "a trustee without a grant", "trustee", read("belle-inn", q1), EFORBIDDEN, ""},
		{"§5.22(8)", "a clerk, every operator", "pclerk", read(AllOperators), EFORBIDDEN, ""},
		{"§5.22(8)", "no reason", "treas", &RoomTaxRead{What: ReadReturn, Operator: "belle-inn"}, EINVALID, ""},
		{"§5.22(8)(b)", "an export by an auditor", "audit", &RoomTaxRead{What: ReadExport, Operator: AllOperators, Reason: "x", Official: "J. Doe", Agency: "DOR"}, EFORBIDDEN, ""},
		{"§5.22(8)(b)", "an export for nobody", "treas", &RoomTaxRead{What: ReadExport, Operator: AllOperators, Reason: "x", Agency: "DOR"}, EINVALID, ""},
		{"§5.22(8)(b)", "an export for the DOR", "treas", &RoomTaxRead{What: ReadExport, Operator: AllOperators, Reason: "annual audit", Official: "J. Doe, auditor", Agency: "DOR"}, "", BasisTreasurer},
		{"§5.22(8)", "someone without an account", "kiosk", read("belle-inn", q1), EFORBIDDEN, ""},
	}
	for i, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			at := "2026-04-11T09:0" + string(rune('0'+i%10))
			res, err := l.run(row.actor, at, row.p)
			if ErrorCode(err) != row.code {
				t.Fatalf("%v, want %q", err, row.code)
			}
			if row.code != "" {
				return
			}
			var rec RoomTaxReadRecord
			if ok, _ := l.tx.Get(CollectionRoomTaxReads, res.CommandID, &rec); !ok || rec.Reader != row.actor || rec.Basis != row.basis || rec.Reason == "" {
				t.Fatalf("read record: %+v", rec)
			}
		})
	}
	// With a grant, for one operator, until a date.
	grant := &RoomTaxAccessGrant{Op: "grant", ID: "G-1", Official: "trustee", Operator: "belle-inn", Reason: "board hearing on the inn's appeal", Until: MustDate("2026-05-01")}
	l.refused("audit", "2026-04-12T09:00", grant, EFORBIDDEN)
	noWhy := *grant
	noWhy.Reason = ""
	l.refused("treas", "2026-04-12T09:00", &noWhy, EINVALID)
	l.refused("treas", "2026-04-12T09:00", &RoomTaxAccessGrant{Op: "grant", ID: "G-2", Official: "rival", Operator: "belle-inn", Reason: "x", Until: MustDate("2026-05-01")}, EINVALID)
	l.ok("treas", "2026-04-12T09:00", grant)
	l.ok("trustee", "2026-04-12T10:00", read("belle-inn", q1))
	l.refused("trustee", "2026-04-12T10:00", read("sugar-rooms"), EFORBIDDEN)
	l.refused("trustee", "2026-05-02T10:00", read("belle-inn", q1), EFORBIDDEN) // expired
	l.ok("treas", "2026-04-13T09:00", &RoomTaxAccessGrant{Op: "revoke", ID: "G-1", Official: "trustee"})
	l.refused("trustee", "2026-04-13T10:00", read("belle-inn", q1), EFORBIDDEN)
}

func TestRoomTaxSaleOfBusiness(t *testing.T) {
	l := newRoomTaxLedger(t)
	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	cert := &RoomTaxCertify{ID: "C-1", Operator: "belle-inn", Requester: "Prairie Lodging LLC", RequesterIs: "buyer"}
	l.refused("innkeeper", "2026-04-15T09:00", cert, EFORBIDDEN)
	l.ok("treas", "2026-04-15T09:00", cert)
	var c SaleCertificate
	l.tx.Get(CollectionRoomTaxCertificates, "C-1", &c)
	if c.NothingDue || c.AmountDue.String() != "1330.00" || len(c.Unfiled) != 0 {
		t.Fatalf("certificate with tax due: %+v", c)
	}
	l.ok("kiosk", "2026-04-20T10:00", &PayRoomTax{Return: "belle-inn_2026-Q1", Amount: MustMoney("1330.00"), Reference: "SIM-1"})
	l.ok("treas", "2026-04-21T09:00", &RoomTaxCertify{ID: "C-2", Operator: "belle-inn", Requester: "Ann Belle", RequesterIs: "seller"})
	l.tx.Get(CollectionRoomTaxCertificates, "C-2", &c)
	if !c.NothingDue || !c.AmountDue.IsZero() {
		t.Fatalf("certificate that nothing is due: %+v", c)
	}
	// Sugar River Rooms registered in January and never filed Q1: the amount cannot be certified.
	l.ok("treas", "2026-05-04T09:00", &RoomTaxCertify{ID: "C-3", Operator: "sugar-rooms", Requester: "X", RequesterIs: "buyer"})
	l.tx.Get(CollectionRoomTaxCertificates, "C-3", &c)
	if c.NothingDue || !slices.Equal(c.Unfiled, []Quarter{{2026, 1}}) {
		t.Fatalf("certificate with a return missing: %+v", c)
	}
	// The successor who did not withhold is liable to the extent of the price.
	l.ok("treas", "2026-06-15T09:00", &RoomTaxDetermine{Operator: "sugar-rooms", Period: Quarter{2026, 1}, Type: DeterminationEstimate, Basis: "listings", GrossReceipts: MustMoney("6000.00")})
	l.ok("treas", "2026-06-15T09:01", &RoomTaxSuccessor{ID: "S-1", Operator: "sugar-rooms", Successor: "Prairie Lodging LLC", PurchasePrice: MustMoney("250.00")})
	var s SuccessorLiability
	l.tx.Get(CollectionRoomTaxSuccessors, "S-1", &s)
	if s.AmountDue.String() != "528.40" || s.Liability.String() != "250.00" {
		t.Fatalf("successor: %+v", s)
	}
	l.refused("treas", "2026-06-15T09:02", &RoomTaxSuccessor{ID: "S-2", Operator: "belle-inn", Successor: "Y", PurchasePrice: MustMoney("1.00")}, ECONFLICT)
}

func TestRoomTaxTourismAndForfeitures(t *testing.T) {
	l := newRoomTaxLedger(t)
	l.ok("innkeeper", "2026-04-10T09:00", q1Belle())
	l.ok("kiosk", "2026-04-20T10:00", &PayRoomTax{Return: "belle-inn_2026-Q1", Amount: MustMoney("1330.00"), Reference: "SIM-1"})
	var rs []QuarterlyReturn
	rs = append(rs, l.ret(QuarterlyReturnID("belle-inn", Quarter{2026, 1})))
	qs, total := RoomTaxCollections(rs, 2026)
	if qs[1].Total.String() != "1330.00" || total.Total.String() != "1330.00" || qs[0].Total.String() != "0.00" || total.ByOperator["belle-inn"].String() != "1330.00" {
		t.Fatalf("collections: %+v %+v", qs, total)
	}
	l.refused("treas", "2026-07-01T09:00", &RoomTaxTransfer{ID: "T-1", Year: 2026, On: MustDate("2026-07-02"), Amount: MustMoney("500.00"), To: "Belleville Tourism Commission"}, EINVALID)
	l.ok("treas", "2026-07-01T09:00", &RoomTaxTransfer{ID: "T-1", Year: 2026, On: MustDate("2026-07-01"), Amount: MustMoney("500.00"), To: "Belleville Tourism Commission"})
	var tr TourismTransfer
	l.tx.Get(CollectionRoomTaxTransfers, "T-1", &tr)
	p, err := ParseParams("resolution", []byte("2026-01-01 room_tax_retained_amount 330.00\n"))
	if err != nil {
		t.Fatal(err)
	}
	share := ComputeTourismShare(2026, total.Total, []TourismTransfer{tr}, DefaultParams().Merge(p))
	// (1,330.00 − 330.00) × 70% = 700.00; 500.00 transferred.
	if share.Required.String() != "700.00" || share.Transferred.String() != "500.00" || share.Remaining.String() != "200.00" {
		t.Fatalf("tourism share: %+v", share)
	}
	l.refused("treas", "2026-07-10T09:00", &RoomTaxForfeit{ID: "F-1", Operator: "belle-inn", Violation: "records not kept", From: MustDate("2026-07-05"), To: MustDate("2026-07-01"), PerDay: MustMoney("25.00")}, EINVALID)
	l.ok("treas", "2026-07-10T09:00", &RoomTaxForfeit{ID: "F-1", Operator: "belle-inn", Violation: "records not made available", From: MustDate("2026-07-01"), To: MustDate("2026-07-05"), PerDay: MustMoney("25.00")})
	var f Forfeiture
	l.tx.Get(CollectionRoomTaxForfeitures, "F-1", &f)
	if f.Days != 5 || f.Total.String() != "125.00" {
		t.Fatalf("each day a separate offense: %+v", f)
	}
}

func mustDateTime(s string) DateTime {
	dt, err := ParseDateTime(s)
	if err != nil {
		panic(err)
	}
	return dt
}
