package replica

import (
	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/sync/pki"
)

// SignEntry makes the log entry of cmd as node id would sign it, for the
// tests that play a forger holding one node's key.
func SignEntry(id *pki.Identity, cmd domain.Command, staffRole string, withCert bool) ([]byte, error) {
	data, err := domain.EncodeCommand(cmd)
	if err != nil {
		return nil, err
	}
	return sealEntry(id, data, staffRole, withCert)
}

// SealRaw signs raw bytes as if they were a command.
func SealRaw(id *pki.Identity, raw []byte) ([]byte, error) { return sealEntry(id, raw, "", true) }

// Queued reports whether the node's outbox holds the command with
// receipt sequence seq, and in which state.
func (n *Node) Queued(seq uint64) (state string, ok bool) {
	e, ok, err := n.box.get(seq)
	if err != nil || !ok {
		return "", false
	}
	return e.State, true
}
