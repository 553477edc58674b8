package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// metricName finds the metric names a PromQL expression uses.
var metricName = regexp.MustCompile(`\b((?:appliance|process|go)_[a-z0-9_]+)`)

// TestMonitoringQueriesNameExportedMetrics: every metric the Grafana
// dashboard and the alert rules query is one a node exports (a renamed
// metric would leave a panel empty and an alert silent), and the
// dashboard is JSON Grafana reads: panels with queries. promtool checks
// the rules' syntax and behaviour (make check-monitoring).
func TestMonitoringQueriesNameExportedMetrics(t *testing.T) {
	m := startMain(t, t.TempDir())
	defer m.Close()
	// One of each thing counted: a request, a payment, a refused sign-in.
	cmd, err := m.Node.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Payload = &domain.PayBill{BillID: "B-2026-0101", Amount: domain.MustMoney("1.00"), Tender: domain.Card, Reference: "SIM-1"}
	if _, err := m.Node.Submit(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	newStaffClient(t, m).login("nobody", "not-a-password-at-all")
	resp, err := http.Get("http://" + m.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	exported := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			f := strings.Fields(rest)
			exported[f[0]] = true
			if f[1] == "histogram" {
				for _, s := range []string{"_bucket", "_sum", "_count"} {
					exported[f[0]+s] = true
				}
			}
		}
	}

	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	raw, err := os.ReadFile("../firmware-config/monitoring/dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &dash); err != nil || dash.Title == "" || len(dash.Panels) < 10 {
		t.Fatalf("dashboard: %v, %d panels", err, len(dash.Panels))
	}
	var exprs []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	rules, err := os.ReadFile("../firmware-config/monitoring/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	alerts := 0
	for _, line := range strings.Split(string(rules), "\n") {
		if e, ok := strings.CutPrefix(strings.TrimSpace(line), "expr: "); ok {
			exprs = append(exprs, e)
		}
		if strings.Contains(line, "- alert: ") {
			alerts++
		}
	}
	if alerts < 8 {
		t.Fatalf("%d alerts", alerts)
	}
	for _, e := range exprs {
		for _, name := range metricName.FindAllString(e, -1) {
			if !exported[name] {
				t.Errorf("%q queries %s, which the node does not export", e, name)
			}
		}
	}
}
