package stripe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
	"github.com/villagehall/appliance/kiosk/terminal/stripe"
	"github.com/villagehall/appliance/kiosk/terminal/stripe/stripemock"
)

// call is one request the driver made, as it reached stripe-mock.
type call struct {
	method, path, idem string
	form               url.Values
}

// transport carries the driver's requests to stripe-mock and records them.
// stripe-mock validates every request against Stripe's API and answers
// with canned objects: a PaymentIntent that stays requires_payment_method
// and a reader whose last action is someone else's. Where a test needs an
// outcome those canned answers cannot express (an approval, a decline, an
// unknown reader, a garbled answer), its rewrite changes stripe-mock's
// answer on the way back, and the test says so.
type transport struct {
	base    http.RoundTripper
	mu      sync.Mutex
	calls   []call
	rewrite func(c call, status int, body map[string]any) (int, map[string]any, []byte)
	// hold, when set, runs before a request goes out; an error is the
	// request's (a network that does not answer, say).
	hold func(req *http.Request, c call) error
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := call{method: req.Method, path: req.URL.Path, idem: req.Header.Get("Idempotency-Key")}
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(b))
		c.form, _ = url.ParseQuery(string(b))
	}
	tr.mu.Lock()
	tr.calls = append(tr.calls, c)
	rw, hold := tr.rewrite, tr.hold
	tr.mu.Unlock()
	if hold != nil {
		if err := hold(req, c); err != nil {
			return nil, err
		}
	}
	resp, err := tr.base.RoundTrip(req)
	if err != nil || rw == nil {
		return resp, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	status, body, garbled := rw(c, resp.StatusCode, body)
	if garbled == nil {
		garbled, _ = json.Marshal(body)
	}
	resp.StatusCode, resp.Body, resp.ContentLength = status, io.NopCloser(bytes.NewReader(garbled)), int64(len(garbled))
	resp.Header.Del("Content-Length")
	return resp, nil
}

func (tr *transport) made(method, path string) []call {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []call
	for _, c := range tr.calls {
		if c.method == method && (c.path == path || strings.HasSuffix(path, "*") && strings.HasPrefix(c.path, strings.TrimSuffix(path, "*"))) {
			out = append(out, c)
		}
	}
	return out
}

func (tr *transport) setRewrite(fn func(c call, status int, body map[string]any) (int, map[string]any, []byte)) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.rewrite = fn
}

const reader = "tmr_FDOt2wlRZEdpd7"

// newDriver returns a driver pointed at a stripe-mock of this test.
func newDriver(t *testing.T, mod func(*stripe.Config)) (*stripe.Driver, *transport) {
	t.Helper()
	base := stripemock.Start(t)
	tr := &transport{base: http.DefaultTransport}
	cfg := stripe.Config{Key: "sk_test_village", Reader: reader, Descriptor: "BELLEVILLE", URL: base,
		HTTPClient: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Poll: 5 * time.Millisecond, Deadline: 5 * time.Second,
		MaxAmount: domain.MustMoney("5000.00")}
	if mod != nil {
		mod(&cfg)
	}
	d, err := stripe.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d, tr
}

// handedOver reports whether the payment was handed to the reader (so a
// rewrite answers an outcome only once the resident could have tapped).
func handedOver(tr *transport) bool {
	return len(tr.made("POST", "/v1/terminal/readers/"+reader+"/process_payment_intent")) > 0
}

var amount = domain.MustMoney("10.50")

func TestChargeApproved(t *testing.T) {
	d, tr := newDriver(t, nil)
	// stripe-mock's PaymentIntent never succeeds: once the payment is
	// with the reader, this rewrite answers it as a real reader's tap
	// would leave it.
	tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
		if c.method == "GET" && strings.HasPrefix(c.path, "/v1/payment_intents/") && handedOver(tr) {
			body["status"], body["amount_received"], body["last_payment_error"] = "succeeded", 1050, nil
		}
		return status, body, nil
	})
	a, err := d.Charge(context.Background(), "cmd-approve", amount)
	if err != nil {
		t.Fatal(err)
	}
	if a.Key != "cmd-approve" || !strings.HasPrefix(a.Reference, "pi_") || !a.Amount.Equal(amount) {
		t.Errorf("approval %+v", a)
	}
	// stripe-mock expands the latest charge as a card charge (brand visa,
	// last4 4242) when asked to (expand[]=latest_charge; unexpanded it is an
	// id): the approval names them for the receipt.
	if a.Card == nil || a.Card.Brand != "visa" || a.Card.Last4 != "4242" {
		t.Errorf("approval card %+v, want visa 4242 from stripe-mock's latest charge", a.Card)
	}
	create := tr.made("POST", "/v1/payment_intents")
	if len(create) != 1 {
		t.Fatalf("%d creates", len(create))
	}
	f := create[0].form
	if f.Get("amount") != "1050" || f.Get("currency") != "usd" || f.Get("payment_method_types[0]") != "card_present" ||
		f.Get("metadata[command_id]") != "cmd-approve" || f.Get("statement_descriptor_suffix") != "BELLEVILLE" || create[0].idem != "cmd-approve" {
		t.Errorf("create %v, idempotency key %q", f, create[0].idem)
	}
	if p := tr.made("POST", "/v1/terminal/readers/"+reader+"/process_payment_intent"); len(p) != 1 || p[0].form.Get("payment_intent") != a.Reference {
		t.Errorf("process_payment_intent calls %+v", p)
	}
	if len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action")) != 0 {
		t.Error("an approved charge cancelled the reader's action")
	}
}

func TestChargeDeclinedWithTheReason(t *testing.T) {
	d, tr := newDriver(t, nil)
	// stripe-mock cannot decline a card: this rewrite answers the reader
	// as a real one reports a declined tap on our payment.
	tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
		if c.method == "GET" && c.path == "/v1/terminal/readers/"+reader && handedOver(tr) {
			pi := tr.made("POST", "/v1/terminal/readers/"+reader+"/process_payment_intent")[0].form.Get("payment_intent")
			body["action"] = map[string]any{"type": "process_payment_intent", "status": "failed", "failure_code": "card_declined",
				"failure_message": "The card has insufficient funds.", "process_payment_intent": map[string]any{"payment_intent": pi}}
		}
		return status, body, nil
	})
	_, err := d.Charge(context.Background(), "cmd-decline", amount)
	if !errors.Is(err, terminal.ErrDeclined) || terminal.DeclineReason(err) != "The card has insufficient funds." {
		t.Fatalf("err %v, reason %q", err, terminal.DeclineReason(err))
	}
}

func TestChargeTimesOutAndCancelsTheReader(t *testing.T) {
	// stripe-mock's payment never settles, as when nobody taps a card.
	d, tr := newDriver(t, func(c *stripe.Config) { c.Deadline = 100 * time.Millisecond })
	_, err := d.Charge(context.Background(), "cmd-timeout", amount)
	if !errors.Is(err, terminal.ErrTimeout) {
		t.Fatalf("err %v", err)
	}
	if len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action")) != 1 {
		t.Errorf("after the deadline: cancel_action %d", len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action")))
	}
	// Pay again with the same key: the same payment goes to the reader
	// again, and this time the card is tapped (rewritten: stripe-mock's
	// payment never succeeds).
	tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
		if c.method == "GET" && strings.HasPrefix(c.path, "/v1/payment_intents/") && len(tr.made("POST", "/v1/terminal/readers/"+reader+"/process_payment_intent")) == 2 {
			body["status"], body["amount_received"], body["last_payment_error"] = "succeeded", 1050, nil
		}
		return status, body, nil
	})
	a, err := d.Charge(context.Background(), "cmd-timeout", amount)
	if err != nil || !strings.HasPrefix(a.Reference, "pi_") {
		t.Fatalf("the retry: %+v, %v", a, err)
	}
	// Stripe answers the second create with the first payment (the same
	// idempotency key); stripe-mock keeps no state and makes a new id, so
	// the key is what the test checks.
	if c := tr.made("POST", "/v1/payment_intents"); len(c) != 2 || c[1].idem != "cmd-timeout" {
		t.Errorf("creates %+v: the retry must carry the same idempotency key", c)
	}
}

// TestDeclineThenRetry: after a decline the same key tries again; the
// payment still carries the first attempt's card error, which is not
// read as the second attempt's.
func TestDeclineThenRetry(t *testing.T) {
	d, tr := newDriver(t, nil)
	processed := func() int { return len(tr.made("POST", "/v1/terminal/readers/"+reader+"/process_payment_intent")) }
	// Rewritten: the first attempt is declined (the payment keeps the
	// card error); the second, after its first read, succeeds.
	reads := 0
	tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
		if c.method != "GET" || !strings.HasPrefix(c.path, "/v1/payment_intents/") || processed() == 0 {
			return status, body, nil
		}
		body["last_payment_error"] = map[string]any{"type": "card_error", "code": "card_declined", "decline_code": "insufficient_funds", "charge": "ch_first", "message": "The card has insufficient funds."}
		if processed() == 2 {
			reads++
			if reads > 1 {
				body["status"], body["amount_received"], body["last_payment_error"] = "succeeded", 1050, nil
			}
		}
		return status, body, nil
	})
	if _, err := d.Charge(context.Background(), "cmd-retry", amount); !errors.Is(err, terminal.ErrDeclined) {
		t.Fatalf("first attempt: %v", err)
	}
	if a, err := d.Charge(context.Background(), "cmd-retry", amount); err != nil || a.Reference == "" {
		t.Fatalf("the retry after a decline: %+v, %v", a, err)
	}
}

func TestChargeApprovedAtTheLastMoment(t *testing.T) {
	d, tr := newDriver(t, func(c *stripe.Config) { c.Deadline = 100 * time.Millisecond })
	// The tap lands as the wait ends: stripe-mock's payment is answered as
	// succeeded once the reader's action was cancelled (rewritten).
	tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
		if c.method == "GET" && strings.HasPrefix(c.path, "/v1/payment_intents/") && len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action")) > 0 {
			body["status"], body["amount_received"], body["last_payment_error"] = "succeeded", 1050, nil
		}
		return status, body, nil
	})
	a, err := d.Charge(context.Background(), "cmd-late", amount)
	if err != nil || a.Reference == "" {
		t.Fatalf("a card charged as the wait ended: %+v, %v", a, err)
	}
}

func TestResidentWalksAway(t *testing.T) {
	d, tr := newDriver(t, func(c *stripe.Config) { c.Deadline = time.Minute })
	for _, how := range []string{"context", "Cancel"} {
		t.Run(how, func(t *testing.T) {
			before := len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action"))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			key := "cmd-away-" + how
			errc := make(chan error, 1)
			go func() {
				_, err := d.Charge(ctx, key, amount)
				errc <- err
			}()
			// Walk away once the payment is with the reader.
			tick := time.NewTicker(5 * time.Millisecond)
			defer tick.Stop()
			for len(tr.made("POST", "/v1/terminal/readers/"+reader+"/process_payment_intent")) == 0 || !d.Waiting(key) {
				<-tick.C
			}
			if how == "context" {
				cancel()
			} else if err := d.Cancel(context.Background(), key); err != nil {
				t.Fatal(err)
			}
			if err := <-errc; !errors.Is(err, terminal.ErrCancelled) {
				t.Fatalf("err %v", err)
			}
			if n := len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action")); n != before+1 {
				t.Errorf("reader's action cancelled %d times", n-before)
			}
			tr.mu.Lock()
			tr.calls = nil
			tr.mu.Unlock()
		})
	}
}

// TestResidentWalksAwayDuringTheHandover: the resident leaves while the
// payment is being handed to the reader (the request is out, no answer
// yet). That is a walk-away like any other: the reader's action is
// cancelled, since it may have the payment, and the charge ends as
// cancelled, not as "card payments unavailable" for everyone. The test's
// transport holds the handover until the charge's context ends.
func TestResidentWalksAwayDuringTheHandover(t *testing.T) {
	d, tr := newDriver(t, func(c *stripe.Config) { c.Deadline = time.Minute })
	handing := make(chan struct{})
	tr.mu.Lock()
	tr.hold = func(req *http.Request, c call) error {
		if c.method == "POST" && strings.HasSuffix(c.path, "/process_payment_intent") {
			close(handing)
			<-req.Context().Done()
			return req.Context().Err()
		}
		return nil
	}
	tr.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := d.Charge(ctx, "cmd-away-handover", amount)
		errc <- err
	}()
	<-handing
	cancel()
	if err := <-errc; !errors.Is(err, terminal.ErrCancelled) {
		t.Fatalf("err %v, want cancelled", err)
	}
	if n := len(tr.made("POST", "/v1/terminal/readers/"+reader+"/cancel_action")); n != 1 {
		t.Errorf("reader's action cancelled %d times, want once", n)
	}
}

func TestRefund(t *testing.T) {
	d, tr := newDriver(t, nil)
	r, err := d.Refund(context.Background(), terminal.RefundRequest{Key: "cmd-refund", ChargeKey: "cmd-approve", Reference: "pi_3MtwBwLkdIwHu7ix28a3tqPa", Amount: domain.MustMoney("4.25"), Reason: "ledger refused"})
	if err != nil || !strings.HasPrefix(r.Reference, "re_") || !r.Amount.Equal(domain.MustMoney("4.25")) {
		t.Fatalf("refund %+v, %v", r, err)
	}
	c := tr.made("POST", "/v1/refunds")
	if len(c) != 1 || c[0].form.Get("payment_intent") != "pi_3MtwBwLkdIwHu7ix28a3tqPa" || c[0].form.Get("amount") != "425" ||
		c[0].form.Get("metadata[command_id]") != "cmd-refund" || c[0].idem != "refund-cmd-refund" {
		t.Errorf("refund request %+v", c)
	}
	if _, err := d.Refund(context.Background(), terminal.RefundRequest{Key: "x", Reference: "SIM000001", Amount: amount}); err == nil {
		t.Error("a refund of a reference that is not a payment intent")
	}
}

func TestUnavailable(t *testing.T) {
	cases := []struct {
		name    string
		mod     func(*stripe.Config)
		rewrite func(c call, status int, body map[string]any) (int, map[string]any, []byte)
		amount  domain.Money
		calls   bool // whether any request may reach Stripe
	}{
		// stripe-mock itself refuses a key that does not look like one.
		{name: "wrong key", mod: func(c *stripe.Config) { c.Key = "not-a-key" }, amount: amount, calls: true},
		// stripe-mock answers any reader id; a real account answers 404
		// resource_missing for one it does not have (rewritten).
		{name: "unknown reader", mod: func(c *stripe.Config) { c.Reader = "tmr_unknown" }, amount: amount, calls: true,
			rewrite: func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
				if strings.HasPrefix(c.path, "/v1/terminal/readers/tmr_unknown") {
					return 404, map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": "resource_missing", "message": "No such terminal.reader: 'tmr_unknown'"}}, nil
				}
				return status, body, nil
			}},
		// An answer that is not JSON (a proxy's error page), rewritten.
		{name: "unparseable answer", amount: amount, calls: true,
			rewrite: func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
				return 200, nil, []byte("<html>502 Bad Gateway</html>")
			}},
		{name: "network failure", mod: func(c *stripe.Config) { c.URL = closedURL(t) }, amount: amount, calls: true},
		{name: "zero amount", amount: domain.MustMoney("0.00")},
		{name: "over the single-payment limit", amount: domain.MustMoney("5000.01")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, tr := newDriver(t, tc.mod)
			tr.setRewrite(tc.rewrite)
			_, err := d.Charge(context.Background(), "cmd-"+strings.ReplaceAll(tc.name, " ", "-"), tc.amount)
			if !errors.Is(err, terminal.ErrUnavailable) {
				t.Fatalf("charge: %v", err)
			}
			if errors.Is(err, terminal.ErrDeclined) || errors.Is(err, terminal.ErrTimeout) {
				t.Errorf("charge: %v is also another outcome", err)
			}
			if n := len(tr.made("POST", "/v1/terminal/readers/*")); n != 0 && tc.name != "unknown reader" {
				t.Errorf("%d reader actions after a failure", n)
			}
			if !tc.calls && len(tr.calls) != 0 {
				t.Errorf("%d requests reached Stripe for an amount of %s", len(tr.calls), tc.amount)
			}
			if tc.calls {
				if err := d.Check(context.Background()); !errors.Is(err, terminal.ErrUnavailable) {
					t.Errorf("check: %v", err)
				}
			}
			if strings.Contains(err.Error(), "sk_test_village") || strings.Contains(err.Error(), "not-a-key") {
				t.Errorf("the error names the key: %v", err)
			}
		})
	}
	t.Run("check with a good key", func(t *testing.T) {
		d, _ := newDriver(t, nil)
		if err := d.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// closedURL is the address of a port nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

func TestTransactions(t *testing.T) {
	d, tr := newDriver(t, nil)
	// stripe-mock lists one canned charge whose expanded source is not a
	// charge of ours; the rewrite makes it the charge a real account lists,
	// with the command id in its metadata, and adds a refund.
	tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
		if c.path != "/v1/balance_transactions" {
			return status, body, nil
		}
		data := body["data"].([]any)
		ch := data[0].(map[string]any)
		ch["source"] = map[string]any{"id": "ch_1", "object": "charge", "metadata": map[string]any{"command_id": "cmd-1"}}
		data = append(data, map[string]any{"id": "txn_refund", "object": "balance_transaction", "type": "refund", "amount": -40, "fee": 0, "net": -40, "created": 1234567891,
			"source": map[string]any{"id": "re_1", "object": "refund", "metadata": map[string]any{"command_id": "cmd-2"}}})
		body["data"] = data
		return status, body, nil
	})
	from, to := time.Unix(1234500000, 0), time.Unix(1234600000, 0)
	txns, err := d.Transactions(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(txns) != 2 || txns[0].CommandID != "cmd-1" || txns[0].Type != "charge" || !txns[0].Amount.Equal(domain.MustMoney("1.00")) ||
		txns[1].CommandID != "cmd-2" || !txns[1].Net.Equal(domain.MustMoney("-0.40")) {
		t.Errorf("transactions %+v", txns)
	}
	c := tr.made("GET", "/v1/balance_transactions")
	if len(c) != 1 {
		t.Fatalf("%d list calls", len(c))
	}
}

// TestChargeApprovedNamesTheCard: the approval carries the brand and last
// four digits of the card from the payment's latest charge, as a reader's
// tap leaves it (payment_method_details.card_present, rewritten: stripe-mock
// answers a card-not-present charge), and nothing when Stripe gives no
// charge details or gives what is not a brand and four digits; the
// approval stands either way.
func TestChargeApprovedNamesTheCard(t *testing.T) {
	for _, row := range []struct {
		name    string
		charge  any // the latest_charge the rewrite answers; nil leaves stripe-mock's
		replace bool
		want    string // the card as a receipt prints it; "" for none
	}{
		{"stripe-mock's charge", nil, false, "Visa •••• 4242"},
		{"a tap at the reader", map[string]any{"id": "ch_1", "object": "charge", "payment_method_details": map[string]any{"type": "card_present",
			"card_present": map[string]any{"brand": "mastercard", "last4": "0005", "exp_month": 12, "exp_year": 2029, "fingerprint": "fp_x"}}}, true, "Mastercard •••• 0005"},
		{"an Interac debit card", map[string]any{"id": "ch_2", "object": "charge", "payment_method_details": map[string]any{"type": "interac_present",
			"interac_present": map[string]any{"brand": "interac", "last4": "1234"}}}, true, "Interac •••• 1234"},
		{"no charge details", nil, true, ""},
		{"a garbled last4", map[string]any{"id": "ch_3", "object": "charge", "payment_method_details": map[string]any{"type": "card_present",
			"card_present": map[string]any{"brand": "visa", "last4": "4242424242424242"}}}, true, ""},
	} {
		t.Run(row.name, func(t *testing.T) {
			d, tr := newDriver(t, nil)
			tr.setRewrite(func(c call, status int, body map[string]any) (int, map[string]any, []byte) {
				if c.method == "GET" && strings.HasPrefix(c.path, "/v1/payment_intents/") && handedOver(tr) {
					body["status"], body["amount_received"], body["last_payment_error"] = "succeeded", 1050, nil
					if row.replace {
						body["latest_charge"] = row.charge
					}
				}
				return status, body, nil
			})
			a, err := d.Charge(context.Background(), "cmd-card-"+strings.ReplaceAll(row.name, " ", "-"), amount)
			if err != nil || a.Reference == "" {
				t.Fatalf("approval %+v, %v", a, err)
			}
			got := ""
			if a.Card != nil {
				got = a.Card.String()
			}
			if got != row.want {
				t.Errorf("card %q, want %q", got, row.want)
			}
		})
	}
}
