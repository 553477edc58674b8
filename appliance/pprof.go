package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"
)

// pprofEnv names the loopback address on which `appliance serve` serves
// Go's profiles (/debug/pprof/), for an engineer measuring where a node's
// memory or time goes (make bench-scale takes its heap profiles there).
// It is an environment variable, not a flag or a configuration key, so
// that no node in service serves them by a configuration slip; unset, the
// node serves none.
const pprofEnv = "APPLIANCE_PPROF"

// servePprof starts the profiles' listener when pprofEnv names an
// address. Only a loopback address is taken: a profile shows the heap's
// contents, ledger records and secrets among them.
func servePprof(logger *slog.Logger) error {
	addr := os.Getenv(pprofEnv)
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", pprofEnv, addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s=%q: the profiles are served on a loopback address only (127.0.0.1:6060)", pprofEnv, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s (%s): %w", addr, pprofEnv, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Warn("Go's profiles are served ("+pprofEnv+"): never in service", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("the profiles' listener stopped", "err", err)
		}
	}()
	return nil
}
