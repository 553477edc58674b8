package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// apiToken makes a staff account of role and an API token for it through
// the ledger (as /staff/users does), and returns the token.
func apiToken(t *testing.T, m *Main, username string, role domain.Role) string {
	t.Helper()
	submit := func(k domain.Kind, fill func(*domain.Command)) {
		t.Helper()
		cmd, err := m.Node.NewCommand(k, "operator")
		if err != nil {
			t.Fatal(err)
		}
		fill(&cmd)
		if _, err := m.Node.Submit(context.Background(), cmd); err != nil {
			t.Fatal(err)
		}
	}
	submit(domain.KindStaffUser, func(c *domain.Command) {
		c.Payload = &domain.StaffUserChange{Op: domain.StaffAdd, Username: username, Name: "Test " + username, Role: role, PasswordHash: "$argon2id$unused"}
	})
	secret := strings.Repeat("s", 20) + username
	sum := sha256.Sum256([]byte(secret))
	id := "tok" + username
	submit(domain.KindAPIToken, func(c *domain.Command) {
		c.Payload = &domain.APITokenChange{Op: "issue", ID: id, Username: username, Label: "test", SecretHash: hex.EncodeToString(sum[:])}
	})
	return "vbt_" + id + "_" + secret
}

type apiAnswer struct {
	status int
	body   map[string]any
}

func apiPost(t *testing.T, m *Main, token, path string, body any) apiAnswer {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, "https://"+m.StaffAddr()+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: staffTransport(m)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	json.Unmarshal(raw, &out)
	return apiAnswer{resp.StatusCode, out}
}

// openBill returns an open demo bill.
func openBill(t *testing.T, m *Main) domain.Bill {
	t.Helper()
	bills, err := m.Node.BillsByAccount("100101")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bills {
		if len(b.Payments) == 0 {
			return b
		}
	}
	t.Fatal("no open demo bill")
	return domain.Bill{}
}

// TestAPIPaymentsKeepTheWindowsRules replays the probe's API payments: cash
// with no open drawer, and 999,999,999,999.99 on a demo bill, are refused
// and change nothing; the same command id with another body is a
// conflict (409), not the first receipt; the same body again is the first
// receipt.
func TestAPIPaymentsKeepTheWindowsRules(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	tok := apiToken(t, m, "integrator", domain.RoleClerk)
	bill := openBill(t, m)
	pay := func(id, amount, tender string) apiAnswer {
		return apiPost(t, m, tok, "/api/v1/payments", map[string]string{"command_id": id, "bill_id": bill.ID, "amount": amount, "tender": tender, "reference": "R-1"})
	}
	if a := pay("cash-1", "10.00", "cash"); a.status != http.StatusConflict || !strings.Contains(a.body["error"].(string), "drawer") {
		t.Fatalf("cash with no open drawer: %d %v", a.status, a.body)
	}
	if a := pay("huge-1", "999999999999.99", "card"); a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body["error"].(string), "50000.00") {
		t.Fatalf("a huge payment: %d %v", a.status, a.body)
	}
	first := pay("card-1", "10.00", "card")
	if first.status != http.StatusOK {
		t.Fatalf("a card payment: %d %v", first.status, first.body)
	}
	if a := pay("card-1", "10.00", "card"); a.status != http.StatusOK || a.body["receipt"].(map[string]any)["number"] != first.body["receipt"].(map[string]any)["number"] {
		t.Fatalf("the same request again: %d %v", a.status, a.body)
	}
	if a := pay("card-1", "90.00", "card"); a.status != http.StatusConflict {
		t.Fatalf("the same command id with another amount: %d %v, want 409", a.status, a.body)
	}
	b, err := m.Node.Bill(bill.ID)
	if err != nil || len(b.Payments) != 1 || !b.Payments[0].Amount.Equal(domain.MustMoney("10.00")) {
		t.Fatalf("bill %s payments %+v, %v: want the one 10.00 card payment", bill.ID, b.Payments, err)
	}
}

// TestKioskListenerServesResidentsOnly: the kiosk's plain-HTTP listener
// (the public hallway's browser) serves no staff page, API or backup; a
// node started without --demo has no card simulator.
func TestKioskListenerServesResidentsOnly(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	for _, path := range []string{"/staff/", "/staff/login", "/api/v1/whoami", "/api/v1/cluster", "/admin/backup"} {
		resp, err := http.Get("http://" + m.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("kiosk listener %s: %s, want 404", path, resp.Status)
		}
	}
	resp, err := (&http.Client{Transport: staffTransport(m)}).Get("https://" + m.StaffAddr() + "/staff/login")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("staff sign-in over HTTPS: %v, %v", resp, err)
	}
	resp.Body.Close()

	bare := NewMain()
	bare.Config.DataDir, bare.Config.HTTPAddr, bare.Config.StaffAddr = t.TempDir(), "127.0.0.1:0", "127.0.0.1:0"
	bare.Config.Now = m.Config.Now
	bare.Config.Logger = m.Config.Logger
	if err := bare.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if bare.Terminal != nil {
		t.Fatal("a node started without --demo runs the card simulator")
	}
}

// TestKioskNodeServesNoStaffPages: a node whose certificate's role is
// kiosk serves no staff listener at all, whatever --https says.
func TestKioskNodeServesNoStaffPages(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.NewCA("Village of Belleville (test)", villageNow)
	if err != nil {
		t.Fatal(err)
	}
	ident, err := ca.Issue("hall-kiosk", pki.RoleKiosk, nil, villageNow)
	if err != nil {
		t.Fatal(err)
	}
	if err := pki.SaveIdentity(pkiDir(dir), ident); err != nil {
		t.Fatal(err)
	}
	if err := writeSettings(dir, nodeSettings{ID: "hall-kiosk", Peer: freeAddr(t), Bootstrap: true}); err != nil {
		t.Fatal(err)
	}
	m := NewMain()
	m.Config.DataDir, m.Config.HTTPAddr, m.Config.StaffAddr = dir, "127.0.0.1:0", "127.0.0.1:0"
	m.Config.Logger = startMainLogger()
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.StaffAddr() != "" {
		t.Fatalf("a kiosk node listens for staff pages on %s", m.StaffAddr())
	}
}

func startMainLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestParamsFileOnlySeedsANewLedger: the first start with --params seeds
// the ledger's parameters with the file's; a later start with another file
// is refused with the one thing to do, and a start without --params
// computes with the ledger's (the first file's) values.
func TestParamsFileOnlySeedsANewLedger(t *testing.T) {
	dir := t.TempDir()
	write := func(name, fee string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte("2026-09-01 status_letter "+fee+" test fee\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	start := func(file string) (*Main, error) {
		m := NewMain()
		m.Config.DataDir, m.Config.HTTPAddr, m.Config.StaffAddr = dir, "127.0.0.1:0", "off"
		m.Config.ParamsFile, m.Config.Now = file, func() time.Time { return villageNow }
		m.Config.Logger = startMainLogger()
		return m, m.Run(context.Background())
	}
	m, err := start(write("first.txt", "55.00"))
	if err != nil {
		t.Fatal(err)
	}
	waitSeeded(t, m)
	m.Close()
	if _, err := start(write("second.txt", "99.00")); err == nil || !strings.Contains(err.Error(), "only seeds a new cluster") {
		t.Fatalf("a second, different --params file: %v", err)
	}
	m, err = start("")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := m.Node.Params().At(domain.DateOf(villageNow)).StatusLetterFee.String(); got != "55.00" {
		t.Fatalf("the fee after restart without --params = %s, want the ledger's 55.00", got)
	}
}

func waitSeeded(t *testing.T, m *Main) {
	t.Helper()
	for range 200 {
		if m.Node.FSM().Seeded() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the ledger's parameters were not seeded")
}
