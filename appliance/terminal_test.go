package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/kiosk/terminal/stripe/stripemock"
)

// stripeNode returns a node configured for Stripe Terminal against a
// stripe-mock, its key in a file of the given mode, and its log.
func stripeNode(t *testing.T, api, key string, mode os.FileMode) (*Main, *bytes.Buffer) {
	t.Helper()
	keyFile := filepath.Join(t.TempDir(), "stripe.key")
	if err := os.WriteFile(keyFile, []byte("key = \""+key+"\"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keyFile, mode); err != nil {
		t.Fatal(err)
	}
	logs := &bytes.Buffer{}
	m := NewMain()
	m.Config.DataDir = t.TempDir()
	m.Config.HTTPAddr, m.Config.StaffAddr = "127.0.0.1:0", "off"
	m.Config.Demo = true
	m.Config.Terminal = "stripe"
	m.Config.Stripe = stripeConfig{Reader: "tmr_FDOt2wlRZEdpd7", SecretFile: keyFile, Descriptor: "BELLEVILLE", MaxAmount: "5000.00", APIURL: api}
	m.Config.Now = func() time.Time { return villageNow }
	m.Config.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return m, logs
}

// TestStripeTerminalWiring: serve drives a Stripe Terminal reader from
// the configuration's [stripe] section, with the key from its secret file:
// against stripe-mock the kiosk offers card payments; with a key Stripe
// refuses it says card payments are unavailable; a key file others may
// read is refused at start; the key never reaches the log.
func TestStripeTerminalWiring(t *testing.T) {
	api := stripemock.Start(t)
	const key = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"

	t.Run("a key file others may read", func(t *testing.T) {
		m, _ := stripeNode(t, api, key, 0o644)
		err := m.Run(context.Background())
		if err == nil {
			m.Close()
			t.Fatal("started with a key file of mode 0644")
		}
		if !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), key) {
			t.Errorf("error %v", err)
		}
	})

	for _, tc := range []struct {
		name, key string
		offers    bool
	}{{"a good key", key, true}, {"a key Stripe refuses", "sk_nope", false}} {
		t.Run(tc.name, func(t *testing.T) {
			m, logs := stripeNode(t, api, tc.key, 0o600)
			if err := m.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if m.Terminal != nil {
				t.Error("a Stripe node runs the simulator")
			}
			resp, err := http.Get("http://" + m.Addr() + "/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			off := strings.Contains(string(body), `data-testid="card-off"`)
			if off == tc.offers {
				t.Errorf("start page offers cards %v, want %v", !off, tc.offers)
			}
			if strings.Contains(logs.String(), tc.key) {
				t.Error("the key is in the log")
			}
			if m.Node.Status().ID == "" {
				t.Error("no node")
			}
		})
	}
}
