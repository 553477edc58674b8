package domain

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// staffTx is a map-backed Tx for the clerk's office commands. Like the
// replicated store it keeps a command's writes apart until it succeeds.
type staffTx struct {
	bills    map[string]Bill
	parcels  map[string]Parcel
	accounts map[string]Account
	receipts map[string]Receipt
	refunds  []RefundDue
	records  map[string][]byte
	index    map[string]bool
	// format is the ledger format the commands apply at; zero is the
	// current one (LedgerFormat).
	format int
}

// LedgerFormat is the format the ledger's commands apply at.
func (t *staffTx) LedgerFormat() int {
	if t.format == 0 {
		return LedgerFormat
	}
	return t.format
}

func newStaffTx() *staffTx {
	tx := &staffTx{bills: map[string]Bill{}, parcels: map[string]Parcel{}, accounts: map[string]Account{}, receipts: map[string]Receipt{}, records: map[string][]byte{}, index: map[string]bool{}}
	tx.parcels["0601-141-2001"] = Parcel{ID: "0601-141-2001", Address: "141 W Main St", County: Dane}
	tx.accounts["100101"] = Account{Number: "100101", Name: "Ana Gutierrez", Parcels: []string{"0601-141-2001"}}
	return tx
}

func (t *staffTx) clone() *staffTx {
	c := &staffTx{bills: maps.Clone(t.bills), parcels: maps.Clone(t.parcels), accounts: maps.Clone(t.accounts), receipts: maps.Clone(t.receipts), refunds: append([]RefundDue(nil), t.refunds...), records: maps.Clone(t.records), index: maps.Clone(t.index), format: t.format}
	return c
}

func (t *staffTx) Bill(id string) (Bill, bool, error)     { b, ok := t.bills[id]; return b, ok, nil }
func (t *staffTx) PutBill(b Bill) error                   { t.bills[b.ID] = b; return nil }
func (t *staffTx) Parcel(id string) (Parcel, bool, error) { p, ok := t.parcels[id]; return p, ok, nil }
func (t *staffTx) PutParcel(p Parcel) error               { t.parcels[p.ID] = p; return nil }
func (t *staffTx) Account(n string) (Account, bool, error) {
	a, ok := t.accounts[n]
	return a, ok, nil
}
func (t *staffTx) PutAccount(a Account) error     { t.accounts[a.Number] = a; return nil }
func (t *staffTx) PutReceipt(r Receipt) error     { t.receipts[r.Number] = r; return nil }
func (t *staffTx) PutRefundDue(r RefundDue) error { t.refunds = append(t.refunds, r); return nil }
func (t *staffTx) Empty() (bool, error)           { return len(t.bills) == 0, nil }
func (t *staffTx) Get(c, id string, v any) (bool, error) {
	b, ok := t.records[c+"/"+id]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}
func (t *staffTx) Put(c, id string, v any) error {
	b, err := json.Marshal(v)
	t.records[c+"/"+id] = b
	return err
}
func (t *staffTx) Index(i, k string) error   { t.index[i+"/"+k] = true; return nil }
func (t *staffTx) Unindex(i, k string) error { delete(t.index, i+"/"+k); return nil }

// bill returns bill id with all its payments, as the read side sees it
// (from ledger format 3 they are records of their own).
func (t *staffTx) bill(tb testing.TB, id string) Bill {
	tb.Helper()
	b, _, err := loadBill(t, id, true)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// run applies c on a copy of tx and keeps the copy only on success, as the
// replicated FSM does.
func (t *staffTx) run(tb testing.TB, c Command) (Result, error) {
	tb.Helper()
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	// Round-trip the codec, as the log does.
	b, err := EncodeCommand(c)
	if err != nil {
		tb.Fatal(err)
	}
	if c, err = DecodeCommand(b); err != nil {
		tb.Fatal(err)
	}
	work := t.clone()
	res, err := Apply(work, c, 7, DefaultParams())
	if err == nil {
		*t = *work
	}
	return res, err
}

var staffSeq uint64

func staffCmd(k Kind, actor, at string) Command {
	staffSeq++
	return Command{ID: "c-" + string(k) + "-" + strings.ReplaceAll(at, ":", "") + "-" + itoa(staffSeq), Kind: k, At: mustDT(at), Node: "hall-clerk", Seq: staffSeq, Actor: actor}
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }

func mustDT(s string) DateTime {
	dt, err := ParseDateTime(s)
	if err != nil {
		panic(err)
	}
	return dt
}

func TestStaffUserLifecycle(t *testing.T) {
	tx := newStaffTx()
	add := staffCmd(KindStaffUser, "admin", "2026-11-02T09:00")
	add.Payload = &StaffUserChange{Op: StaffAdd, Username: "jdoe", Name: "Jane Doe", Role: RoleClerk, PasswordHash: "$argon2id$x"}
	if _, err := tx.run(t, add); err != nil {
		t.Fatal(err)
	}
	var u StaffUser
	if ok, _ := tx.Get(CollectionStaffUsers, "jdoe", &u); !ok || !u.MustChange || u.Role != RoleClerk {
		t.Fatalf("after add: %+v", u)
	}
	again := staffCmd(KindStaffUser, "admin", "2026-11-02T09:01")
	again.Payload = add.Payload.(*StaffUserChange)
	if _, err := tx.run(t, again); ErrorCode(err) != ECONFLICT {
		t.Fatalf("second add: %v, want conflict", err)
	}
	for _, bad := range []StaffUserChange{
		{Op: StaffAdd, Username: "X", Name: "n", Role: RoleClerk, PasswordHash: "h"},
		{Op: StaffAdd, Username: "bob", Name: "", Role: RoleClerk, PasswordHash: "h"},
		{Op: StaffAdd, Username: "bob", Name: "Bob", Role: "mayor", PasswordHash: "h"},
		{Op: StaffAdd, Username: "bob", Name: "Bob", Role: RoleClerk},
		{Op: StaffDisable, Username: "nobody"},
		{Op: "explode", Username: "jdoe"},
	} {
		c := staffCmd(KindStaffUser, "admin", "2026-11-02T09:02")
		c.Payload = &bad
		if _, err := tx.run(t, c); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	pw := staffCmd(KindStaffUser, "jdoe", "2026-11-02T09:05")
	pw.Payload = &StaffUserChange{Op: StaffPassword, Username: "jdoe", PasswordHash: "$argon2id$y"}
	dis := staffCmd(KindStaffUser, "admin", "2026-11-02T09:06")
	dis.Payload = &StaffUserChange{Op: StaffDisable, Username: "jdoe"}
	for _, c := range []Command{pw, dis} {
		if _, err := tx.run(t, c); err != nil {
			t.Fatal(err)
		}
	}
	u = StaffUser{}
	tx.Get(CollectionStaffUsers, "jdoe", &u)
	if u.MustChange || !u.Disabled || u.PasswordHash != "$argon2id$y" || u.ChangedBy != "admin" {
		t.Fatalf("after change and disable: %+v", u)
	}
	tok := staffCmd(KindAPIToken, "admin", "2026-11-02T09:07")
	tok.Payload = &APITokenChange{Op: "issue", ID: "t1", Username: "jdoe", SecretHash: strings.Repeat("a", 64)}
	if _, err := tx.run(t, tok); err == nil {
		t.Fatal("token issued to a disabled account")
	}
}

// TestStaffSessionEpoch: a password change, a reset and disabling each
// raise the account's session epoch, which ends the sessions and API
// tokens of earlier epochs on every node; enabling and a role change do
// not, and what was ended stays ended.
func TestStaffSessionEpoch(t *testing.T) {
	tx := newStaffTx()
	user := func() StaffUser {
		var u StaffUser
		if ok, err := tx.Get(CollectionStaffUsers, "jdoe", &u); !ok || err != nil {
			t.Fatalf("no account: %v", err)
		}
		return u
	}
	token := func(id string) APIToken {
		var tok APIToken
		tx.Get(CollectionAPITokens, id, &tok)
		return tok
	}
	steps := []struct {
		name  string
		kind  Kind
		fill  func(*Command)
		epoch uint64
	}{
		{"add", KindStaffUser, func(c *Command) {
			c.Payload = &StaffUserChange{Op: StaffAdd, Username: "jdoe", Name: "Jane Doe", Role: RoleClerk, PasswordHash: "$argon2id$a"}
		}, 0},
		{"first password", KindStaffUser, func(c *Command) {
			c.Payload = &StaffUserChange{Op: StaffPassword, Username: "jdoe", PasswordHash: "$argon2id$b"}
		}, 1},
		{"token issued", KindAPIToken, func(c *Command) {
			c.Payload = &APITokenChange{Op: "issue", ID: "t1", Username: "jdoe", SecretHash: strings.Repeat("a", 64)}
		}, 1},
		{"role change", KindStaffUser, func(c *Command) { c.Payload = &StaffUserChange{Op: StaffRole, Username: "jdoe", Role: RoleTreasurer} }, 1},
		{"reset", KindStaffUser, func(c *Command) {
			c.Payload = &StaffUserChange{Op: StaffPassword, Username: "jdoe", PasswordHash: "$argon2id$c", MustChange: true}
		}, 2},
		{"second token", KindAPIToken, func(c *Command) {
			c.Payload = &APITokenChange{Op: "issue", ID: "t2", Username: "jdoe", SecretHash: strings.Repeat("b", 64)}
		}, 2},
		{"disable", KindStaffUser, func(c *Command) { c.Payload = &StaffUserChange{Op: StaffDisable, Username: "jdoe"} }, 3},
		{"enable", KindStaffUser, func(c *Command) { c.Payload = &StaffUserChange{Op: StaffEnable, Username: "jdoe"} }, 3},
	}
	for _, st := range steps {
		c := staffCmd(st.kind, "admin", "2026-11-02T09:00")
		st.fill(&c)
		if _, err := tx.run(t, c); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if u := user(); u.Epoch != st.epoch {
			t.Fatalf("after %s: epoch %d, want %d", st.name, u.Epoch, st.epoch)
		}
		switch st.name {
		case "role change":
			if !token("t1").Live(user()) {
				t.Fatal("a role change ended the token")
			}
		case "reset":
			if token("t1").Live(user()) {
				t.Fatal("the token outlived a reset")
			}
		case "second token":
			if tok := token("t2"); tok.Epoch != 2 || !tok.Live(user()) {
				t.Fatalf("a token issued after the reset: %+v", tok)
			}
		case "enable":
			if token("t2").Live(user()) {
				t.Fatal("the token came back when the account was enabled")
			}
		}
	}
	other := user()
	other.Username = "asmith"
	tok := token("t2")
	tok.Epoch = other.Epoch
	if tok.Live(other) {
		t.Fatal("a token is live for another account")
	}
	tok.Revoked = true
	if tok.Live(user()) {
		t.Fatal("a revoked token is live")
	}
}

func TestCreateBillsAllOrNothing(t *testing.T) {
	tx := newStaffTx()
	good := NewBill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", Description: "Weed cutting", BilledOn: MustDate("2026-11-02"), Principal: MustMoney("90.00"), Line: 2}
	bad := good
	bad.ID, bad.Account, bad.Line = "B-2", "999999", 3
	c := staffCmd(KindCreateBills, "clerk", "2026-11-02T10:00")
	c.Payload = &CreateBills{Bills: []NewBill{good, bad}, Source: "bills.csv"}
	_, err := tx.run(t, c)
	if err == nil || !strings.Contains(err.Error(), "Line 3") {
		t.Fatalf("err = %v, want one naming line 3", err)
	}
	if len(tx.bills) != 0 {
		t.Fatalf("a refused import wrote %d bills", len(tx.bills))
	}
	c = staffCmd(KindCreateBills, "clerk", "2026-11-02T10:01")
	c.Payload = &CreateBills{Bills: []NewBill{good}, Source: "form"}
	if _, err := tx.run(t, c); err != nil {
		t.Fatal(err)
	}
	var o BillOrigin
	if ok, _ := tx.Get(CollectionBillOrigins, "B-1", &o); !ok || o.CommandID != c.ID || o.Actor != "clerk" {
		t.Fatalf("origin = %+v", o)
	}
	dup := staffCmd(KindCreateBills, "clerk", "2026-11-02T10:02")
	dup.Payload = &CreateBills{Bills: []NewBill{good}}
	if _, err := tx.run(t, dup); ErrorCode(err) != ECONFLICT {
		t.Fatalf("duplicate bill: %v", err)
	}
	errs := CheckNewBills([]NewBill{{Line: 4}, good, good}, txBillReader{newStaffTx()})
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "Line 4") || !strings.Contains(errs[1].Error(), "already used on line 2") {
		t.Fatalf("CheckNewBills = %v", errs)
	}
}

func TestDrawerDay(t *testing.T) {
	tx := newStaffTx()
	tx.bills["B-1"] = Bill{ID: "B-1", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-10-20"), Principal: MustMoney("142.37")}
	tx.bills["B-2"] = Bill{ID: "B-2", Account: "100101", Parcel: "0601-141-2001", BilledOn: MustDate("2026-10-20"), Principal: MustMoney("50.00")}
	open := staffCmd(KindDrawerOpen, "clerk", "2026-11-02T08:00")
	open.Payload = &DrawerOpen{DrawerID: "D-1", Float: MustMoney("100.00")}
	if _, err := tx.run(t, open); err != nil {
		t.Fatal(err)
	}
	second := staffCmd(KindDrawerOpen, "clerk", "2026-11-02T08:01")
	second.Payload = &DrawerOpen{DrawerID: "D-2", Float: MustMoney("100.00")}
	if _, err := tx.run(t, second); ErrorCode(err) != ECONFLICT {
		t.Fatalf("second open drawer: %v", err)
	}
	cash := staffCmd(KindWindowPayment, "clerk", "2026-11-02T09:00")
	cash.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-1", Amount: MustMoney("142.37"), Tender: Cash, Tendered: MustMoney("150.00")}
	res, err := tx.run(t, cash)
	if err != nil {
		t.Fatal(err)
	}
	if res.Receipt == nil || !res.Receipt.Balance.IsZero() || res.Note != "change due 7.63" {
		t.Fatalf("cash result = %+v", res)
	}
	short := staffCmd(KindWindowPayment, "clerk", "2026-11-02T09:05")
	short.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-2", Amount: MustMoney("50.00"), Tender: Cash, Tendered: MustMoney("40.00")}
	if _, err := tx.run(t, short); ErrorCode(err) != EINVALID {
		t.Fatalf("too little cash: %v", err)
	}
	other := staffCmd(KindWindowPayment, "treasurer", "2026-11-02T09:06")
	other.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-2", Amount: MustMoney("50.00"), Tender: Check, Reference: "1001"}
	if _, err := tx.run(t, other); ErrorCode(err) != EFORBIDDEN {
		t.Fatalf("someone else's drawer: %v", err)
	}
	check := staffCmd(KindWindowPayment, "clerk", "2026-11-02T09:10")
	check.Payload = &WindowPayment{DrawerID: "D-1", BillID: "B-2", Amount: MustMoney("50.00"), Tender: Check, Reference: "1001", Payer: "A. Gutierrez"}
	if _, err := tx.run(t, check); err != nil {
		t.Fatal(err)
	}
	if !tx.index[IndexUndeposited+"/2026-11-02/D-1"] {
		t.Fatal("a drawer holding money is not flagged as undeposited")
	}
	// At ledger format 2 a deposit names a depository the board designated
	// (§5.06, depository.go).
	designate := staffCmd(KindDepository, "treasurer", "2026-11-02T15:00")
	designate.Payload = &DepositoryChange{Op: DepositoryDesignate, ID: "Bank", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-01", From: MustDate("2026-01-01")}
	if _, err := tx.run(t, designate); err != nil {
		t.Fatal(err)
	}
	dep := staffCmd(KindDeposit, "treasurer", "2026-11-02T16:00")
	dep.Payload = &Deposit{DepositID: "DEP-1", Depository: "Bank", Drawers: []string{"D-1"}}
	if _, err := tx.run(t, dep); ErrorCode(err) != ECONFLICT {
		t.Fatalf("deposit of an open drawer: %v", err)
	}
	closeC := staffCmd(KindDrawerClose, "clerk", "2026-11-02T15:30")
	closeC.Payload = &DrawerClose{DrawerID: "D-1", CountedCash: MustMoney("242.00"), CountedChecks: MustMoney("50.00"), CheckCount: 1}
	if _, err := tx.run(t, closeC); err != nil {
		t.Fatal(err)
	}
	var d Drawer
	tx.Get(CollectionDrawers, "D-1", &d)
	// expected cash 100.00 + 142.37 = 242.37; counted 242.00: short 0.37.
	if d.OverShort.String() != "-0.37" || d.ExpectedCash.String() != "242.37" {
		t.Fatalf("drawer after close: over/short %s expected %s", d.OverShort, d.ExpectedCash)
	}
	dep.ID += "-2"
	if _, err := tx.run(t, dep); err != nil {
		t.Fatal(err)
	}
	var slip DepositSlip
	tx.Get(CollectionDeposits, "DEP-1", &slip)
	if slip.Cash.String() != "142.00" || slip.CheckTotal.String() != "50.00" || slip.Total.String() != "192.00" || len(slip.Checks) != 1 {
		t.Fatalf("slip = %+v", slip)
	}
	if tx.index[IndexUndeposited+"/2026-11-02/D-1"] {
		t.Fatal("a deposited drawer is still flagged")
	}
	dep2 := staffCmd(KindDeposit, "treasurer", "2026-11-02T16:05")
	dep2.Payload = &Deposit{DepositID: "DEP-2", Depository: "Bank", Drawers: []string{"D-1"}}
	if _, err := tx.run(t, dep2); ErrorCode(err) != ECONFLICT {
		t.Fatalf("deposit twice: %v", err)
	}
}

func TestStaffCommandPayloads(t *testing.T) {
	c := staffCmd(KindDrawerOpen, "clerk", "2026-11-02T08:00")
	c.Payload = &DrawerOpen{DrawerID: "D", Float: MustMoney("1.00")}
	c.Payload = &Deposit{DepositID: "X"}
	if err := c.Validate(); err == nil {
		t.Fatal("a command with two payloads validated")
	}
	c.Payload = nil
	c.Kind = KindDeposit
	if err := c.Validate(); err == nil {
		t.Fatal("a command with another kind's payload validated")
	}
}
