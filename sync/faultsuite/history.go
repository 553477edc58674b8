// Package faultsuite runs randomized fault scenarios against a three-node
// cluster and checks what residents were promised: every payment that got
// a receipt, posted or provisional, is applied exactly once on every node;
// the history the clients saw is linearizable; every node ends with the
// same state; and every node's books balance, in total and in every fund,
// with each fund's receivables tied to its open bills, and read the same
// on every node.
//
// A Target is the cluster: InProcess runs the three nodes inside the test
// process (real WebSockets with mutual TLS on loopback, faults through
// sync/faults), Processes runs the built appliance binary as three OS
// processes that can be killed with SIGKILL. Run drives clients and faults
// against a Target; Check judges the result.
package faultsuite

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/faults"
)

// Status is what a client learned about a payment it submitted.
type Status string

// Payment outcomes as a client sees them.
const (
	Posted      Status = "posted"      // a final receipt: applied, with the balance after it
	Provisional Status = "provisional" // a numbered provisional receipt: queued, posts later
	Refused     Status = "refused"     // the rules refused it
	Unknown     Status = "unknown"     // no answer (the node died, the request failed)
)

// Op is one payment a client submitted, or one read of a bill at a node
// that said its records were current.
type Op struct {
	Client    int
	Read      bool   // a read: Paid holds the total paid it saw
	Paid      int64  // cents
	Node      string // the node the client paid at
	CommandID string
	Bill      string
	Cents     int64
	Call      time.Time
	Return    time.Time
	Status    Status
	Balance   int64  // the bill's balance after it, in cents, when Posted
	Receipt   string // the receipt number, posted or provisional
	Err       string // why the outcome is unknown or refused
}

// History records the operations of concurrent clients.
type History struct {
	mu  sync.Mutex
	ops []Op
}

// Add records an operation.
func (h *History) Add(op Op) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// Ops returns the operations recorded so far.
func (h *History) Ops() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Op(nil), h.ops...)
}

// Report is the verdict on one run.
type Report struct {
	Commands     int // payments submitted
	Reads        int // reads at nodes that said they were current
	Posted       int
	Provisional  int
	Unknown      int // no answer; applied or not, never twice
	Lost         int // receipted but missing on some node
	Duplicated   int // applied more than once on some node
	Phantoms     int // payments no client submitted
	Linearizable bool
	HashesMatch  bool
	// BooksBalanced: every node's books are open, balance in total and
	// in every fund, and each fund's receivables are its open bills'
	// unpaid principal.
	BooksBalanced bool
	// BooksMatch: every node's trial balance is the same, account by
	// account.
	BooksMatch bool
	Problems   []string
}

// OK reports whether the run kept every promise.
func (r Report) OK() bool { return len(r.Problems) == 0 }

func (r *Report) problem(format string, args ...any) {
	if len(r.Problems) < 40 {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

// Check judges a history against the final states of every node. due is
// each bill's amount due before any payment, in cents; every payment in a
// run is small enough never to overpay, so a posted payment's balance is
// due minus everything paid on the bill up to and including it.
func Check(ops []Op, states []faults.NodeState, due map[string]int64) Report {
	var r Report
	r.HashesMatch = true
	for _, s := range states[1:] {
		if s.Hash != states[0].Hash || s.Applied != states[0].Applied {
			r.HashesMatch = false
			r.problem("state of %s (%.12s@%d) differs from %s (%.12s@%d)", s.ID, s.Hash, s.Applied, states[0].ID, states[0].Hash, states[0].Applied)
		}
	}
	for _, s := range states {
		if s.Pending != 0 {
			r.problem("%s still has %d commands in its outbox", s.ID, s.Pending)
		}
	}
	known := map[string]bool{}
	applied := map[string]bool{} // command ids applied (on the first node)
	for _, op := range ops {
		if op.Read {
			r.Reads++
			continue
		}
		r.Commands++
		known[op.CommandID] = true
		switch op.Status {
		case Posted:
			r.Posted++
		case Provisional:
			r.Provisional++
		case Unknown:
			r.Unknown++
		}
		lost, dup := false, false
		for i, s := range states {
			n := s.Payments[op.Bill][op.CommandID]
			if i == 0 && n > 0 {
				applied[op.CommandID] = true
			}
			switch {
			case n > 1:
				dup = true
				r.problem("%s: payment %s (%s at %s) applied %d times on bill %s", s.ID, op.CommandID, op.Status, op.Node, n, op.Bill)
			case n == 0 && (op.Status == Posted || op.Status == Provisional):
				lost = true
				r.problem("%s: %s payment %s taken at %s is missing from bill %s", s.ID, op.Status, op.CommandID, op.Node, op.Bill)
			case n == 1 && op.Status == Refused:
				r.problem("%s: refused payment %s was applied", s.ID, op.CommandID)
			}
		}
		if lost {
			r.Lost++
		}
		if dup {
			r.Duplicated++
		}
	}
	for _, s := range states {
		for bill, ids := range s.Payments {
			for id := range ids {
				if !known[id] {
					r.Phantoms++
					r.problem("%s: bill %s holds payment %s that no client submitted", s.ID, bill, id)
				}
			}
		}
	}
	r.Linearizable = checkLinearizable(ops, applied, states[0].Paid, due, &r)
	checkBooks(states, &r)
	return r
}

// checkBooks judges each node's books on their own (open, balanced in
// total and by fund, receivables tied to the open bills) and against the
// first node's (the same debits and credits in every account). The state
// hash covers the books too, but a node whose books drifted from its own
// bills would still hash like its peers if every node drifted alike: the
// tie is checked on each.
func checkBooks(states []faults.NodeState, r *Report) {
	r.BooksBalanced, r.BooksMatch = true, true
	for _, s := range states {
		b := s.Books
		if !b.Open {
			r.BooksBalanced = false
			r.problem("%s: the books are not open, though the seed's chart names a general fund", s.ID)
			continue
		}
		if !b.Debit.Equal(b.Credit) {
			r.BooksBalanced = false
			r.problem("%s: the trial balance does not balance: debits %s, credits %s", s.ID, b.Debit, b.Credit)
		}
		for _, fund := range slices.Sorted(maps.Keys(b.Funds)) {
			f := b.Funds[fund]
			if !f.Balanced() {
				r.BooksBalanced = false
				r.problem("%s: fund %q does not balance: debits %s, credits %s", s.ID, fund, f.Debit, f.Credit)
			}
			if !f.Tied() {
				r.BooksBalanced = false
				r.problem("%s: fund %q's receivables %s do not tie to its open bills' unpaid principal %s", s.ID, fund, f.Receivable, f.OpenPrincipal)
			}
		}
	}
	first := states[0]
	for _, s := range states[1:] {
		if why := booksDiffer(first.Books, s.Books); why != "" {
			r.BooksMatch = false
			r.problem("the trial balance of %s differs from %s's: %s", s.ID, first.ID, why)
		}
	}
}

// booksDiffer says where two trial balances differ, "" when they do not.
func booksDiffer(a, b domain.BooksTie) string {
	if !a.Debit.Equal(b.Debit) || !a.Credit.Equal(b.Credit) {
		return fmt.Sprintf("debits %s and credits %s against %s and %s", b.Debit, b.Credit, a.Debit, a.Credit)
	}
	codes := map[string]domain.AccountTotals{}
	maps.Copy(codes, a.Accounts)
	maps.Copy(codes, b.Accounts)
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		x, y := a.Accounts[code], b.Accounts[code]
		if !x.Debit.Equal(y.Debit) || !x.Credit.Equal(y.Credit) {
			return fmt.Sprintf("account %s: debits %s, credits %s against %s and %s", code, y.Debit, y.Credit, x.Debit, x.Credit)
		}
	}
	return ""
}

// The model: one register per bill holding the total paid, in cents. A pay
// adds its amount and returns the balance left; the final read returns the
// total. An operation whose outcome the client never learned (provisional,
// unknown) may take effect at any point after its call.
type modelIn struct {
	Bill  string
	Read  bool
	Due   int64
	Cents int64
}

type modelOut struct {
	Known bool
	Value int64 // balance after a pay; total paid for a read
}

var model = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		by := map[string][]porcupine.Operation{}
		var bills []string
		for _, op := range history {
			b := op.Input.(modelIn).Bill
			if _, ok := by[b]; !ok {
				bills = append(bills, b)
			}
			by[b] = append(by[b], op)
		}
		sort.Strings(bills)
		out := make([][]porcupine.Operation, 0, len(bills))
		for _, b := range bills {
			out = append(out, by[b])
		}
		return out
	},
	Init: func() any { return int64(0) },
	Step: func(state, input, output any) (bool, any) {
		paid, in, out := state.(int64), input.(modelIn), output.(modelOut)
		if in.Read {
			return !out.Known || out.Value == paid, paid
		}
		paid += in.Cents
		return !out.Known || out.Value == in.Due-paid, paid
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(modelIn), output.(modelOut)
		v := "?"
		if out.Known {
			v = fmt.Sprint(out.Value)
		}
		if in.Read {
			return fmt.Sprintf("read %s → paid %s", in.Bill, v)
		}
		return fmt.Sprintf("pay %s %d → balance %s", in.Bill, in.Cents, v)
	},
}

// checkLinearizable runs porcupine over the client-visible history. An
// operation whose outcome is unknown and that was not applied never took
// effect and is left out; one that was applied is kept with an unknown
// output and no end. A final read of every bill, after everything, pins
// the totals.
func checkLinearizable(ops []Op, applied map[string]bool, paid, due map[string]int64, r *Report) bool {
	if len(ops) == 0 {
		return true
	}
	t0 := ops[0].Call
	var end time.Time
	for _, op := range ops {
		if op.Call.Before(t0) {
			t0 = op.Call
		}
		if op.Return.After(end) {
			end = op.Return
		}
	}
	ts := func(t time.Time) int64 { return int64(t.Sub(t0)) }
	var hist []porcupine.Operation
	bills := map[string]bool{}
	for _, op := range ops {
		bills[op.Bill] = true
		in := modelIn{Bill: op.Bill, Due: due[op.Bill], Cents: op.Cents}
		switch {
		case op.Read:
			hist = append(hist, porcupine.Operation{ClientId: op.Client, Input: modelIn{Bill: op.Bill, Read: true}, Call: ts(op.Call), Output: modelOut{Known: true, Value: op.Paid}, Return: ts(op.Return)})
		case op.Status == Posted:
			hist = append(hist, porcupine.Operation{ClientId: op.Client, Input: in, Call: ts(op.Call), Output: modelOut{Known: true, Value: op.Balance}, Return: ts(op.Return)})
		case op.Status == Refused, !applied[op.CommandID]:
			// Never took effect.
		default:
			hist = append(hist, porcupine.Operation{ClientId: op.Client, Input: in, Call: ts(op.Call), Output: modelOut{}, Return: math.MaxInt64})
		}
	}
	final := ts(end) + int64(time.Second)
	for b := range bills {
		hist = append(hist, porcupine.Operation{ClientId: 1 << 20, Input: modelIn{Bill: b, Read: true}, Call: final, Output: modelOut{Known: true, Value: paid[b]}, Return: final + 1})
	}
	res, info := porcupine.CheckOperationsVerbose(model, hist, time.Minute)
	switch res {
	case porcupine.Ok:
		return true
	case porcupine.Unknown:
		r.problem("linearizability check timed out")
		return false
	}
	var parts []string
	for _, part := range info.PartialLinearizationsOperations() {
		// The longest partial linearization of each partition comes first.
		if len(part) > 0 && len(part[0]) > 0 {
			parts = append(parts, fmt.Sprintf("%d ops linearized", len(part[0])))
		}
	}
	r.problem("the client-visible history is not linearizable (%s)", strings.Join(parts, ", "))
	return false
}
