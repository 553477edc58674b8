package domain

import (
	"strings"
	"testing"
)

// titleVillage is a village with books, a depository and a title
// company's account, on a Thursday in December 2026.
func titleVillage(t *testing.T) *staffTx {
	t.Helper()
	tx := newStaffTx()
	tx.parcels["0601-141-2002"] = Parcel{ID: "0601-141-2002", Address: "15 Vine St", County: Green}
	tx.parcels["0601-200-0001"] = Parcel{ID: "0601-200-0001", Address: "2 Main St (Badger Title office)", County: Dane}
	tx.accounts["300001"] = Account{Number: "300001", Name: "Badger Title Co.", Parcels: []string{"0601-200-0001"}}
	booksRun(t, tx, KindChart, "admin", "2026-01-02T09:00", booksChart())
	booksRun(t, tx, KindDepository, "treasurer", "2026-01-02T09:10", &DepositoryChange{Op: DepositoryDesignate, ID: "BOB", Name: "Bank of Belleville", Institution: "Bank of Belleville", Resolution: "2026-03", From: MustDate("2026-01-01")})
	booksRun(t, tx, KindDrawerOpen, "clerk", "2026-12-03T08:00", &DrawerOpen{DrawerID: "D-1", Float: MustMoney("0.00")})
	return tx
}

// titleRequest is a title company's request for the letter of the Vine
// St parcel, e-mailed, paid as pay says.
func titleRequest(pay string) *OfficeStatusLetter {
	in := &OfficeStatusLetter{Parcel: "0601-141-2002", Requester: "Badger Title Co.", Contact: "Pat Closer, 608-555-0199", Email: "closings@badgertitle.example",
		ClosingOn: MustDate("2026-12-15"), Delivery: DeliverEmail, Fee: MustMoney("45.00"), Payment: pay}
	switch pay {
	case PayCard:
		in.Reference = "SIM-77"
	case PayCheck:
		in.Reference, in.DrawerID, in.Account, in.BillID = "5512", "D-1", "300001", "B-LTR-1"
	case PayAccount:
		in.Account, in.BillID = "300001", "B-LTR-1"
	}
	return in
}

// TestOfficeStatusLetterFeeBooks (§5.11): the fee of a letter the office
// takes posts by how it is paid. By card, as the kiosk's: receipts not yet
// deposited and status letter fees. By check: the fee billed to the title
// company's account and paid at once into the drawer, so the receivable
// nets to nothing and the check is in the drawer's receipts; a check that
// comes back is returned as any window check (§5.20), the fee owed again.
// On account: the fee is a bill the company owes (receivables), on its own
// parcel, not on the parcel the letter is about. Each request is filed in
// the queue with how the letter goes out.
func TestOfficeStatusLetterFeeBooks(t *testing.T) {
	for _, tc := range []struct {
		pay  string
		want map[string]string
	}{
		{PayCard, map[string]string{"44100": "45.00", "GF-112": "45.00", "GF-121": "0.00"}},
		{PayCheck, map[string]string{"44100": "45.00", "GF-112": "45.00", "GF-121": "0.00"}},
		{PayAccount, map[string]string{"44100": "45.00", "GF-112": "0.00", "GF-121": "45.00"}},
	} {
		t.Run("§5.11/"+tc.pay, func(t *testing.T) {
			tx := titleVillage(t)
			res := booksRun(t, tx, KindOfficeStatusLetter, "clerk", "2026-12-03T10:00", titleRequest(tc.pay))
			wantBalances(t, balances(t, tx, "2026-12-03"), tc.want)
			var sr StatusRequest
			if ok, err := tx.Get(StatusRequests, res.Ref, &sr); !ok || err != nil {
				t.Fatalf("request %q not filed: %v", res.Ref, err)
			}
			if sr.Delivery != DeliverEmail || sr.Email != "closings@badgertitle.example" || sr.Payment != tc.pay || sr.ClosingOn != MustDate("2026-12-15") ||
				sr.ReceivedOn != MustDate("2026-12-03") || sr.ReadyBy != MustDate("2026-12-07") {
				t.Fatalf("request: %+v", sr)
			}
			if tc.pay == PayAccount {
				if res.Receipt != nil {
					t.Fatalf("a fee billed on account has a receipt: %+v", res.Receipt)
				}
			} else if res.Receipt == nil || res.Receipt.Number != res.Ref || res.Receipt.Kind != KindOfficeStatusLetter {
				t.Fatalf("receipt: %+v", res.Receipt)
			}
			if tc.pay == PayCard {
				return
			}
			b := tx.bill(t, "B-LTR-1")
			if b.Account != "300001" || b.Parcel != "0601-200-0001" || b.Revenue != "44100" || !strings.Contains(b.Description, res.Ref) {
				t.Fatalf("fee bill: %+v", b)
			}
			if tc.pay == PayAccount {
				return
			}
			var d Drawer
			if _, err := tx.Get(CollectionDrawers, "D-1", &d); err != nil || len(d.Payments) != 1 || d.Payments[0].Reference != "5512" || d.Payments[0].BillID != "B-LTR-1" {
				t.Fatalf("drawer: %+v %v", d, err)
			}
			fee := DefaultParams().At(MustDate("2026-12-04")).ReturnedCheckFee
			booksRun(t, tx, KindReturnCheck, "treasurer", "2026-12-04T10:00", &ReturnCheck{ReturnID: "RC-1", BillID: "B-LTR-1", Receipt: res.Receipt.Number, FeeBillID: "B-FEE-1"})
			wantBalances(t, balances(t, tx, "2026-12-04"), map[string]string{"GF-112": "0.00", "GF-121": MustMoney("45.00").Add(fee).String(), "44100": "45.00"})
			if fb := tx.bill(t, "B-FEE-1"); fb.Account != "300001" {
				t.Fatalf("the returned check fee is billed to %s", fb.Account)
			}
		})
	}
}

// TestOfficeStatusLetterRefusals (§5.11): bad input is refused with a
// sentence saying what is wrong, and nothing is written.
func TestOfficeStatusLetterRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*OfficeStatusLetter)
		want string
	}{
		{"bad e-mail", func(in *OfficeStatusLetter) { in.Email = "closings at badger" }, "not an e-mail address"},
		{"e-mail delivery without address", func(in *OfficeStatusLetter) { in.Email = "" }, "e-mail address is required"},
		{"mailed without address", func(in *OfficeStatusLetter) { in.Delivery = DeliverMail }, "mailing address is required"},
		{"unknown delivery", func(in *OfficeStatusLetter) { in.Delivery = "pigeon" }, "e-mailed, mailed or picked up"},
		{"unknown parcel", func(in *OfficeStatusLetter) { in.Parcel = "0601-999-9999" }, "no parcel"},
		{"tampered fee", func(in *OfficeStatusLetter) { in.Fee = MustMoney("0.01") }, "fee on 2026-12-03 is 45.00"},
		{"unknown account", func(in *OfficeStatusLetter) { in.Account = "999999" }, "no account"},
		{"account without parcel", func(in *OfficeStatusLetter) { in.Account = "300002" }, "holds no parcel"},
		{"check without drawer", func(in *OfficeStatusLetter) { in.Payment, in.Reference, in.DrawerID = PayCheck, "5512", "" }, "Open a drawer"},
		{"check without number", func(in *OfficeStatusLetter) { in.Payment, in.DrawerID = PayCheck, "D-1" }, "check number is required"},
		{"another's drawer", func(in *OfficeStatusLetter) { in.Payment, in.Reference, in.DrawerID = PayCheck, "5512", "D-2" }, "belongs to"},
		{"card without approval", func(in *OfficeStatusLetter) { in.Payment, in.Account, in.BillID = PayCard, "", "" }, "approval"},
		{"card billing an account", func(in *OfficeStatusLetter) { in.Payment, in.Reference = PayCard, "SIM-1" }, "names no drawer, account or bill"},
		{"cash", func(in *OfficeStatusLetter) { in.Payment = "cash" }, "paid by card or check"},
		{"no requester", func(in *OfficeStatusLetter) { in.Requester = " " }, "requester's name is required"},
	} {
		t.Run("§5.11/"+tc.name, func(t *testing.T) {
			tx := titleVillage(t)
			tx.accounts["300002"] = Account{Number: "300002", Name: "Parcel-less Title LLC"}
			booksRun(t, tx, KindDrawerOpen, "treasurer", "2026-12-03T08:05", &DrawerOpen{DrawerID: "D-2", Float: MustMoney("0.00")})
			before := tx.clone()
			in := titleRequest(PayAccount)
			tc.edit(in)
			c := staffCmd(KindOfficeStatusLetter, "clerk", "2026-12-03T10:00")
			c.Payload = in
			_, err := tryRun(tx, c)
			if err == nil || !strings.Contains(ErrorMessage(err), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
			if len(tx.records) != len(before.records) || len(tx.bills) != len(before.bills) || len(tx.receipts) != len(before.receipts) {
				t.Fatal("a refused request changed the ledger")
			}
		})
	}
}

// TestStatusLetterFormatGate: the office's requests are a kind of ledger
// format 7, which no node proposes on a format-6 ledger; a format-6
// ledger records a letter's delivery as picked up or e-mailed only, as it
// always did, and a kiosk request files the same record at both formats.
func TestStatusLetterFormatGate(t *testing.T) {
	if KindOfficeStatusLetter.Since() != DocumentsFormat {
		t.Fatalf("office_status_letter is of format %d", KindOfficeStatusLetter.Since())
	}
	kiosk := func(format int) (*staffTx, string) {
		tx := titleVillage(t)
		tx.format = format
		c := Command{ID: "kiosk-req-1", Kind: KindRequestStatusLetter, At: mustDT("2026-12-03T10:00"), Node: "hall-kiosk", Seq: 7001, Actor: "kiosk",
			Payload: &RequestStatusLetter{Parcel: "0601-141-2002", Requester: "Dana Buyer", Contact: "608-555-0100", Fee: MustMoney("45.00"), Tender: Card, Reference: "SIM-1"}}
		res, err := tryRun(tx, c)
		if err != nil {
			t.Fatal(err)
		}
		return tx, res.Receipt.Number
	}
	old, claim := kiosk(ReconciledFormat)
	now, claim7 := kiosk(DocumentsFormat)
	if string(old.records[StatusRequests+"/"+claim]) != string(now.records[StatusRequests+"/"+claim7]) {
		t.Fatalf("a kiosk request is filed differently at format 7:\n%s\n%s", old.records[StatusRequests+"/"+claim], now.records[StatusRequests+"/"+claim7])
	}
	for _, tc := range []struct {
		format int
		ok     bool
	}{{ReconciledFormat, false}, {DocumentsFormat, true}} {
		tx, claim := kiosk(tc.format)
		booksRun(t, tx, KindStatusLetter, "clerk", "2026-12-07T09:00", &StatusLetterWork{Op: "complete", Claim: claim, AsOf: MustDate("2026-12-07"),
			AssessmentChanges: "none", Deferred: "none", Improvements: "none", Floodplain: "none", Violations: "none"})
		c := staffCmd(KindStatusLetter, "clerk", "2026-12-07T10:00")
		c.Payload = &StatusLetterWork{Op: "deliver", Claim: claim, Delivery: DeliverMail, DeliveryNote: "to 1 Elm St"}
		_, err := tryRun(tx, c)
		if (err == nil) != tc.ok {
			t.Fatalf("format %d: a mailed letter: %v", tc.format, err)
		}
	}
}
