package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestDemoAtAChosenDate: `serve --demo --today 2027-01-15` runs the demo
// node's clock from that day (the demo's ledger is dated then, and the
// clock advances), the flag is refused without --demo, and a restart on
// the same folder says the demo data is already there instead of saying
// it loaded it again.
func TestDemoAtAChosenDate(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--data", dir, "--http", "127.0.0.1:0", "--https", "127.0.0.1:0", "--demo", "--today", "2027-01-15"}
	start := func(args []string) (*Main, *syncBuffer, error) {
		t.Helper()
		cfg, err := parseServe(args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		m := NewMain()
		log := &syncBuffer{}
		cfg.Logger = slog.New(slog.NewTextHandler(log, nil))
		m.Config = cfg
		return m, log, m.Run(context.Background())
	}

	if _, _, err := start([]string{"--data", t.TempDir(), "--http", "127.0.0.1:0", "--https", "off", "--today", "2027-01-15"}); err == nil || !strings.Contains(err.Error(), "only a demo node runs at a chosen date") {
		t.Fatalf("--today without --demo: %v", err)
	}
	if _, _, err := start([]string{"--data", t.TempDir(), "--http", "127.0.0.1:0", "--https", "off", "--demo", "--today", "2027-15-01"}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Fatalf("--today with a bad day: %v", err)
	}

	m, log, err := start(args)
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(Village)
	if day := domain.DateOf(m.Config.Now().In(loc)); day != domain.MustDate("2027-01-15") {
		t.Errorf("the node's clock reads %s", day)
	}
	first := m.Config.Now()
	time.Sleep(20 * time.Millisecond)
	if !m.Config.Now().After(first) {
		t.Error("the demo's clock does not advance")
	}
	if latest := m.Node.FSM().Latest(); latest.Date != domain.MustDate("2027-01-15") {
		t.Errorf("the demo's ledger is dated %s, want 2027-01-15", latest.Date)
	}
	if !strings.Contains(log.String(), "demo data loaded") {
		t.Errorf("the first start does not say it loaded the demo: %s", log.String())
	}
	m.Close()

	m, log, err = start(args)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if out := log.String(); strings.Contains(out, "demo data loaded") || !strings.Contains(out, "demo data already in the ledger") {
		t.Errorf("a restart on the demo's folder says: %s", out)
	}
}
