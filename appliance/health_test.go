package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHealthAndMetrics checks what the engineer on call reads: /healthz
// names the node, its raft state and applied index; /metrics exposes the
// ledger's gauges for Prometheus.
func TestHealthAndMetrics(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	base := "http://" + m.Addr()

	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Node        string `json:"node"`
		State       string `json:"raft_state"`
		Applied     uint64 `json:"applied_index"`
		Consistency struct {
			Level string `json:"level"`
		} `json:"consistency"`
	}
	err = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if err != nil || h.Node != "hall-kiosk" || h.State != "Leader" || h.Applied == 0 || h.Consistency.Level != "current" {
		t.Fatalf("healthz: %+v, %v", h, err)
	}

	resp, err = http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`appliance_raft_state{node="hall-kiosk",state="Leader"} 1`,
		`appliance_applied_index{node="hall-kiosk"}`,
		`appliance_outbox_pending{node="hall-kiosk"} 0`,
		`appliance_clock_trusted{node="hall-kiosk"} 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	// The backup stream holds every password hash: never on the kiosk's
	// listener, and on the staff listener only with the operator token.
	if resp, err := http.Get(base + "/admin/backup"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("backup on the kiosk's listener: %v, %v", resp, err)
	}
	staff := &http.Client{Transport: staffTransport(m)}
	resp, err = staff.Get("https://" + m.StaffAddr() + "/admin/backup")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("backup without the operator token: %v, %v", resp, err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodGet, "https://"+m.StaffAddr()+"/admin/backup", nil)
	req.Header.Set("Authorization", "Bearer "+m.operatorToken)
	resp, err = staff.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(snap), "VHSNAP2\n") {
		t.Fatalf("backup with the operator token: %s, %d bytes", resp.Status, len(snap))
	}
	if got := resp.Header.Get("Strict-Transport-Security"); got == "" {
		t.Error("the staff listener sends no HSTS header")
	}
}
