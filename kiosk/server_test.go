package kiosk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// plainTerminal is a terminal whose outcomes cannot be chosen.
type plainTerminal struct{}

func (plainTerminal) Charge(context.Context, string, domain.Money) (terminal.Approval, error) {
	return terminal.Approval{}, terminal.ErrDeclined
}

func (plainTerminal) Refund(context.Context, terminal.RefundRequest) (terminal.Refund, error) {
	return terminal.Refund{}, terminal.ErrUnavailable
}

func (plainTerminal) Cancel(context.Context, string) error { return nil }

func (plainTerminal) Capabilities() terminal.Capabilities { return terminal.Capabilities{} }

func TestNewChecksConfig(t *testing.T) {
	l := seededLedger()
	ok := kiosk.Config{Ledger: l, Terminal: terminal.NewSimulator(), Secret: testSecret, Location: chicago}
	for _, tc := range []struct {
		name   string
		change func(*kiosk.Config)
		want   string
	}{
		{"no ledger", func(c *kiosk.Config) { c.Ledger = nil }, "no ledger"},
		{"simulator panel without a terminal", func(c *kiosk.Config) { c.Terminal = nil; c.Simulator = true }, "simulator"},
		{"simulator panel with a nil simulator", func(c *kiosk.Config) { c.Terminal = (*terminal.Simulator)(nil); c.Simulator = true }, "simulator"},
		{"short secret", func(c *kiosk.Config) { c.Secret = []byte("short") }, "32 bytes"},
		{"simulator panel without a simulator", func(c *kiosk.Config) { c.Terminal = plainTerminal{}; c.Simulator = true }, "simulator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			if _, err := kiosk.New(c); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
	// Defaults: the clock, the village's zone, a quiet logger.
	s, err := kiosk.New(kiosk.Config{Ledger: l, Terminal: plainTerminal{}, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("status %d", rec.Code)
	}
	// No terminal is a kiosk that takes no cards, whether the terminal is
	// left out or is a nil pointer.
	for _, term := range []terminal.Terminal{nil, (*terminal.Simulator)(nil)} {
		s, err := kiosk.New(kiosk.Config{Ledger: l, Terminal: term, Secret: testSecret, Location: chicago})
		if err != nil {
			t.Fatalf("terminal %#v: %v", term, err)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `data-testid="card-off"`) {
			t.Errorf("terminal %#v: status %d, no card-off notice on the start screen", term, rec.Code)
		}
	}
}
