package main

import (
	"net"
	"net/http"
)

// showBackup streams a snapshot of the ledger, which holds every staff
// password hash and token hash: only on the HTTPS staff listener, with the
// operator token, and only to a client on the same machine (the nightly
// backup job runs there).
func (m *Main) showBackup(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		http.Error(w, "backups are served over loopback only", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if err := m.Node.FSM().WriteSnapshot(w); err != nil {
		m.Config.Logger.Error("backup", "err", err)
	}
}
