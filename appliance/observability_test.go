package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// syncBuffer is a log sink the node's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestReadyMetricsAndLogs: /readyz says the node takes payments; /metrics
// counts requests by route pattern and status and the refused sign-ins,
// and reports the backups; the JSON logs of a session with passwords,
// tokens and a card approval hold none of them.
func TestReadyMetricsAndLogs(t *testing.T) {
	logs := &syncBuffer{}
	logger, err := newLogger(logs, "json", "debug")
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain()
	m.Config.DataDir, m.Config.HTTPAddr, m.Config.StaffAddr = t.TempDir(), "127.0.0.1:0", "127.0.0.1:0"
	m.Config.Demo, m.Config.Terminal = true, "simulator"
	m.Config.Now = func() time.Time { return villageNow }
	m.Config.Logger = logger
	m.Config.Backup.Dir = t.TempDir() // no drive mounted there
	m.Config.MetricsAddr = "127.0.0.1:0"
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()

	var ready struct {
		Ready   bool     `json:"ready"`
		Reasons []string `json:"reasons"`
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !ready.Ready {
		t.Fatalf("readyz: %d %+v", resp.StatusCode, ready)
	}

	// A session with secrets: a temporary password, a wrong one, the
	// operator token, a card approval reference.
	out, code := userCLI(t, m, "add", "--username", "admin", "--name", "Village Administrator", "--role", "administrator")
	if code != 0 {
		t.Fatalf("user add: %s", out)
	}
	temp := tempPassword(t, out)
	c := newStaffClient(t, m)
	if p := c.login("admin", "Wrong-Password-4471"); p.status != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d", p.status)
	}
	if p := c.login("admin", temp); p.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.status)
	}
	const approval = "APPROVAL-7731-0042"
	cmd, err := m.Node.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B-2026-0101", Amount: domain.MustMoney("10.00"), Tender: domain.Card, Reference: approval}
	if _, err := m.Node.Submit(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/bills/B-2026-0101", "/bills/B-2026-0101", "/accounts/100101", "/no/such/page"} {
		if resp, err := http.Get(base + path); err == nil {
			resp.Body.Close()
		}
	}
	// A careless line later cannot leak either: the handler redacts.
	m.Config.Logger.Info("careless", "operator_token", m.operatorToken, "password", temp, "card_reference", approval)

	// A request is counted once its handler returns, which can be just
	// after the client has read the whole response: read until counted.
	wants := []string{
		`appliance_http_requests_total{listener="kiosk",node="hall-kiosk",route="GET /bills/{id}",status="200"} 2`,
		`appliance_http_requests_total{listener="kiosk",node="hall-kiosk",route="GET /accounts/{number}",status="200"} 1`,
		`appliance_http_requests_total{listener="kiosk",node="hall-kiosk",route="GET /readyz",status="200"} 1`,
		`appliance_http_requests_total{listener="kiosk",node="hall-kiosk",route="/",status="404"} 1`,
		`appliance_http_requests_total{listener="staff",node="hall-kiosk",route="POST /staff/login",status="401"} 1`,
		`appliance_signin_failures_total{node="hall-kiosk",reason="wrong"} 1`,
		`appliance_payments_total{node="hall-kiosk",tender="card"} 1`,
		`appliance_commands_total{kind="pay_bill",node="hall-kiosk",outcome="applied"} 1`,
		`appliance_backup_drive_mounted{node="hall-kiosk"} 0`,
		`appliance_backup_age_seconds{node="hall-kiosk"} -1`,
		`appliance_raft_commit_index{node="hall-kiosk"}`,
		`appliance_outbox_oldest_seconds{node="hall-kiosk"} 0`,
		`appliance_apply_seconds_count{node="hall-kiosk"}`,
	}
	var body []byte
	for deadline := time.Now().Add(5 * time.Second); ; {
		resp, err = http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		missing := slices.DeleteFunc(slices.Clone(wants), func(w string) bool { return bytes.Contains(body, []byte(w)) })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics lack %s", strings.Join(missing, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The metrics listener serves the same registry, and nothing else.
	resp, err = http.Get("http://" + m.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(again, []byte(`appliance_signin_failures_total{node="hall-kiosk",reason="wrong"} 1`)) {
		t.Fatal("the metrics listener serves other metrics")
	}
	for _, path := range []string{"/", "/bills/B-2026-0101", "/staff/login", "/admin/backup"} {
		if resp, err := http.Get("http://" + m.MetricsAddr() + path); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("the metrics listener serves %s: %v %v", path, resp.Status, err)
		} else {
			resp.Body.Close()
		}
	}

	all := logs.String()
	for _, secret := range []string{temp, "Wrong-Password-4471", m.operatorToken, approval} {
		if strings.Contains(all, secret) {
			t.Errorf("the logs hold a secret (%q)", secret)
		}
	}
	if !strings.Contains(all, `"operator_token":"[redacted]"`) || !strings.Contains(all, `"card_reference":"[redacted]"`) {
		t.Errorf("the careless line was not redacted:\n%s", all)
	}
	for _, line := range strings.Split(strings.TrimSpace(all), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("a log line is not JSON: %q", line)
		}
	}
}
