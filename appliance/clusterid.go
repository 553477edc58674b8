package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

// Every cluster has an identity: its village CA and a random cluster id
// that `appliance init` makes (pki/cluster.id), which `cert issue` puts in
// each bundle and `join` installs. A node's stores record it and refuse to
// open for a node of another cluster; peers check it in the raft handshake
// (sync/replica identity.go, sync/wsstream). A data folder made before
// cluster ids has no cluster.id: its cluster keeps the empty id.

// newClusterIdentity returns ident as the first node of a new cluster,
// with a new cluster id.
func newClusterIdentity(ident *pki.Identity) (*pki.Identity, error) {
	id, err := pki.NewClusterID()
	if err != nil {
		return nil, err
	}
	return ident.WithClusterID(id)
}

// issuedFor returns ident, issued by the CA held in data, as a node of
// data's cluster: with its cluster id, if the cluster has one.
func issuedFor(data string, ident *pki.Identity) (*pki.Identity, error) {
	id, err := pki.LoadClusterID(pkiDir(data))
	if err != nil || id == "" {
		return ident, err
	}
	return ident.WithClusterID(id)
}

// bindRestored records, in a ledger just restored into the data folder
// dir, the cluster of dir's certificates, so that the new cluster started
// from it is the one those certificates belong to. A folder without
// certificates yet is left unbound: the node's first start records its
// cluster then.
func bindRestored(dir string, fsm *replica.FSM) error {
	ident, err := pki.LoadIdentity(pkiDir(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the data folder's certificates: %w", err)
	}
	return fsm.BindCluster(ident.Cluster())
}
