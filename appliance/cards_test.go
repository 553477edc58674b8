package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestCardCSVOfAPIPaymentsOnARealNode: card payments posted through the
// API at once, as a card processor posts them (the node appends those that
// arrive together as group entries), each appear once, with their amount,
// in the day's reconciliation CSV the treasurer downloads, read from the
// node's card index, and the expected deposit is what the lines add up to:
// on a node whose terminal keeps a statement (the whole day's receipts
// are read) and on one without a terminal (the day is streamed from the
// head of each index entry).
func TestCardCSVOfAPIPaymentsOnARealNode(t *testing.T) {
	for _, term := range []string{"simulator", "none"} {
		t.Run(term, func(t *testing.T) {
			m := NewMain()
			m.Config.DataDir = t.TempDir()
			m.Config.HTTPAddr, m.Config.StaffAddr = "127.0.0.1:0", "127.0.0.1:0"
			m.Config.Demo, m.Config.Terminal = true, term
			m.Config.Now = func() time.Time { return villageNow }
			m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			// The test wants each payment's answer from the ledger, which
			// a loaded machine may take longer than the default to give.
			m.Config.SubmitWait = 30 * time.Second
			if err := m.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			checkCardCSV(t, m)
		})
	}
}

// checkCardCSV posts card payments through m's API and checks the day's
// reconciliation CSV.
func checkCardCSV(t *testing.T, m *Main) {
	tok := apiToken(t, m, "processor", domain.RoleClerk)
	bill := openBill(t, m)
	client := &http.Client{Transport: staffTransport(m)}
	const payments = 24
	type posted struct {
		number, amount, at string
		err                error
	}
	got := make([]posted, payments)
	var wg sync.WaitGroup
	for i := range payments {
		wg.Go(func() {
			amount := fmt.Sprintf("0.%02d", i+1)
			body, _ := json.Marshal(map[string]string{"command_id": fmt.Sprintf("csv-%02d", i), "bill_id": bill.ID, "amount": amount, "tender": "card", "reference": fmt.Sprintf("ch_%02d", i)})
			req, _ := http.NewRequest(http.MethodPost, "https://"+m.StaffAddr()+"/api/v1/payments", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				got[i].err = err
				return
			}
			defer resp.Body.Close()
			var out struct {
				Receipt struct {
					Number string `json:"number"`
					At     string `json:"at"`
					Amount string `json:"amount"`
					Status string `json:"status"`
				} `json:"receipt"`
			}
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &out) != nil || out.Receipt.Number == "" {
				got[i].err = fmt.Errorf("payment %d: %d %s", i, resp.StatusCode, raw)
				return
			}
			if out.Receipt.Status == string(domain.Provisional) {
				got[i].err = fmt.Errorf("payment %d: provisional receipt %s", i, out.Receipt.Number)
				return
			}
			got[i] = posted{number: out.Receipt.Number, amount: amount, at: out.Receipt.At}
		})
	}
	wg.Wait()
	for _, p := range got {
		if p.err != nil {
			t.Fatal(p.err)
		}
	}
	day := got[0].at[:len("2006-01-02")]

	out, code := userCLI(t, m, "add", "--username", "treas", "--name", "Pat Treasurer", "--role", "treasurer")
	if code != 0 {
		t.Fatalf("user add: %s", out)
	}
	c := newStaffClient(t, m)
	temp := tempPassword(t, out)
	c.login("treas", temp)
	c.get("/staff/password")
	c.post("/staff/password", url.Values{"current": {temp}, "new": {"a long office password"}, "again": {"a long office password"}})
	resp, err := c.c.Get(c.base + "/staff/cards.csv?day=" + day)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("cards.csv?day=%s: %d %s\n%s", day, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v\n%s", err, raw)
	}
	lines := map[string]string{} // receipt number → its amount in the CSV
	sum, expected := domain.Cents(0), ""
	for _, r := range rows[1:] {
		if len(r) != 10 {
			t.Fatalf("a line of %d cells: %q", len(r), r)
		}
		switch {
		case r[5] == "expected_deposit":
			expected = r[6]
		case r[2] != "":
			if _, twice := lines[r[2]]; twice {
				t.Fatalf("receipt %s listed twice:\n%s", r[2], raw)
			}
			lines[r[2]] = r[3]
			amount, err := domain.ParseMoney(r[3])
			if err != nil {
				t.Fatalf("receipt %s: amount %q: %v", r[2], r[3], err)
			}
			sum = sum.Add(amount)
		}
	}
	for _, p := range got {
		if a, ok := lines[p.number]; !ok || a != p.amount {
			t.Errorf("receipt %s (%s) is in the CSV as %q (listed: %v)", p.number, p.amount, a, ok)
		}
	}
	if expected != sum.String() {
		t.Errorf("expected deposit %q; the receipts listed add up to %s", expected, sum)
	}
}
