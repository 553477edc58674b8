package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/httperr"
	"github.com/villagehall/appliance/sync/pki"
	"github.com/villagehall/appliance/sync/replica"
)

// A clustered node keeps, in its data folder:
//
//	pki/ca.crt pki/node.crt pki/node.key   its village identity
//	pki/ca.key                             only on the node that holds the CA
//	node.json                              its id, peer address and role
//
// `appliance init` makes the first node and the CA; `appliance cert issue`
// (on the CA holder) makes a bundle for another node; `appliance join`
// installs a bundle and admits the node as a voter.

const nodeFile = "node.json"

// nodeSettings is node.json.
type nodeSettings struct {
	ID        string `json:"id"`
	Peer      string `json:"peer"`             // where peers reach this node's peer port
	Listen    string `json:"listen,omitempty"` // what the peer port binds; default Peer
	Bootstrap bool   `json:"bootstrap,omitempty"`
	JoinVia   string `json:"join_via,omitempty"` // a member's peer address; serve joins through it
	// JoinToken is the operator's authority for the join (an
	// administrator's API token, or the operator token of the node joined
	// through); serve removes it once the node is a member.
	JoinToken       string `json:"join_token,omitempty"`
	AvoidLeadership bool   `json:"avoid_leadership,omitempty"`
}

func pkiDir(data string) string { return filepath.Join(data, "pki") }

func readSettings(data string) (nodeSettings, bool, error) {
	var s nodeSettings
	b, err := os.ReadFile(filepath.Join(data, nodeFile))
	if errors.Is(err, os.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("%s: %w", filepath.Join(data, nodeFile), err)
	}
	return s, true, nil
}

func writeSettings(data string, s nodeSettings) error {
	if err := os.MkdirAll(data, 0o750); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	return os.WriteFile(filepath.Join(data, nodeFile), append(b, '\n'), 0o640)
}

func hostsFor(peer string, extra string) []string {
	hosts := []string{"localhost", "127.0.0.1"}
	if h, _, err := net.SplitHostPort(peer); err == nil && h != "" && h != "localhost" && h != "127.0.0.1" {
		hosts = append(hosts, h)
	}
	for _, h := range strings.Split(extra, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// initCommand runs `appliance init`: the village CA and the first node.
func initCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "data", "data folder of the first node")
	id := fs.String("node-id", "hall-clerk", "this node's id")
	peer := fs.String("peer", "", "host:port where the other nodes reach this node's peer port")
	listen := fs.String("listen", "", "address the peer port binds (default: --peer)")
	village := fs.String("village", "Village of Belleville", "name in the CA certificate")
	hosts := fs.String("host", "", "more host names or addresses for the certificate, comma-separated")
	role := fs.String("role", pki.RoleClerk, "this node's role: clerk, backup or kiosk")
	if err := fs.Parse(args); err != nil || *peer == "" {
		fmt.Fprintln(stderr, "init needs --peer host:port")
		return errUsage
	}
	if _, ok, _ := readSettings(*data); ok {
		return fmt.Errorf("%s already belongs to a node; init makes a new cluster in an empty folder", *data)
	}
	if err := initBackupKey(*data, *role, stdout); err != nil {
		return err
	}
	ca, err := pki.NewCA(*village, time.Now())
	if err != nil {
		return err
	}
	ident, err := ca.Issue(*id, *role, hostsFor(*peer, *hosts), time.Now())
	if err != nil {
		return err
	}
	if ident, err = newClusterIdentity(ident); err != nil {
		return err
	}
	if err := pki.SaveCA(pkiDir(*data), ca); err != nil {
		return err
	}
	if err := pki.SaveIdentity(pkiDir(*data), ident); err != nil {
		return err
	}
	if err := writeSettings(*data, nodeSettings{ID: *id, Peer: *peer, Listen: *listen, Bootstrap: true}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "made the village CA and node %s in %s\nCA fingerprint: %s\ncluster id: %s\n", *id, *data, pki.Fingerprint(ca.Certificate()), ident.Cluster().ID)
	fmt.Fprintf(stdout, "the CA key is %s: move it off this node onto offline media once the other nodes have their bundles\n", filepath.Join(pkiDir(*data), pki.CAKeyFile))
	return nil
}

// certCommand runs `appliance cert issue`.
func certCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "issue" {
		fmt.Fprintln(stderr, "usage: appliance cert issue --node-id ID --role kiosk|clerk|backup --out FILE [--data DIR] [--host H,...]")
		return errUsage
	}
	fs := flag.NewFlagSet("cert issue", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "data", "data folder of the node holding the CA key")
	id := fs.String("node-id", "", "id of the new node")
	role := fs.String("role", "", "the new node's role: kiosk (resident pages only), clerk or backup")
	out := fs.String("out", "", "bundle file to write")
	hosts := fs.String("host", "", "host names or addresses of the new node, comma-separated")
	if err := fs.Parse(args[1:]); err != nil || *id == "" || *out == "" || *role == "" {
		fmt.Fprintln(stderr, "cert issue needs --node-id, --role and --out")
		return errUsage
	}
	ca, err := pki.LoadCA(pkiDir(*data))
	if err != nil {
		return fmt.Errorf("this node does not hold the CA key: %w", err)
	}
	ident, err := ca.Issue(*id, *role, hostsFor("", *hosts), time.Now())
	if err != nil {
		return err
	}
	if ident, err = issuedFor(*data, ident); err != nil {
		return err
	}
	if err := pki.WriteBundle(*out, ident); err != nil {
		return err
	}
	if err := issueBackupKey(*data, *role, *out, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s for node %s of %s; carry it to the node and delete it after joining\n", *out, *id, ident.Cluster())
	if ident.Cluster().ID == "" {
		fmt.Fprintf(stdout, "%s has no %s: the bundle is for a cluster made before cluster ids; a cluster made by `appliance init` since refuses it\n",
			pkiDir(*data), pki.ClusterIDFile)
	}
	return nil
}

// joinCommand runs `appliance join`: install a bundle and record which
// member to join through. The node asks to be added as a voter when it
// starts (serve), once it listens: a voter added before it can answer would
// cost a two-node cluster its quorum.
func joinCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("join", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "data", "data folder of the new node")
	bundle := fs.String("bundle", "", "bundle file from `appliance cert issue`")
	leader := fs.String("leader", "", "peer address (host:port) of any node of the cluster")
	peer := fs.String("peer", "", "host:port where the other nodes reach this node's peer port")
	listen := fs.String("listen", "", "address the peer port binds (default: --peer)")
	avoid := fs.Bool("avoid-leadership", false, "this node should not lead while a hall node is healthy (the backup node)")
	token := tokenFlags(fs)
	installBackupKey := joinBackupKey(fs)
	if err := fs.Parse(args); err != nil || *bundle == "" || *leader == "" || *peer == "" {
		fmt.Fprintln(stderr, "join needs --bundle, --leader and --peer")
		return errUsage
	}
	tok, err := token()
	if err != nil || tok == "" {
		fmt.Fprintln(stderr, "join needs the operator's authority: --token (an administrator's API token) or --token-file (e.g. the operator.token of the node joined through)")
		return errUsage
	}
	ident, err := pki.ReadBundle(*bundle)
	if err != nil {
		return err
	}
	if s, ok, _ := readSettings(*data); ok && s.ID != ident.NodeID() {
		return fmt.Errorf("%s belongs to node %s, not %s", *data, s.ID, ident.NodeID())
	}
	if err := installBackupKey(*data, ident.Role(), *bundle, stdout); err != nil {
		return err
	}
	if err := pki.SaveIdentity(pkiDir(*data), ident); err != nil {
		return err
	}
	s := nodeSettings{ID: ident.NodeID(), Peer: *peer, Listen: *listen, AvoidLeadership: *avoid,
		JoinVia: strings.TrimPrefix(*leader, "https://"), JoinToken: tok}
	if err := writeSettings(*data, s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "installed node %s (CA fingerprint %s); start it with `appliance serve --data %s`: it joins the cluster through %s as a voter\n",
		s.ID, pki.Fingerprint(ident.CACertificate()), *data, s.JoinVia)
	return nil
}

// memberCommand runs `appliance remove` and `appliance transfer`, which ask
// the leader over the peer port, with this node's certificate and the
// operator's authority: an administrator's API token (--token) or an
// operator token (--token-file; by default this node's own, which the
// leader accepts when the command runs on the leader's machine).
func memberCommand(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "data", "data folder of a node of the cluster (for its certificate)")
	leader := fs.String("leader", "", "peer address (host:port) of any node of the cluster")
	id := fs.String("node-id", "", "the node to remove, or to transfer leadership to (transfer: optional)")
	token := tokenFlags(fs)
	if err := fs.Parse(args); err != nil || *leader == "" || (name == "remove" && *id == "") {
		fmt.Fprintf(stderr, "%s needs --leader%s\n", name, map[bool]string{true: " and --node-id", false: ""}[name == "remove"])
		return errUsage
	}
	ident, err := pki.LoadIdentity(pkiDir(*data))
	if err != nil {
		return err
	}
	tok, err := token()
	if err != nil {
		return err
	}
	if tok == "" {
		if b, err := os.ReadFile(filepath.Join(*data, "operator.token")); err == nil {
			tok = strings.TrimSpace(string(b))
		}
	}
	path := replica.RemovePath
	if name == "transfer" {
		path = replica.TransferPath
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := replica.NewPeerClient(ident).Member(ctx, *leader, path, *id, "", tok); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(stdout, "%s: done\n", name)
	return nil
}

// tokenFlags adds --token and --token-file to fs and returns a function
// that reads whichever was given (the file's contents, trimmed), or "".
func tokenFlags(fs *flag.FlagSet) func() (string, error) {
	tok := fs.String("token", "", "the operator's authority: an administrator's API token (or $APPLIANCE_TOKEN)")
	file := fs.String("token-file", "", "read the token from this file (an operator.token)")
	return func() (string, error) {
		switch {
		case *tok != "":
			return *tok, nil
		case *file != "":
			b, err := os.ReadFile(*file)
			if err != nil {
				return "", fmt.Errorf("read token: %w", err)
			}
			return strings.TrimSpace(string(b)), nil
		}
		return os.Getenv("APPLIANCE_TOKEN"), nil
	}
}

// joinCluster has the node ask to join through settings.JoinVia and,
// once it is a member, removes the join token from node.json: the
// operator's authority is not left on the node's disk.
func (m *Main) joinCluster(settings nodeSettings) {
	joined := m.Node.JoinCluster(settings.JoinVia, settings.JoinToken)
	go func() {
		<-joined
		if settings.JoinToken == "" {
			return
		}
		settings.JoinToken = ""
		if err := writeSettings(m.Config.DataDir, settings); err != nil {
			m.Config.Logger.Error("remove the join token from node.json", "err", err)
		}
	}()
}

// authorizeMember is the peer port's check of the operator's authority
// for a membership change: this node's operator token (the operator at
// this machine), or an administrator's API token (replicated, valid on
// every node).
func (m *Main) authorizeMember(r *http.Request) (string, error) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || got == "" {
		return "", errors.New("no token given")
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(m.operatorToken)) == 1 {
		return "operator of " + m.Config.NodeID, nil
	}
	if check := m.adminToken.Load(); check != nil {
		if user, err := (*check)(got); err == nil {
			return user, nil
		}
	}
	return "", errors.New("the token is neither this node's operator token nor an administrator's API token")
}

// showCluster serves GET /api/v1/cluster.
func (m *Main) showCluster(w http.ResponseWriter, r *http.Request) {
	view, err := m.Node.Cluster(r.Context())
	if err != nil {
		httperr.WriteJSON(w, domain.Errorf(domain.EUNAVAILABLE, "", "%s", err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(view)
}

// requireOperator admits requests bearing the node's operator token
// (data/operator.token). Staff accounts with roles replace it for people;
// the token is for automation run by the village's IT contractor.
func (m *Main) requireOperator(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(m.operatorToken)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="appliance"`)
			httperr.WriteJSON(w, domain.Errorf(domain.EUNAUTHENTICATED, "", "an operator token is required (Authorization: Bearer …)"))
			return
		}
		next(w, r)
	}
}

// loadOrCreateToken returns the operator token at path, making it on first
// start.
func loadOrCreateToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	tok := hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", err
	}
	return tok, nil
}
