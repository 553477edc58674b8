package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The demo's public site and sender: the village's reserved example
// domain, so that a demo's QR codes and e-mails show what a configured
// node's do and lead nowhere real.
const (
	demoPublicURL = "https://belleville.example"
	demoMailFrom  = "Village of Belleville (demo) <kiosk@belleville.example>"
)

// demoReceipts returns the mail relay and the village a demo node's
// kiosk uses, so that a newcomer running the demo sees receipts as a
// configured node gives them: with a QR code (the demo village's public
// site, when the configuration names none) and with e-mailed copies (the
// demo's own relay, when the configuration names none: a sink on
// 127.0.0.1 that keeps each message as a file in demo-mail/ of the data
// folder, which Main.Close stops). What the configuration names is kept.
func (m *Main) demoReceipts(mc mailConfig, vc villageConfig) (mailConfig, villageConfig, error) {
	if vc.PublicURL == "" {
		vc.PublicURL = demoPublicURL
	}
	if mc.Relay != "" {
		return mc, vc, nil
	}
	sink, err := startDemoMail(filepath.Join(m.Config.DataDir, "demo-mail"), m.Config.Logger)
	if err != nil {
		return mc, vc, err
	}
	m.demoMail = sink
	mc.Relay = sink.Addr()
	if mc.From == "" {
		mc.From = demoMailFrom
	}
	m.Config.Logger.Info("demo mail relay: e-mailed receipts are kept as files, not sent", "dir", sink.Dir())
	return mc, vc, nil
}

// demoMail is the demo's SMTP relay: it takes every message on 127.0.0.1
// and writes it, as received, to a file NNNN.eml (mode 0600: it holds a
// resident's address) in its folder. It sends nothing anywhere.
type demoMail struct {
	ln  net.Listener
	dir string
	log *slog.Logger

	mu    sync.Mutex
	conns map[net.Conn]bool
	next  int
	wg    sync.WaitGroup
}

// startDemoMail starts a relay that keeps messages in dir.
func startDemoMail(dir string, log *slog.Logger) (*demoMail, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("demo mail folder: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.eml"))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo mail relay: %w", err)
	}
	d := &demoMail{ln: ln, dir: dir, log: log, conns: map[net.Conn]bool{}, next: len(files) + 1}
	d.wg.Add(1)
	go d.serve()
	return d, nil
}

// Addr is the relay's host:port.
func (d *demoMail) Addr() string { return d.ln.Addr().String() }

// Dir is the folder the messages are kept in.
func (d *demoMail) Dir() string { return d.dir }

// Close stops the relay and ends the sessions under way.
func (d *demoMail) Close() error {
	err := d.ln.Close()
	d.mu.Lock()
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
	return err
}

func (d *demoMail) serve() {
	defer d.wg.Done()
	for {
		c, err := d.ln.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		d.conns[c] = true
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer func() {
				d.mu.Lock()
				delete(d.conns, c)
				d.mu.Unlock()
				c.Close()
			}()
			if err := d.session(c); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				d.log.Warn("demo mail relay", "err", err)
			}
		}()
	}
}

// session answers one SMTP client (RFC 5321's minimum: no extensions,
// so the client sends in plain text) and keeps each message it sends.
func (d *demoMail) session(c net.Conn) error {
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	tp := textproto.NewConn(c)
	if err := tp.PrintfLine("220 demo relay: messages are kept, never sent"); err != nil {
		return err
	}
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return err
		}
		verb, _, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			err = tp.PrintfLine("250 demo relay")
		case "MAIL", "RCPT", "RSET", "NOOP":
			err = tp.PrintfLine("250 OK")
		case "DATA":
			if err = tp.PrintfLine("354 end with a line of a single dot"); err != nil {
				return err
			}
			var msg []byte
			if msg, err = io.ReadAll(tp.DotReader()); err != nil {
				return err
			}
			if err = d.keep(msg); err != nil {
				_ = tp.PrintfLine("451 not kept: %v", err)
				return err
			}
			err = tp.PrintfLine("250 kept")
		case "QUIT":
			_ = tp.PrintfLine("221 bye")
			return nil
		default:
			err = tp.PrintfLine("502 not here")
		}
		if err != nil {
			return err
		}
	}
}

// keep writes a message to the next file of the folder.
func (d *demoMail) keep(msg []byte) error {
	d.mu.Lock()
	n := d.next
	d.next++
	d.mu.Unlock()
	file := filepath.Join(d.dir, fmt.Sprintf("%04d.eml", n))
	if err := os.WriteFile(file, msg, 0o600); err != nil {
		return err
	}
	d.log.Info("demo mail relay kept a message", "file", file)
	return nil
}
