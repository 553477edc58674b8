package pki

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// now is the pinned clock for issuing; certificates are checked at
// handshakes against the real clock, so it must be close to it.
func now() time.Time { return time.Now().Truncate(time.Second) }

func newTestCA(t *testing.T, village string) *CA {
	t.Helper()
	ca, err := NewCA(village, now())
	if err != nil {
		t.Fatalf("NewCA: %v", err)
	}
	return ca
}

func issue(t *testing.T, ca *CA, nodeID string, hosts ...string) *Identity {
	t.Helper()
	id, err := ca.Issue(nodeID, RoleClerk, hosts, now())
	if err != nil {
		t.Fatalf("Issue(%q): %v", nodeID, err)
	}
	return id
}

func TestIssueAndVerify(t *testing.T) {
	issuedAt := now()
	ca, err := NewCA("Brooklyn", issuedAt)
	if err != nil {
		t.Fatal(err)
	}
	caCert := ca.Certificate()
	if !caCert.IsCA || caCert.Subject.CommonName != "Brooklyn Village CA" || ca.Village() != "Brooklyn" {
		t.Errorf("CA subject %v, IsCA %v, village %q", caCert.Subject, caCert.IsCA, ca.Village())
	}
	if got, want := caCert.NotAfter, issuedAt.AddDate(10, 0, 0); !got.Equal(want) {
		t.Errorf("CA NotAfter = %v, want %v", got, want)
	}

	id, err := ca.Issue("kiosk", RoleClerk, nil, issuedAt)
	if err != nil {
		t.Fatal(err)
	}
	cert := id.Certificate()
	if id.NodeID() != "kiosk" || cert.Subject.CommonName != "kiosk" {
		t.Errorf("node id %q, CN %q, want kiosk", id.NodeID(), cert.Subject.CommonName)
	}
	if len(cert.URIs) != 2 || cert.URIs[0].String() != "urn:village-node:kiosk" || cert.URIs[1].String() != "urn:village-role:clerk" {
		t.Errorf("URIs = %v, want [urn:village-node:kiosk urn:village-role:clerk]", cert.URIs)
	}
	if got, err := RoleOf(cert); err != nil || got != RoleClerk || id.Role() != RoleClerk {
		t.Errorf("RoleOf = %q, %v; Role() = %q", got, err, id.Role())
	}
	if got, err := NodeIDOf(cert); err != nil || got != "kiosk" {
		t.Errorf("NodeIDOf = %q, %v", got, err)
	}
	if !slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageServerAuth) || !slices.Contains(cert.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
		t.Errorf("ExtKeyUsage = %v, want server and client auth", cert.ExtKeyUsage)
	}
	if !slices.Equal(cert.DNSNames, []string{"localhost"}) || len(cert.IPAddresses) != 1 || !cert.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("default SANs = %v %v, want localhost 127.0.0.1", cert.DNSNames, cert.IPAddresses)
	}
	if got, want := cert.NotAfter, issuedAt.AddDate(5, 0, 0); !got.Equal(want) {
		t.Errorf("node NotAfter = %v, want %v", got, want)
	}
	if !cert.NotBefore.Before(issuedAt) {
		t.Errorf("node NotBefore %v not backdated before %v", cert.NotBefore, issuedAt)
	}
	if cert.IsCA {
		t.Error("node certificate is a CA")
	}

	// Any node of the village verifies any other, both ways.
	other := issue(t, ca, "clerk")
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth} {
		got, err := other.VerifyPeer([]*x509.Certificate{cert}, usage)
		if err != nil || got != "kiosk" {
			t.Errorf("VerifyPeer(usage %v) = %q, %v; want kiosk", usage, got, err)
		}
	}
	if _, err := id.VerifyPeer(nil, x509.ExtKeyUsageClientAuth); !errors.Is(err, ErrUntrusted) {
		t.Errorf("VerifyPeer(no certificate) = %v, want ErrUntrusted", err)
	}
}

func TestIssueHosts(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	id := issue(t, ca, "backup", "backup.village.lan", "10.0.0.3", "::1")
	cert := id.Certificate()
	if !slices.Equal(cert.DNSNames, []string{"backup.village.lan"}) {
		t.Errorf("DNSNames = %v", cert.DNSNames)
	}
	if len(cert.IPAddresses) != 2 || !cert.IPAddresses[0].Equal(net.ParseIP("10.0.0.3")) || !cert.IPAddresses[1].Equal(net.IPv6loopback) {
		t.Errorf("IPAddresses = %v", cert.IPAddresses)
	}
	for _, bad := range []string{"", "a b", "http://x"} {
		if _, err := ca.Issue("backup", RoleClerk, []string{bad}, now()); err == nil {
			t.Errorf("Issue with host %q succeeded", bad)
		}
	}
}

func TestIssueNeverOutlivesCA(t *testing.T) {
	start := now()
	ca := newTestCA(t, "Brooklyn")
	id, err := ca.Issue("kiosk", RoleClerk, nil, start.AddDate(8, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !id.Certificate().NotAfter.Equal(ca.Certificate().NotAfter) {
		t.Errorf("node NotAfter %v, want the CA's %v", id.Certificate().NotAfter, ca.Certificate().NotAfter)
	}
	if _, err := ca.Issue("kiosk", RoleClerk, nil, start.AddDate(11, 0, 0)); err == nil {
		t.Error("Issue after the CA expired succeeded")
	}
}

func TestValidateNodeID(t *testing.T) {
	for _, id := range []string{"a", "kiosk", "clerk-2", "0", "node-with-32-characters-exactly0"} {
		if err := ValidateNodeID(id); err != nil {
			t.Errorf("ValidateNodeID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "-kiosk", "Kiosk", "kiosk_1", "kiosk.hall", "kiosk 1", "é", "node-with-33-characters-exactly01"} {
		if err := ValidateNodeID(id); !errors.Is(err, ErrInvalidNodeID) {
			t.Errorf("ValidateNodeID(%q) = %v, want ErrInvalidNodeID", id, err)
		}
	}
	ca := newTestCA(t, "Brooklyn")
	if _, err := ca.Issue("Kiosk", RoleClerk, nil, now()); !errors.Is(err, ErrInvalidNodeID) {
		t.Errorf("Issue(Kiosk) = %v, want ErrInvalidNodeID", err)
	}
}

func TestNewCARejectsEmptyVillage(t *testing.T) {
	for _, v := range []string{"", "  ", "a\nb"} {
		if _, err := NewCA(v, now()); err == nil {
			t.Errorf("NewCA(%q) succeeded", v)
		}
	}
}

func TestOtherCARefused(t *testing.T) {
	ours := newTestCA(t, "Brooklyn")
	theirs := newTestCA(t, "Brooklyn") // same name, different key
	id := issue(t, ours, "kiosk")
	stranger := issue(t, theirs, "clerk")

	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth} {
		if _, err := id.VerifyPeer([]*x509.Certificate{stranger.Certificate()}, usage); !errors.Is(err, ErrUntrusted) {
			t.Errorf("VerifyPeer(stranger, %v) = %v, want ErrUntrusted", usage, err)
		}
	}
	// A stranger cannot smuggle its own CA in as an intermediate.
	chain := []*x509.Certificate{stranger.Certificate(), stranger.CACertificate()}
	if _, err := id.VerifyPeer(chain, x509.ExtKeyUsageClientAuth); !errors.Is(err, ErrUntrusted) {
		t.Errorf("VerifyPeer(stranger with its CA) = %v, want ErrUntrusted", err)
	}
}

// certWithoutNodeID signs, with ca's key, a client/server certificate that
// has no node id URI SAN.
func certWithoutNodeID(t *testing.T, ca *CA) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(42),
		Subject:      pkix.Name{CommonName: "intruder"},
		NotBefore:    now().Add(-time.Hour),
		NotAfter:     now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func TestCertificateWithoutNodeIDRefused(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	id := issue(t, ca, "kiosk")
	cert, _ := certWithoutNodeID(t, ca)
	if _, err := NodeIDOf(cert); !errors.Is(err, ErrNoNodeID) {
		t.Errorf("NodeIDOf = %v, want ErrNoNodeID", err)
	}
	if _, err := id.VerifyPeer([]*x509.Certificate{cert}, x509.ExtKeyUsageClientAuth); !errors.Is(err, ErrNoNodeID) {
		t.Errorf("VerifyPeer = %v, want ErrNoNodeID", err)
	}
}

// handshakeResult is what each side of a handshake saw: its error, or the
// node id of the other side.
type handshakeResult struct {
	clientErr, serverErr error
	clientSaw, serverSaw string
}

// handshake runs a TLS handshake over loopback between a server with
// serverCfg and a client with clientCfg, dialing 127.0.0.1.
func handshake(t *testing.T, serverCfg, clientCfg *tls.Config) handshakeResult {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", serverCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type result struct {
		err  error
		peer string
	}
	done := make(chan result, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- result{err: err}
			return
		}
		defer c.Close()
		tc := c.(*tls.Conn)
		if err := tc.Handshake(); err != nil {
			done <- result{err: err}
			return
		}
		peer, _ := NodeIDOf(tc.ConnectionState().PeerCertificates[0])
		// Let the client see any alert before the connection closes.
		_, _ = tc.Write([]byte("ok"))
		done <- result{peer: peer}
	}()
	var hr handshakeResult
	c, err := tls.Dial("tcp", ln.Addr().String(), clientCfg)
	if err == nil {
		// In TLS 1.3 the server's verdict on the client certificate
		// arrives after the client's handshake is done.
		_, err = io.ReadFull(c, make([]byte, 2))
		if err == nil {
			hr.clientSaw, _ = NodeIDOf(c.ConnectionState().PeerCertificates[0])
		}
		c.Close()
	}
	res := <-done
	hr.clientErr, hr.serverErr, hr.serverSaw = err, res.err, res.peer
	return hr
}

func TestTLSConfigs(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	server := issue(t, ca, "clerk")
	client := issue(t, ca, "kiosk")
	strangers := newTestCA(t, "Brooklyn")
	stranger := issue(t, strangers, "kiosk")
	noIDCert, noIDKey := certWithoutNodeID(t, ca)
	noID := &tls.Config{
		MinVersion:         tls.VersionTLS13,
		Certificates:       []tls.Certificate{{Certificate: [][]byte{noIDCert.Raw}, PrivateKey: noIDKey}},
		InsecureSkipVerify: true,
	}
	noCert := &tls.Config{MinVersion: tls.VersionTLS13, InsecureSkipVerify: true}
	tls12 := client.ClientTLS()
	tls12.MinVersion, tls12.MaxVersion = tls.VersionTLS12, tls.VersionTLS12

	t.Run("same CA over 127.0.0.1", func(t *testing.T) {
		hr := handshake(t, server.ServerTLS(), client.ClientTLS())
		if hr.clientErr != nil || hr.serverErr != nil {
			t.Fatalf("client error %v, server error %v", hr.clientErr, hr.serverErr)
		}
		if hr.clientSaw != "clerk" || hr.serverSaw != "kiosk" {
			t.Errorf("client saw %q, server saw %q", hr.clientSaw, hr.serverSaw)
		}
	})
	// A client that trusts any server, so that only the server decides.
	strangerClient := &tls.Config{
		MinVersion:         tls.VersionTLS13,
		Certificates:       stranger.ServerTLS().Certificates,
		InsecureSkipVerify: true,
	}
	refused := []struct {
		name      string
		server    *tls.Config
		client    *tls.Config
		refusedBy string
	}{
		{"client from another CA", server.ServerTLS(), strangerClient, "server"},
		{"client without certificate", server.ServerTLS(), noCert, "server"},
		{"client without node id", server.ServerTLS(), noID, "server"},
		{"TLS 1.2", server.ServerTLS(), tls12, "server"},
		{"server from another CA", stranger.ServerTLS(), client.ClientTLS(), "client"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			hr := handshake(t, tc.server, tc.client)
			cerr, serr := hr.clientErr, hr.serverErr
			t.Logf("client: %v; server: %v", cerr, serr)
			if cerr == nil {
				t.Error("client finished the handshake")
			}
			switch tc.refusedBy {
			case "server":
				if serr == nil || strings.HasPrefix(serr.Error(), "remote error") {
					t.Errorf("server did not refuse the client itself: %v", serr)
				}
			case "client":
				if !errors.Is(cerr, ErrUntrusted) {
					t.Errorf("client error %v, want ErrUntrusted", cerr)
				}
			}
		})
	}
}

func TestSaveLoadCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ca := newTestCA(t, "Brooklyn")
	if err := SaveCA(dir, ca); err != nil {
		t.Fatal(err)
	}
	assertMode(t, filepath.Join(dir, CAKeyFile), 0o600)
	got, err := LoadCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Certificate().Equal(ca.Certificate()) || !got.key.Equal(ca.key) {
		t.Error("loaded CA differs from saved CA")
	}
	// The loaded CA still issues certificates the original's nodes trust.
	a := issue(t, ca, "kiosk")
	b := issue(t, got, "clerk")
	if _, err := a.VerifyPeer([]*x509.Certificate{b.Certificate()}, x509.ExtKeyUsageClientAuth); err != nil {
		t.Errorf("node of loaded CA not trusted: %v", err)
	}
	if err := SaveCA(dir, newTestCA(t, "Brooklyn")); !errors.Is(err, fs.ErrExist) {
		t.Errorf("SaveCA over an existing CA key = %v, want fs.ErrExist", err)
	}
	if _, err := LoadCA(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadCA(empty dir) = %v, want fs.ErrNotExist", err)
	}
}

func TestLoadCAMismatchedKey(t *testing.T) {
	dir := t.TempDir()
	if err := SaveCA(dir, newTestCA(t, "Brooklyn")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := SaveCA(other, newTestCA(t, "Brooklyn")); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(other, CAKeyFile), filepath.Join(dir, CAKeyFile))
	if _, err := LoadCA(dir); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("LoadCA with another CA's key = %v, want a mismatch error", err)
	}
}

func TestSaveLoadIdentity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "node")
	ca := newTestCA(t, "Brooklyn")
	id := issue(t, ca, "backup", "backup.village.lan", "10.0.0.3")
	if err := SaveIdentity(dir, id); err != nil {
		t.Fatal(err)
	}
	assertMode(t, filepath.Join(dir, NodeKeyFile), 0o600)
	if _, err := os.Stat(filepath.Join(dir, CAKeyFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SaveIdentity wrote a CA key: %v", err)
	}
	got, err := LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	assertSameIdentity(t, got, id)

	// A renewed identity of the same village replaces the old one.
	renewed := issue(t, ca, "backup")
	if err := SaveIdentity(dir, renewed); err != nil {
		t.Fatalf("SaveIdentity(renewed): %v", err)
	}
	got, err = LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	assertSameIdentity(t, got, renewed)

	// A folder of one village is not silently taken over by another's.
	if err := SaveIdentity(dir, issue(t, newTestCA(t, "Brooklyn"), "backup")); err == nil {
		t.Error("SaveIdentity over another CA's folder succeeded")
	}
}

func TestLoadIdentityRejectsMixedFiles(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	a, b := t.TempDir(), t.TempDir()
	if err := SaveIdentity(a, issue(t, ca, "kiosk")); err != nil {
		t.Fatal(err)
	}
	if err := SaveIdentity(b, issue(t, ca, "clerk")); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(b, NodeKeyFile), filepath.Join(a, NodeKeyFile))
	if _, err := LoadIdentity(a); err == nil {
		t.Error("LoadIdentity with another node's key succeeded")
	}

	c := t.TempDir()
	if err := SaveIdentity(c, issue(t, newTestCA(t, "Brooklyn"), "kiosk")); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(c, CACertFile), filepath.Join(b, CACertFile))
	if _, err := LoadIdentity(b); !errors.Is(err, ErrUntrusted) {
		t.Errorf("LoadIdentity beside another CA = %v, want ErrUntrusted", err)
	}
}

func TestBundleRoundTrip(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	id := issue(t, ca, "backup", "backup.village.lan")
	path := filepath.Join(t.TempDir(), "backup.bundle")
	if err := WriteBundle(path, id); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
	got, err := ReadBundle(path)
	if err != nil {
		t.Fatal(err)
	}
	assertSameIdentity(t, got, id)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("-----BEGIN PRIVATE KEY-----")); n != 1 {
		t.Errorf("bundle holds %d private keys, want 1", n)
	}
	caKey, err := encodeKey(ca.key)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, bytes.TrimSpace(caKey)) {
		t.Error("bundle holds the CA key")
	}

	// A node provisioned from the bundle talks to one issued directly.
	dir := t.TempDir()
	if err := SaveIdentity(dir, got); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIdentity(dir)
	if err != nil {
		t.Fatal(err)
	}
	hr := handshake(t, issue(t, ca, "kiosk").ServerTLS(), loaded.ClientTLS())
	if hr.clientErr != nil || hr.serverErr != nil || hr.serverSaw != "backup" {
		t.Errorf("handshake with bundled identity: client %v, server %v, server saw %q", hr.clientErr, hr.serverErr, hr.serverSaw)
	}
}

func TestBundleTruncated(t *testing.T) {
	id := issue(t, newTestCA(t, "Brooklyn"), "backup")
	path := filepath.Join(t.TempDir(), "backup.bundle")
	if err := WriteBundle(path, id); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.TrimRight(data, "\n")
	// Every cut short of the end, down to an empty file, is refused.
	for n := 0; n < len(data); n++ {
		if _, err := parseBundle(data[:n]); err == nil {
			t.Fatalf("bundle cut to %d of %d bytes accepted", n, len(data))
		}
	}
	cut := filepath.Join(t.TempDir(), "cut.bundle")
	if err := os.WriteFile(cut, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadBundle(cut)
	if !errors.Is(err, ErrBadBundle) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("ReadBundle(half a bundle) = %v, want ErrBadBundle mentioning truncation", err)
	}
}

func TestBundleTampered(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	id := issue(t, ca, "backup")
	path := filepath.Join(t.TempDir(), "backup.bundle")
	if err := WriteBundle(path, id); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := bytes.SplitAfter(good, []byte("-----\n"))
	// blocks: BEGIN, body+END, BEGIN, body+END, BEGIN, body+END, "".
	bodyOffsets := []int{}
	off := 0
	for i, b := range blocks {
		if i%2 == 1 {
			bodyOffsets = append(bodyOffsets, off+len(b)/3)
		}
		off += len(b)
	}
	if len(bodyOffsets) != 3 {
		t.Fatalf("unexpected bundle layout: %d blocks", len(bodyOffsets))
	}

	otherCA := newTestCA(t, "Brooklyn")
	otherCAPEM := encodeCert(otherCA.Certificate())
	caKeyPEM, err := encodeKey(ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"CA certificate byte changed", flipAt(good, bodyOffsets[0])},
		{"node certificate byte changed", flipAt(good, bodyOffsets[1])},
		{"node key byte changed", flipAt(good, bodyOffsets[2])},
		{"CA certificate replaced", append(slices.Clone(otherCAPEM), good[len(encodeCert(ca.Certificate())):]...)},
		{"CA key appended", append(slices.Clone(good), caKeyPEM...)},
		{"text appended", append(slices.Clone(good), "hello\n"...)},
		{"text between blocks", bytes.Replace(good, []byte("-----END CERTIFICATE-----\n"), []byte("-----END CERTIFICATE-----\nnote\n"), 1)},
		{"blocks swapped", bytes.Join([][]byte{blocks[2], blocks[3], blocks[0], blocks[1], blocks[4], blocks[5]}, nil)},
		{"not PEM", []byte("this is not a bundle\n")},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(p, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ReadBundle(p)
			if !errors.Is(err, ErrBadBundle) {
				t.Fatalf("ReadBundle = %v, %v; want ErrBadBundle", got, err)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	if _, err := ReadBundle(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadBundle(missing) = %v, want fs.ErrNotExist", err)
	}
}

// flipAt returns a copy of data with the base64 character at i changed.
func flipAt(data []byte, i int) []byte {
	out := slices.Clone(data)
	if out[i] == 'A' {
		out[i] = 'B'
	} else {
		out[i] = 'A'
	}
	return out
}

func TestFingerprint(t *testing.T) {
	ca := newTestCA(t, "Brooklyn")
	fp := Fingerprint(ca.Certificate())
	if len(fp) != 32*3-1 || strings.Count(fp, ":") != 31 {
		t.Errorf("Fingerprint = %q", fp)
	}
	if Fingerprint(issue(t, ca, "kiosk").CACertificate()) != fp {
		t.Error("fingerprint of the CA differs between CA and identity")
	}
}

func assertSameIdentity(t *testing.T, got, want *Identity) {
	t.Helper()
	if got.NodeID() != want.NodeID() || !got.Certificate().Equal(want.Certificate()) ||
		!got.CACertificate().Equal(want.CACertificate()) || !got.key.Equal(want.key) {
		t.Errorf("identity %q differs from %q", got.NodeID(), want.NodeID())
	}
}

func assertMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v, want %v", path, got, want)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRoles: a certificate carries the role it was issued with, signed by
// the CA; an unknown role is refused at issue; a certificate from before
// roles existed is read as the least, kiosk.
func TestRoles(t *testing.T) {
	ca, err := NewCA("Village of Belleville", now())
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{RoleKiosk, RoleClerk, RoleBackup} {
		id, err := ca.Issue("node", role, nil, now())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := RoleOf(id.Certificate()); err != nil || got != role {
			t.Errorf("role %s read back as %q, %v", role, got, err)
		}
	}
	if _, err := ca.Issue("node", "administrator", nil, now()); err == nil {
		t.Error("a certificate issued with an unknown role")
	}
	old, _ := ca.Issue("node", RoleClerk, nil, now())
	cert := *old.Certificate()
	cert.URIs = cert.URIs[:1]
	if got, err := RoleOf(&cert); err != nil || got != RoleKiosk {
		t.Errorf("a certificate without a role: %q, %v; want kiosk", got, err)
	}
}
