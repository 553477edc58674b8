package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// Under systemd the node runs as Type=notify (firmware-config/systemd/
// appliance.service): it says READY=1 only once its ledger is open, raft
// has started and both HTTP listeners answer a request, so that units
// ordered after it (the kiosk's browser, the backup) start against a node
// that serves; it feeds the watchdog (WatchdogSec=) from its main loop
// only while raft and its stores answer (replica.Node.Alive), so a node
// that hangs is restarted; and it says STOPPING=1 when it begins to shut
// down. Outside systemd (NOTIFY_SOCKET unset) none of this does anything.

// notify sends one state to systemd's notify socket, if there is one.
func (m *Main) notify(state string) {
	if _, err := daemon.SdNotify(false, state); err != nil {
		m.Config.Logger.Warn("tell systemd", "state", state, "err", err)
	}
}

// Wait tells systemd that the node is ready, feeds its watchdog while the
// node is alive, and returns when ctx ends (SIGTERM) or a listener fails,
// once the node is closed.
func (m *Main) Wait(ctx context.Context) error {
	log := m.Config.Logger
	if err := m.checkListeners(ctx); err != nil {
		if ctx.Err() != nil {
			// Asked to stop (SIGTERM) while the listeners were being
			// checked: a stop, not a listener that failed.
			log.Info("shutting down")
			m.notify(daemon.SdNotifyStopping)
			return m.Close()
		}
		return errors.Join(err, m.Close())
	}
	m.notify(daemon.SdNotifyReady + "\nSTATUS=serving node " + m.Config.NodeID)
	interval, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("systemd watchdog", "err", err)
	}
	var tick <-chan time.Time
	if interval > 0 {
		// systemd wants a ping at least every interval; three chances.
		t := time.NewTicker(interval / 3)
		defer t.Stop()
		tick = t.C
		log.Info("feeding the systemd watchdog", "every", interval/3)
	}
	var fail error
	for fail == nil {
		select {
		case <-ctx.Done():
			log.Info("shutting down")
			m.notify(daemon.SdNotifyStopping)
			return m.Close()
		case err := <-m.done:
			m.done <- err
			log.Error("http server stopped", "err", err)
			fail = err
		case <-tick:
			probe, cancel := context.WithTimeout(ctx, interval/3)
			err := m.Node.Alive(probe)
			cancel()
			if err != nil {
				// No ping: if this lasts, systemd kills and restarts
				// the node (WatchdogSec=, Restart=on-failure).
				log.Error("watchdog not fed: the node does not answer", "err", err)
				continue
			}
			m.notify(daemon.SdNotifyWatchdog)
		}
	}
	m.notify(daemon.SdNotifyStopping)
	return errors.Join(fail, m.Close())
}

// checkListeners makes one request to each listener, so that READY=1
// means they answer, not only that their sockets are bound.
func (m *Main) checkListeners(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	check := func(client *http.Client, url string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("the node's listener %s does not answer: %w", url, err)
		}
		resp.Body.Close()
		return nil
	}
	if err := check(http.DefaultClient, "http://"+loopback(m.Addr())+"/healthz"); err != nil {
		return err
	}
	if m.StaffAddr() == "" {
		return nil
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: m.identity.CAPool(), ServerName: "localhost", MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	return check(&http.Client{Transport: tr}, "https://"+loopback(m.StaffAddr())+"/healthz")
}

// loopback turns a listener's address into one this machine can dial: a
// wildcard address (0.0.0.0:8443, [::]:8443) becomes 127.0.0.1.
func loopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
