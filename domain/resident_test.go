package domain

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// residentTx is a map-backed Tx for the resident kiosk's commands; like the
// replicated store it keeps a command's writes only when it succeeds.
type residentTx struct {
	bills    map[string]Bill
	parcels  map[string]Parcel
	receipts map[string]Receipt
	refunds  []RefundDue
	records  map[string][]byte
	index    map[string]bool
}

func newResidentTx() *residentTx {
	tx := &residentTx{bills: map[string]Bill{}, parcels: map[string]Parcel{}, receipts: map[string]Receipt{}, records: map[string][]byte{}, index: map[string]bool{}}
	tx.parcels["0601-141-2001"] = Parcel{ID: "0601-141-2001", Address: "141 W Main St", County: Dane}
	tx.parcels["0601-141-2005"] = Parcel{ID: "0601-141-2005", Address: "305 Hale St", County: Green}
	return tx
}

func (t *residentTx) clone() *residentTx {
	return &residentTx{bills: maps.Clone(t.bills), parcels: maps.Clone(t.parcels), receipts: maps.Clone(t.receipts),
		refunds: append([]RefundDue(nil), t.refunds...), records: maps.Clone(t.records), index: maps.Clone(t.index)}
}

func (t *residentTx) Bill(id string) (Bill, bool, error) { b, ok := t.bills[id]; return b, ok, nil }
func (t *residentTx) PutBill(b Bill) error               { t.bills[b.ID] = b; return nil }
func (t *residentTx) Parcel(id string) (Parcel, bool, error) {
	p, ok := t.parcels[id]
	return p, ok, nil
}
func (t *residentTx) PutParcel(p Parcel) error              { t.parcels[p.ID] = p; return nil }
func (t *residentTx) Account(string) (Account, bool, error) { return Account{}, false, nil }
func (t *residentTx) PutAccount(Account) error              { return nil }
func (t *residentTx) PutReceipt(r Receipt) error            { t.receipts[r.Number] = r; return nil }
func (t *residentTx) PutRefundDue(r RefundDue) error        { t.refunds = append(t.refunds, r); return nil }
func (t *residentTx) Empty() (bool, error)                  { return len(t.bills) == 0, nil }
func (t *residentTx) Get(c, id string, v any) (bool, error) {
	b, ok := t.records[c+"/"+id]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}
func (t *residentTx) Put(c, id string, v any) error {
	b, err := json.Marshal(v)
	t.records[c+"/"+id] = b
	return err
}
func (t *residentTx) Index(i, k string) error   { t.index[i+"/"+k] = true; return nil }
func (t *residentTx) Unindex(i, k string) error { delete(t.index, i+"/"+k); return nil }

// bill returns bill id with all its payments, as the read side sees it
// (from ledger format 3 they are records of their own).
func (t *residentTx) bill(tb testing.TB, id string) Bill {
	tb.Helper()
	b, _, err := loadBill(t, id, true)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// run round-trips c through the log codec and applies it on a copy of tx,
// keeping the copy only on success.
func (t *residentTx) run(tb testing.TB, c Command) (Result, error) {
	tb.Helper()
	b, err := EncodeCommand(c)
	if err != nil {
		tb.Fatal(err)
	}
	if c, err = DecodeCommand(b); err != nil {
		return Result{}, err
	}
	work := t.clone()
	res, err := Apply(work, c, 42, DefaultParams())
	if err == nil {
		*t = *work
	}
	return res, err
}

func cmdAt(kind Kind, at string, seq uint64) Command {
	dt, err := ParseDateTime(at)
	if err != nil {
		panic(err)
	}
	return Command{V: CommandVersion, ID: "cmd-" + at + "-" + string(kind), Kind: kind, At: dt, Node: "hall-kiosk", Seq: seq, Actor: "kiosk"}
}

func TestRequestStatusLetter(t *testing.T) {
	rows := []struct {
		section, name string
		at            string
		fee           string
		readyBy       string
		wantErr       Code
	}{
		// Tuesday before closing: received that day, ready Thursday.
		{"§5.11", "business day before closing", "2026-10-20T10:15", "45.00", "2026-10-22", ""},
		// At closing time: received Wednesday, ready Friday.
		{"§5.11", "at closing time", "2026-10-20T16:30", "45.00", "2026-10-23", ""},
		// Saturday: received Monday, ready Wednesday.
		{"§5.11", "weekend", "2026-10-24T11:00", "45.00", "2026-10-28", ""},
		// Wednesday before Thanksgiving after closing: received Monday Nov 30.
		{"§5.11", "holidays", "2026-11-25T17:00", "45.00", "2026-12-02", ""},
		// The fee in force on the request date: 35.00 before July 1, 2026.
		{"§5.11", "older fee", "2026-06-30T09:00", "35.00", "2026-07-02", ""},
		{"§5.11", "fee not the one in force", "2026-10-20T10:15", "35.00", "", ECONFLICT},
	}
	for _, row := range rows {
		t.Run(row.section+"/"+row.name, func(t *testing.T) {
			tx := newResidentTx()
			c := cmdAt(KindRequestStatusLetter, row.at, 12)
			c.Payload = &RequestStatusLetter{Parcel: "0601-141-2001", Requester: "  Dana   Title Co. ", Contact: "608-555-0100", Fee: MustMoney(row.fee), Tender: Card, Reference: "APPROVED-1"}
			res, err := tx.run(t, c)
			if row.wantErr != "" {
				if ErrorCode(err) != row.wantErr {
					t.Fatalf("err %v, want %s", err, row.wantErr)
				}
				if len(tx.records) != 0 || len(tx.receipts) != 0 {
					t.Fatal("a refused request wrote records")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			claim := "hall-kiosk-000012"
			if res.Receipt == nil || res.Receipt.Number != claim || res.Receipt.Kind != KindRequestStatusLetter || res.Receipt.Amount.String() != row.fee {
				t.Fatalf("receipt %+v", res.Receipt)
			}
			var sr StatusRequest
			if ok, _ := tx.Get(StatusRequests, claim, &sr); !ok {
				t.Fatal("no status request stored")
			}
			if sr.ReadyBy.String() != row.readyBy || sr.Requester != "Dana Title Co." || sr.County != Dane || sr.State != StatusRequested || sr.Index != 42 {
				t.Errorf("request %+v, want ready by %s", sr, row.readyBy)
			}
			if !tx.index[StatusRequestsByReadyDate+"/"+row.readyBy+"/"+claim] {
				t.Errorf("not indexed by ready date: %v", tx.index)
			}
		})
	}
}

func TestRequestStatusLetterRefusals(t *testing.T) {
	for name, in := range map[string]RequestStatusLetter{
		"no parcel":  {Parcel: "0601-999-0000", Requester: "A", Contact: "x", Fee: MustMoney("45.00"), Tender: Card},
		"no name":    {Parcel: "0601-141-2001", Requester: " ", Contact: "x", Fee: MustMoney("45.00"), Tender: Card},
		"no contact": {Parcel: "0601-141-2001", Requester: "A", Contact: "", Fee: MustMoney("45.00"), Tender: Card},
		"long name":  {Parcel: "0601-141-2001", Requester: strings.Repeat("a", 121), Contact: "x", Fee: MustMoney("45.00"), Tender: Card},
		"tender":     {Parcel: "0601-141-2001", Requester: "A", Contact: "x", Fee: MustMoney("45.00"), Tender: "gold"},
	} {
		t.Run("§5.11/"+name, func(t *testing.T) {
			tx := newResidentTx()
			c := cmdAt(KindRequestStatusLetter, "2026-10-20T10:15", 1)
			c.Payload = &in
			if _, err := tx.run(t, c); err == nil {
				t.Fatal("accepted")
			}
			if len(tx.records) != 0 {
				t.Fatal("wrote records")
			}
		})
	}
}

func demoTaxBill() TaxBill {
	return TaxBill{ID: TaxBillID(2026, "0601-141-2001"), Parcel: "0601-141-2001", County: Dane, TaxYear: 2026, IssuedOn: MustDate("2026-12-10"),
		GeneralTax:   MustMoney("3001.25"),
		SpecialItems: []TaxItem{{Description: "Special charge: culvert cleaning", Amount: MustMoney("231.48"), BillID: "B-2026-0115"}}}
}

func TestTaxBillFigures(t *testing.T) {
	f, err := demoTaxBill().Figures(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	// Half of 3001.25 is 1500.625, rounded half-up to 1500.63 (RULES.md "Easy mistakes").
	if f.Total.String() != "3232.73" || f.FirstInstallment.String() != "1732.11" || f.SecondInstallment.String() != "1500.62" ||
		f.FirstDueOn.String() != "2027-01-31" || f.Status != TaxOpen {
		t.Fatalf("figures %+v", f)
	}
	if a, ok := f.Amount(TaxFirstInstallment); !ok || a.String() != "1732.11" {
		t.Errorf("first installment option %s %v", a, ok)
	}
	small := TaxBill{ID: "T", Parcel: "p", County: Green, TaxYear: 2026, GeneralTax: MustMoney("99.99")}
	fs, _ := small.Figures(DefaultParams())
	if _, ok := fs.Amount(TaxFirstInstallment); ok || fs.InstallmentsAllowed {
		t.Error("installments offered under the threshold")
	}
}

func TestPayPropertyTax(t *testing.T) {
	tb := demoTaxBill()
	pay := func(tx *residentTx, at string, seq uint64, opt TaxOption, amount string) (Result, error) {
		c := cmdAt(KindPayPropertyTax, at, seq)
		c.Payload = &PayPropertyTax{TaxBillID: tb.ID, Option: opt, Amount: MustMoney(amount), Tender: Card, Reference: "OK"}
		return tx.run(t, c)
	}
	t.Run("Ch. 74/first installment then the rest", func(t *testing.T) {
		tx := newResidentTx()
		if err := PutTaxBill(tx, tb); err != nil {
			t.Fatal(err)
		}
		if !tx.index[TaxBillsByParcel+"/0601-141-2001/2026/"+tb.ID] || !tx.index[TaxBillsByCounty+"/dane/2026/"+tb.ID] {
			t.Fatalf("index %v", tx.index)
		}
		res, err := pay(tx, "2027-01-29T10:00", 3, TaxFirstInstallment, "1732.11")
		if err != nil {
			t.Fatal(err)
		}
		if res.Receipt.Balance.String() != "1500.62" || res.Receipt.Kind != KindPayPropertyTax || res.Receipt.BillID != tb.ID {
			t.Fatalf("receipt %+v", res.Receipt)
		}
		var got TaxBill
		tx.Get(TaxBills, tb.ID, &got)
		f, _ := got.Figures(DefaultParams())
		if f.Status != TaxFirstPaid || got.Payments[0].Allocation.SpecialItems.String() != "231.48" || got.Payments[0].Allocation.GeneralTax.String() != "1500.63" {
			t.Fatalf("after first installment %+v %+v", f, got.Payments[0])
		}
		if _, ok := f.Amount(TaxFirstInstallment); ok {
			t.Error("first installment offered again")
		}
		// A second full payment of the whole bill (taken offline elsewhere)
		// overpays: the excess is a refund due.
		res, err = pay(tx, "2027-01-30T10:00", 4, TaxFull, "3232.73")
		if err != nil {
			t.Fatal(err)
		}
		if res.Refund == nil || res.Refund.Amount.String() != "1732.11" || res.Receipt.Balance.String() != "0.00" {
			t.Fatalf("overpayment %+v %+v", res.Refund, res.Receipt)
		}
	})
	t.Run("Ch. 74/after January 31 the county collects", func(t *testing.T) {
		tx := newResidentTx()
		PutTaxBill(tx, tb)
		if _, err := pay(tx, "2027-02-01T09:00", 3, TaxFull, "3232.73"); ErrorCode(err) != ECONFLICT || !strings.Contains(err.Error(), "Dane County treasurer") {
			t.Fatalf("err %v", err)
		}
		if _, err := pay(tx, "2026-12-01T09:00", 3, TaxFull, "3232.73"); ErrorCode(err) != ECONFLICT {
			t.Fatalf("before issue: err %v", err)
		}
	})
	t.Run("Ch. 74/no such bill and bad input", func(t *testing.T) {
		tx := newResidentTx()
		if _, err := pay(tx, "2027-01-05T09:00", 3, TaxFull, "1.00"); ErrorCode(err) != ENOTFOUND {
			t.Fatalf("err %v", err)
		}
		PutTaxBill(tx, tb)
		if _, err := pay(tx, "2027-01-05T09:00", 3, "half", "1.00"); ErrorCode(err) != EINVALID {
			t.Fatalf("err %v", err)
		}
	})
	if err := (TaxBill{ID: "x", Parcel: "p", County: "rock", TaxYear: 2026}).Validate(); err == nil {
		t.Error("a county outside the village was accepted")
	}
}

func TestPublicPurchaseValidate(t *testing.T) {
	ok := []PublicPurchase{
		{ID: "P-1", Date: MustDate("2026-09-01"), Description: "Road salt", Vendor: "Compass", Amount: MustMoney("2140.00"), Category: CategorySupplies,
			Bids: []Bid{{"Compass", MustMoney("2140.00")}, {"Morton", MustMoney("2310.00")}}},
		{ID: "P-2", Date: MustDate("2026-08-03"), Description: "Water main break", Vendor: "Badger Plumbing", Amount: MustMoney("1850.00"), Category: CategoryContractualServices,
			Emergency: true, Invoice: "INV-1", Explanation: "Main broke under Vine St."},
	}
	for _, p := range ok {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.ID, err)
		}
	}
	if ok[0].Record() != RecordOpenMarket || ok[1].Record() != RecordEmergency {
		t.Error("record kinds")
	}
	bad := ok[1]
	bad.Explanation = ""
	if bad.Validate() == nil {
		t.Error("emergency without explanation accepted")
	}
	bad = ok[0]
	bad.Bids = nil
	if bad.Validate() == nil {
		t.Error("open market without bids accepted")
	}
}

func TestProvisionalReceipt(t *testing.T) {
	c := cmdAt(KindRequestStatusLetter, "2026-10-20T10:15", 9)
	c.Payload = &RequestStatusLetter{Parcel: "0601-141-2001", Requester: "A", Contact: "x", Fee: MustMoney("45.00"), Tender: Card}
	rc := c.ProvisionalReceipt()
	if rc == nil || rc.Number != "hall-kiosk-000009" || rc.Status != Provisional || rc.Kind != KindRequestStatusLetter || rc.Amount.String() != "45.00" {
		t.Fatalf("%+v", rc)
	}
	c = cmdAt(KindPayBill, "2026-10-20T10:15", 10)
	c.Payload = &PayBill{BillID: "B-1", Amount: MustMoney("1.00"), Tender: Card}
	if rc := c.ProvisionalReceipt(); rc == nil || rc.Kind != "" || rc.BillID != "B-1" {
		t.Fatalf("%+v", rc)
	}
	if (Command{Kind: KindSeedDemo, Payload: &SeedDemo{}}).ProvisionalReceipt() != nil {
		t.Error("seed demo has a receipt")
	}
}

func TestResidentCommandsDecodeStrictly(t *testing.T) {
	c := cmdAt(KindRequestStatusLetter, "2026-10-20T10:15", 1)
	c.Payload = &PayPropertyTax{TaxBillID: "T", Option: TaxFull, Amount: MustMoney("1.00"), Tender: Card}
	if err := c.Validate(); err == nil {
		t.Error("a command carrying another kind's payload was accepted")
	}
	c.Payload = &RequestStatusLetter{Parcel: "p", Requester: "A", Contact: "x", Fee: MustMoney("45.00"), Tender: Card}
	b, err := EncodeCommand(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeCommand(b)
	if p, ok := got.Payload.(*RequestStatusLetter); err != nil || !ok || p.Fee.String() != "45.00" {
		t.Fatalf("round trip %+v, %v", got, err)
	}
	// Two payloads, or a payload under another kind's field, are refused.
	two := append(b[:len(b)-1:len(b)-1], []byte(`,"pay_property_tax":{"tax_bill_id":"T","option":"full","amount":"1.00","tender":"card"}}`)...)
	if _, err := DecodeCommand(two); err == nil {
		t.Error("a command with two payloads was decoded")
	}
	c.Kind = KindPayPropertyTax
	if err := c.Validate(); err == nil {
		t.Error("a pay_property_tax command carrying a status-letter payload was accepted")
	}
	c.Payload = nil
	if err := c.Validate(); err == nil {
		t.Error("a pay_property_tax command without its payload was accepted")
	}
}
