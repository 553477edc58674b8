package main

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/sync/faults"
	"github.com/villagehall/appliance/sync/replica"
)

// Fault injection for the fault suite (sync/faultsuite), which runs this
// binary as three processes and hurts them. `serve --faults` is a hidden
// flag: it is not in the usage, and it mounts /admin/faults, answered over
// loopback only:
//
//	POST /admin/faults/partition {"peers": ["annex-backup"]}  cut this node off from peers
//	POST /admin/faults/heal      {"peers": []}                reconnect (none named: all)
//	POST /admin/faults/disk      {"delay": "50ms"}            slow raft's log writes
//	GET  /admin/faults                                       the faults set
//	POST /admin/faults/seed[?command_id=ID]  domain.SeedDemo JSON  load bills into an empty ledger
//	POST /admin/faults/pay       {"command_id", "bill", "cents"}  pay as the kiosk does
//	GET  /admin/faults/state                                 hash, applied index, format, outbox, payments, books
//	GET  /admin/faults/bill?id=F001                          total paid, and the consistency before and after
//	GET  /admin/faults/result?id=ID                          a command's result in this node's ledger, if applied
//
// A node never runs with it at the village: it lets anyone on the machine
// cut the node off from its peers.

const faultsFlag = "--faults"

// takeFaultsFlag removes the hidden --faults flag from serve's arguments
// and reports whether it was there.
func takeFaultsFlag(args []string) ([]string, bool) {
	out := make([]string, 0, len(args))
	found := false
	for _, a := range args {
		if a == faultsFlag || a == "-faults" {
			found = true
			continue
		}
		out = append(out, a)
	}
	return out, found
}

// hookFaults gives a clustered node its fault injector.
func (m *Main) hookFaults(rcfg *replica.Config, pc *replica.PeerConfig) {
	m.faults = faults.New(rcfg.ID)
	m.faults.Hook(pc)
	rcfg.WrapLogStore = m.faults.WrapLogStore
	m.Config.Logger.Warn("fault injection is on (--faults): /admin/faults can partition this node; never use it in service")
}

// mountFaults mounts the fault endpoints.
func (m *Main) mountFaults(mux *http.ServeMux) {
	mux.HandleFunc("GET /admin/faults", m.loopbackOnly(m.showFaults))
	mux.HandleFunc("POST /admin/faults/partition", m.loopbackOnly(m.setPartition))
	mux.HandleFunc("POST /admin/faults/heal", m.loopbackOnly(m.setHeal))
	mux.HandleFunc("POST /admin/faults/disk", m.loopbackOnly(m.setDiskDelay))
	mux.HandleFunc("POST /admin/faults/seed", m.loopbackOnly(m.seedFaults))
	mux.HandleFunc("POST /admin/faults/pay", m.loopbackOnly(m.payFaults))
	mux.HandleFunc("GET /admin/faults/state", m.loopbackOnly(m.showFaultState))
	mux.HandleFunc("GET /admin/faults/bill", m.loopbackOnly(m.showFaultBill))
	mux.HandleFunc("GET /admin/faults/result", m.loopbackOnly(m.showFaultResult))
}

func (m *Main) loopbackOnly(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			httperr.WriteJSON(w, domain.Errorf(domain.EFORBIDDEN, "", "fault injection is served over loopback only"))
			return
		}
		next(w, r)
	}
}

type faultsView struct {
	Node        string   `json:"node"`
	Partitioned []string `json:"partitioned"`
	DiskDelay   string   `json:"disk_delay"`
}

func (m *Main) showFaults(w http.ResponseWriter, r *http.Request) {
	if m.faults == nil {
		httperr.WriteJSON(w, domain.Errorf(domain.ECONFLICT, "", "fault injection needs a clustered node"))
		return
	}
	writeFaultsJSON(w, faultsView{Node: m.faults.Self(), Partitioned: m.faults.Partitioned(), DiskDelay: m.faults.DiskDelay().String()})
}

type peersRequest struct {
	Peers []string `json:"peers"`
}

func (m *Main) setPartition(w http.ResponseWriter, r *http.Request) {
	m.changePeers(w, r, func(peers []string) {
		// Learn the peers' addresses, so that dials to them are refused
		// before they leave this node.
		if f := m.Node.Raft().GetConfiguration(); f.Error() == nil {
			for _, s := range f.Configuration().Servers {
				m.faults.SetAddr(string(s.ID), string(s.Address))
			}
		}
		m.faults.Partition(peers...)
	})
}

func (m *Main) setHeal(w http.ResponseWriter, r *http.Request) {
	m.changePeers(w, r, func(peers []string) { m.faults.Heal(peers...) })
}

func (m *Main) changePeers(w http.ResponseWriter, r *http.Request, act func([]string)) {
	if m.faults == nil {
		httperr.WriteJSON(w, domain.Errorf(domain.ECONFLICT, "", "fault injection needs a clustered node"))
		return
	}
	var req peersRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EMALFORMED, "", "malformed request"))
		return
	}
	act(req.Peers)
	m.showFaults(w, r)
}

func (m *Main) setDiskDelay(w http.ResponseWriter, r *http.Request) {
	if m.faults == nil {
		httperr.WriteJSON(w, domain.Errorf(domain.ECONFLICT, "", "fault injection needs a clustered node"))
		return
	}
	var req struct {
		Delay string `json:"delay"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EMALFORMED, "", "malformed request"))
		return
	}
	d, err := time.ParseDuration(req.Delay)
	if err != nil || d < 0 {
		httperr.WriteJSON(w, domain.Errorf(domain.EMALFORMED, "", "delay must be a duration such as 50ms"))
		return
	}
	m.faults.SetDiskDelay(d)
	m.showFaults(w, r)
}

// FaultPayment is the answer of /admin/faults/pay and /admin/faults/seed:
// the ledger's result, or why there is none.
type FaultPayment struct {
	Result  domain.Result `json:"result"`
	Error   string        `json:"error,omitempty"`
	Refused bool          `json:"refused,omitempty"` // the rules refused it
}

func (m *Main) submitFaults(w http.ResponseWriter, r *http.Request, cmd domain.Command) {
	res, err := m.Node.Submit(r.Context(), cmd)
	out := FaultPayment{Result: res}
	if err != nil {
		var de *domain.Error
		out.Error, out.Refused = err.Error(), errors.As(err, &de) && res.Error != nil
	}
	writeFaultsJSON(w, out)
}

func (m *Main) seedFaults(w http.ResponseWriter, r *http.Request) {
	var seed domain.SeedDemo
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&seed); err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EMALFORMED, "", "malformed seed"))
		return
	}
	cmd, err := m.Node.NewCommand(domain.KindSeedDemo, "faultsuite")
	if err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EUNAVAILABLE, "", "%s", err.Error()))
		return
	}
	// A seed taken while this node led can be forwarded if it lost the
	// lead before the seed entered the log; a forwarded seed is refused
	// (replica's admit), so a harness tries again under another id.
	cmd.ID, cmd.Payload = "faultsuite-seed", &seed
	if id := r.URL.Query().Get("command_id"); id != "" {
		cmd.ID = id
	}
	m.submitFaults(w, r, cmd)
}

// FaultResult is the answer of /admin/faults/result: whether the node's
// ledger has applied the command, and if so whether it was refused.
type FaultResult struct {
	Applied bool   `json:"applied"`
	Refused bool   `json:"refused"`
	Error   string `json:"error,omitempty"`
}

func (m *Main) showFaultResult(w http.ResponseWriter, r *http.Request) {
	res, ok, err := m.Node.FSM().CommandResult(r.URL.Query().Get("id"))
	if err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EINTERNAL, "", "%s", err.Error()))
		return
	}
	out := FaultResult{Applied: ok}
	if ok && res.Error != nil {
		out.Refused, out.Error = true, res.Error.Error()
	}
	writeFaultsJSON(w, out)
}

func (m *Main) payFaults(w http.ResponseWriter, r *http.Request) {
	var req struct {
		CommandID string `json:"command_id"`
		Bill      string `json:"bill"`
		Cents     int64  `json:"cents"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil || req.CommandID == "" {
		httperr.WriteJSON(w, domain.Errorf(domain.EMALFORMED, "", "malformed payment"))
		return
	}
	cmd, err := m.Node.NewCommand(domain.KindPayBill, "faultsuite")
	if err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EUNAVAILABLE, "", "%s", err.Error()))
		return
	}
	cmd.ID = req.CommandID
	cmd.Payload = &domain.PayBill{BillID: req.Bill, Amount: domain.Cents(req.Cents), Tender: domain.Card}
	m.submitFaults(w, r, cmd)
}

func (m *Main) showFaultState(w http.ResponseWriter, r *http.Request) {
	s, err := faults.ReadState(m.Node)
	if err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EINTERNAL, "", "%s", err.Error()))
		return
	}
	writeFaultsJSON(w, s)
}

// FaultBill is the answer of /admin/faults/bill: a read of a bill as a
// page makes it, between two looks at how current the node is.
type FaultBill struct {
	Paid   int64  `json:"paid"` // cents
	Before string `json:"before"`
	After  string `json:"after"`
}

func (m *Main) showFaultBill(w http.ResponseWriter, r *http.Request) {
	before := m.Node.Consistency().Level
	b, err := m.Node.Bill(r.URL.Query().Get("id"))
	if err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.ENOTFOUND, "", "%s", err.Error()))
		return
	}
	out := FaultBill{Before: before, After: m.Node.Consistency().Level}
	for _, p := range b.Payments {
		out.Paid += p.Amount.Cents()
	}
	writeFaultsJSON(w, out)
}

func writeFaultsJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
