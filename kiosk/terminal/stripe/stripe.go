// Package stripe is a terminal.Terminal for Stripe Terminal's
// server-driven integration: a smart reader (BBPOS WisePOS E, Stripe
// Reader S700) on the hall's LAN, registered to the village's Stripe
// account, that the appliance drives through Stripe's API with
// github.com/stripe/stripe-go. Card data stays between the reader and
// Stripe; the appliance sees a PaymentIntent id and an outcome.
//
// A charge is a card_present PaymentIntent (amount in cents, the
// village's statement descriptor suffix, the ledger command id in its
// metadata and as its idempotency key) handed to the configured reader
// with process_payment_intent; the driver then reads the reader and the
// PaymentIntent until one says how it ended, within a deadline. When the
// deadline passes or the charge's context ends (the resident walked away)
// it cancels the reader's action and reads the PaymentIntent once more, so
// a card charged at the last moment is still reported as approved. A retry
// of the same key (the same command) hands the same PaymentIntent to the
// reader again.
//
// A cloud-driven reader approves nothing without the internet: the driver
// declares no store-and-forward, and every failure to reach Stripe, a key
// Stripe refuses, a reader it does not know and an answer that cannot be
// read is terminal.ErrUnavailable, with the detail for the staff's log.
// The API key is never logged: stripe-go's own logging is off.
package stripe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	stripeapi "github.com/stripe/stripe-go/v82"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/terminal"
)

// Config is what the driver needs. Key and Reader come from the node's
// secret file (appliance/config.go).
type Config struct {
	Key        string // the secret API key (sk_live_… or sk_test_…, or a restricted rk_…)
	Reader     string // the reader's id, tmr_…
	Descriptor string // the statement descriptor suffix the resident's card statement shows ("VILLAGE BILL")
	Currency   string // default "usd"
	// URL is the API's base URL; empty is Stripe's. Tests point it at
	// stripe-mock.
	URL string
	// HTTPClient carries the requests; nil is a client with a 20 s
	// timeout. Tests wrap its transport.
	HTTPClient *http.Client
	// Poll is how often the driver reads the reader while a charge is
	// waiting (default 1 s); Deadline is how long a charge may wait for
	// the resident (default 2 minutes).
	Poll, Deadline time.Duration
	// MaxAmount is the single-payment limit: a larger charge is refused
	// before anything reaches Stripe. Zero: no limit.
	MaxAmount domain.Money
}

// Driver is the Stripe Terminal driver.
type Driver struct {
	cfg Config
	api *stripeapi.Client

	mu        sync.Mutex
	inflight  map[string]context.CancelFunc // by charge key: stops its wait
	cancelled map[string]bool               // charge keys Cancel stopped, until their charge ends
}

var (
	_ terminal.Terminal  = (*Driver)(nil)
	_ terminal.Checker   = (*Driver)(nil)
	_ terminal.Statement = (*Driver)(nil)
)

// New checks cfg and returns a driver. It does not call Stripe.
func New(cfg Config) (*Driver, error) {
	if cfg.Key == "" {
		return nil, errors.New("stripe terminal: no API key")
	}
	if !strings.HasPrefix(cfg.Reader, "tmr_") {
		return nil, fmt.Errorf("stripe terminal: %q is not a reader id (tmr_…)", cfg.Reader)
	}
	if len(cfg.Descriptor) > 22 {
		return nil, fmt.Errorf("stripe terminal: the statement descriptor %q is longer than 22 characters", cfg.Descriptor)
	}
	if cfg.Currency == "" {
		cfg.Currency = "usd"
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 2 * time.Minute
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 20 * time.Second}
	}
	bc := &stripeapi.BackendConfig{
		HTTPClient:        cfg.HTTPClient,
		LeveledLogger:     &stripeapi.LeveledLogger{Level: stripeapi.LevelNull},
		MaxNetworkRetries: stripeapi.Int64(1),
	}
	if cfg.URL != "" {
		bc.URL = stripeapi.String(cfg.URL)
	}
	backend := stripeapi.GetBackendWithConfig(stripeapi.APIBackend, bc)
	api := stripeapi.NewClient(cfg.Key, stripeapi.WithBackends(&stripeapi.Backends{API: backend, Connect: backend, Uploads: backend, MeterEvents: backend}))
	return &Driver{cfg: cfg, api: api, inflight: make(map[string]context.CancelFunc), cancelled: make(map[string]bool)}, nil
}

// Capabilities implements terminal.Terminal: a cloud-driven reader takes
// no cards offline.
func (d *Driver) Capabilities() terminal.Capabilities { return terminal.Capabilities{} }

// Check implements terminal.Checker: Stripe answers with this key and
// knows the reader, which is online.
func (d *Driver) Check(ctx context.Context) error {
	r, err := d.api.V1TerminalReaders.Retrieve(ctx, d.cfg.Reader, nil)
	if err != nil {
		return unavailable("read the reader", err)
	}
	if r.Status == stripeapi.TerminalReaderStatusOffline {
		return fmt.Errorf("%w: reader %s is offline", terminal.ErrUnavailable, d.cfg.Reader)
	}
	return nil
}

// cents returns amount in cents, refusing what Stripe must never be asked.
func (d *Driver) cents(amount domain.Money) (int64, error) {
	if !amount.IsPositive() {
		return 0, fmt.Errorf("%w: an amount of %s cannot be charged", terminal.ErrUnavailable, amount)
	}
	if d.cfg.MaxAmount.IsPositive() && amount.GreaterThan(d.cfg.MaxAmount) {
		return 0, fmt.Errorf("%w: %s is over the single-payment limit of %s", terminal.ErrUnavailable, amount, d.cfg.MaxAmount)
	}
	if !domain.Cents(amount.Cents()).Equal(amount) {
		return 0, fmt.Errorf("%w: %s is not a whole number of cents", terminal.ErrUnavailable, amount)
	}
	return amount.Cents(), nil
}

// Charge implements terminal.Terminal.
func (d *Driver) Charge(ctx context.Context, key string, amount domain.Money) (terminal.Approval, error) {
	if key == "" {
		return terminal.Approval{}, fmt.Errorf("%w: a charge without a key", terminal.ErrUnavailable)
	}
	cents, err := d.cents(amount)
	if err != nil {
		return terminal.Approval{}, err
	}
	wait, stop := context.WithTimeout(ctx, d.cfg.Deadline)
	defer stop()
	if !d.enter(key, stop) {
		return terminal.Approval{}, fmt.Errorf("%w: charge %s is already waiting at the reader", terminal.ErrUnavailable, key)
	}
	defer d.leave(key)

	p := &stripeapi.PaymentIntentCreateParams{
		Amount:             stripeapi.Int64(cents),
		Currency:           stripeapi.String(d.cfg.Currency),
		PaymentMethodTypes: []*string{stripeapi.String("card_present")},
		CaptureMethod:      stripeapi.String("automatic"),
		Description:        stripeapi.String("Village payment " + key),
	}
	if d.cfg.Descriptor != "" {
		p.StatementDescriptorSuffix = stripeapi.String(d.cfg.Descriptor)
	}
	p.AddMetadata("command_id", key)
	p.SetIdempotencyKey(key) // a retried charge finds the same PaymentIntent
	pi, err := d.api.V1PaymentIntents.Create(wait, p)
	if err != nil {
		return terminal.Approval{}, unavailable("create the payment", err)
	}
	if pi.ID == "" || pi.Amount != cents {
		return terminal.Approval{}, fmt.Errorf("%w: Stripe answered payment %q for %d cents, not %d", terminal.ErrUnavailable, pi.ID, pi.Amount, cents)
	}
	// The idempotent create answers what it answered first; read the
	// payment as it is now (a retry of a charge already approved).
	if cur, err := d.api.V1PaymentIntents.Retrieve(wait, pi.ID, withCharge()); err == nil {
		pi = cur
	} else {
		return terminal.Approval{}, unavailable("read the payment", err)
	}
	// A retry of the same key (after a decline, a timeout, a walk-away)
	// hands the same payment to the reader again, the way Stripe retries
	// a card; the last attempt's decline is not this attempt's.
	switch pi.Status {
	case stripeapi.PaymentIntentStatusSucceeded:
		a, _, err := d.settled(pi, key, amount, "")
		return a, err
	case stripeapi.PaymentIntentStatusCanceled:
		return terminal.Approval{}, fmt.Errorf("%w: payment %s was cancelled at Stripe; the payment must start again", terminal.ErrUnavailable, pi.ID)
	}
	before := attempt(pi)
	if _, err := d.api.V1TerminalReaders.ProcessPaymentIntent(wait, d.cfg.Reader, &stripeapi.TerminalReaderProcessPaymentIntentParams{
		PaymentIntent: stripeapi.String(pi.ID),
	}); err != nil {
		if wait.Err() != nil {
			// The wait ended while the payment was being handed over (the
			// resident walked away, Cancel, the deadline): the reader may
			// have it already, so its action is cancelled as after any wait.
			return d.abandon(ctx, pi.ID, key, amount)
		}
		return terminal.Approval{}, unavailable("hand the payment to the reader", err)
	}

	tick := time.NewTicker(d.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-wait.Done():
			return d.abandon(ctx, pi.ID, key, amount)
		case <-tick.C:
		}
		a, done, err := d.poll(wait, pi.ID, key, amount, before)
		if done {
			return a, err
		}
	}
}

// poll reads the reader and the payment once. A failure to read them is
// not an outcome: the money may have moved, so the wait goes on until the
// deadline, which asks once more.
func (d *Driver) poll(ctx context.Context, id, key string, amount domain.Money, before string) (terminal.Approval, bool, error) {
	r, err := d.api.V1TerminalReaders.Retrieve(ctx, d.cfg.Reader, nil)
	if err == nil && r.Action != nil && r.Action.Type == stripeapi.TerminalReaderActionTypeProcessPaymentIntent &&
		r.Action.ProcessPaymentIntent != nil && r.Action.ProcessPaymentIntent.PaymentIntent != nil &&
		r.Action.ProcessPaymentIntent.PaymentIntent.ID == id && r.Action.Status == stripeapi.TerminalReaderActionStatusFailed {
		reason := r.Action.FailureMessage
		if reason == "" {
			reason = r.Action.FailureCode
		}
		return terminal.Approval{}, true, terminal.Declined{Reason: reason}
	}
	pi, err := d.api.V1PaymentIntents.Retrieve(ctx, id, withCharge())
	if err != nil {
		return terminal.Approval{}, false, nil
	}
	a, done, err := d.settled(pi, key, amount, before)
	return a, done, err
}

// attempt names the payment's last failed attempt ("" for none), so a
// decline left from an earlier attempt is not read as this one's.
func attempt(pi *stripeapi.PaymentIntent) string {
	if e := pi.LastPaymentError; e != nil {
		return e.ChargeID + "|" + string(e.DeclineCode) + "|" + e.Msg
	}
	return ""
}

// settled says whether the payment has an outcome, and which; a card
// error that is the attempt before (its name before) is none.
func (d *Driver) settled(pi *stripeapi.PaymentIntent, key string, amount domain.Money, before string) (terminal.Approval, bool, error) {
	switch {
	case pi.Status == stripeapi.PaymentIntentStatusSucceeded:
		if pi.AmountReceived != 0 && pi.AmountReceived != amount.Cents() {
			return terminal.Approval{}, true, fmt.Errorf("%w: payment %s received %d cents, not %d", terminal.ErrUnavailable, pi.ID, pi.AmountReceived, amount.Cents())
		}
		return terminal.Approval{Key: key, Reference: pi.ID, Amount: amount, Card: cardOf(pi)}, true, nil
	case pi.Status == stripeapi.PaymentIntentStatusCanceled:
		return terminal.Approval{}, true, terminal.ErrCancelled
	case pi.LastPaymentError != nil && pi.LastPaymentError.Type == stripeapi.ErrorTypeCard && attempt(pi) != before:
		reason := pi.LastPaymentError.Msg
		if reason == "" {
			reason = string(pi.LastPaymentError.DeclineCode)
		}
		return terminal.Approval{}, true, terminal.Declined{Reason: reason}
	}
	return terminal.Approval{}, false, nil
}

// withCharge asks for a PaymentIntent with its latest charge, whose
// payment method details name the card's brand and last four digits.
func withCharge() *stripeapi.PaymentIntentRetrieveParams {
	p := &stripeapi.PaymentIntentRetrieveParams{}
	p.AddExpand("latest_charge")
	return p
}

// cardOf returns the brand and last four digits of the card that paid pi,
// from its latest charge: card_present for a tap, dip or swipe at the
// reader, interac_present for a Canadian debit card, card for a card not
// present (what stripe-mock answers). Nil when Stripe did not say, or
// said what is not a brand and four digits: the approval stands without
// them. Nothing else of the card is read.
func cardOf(pi *stripeapi.PaymentIntent) *domain.CardShown {
	if pi.LatestCharge == nil || pi.LatestCharge.PaymentMethodDetails == nil {
		return nil
	}
	switch m := pi.LatestCharge.PaymentMethodDetails; {
	case m.CardPresent != nil:
		return terminal.CardOf(string(m.CardPresent.Brand), m.CardPresent.Last4)
	case m.InteracPresent != nil:
		return terminal.CardOf(m.InteracPresent.Brand, m.InteracPresent.Last4)
	case m.Card != nil:
		return terminal.CardOf(string(m.Card.Brand), m.Card.Last4)
	}
	return nil
}

// abandon ends a charge whose wait ended: the deadline passed, the
// resident walked away (the charge's context ended) or Cancel was called.
// It cancels the reader's action, then reads the payment once more: a
// card charged meanwhile is an approval. The payment itself stays open
// (requires_payment_method): with no reader action nothing can complete
// it, and a retry of the same key hands it to the reader again. The calls
// run on a context of their own, since the charge's may have ended.
func (d *Driver) abandon(ctx context.Context, id, key string, amount domain.Money) (terminal.Approval, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	_, cancelErr := d.api.V1TerminalReaders.CancelAction(cctx, d.cfg.Reader, nil)
	pi, err := d.api.V1PaymentIntents.Retrieve(cctx, id, withCharge())
	if err != nil {
		// Nothing is known: it may have been charged. The kiosk says so
		// and names the command id the clerk finds it by.
		return terminal.Approval{}, fmt.Errorf("%w: payment %s unknown after the wait (cancel: %v; read: %v)", terminal.ErrTimeout, id, cancelErr, err)
	}
	if pi.Status == stripeapi.PaymentIntentStatusSucceeded {
		a, _, err := d.settled(pi, key, amount, "")
		return a, err
	}
	if cancelErr != nil {
		// The reader may still be asking for the card: say so, with the
		// reference, rather than that nothing happened.
		return terminal.Approval{}, fmt.Errorf("%w: the reader's action could not be cancelled: %v", terminal.ErrTimeout, cancelErr)
	}
	if d.wasCancelled(key) {
		return terminal.Approval{}, terminal.ErrCancelled
	}
	if ctx.Err() != nil {
		return terminal.Approval{}, fmt.Errorf("%w: the resident left (%v)", terminal.ErrCancelled, ctx.Err())
	}
	return terminal.Approval{}, terminal.ErrTimeout
}

// enter registers the wait of a charge, so Cancel can stop it; one wait
// per key.
func (d *Driver) enter(key string, stop context.CancelFunc) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, busy := d.inflight[key]; busy {
		return false
	}
	d.inflight[key] = stop
	return true
}

func (d *Driver) leave(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.inflight, key)
	delete(d.cancelled, key)
}

// Waiting reports whether a charge of key is waiting at the reader.
func (d *Driver) Waiting(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.inflight[key]
	return ok
}

// wasCancelled reports whether Cancel stopped the charge of key.
func (d *Driver) wasCancelled(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancelled[key]
}

// Cancel implements terminal.Terminal: the waiting charge of key ends,
// which cancels the reader's action.
func (d *Driver) Cancel(_ context.Context, key string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if stop, ok := d.inflight[key]; ok {
		d.cancelled[key] = true
		stop()
	}
	return nil
}

// Refund implements terminal.Terminal: a Stripe refund of the payment,
// keyed by the refund's own id.
func (d *Driver) Refund(ctx context.Context, r terminal.RefundRequest) (terminal.Refund, error) {
	if r.Key == "" || !strings.HasPrefix(r.Reference, "pi_") {
		return terminal.Refund{}, fmt.Errorf("stripe terminal: refund %q of %q: needs a key and a payment reference (pi_…)", r.Key, r.Reference)
	}
	if !r.Amount.IsPositive() || !domain.Cents(r.Amount.Cents()).Equal(r.Amount) {
		return terminal.Refund{}, fmt.Errorf("stripe terminal: cannot refund %s", r.Amount)
	}
	p := &stripeapi.RefundCreateParams{
		PaymentIntent: stripeapi.String(r.Reference),
		Amount:        stripeapi.Int64(r.Amount.Cents()),
	}
	p.AddMetadata("command_id", r.Key)
	p.AddMetadata("charge_command_id", r.ChargeKey)
	if r.Reason != "" {
		p.AddMetadata("reason", r.Reason)
	}
	p.SetIdempotencyKey("refund-" + r.Key)
	re, err := d.api.V1Refunds.Create(ctx, p)
	if err != nil {
		return terminal.Refund{}, unavailable("refund the payment", err)
	}
	switch re.Status {
	case stripeapi.RefundStatusSucceeded, stripeapi.RefundStatusPending:
	default:
		return terminal.Refund{}, fmt.Errorf("stripe terminal: refund %s of %s is %s (%s)", re.ID, r.Reference, re.Status, re.FailureReason)
	}
	if re.ID == "" || re.Amount != r.Amount.Cents() {
		return terminal.Refund{}, fmt.Errorf("%w: Stripe answered refund %q of %d cents, not %d", terminal.ErrUnavailable, re.ID, re.Amount, r.Amount.Cents())
	}
	return terminal.Refund{Key: r.Key, Reference: re.ID, Amount: r.Amount}, nil
}

// Transactions implements terminal.Statement: the balance transactions
// created in [from, to), with the command id of their charge or refund
// (the metadata the driver set; Stripe copies a PaymentIntent's metadata
// to its charge).
func (d *Driver) Transactions(ctx context.Context, from, to time.Time) ([]terminal.Transaction, error) {
	p := &stripeapi.BalanceTransactionListParams{CreatedRange: &stripeapi.RangeQueryParams{GreaterThanOrEqual: from.Unix(), LesserThan: to.Unix()}}
	p.Limit = stripeapi.Int64(100)
	p.AddExpand("data.source")
	var out []terminal.Transaction
	for bt, err := range d.api.V1BalanceTransactions.List(ctx, p) {
		if err != nil {
			return nil, unavailable("list the balance transactions", err)
		}
		t := terminal.Transaction{
			ID: bt.ID, Type: string(bt.Type), Created: time.Unix(bt.Created, 0),
			Amount: domain.Cents(bt.Amount), Fee: domain.Cents(bt.Fee), Net: domain.Cents(bt.Net),
		}
		if s := bt.Source; s != nil {
			t.Source = s.ID
			switch {
			case s.Charge != nil:
				t.CommandID = s.Charge.Metadata["command_id"]
				if t.CommandID == "" && s.Charge.PaymentIntent != nil {
					t.CommandID = s.Charge.PaymentIntent.Metadata["command_id"]
				}
			case s.Refund != nil:
				t.CommandID = s.Refund.Metadata["command_id"]
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// unavailable wraps an error of a call to Stripe as ErrUnavailable, with
// what was being done and what Stripe (or the network) said. A decline
// Stripe reports as an error is a decline.
func unavailable(doing string, err error) error {
	var se *stripeapi.Error
	if errors.As(err, &se) {
		if se.Type == stripeapi.ErrorTypeCard {
			return terminal.Declined{Reason: se.Msg}
		}
		what := map[int]string{
			http.StatusUnauthorized: "Stripe refused the API key",
			http.StatusForbidden:    "the API key may not do this",
			http.StatusNotFound:     "Stripe does not know it",
		}[se.HTTPStatusCode]
		if what == "" {
			what = "Stripe answered " + http.StatusText(se.HTTPStatusCode)
		}
		if se.HTTPStatusCode == http.StatusUnauthorized || se.HTTPStatusCode == http.StatusForbidden {
			// Stripe's message about a key quotes part of it: the log
			// gets the status and the code only.
			return fmt.Errorf("%w: %s: %s (%s %s)", terminal.ErrUnavailable, doing, what, se.Type, se.Code)
		}
		return fmt.Errorf("%w: %s: %s (%s %s: %s)", terminal.ErrUnavailable, doing, what, se.Type, se.Code, se.Msg)
	}
	return fmt.Errorf("%w: %s: %v", terminal.ErrUnavailable, doing, err)
}
