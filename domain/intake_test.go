package domain

import (
	"strings"
	"testing"
	"time"
)

// TestIntakeRules: the clock a node may date with, what it takes offline,
// and what a leader admits, as tables.
func TestIntakeRules(t *testing.T) {
	at := func(s string) DateTime {
		d, err := ParseDateTime(s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	clock := []struct {
		name string
		f    ClockFacts
		says string // "" when the clock may date commands
	}{
		{"a clock after everything", ClockFacts{Now: at("2026-05-01T10:00"), LastTaken: at("2026-05-01T09:00"), Latest: at("2026-05-01T09:59"), MaxSkew: 2 * time.Minute}, ""},
		{"within the skew of the ledger", ClockFacts{Now: at("2026-05-01T10:00"), Latest: at("2026-05-01T10:01"), MaxSkew: 2 * time.Minute}, ""},
		{"behind what it took", ClockFacts{Now: at("2026-05-01T10:00"), LastTaken: at("2026-05-01T10:05"), MaxSkew: 2 * time.Minute}, "earlier than a payment it already took"},
		{"behind the ledger", ClockFacts{Now: at("2026-05-01T10:00"), Latest: at("2026-05-01T10:03"), MaxSkew: 2 * time.Minute}, "earlier than the ledger's latest entry"},
		{"peers disagree", ClockFacts{Now: at("2026-05-01T10:00"), MaxSkew: 2 * time.Minute, PeersDiffer: "This node's clock differs from its peers' by 5m0s."}, "differs from its peers"},
	}
	for _, c := range clock {
		err := CheckClock(c.f)
		if (c.says == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.says)) {
			t.Errorf("clock %s: %v, want %q", c.name, err, c.says)
		}
	}
	card := func(kind Kind, amount string) Command {
		c := Command{ID: "x", Kind: kind, At: at("2026-05-01T10:00"), Node: "n1", Seq: 1}
		switch kind {
		case KindPayBill:
			c.Payload = &PayBill{BillID: "B", Amount: MustMoney(amount), Tender: Card}
		case KindNovemberRun:
			c.Payload = &NovemberStep{Op: "penalties", Year: 2026}
		}
		return c
	}
	off := OfflinePolicy{Kinds: Kinds, CardLimit: MustMoney("500.00")}
	if err := off.Check(card(KindPayBill, "500.00")); err != nil {
		t.Errorf("a card payment at the limit offline: %v", err)
	}
	if err := off.Check(card(KindPayBill, "500.01")); err == nil {
		t.Error("a card payment over the offline limit was taken")
	}
	if err := off.Check(card(KindNovemberRun, "")); err == nil {
		t.Error("the November run was taken offline")
	}
	now := at("2026-05-01T10:00")
	if err := CheckAdmission(Kinds, card(KindPayBill, "1.00"), NodeKiosk, now, 2*time.Minute); err != nil {
		t.Errorf("a kiosk payment: %v", err)
	}
	if err := CheckAdmission(Kinds, card(KindNovemberRun, ""), NodeKiosk, now, 2*time.Minute); err == nil || err.Code != EFORBIDDEN {
		t.Errorf("the November run from the kiosk: %v", err)
	}
	future := card(KindPayBill, "1.00")
	future.At = at("2026-05-01T10:03")
	if err := CheckAdmission(Kinds, future, NodeClerk, now, 2*time.Minute); err == nil {
		t.Error("a command dated three minutes ahead was admitted")
	}
}
