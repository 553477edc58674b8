package window_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
	"github.com/villagehall/appliance/kiosk/staff/window"
)

func TestAPIPaymentIsIdempotent(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	h.AddUser("processor", domain.RoleClerk, true)
	admin.Get("/staff/users")
	tok := admin.Post("/staff/users/processor/tokens", nil).Text("secret")
	pay := func(body string) (int, window.PaymentResponse, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, h.Srv.URL+"/api/v1/payments", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var raw json.RawMessage
		json.NewDecoder(resp.Body).Decode(&raw)
		var out window.PaymentResponse
		var e map[string]any
		json.Unmarshal(raw, &out)
		json.Unmarshal(raw, &e)
		return resp.StatusCode, out, e
	}
	body := `{"command_id":"proc-7731","bill_id":"B-2026-0101","amount":"42.37","tender":"card","reference":"APPROVAL-99"}`
	st, first, _ := pay(body)
	if st != http.StatusOK || first.Status != domain.Posted || first.Receipt.Balance.String() != "100.00" {
		t.Fatalf("first: %d %+v", st, first)
	}
	st, again, _ := pay(body)
	if st != http.StatusOK || again.Receipt.Number != first.Receipt.Number {
		t.Fatalf("retry: %d %+v, want the first receipt %s", st, again, first.Receipt.Number)
	}
	if b, _ := h.Ledger.Bill("B-2026-0101"); len(b.Payments) != 1 {
		t.Fatalf("the retry paid twice: %d payments", len(b.Payments))
	}
	for _, bad := range []string{
		`{"bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"x"}`,
		`{"command_id":"a","bill_id":"B-2026-0101","amount":"1.5.0","tender":"card","reference":"x"}`,
		`{"command_id":"a","bill_id":"B-2026-0101","amount":"1.00","tender":"bitcoin","reference":"x"}`,
		`{"command_id":"a","bill_id":"B-2026-0101","amount":"1.00","tender":"card"}`,
	} {
		if st, _, e := pay(bad); st != http.StatusUnprocessableEntity || e["code"] != "invalid" || e["error"] == "" {
			t.Errorf("%s: %d %v", bad, st, e)
		}
	}
	// A body that is not a payment request at all is a 400 (TestAPIStrictJSON).
	if st, _, e := pay(`{"command_id":"a","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"x","extra":1}`); st != http.StatusBadRequest || e["code"] != "malformed" {
		t.Errorf("unknown field: %d %v", st, e)
	}
	if st, _, e := pay(`{"command_id":"b","bill_id":"NOPE","amount":"1.00","tender":"card","reference":"APPROVAL-2"}`); st != http.StatusNotFound || e["code"] != "not_found" {
		t.Fatalf("unknown bill: %d %v", st, e)
	}
}
