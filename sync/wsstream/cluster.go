package wsstream

import (
	"fmt"
	"net/http"

	"github.com/villagehall/appliance/sync/pki"
)

// ClusterHeader carries the cluster id (pki.Cluster.ID) of each end in the
// WebSocket upgrade of a raft connection: the dialing node sends its own,
// and the handler checks it and answers with its own, which Dial checks in
// turn. Both ends' certificates come from one village CA (TLS checked
// that), so the CA is the same; the id tells apart two clusters of one
// village, such as a cluster restored from a backup to try it out beside
// the real one, which must never replicate into each other.
//
// A node of a cluster made before cluster ids, or of an older release,
// sends no header, which stands for the empty id: such nodes still speak
// to each other, and a cluster with an id refuses them.
const ClusterHeader = "Village-Cluster-Id"

// checkCluster compares the cluster id a peer announced with this node's.
func checkCluster(own pki.Cluster, peer, peerID string) error {
	if peerID == own.ID {
		return nil
	}
	return fmt.Errorf("peer %s is a node of %s; this node's certificates are of %s: %w",
		peer, pki.Cluster{CA: own.CA, ID: peerID}, own, pki.ErrForeignCluster)
}

// clusterHeader returns the header announcing cluster c's id (none for
// the empty id).
func clusterHeader(c pki.Cluster) http.Header {
	h := http.Header{}
	if c.ID != "" {
		h.Set(ClusterHeader, c.ID)
	}
	return h
}
