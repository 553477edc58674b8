package main

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/villagehall/appliance/kiosk/route"
	"github.com/villagehall/appliance/sync/replica"
)

// metrics is one node's Prometheus registry (never the global one:
// several nodes run in one test process): the ledger's state
// (replica.Collector), the HTTP requests of both listeners by route and
// status, the staff sign-in failures, the backups (opsCollector), the Go
// runtime and the process.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	signIns  *prometheus.CounterVec
}

func newMetrics(m *Main) *metrics {
	node := prometheus.Labels{"node": m.Config.NodeID}
	mt := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appliance_http_requests_total",
			Help: "HTTP requests answered, by listener (kiosk or staff), route pattern and status.", ConstLabels: node},
			[]string{"listener", "route", "status"}),
		signIns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "appliance_signin_failures_total",
			Help: "Staff sign-ins refused: a wrong username or password, or an address or account held back after failures.", ConstLabels: node},
			[]string{"reason"}),
	}
	mt.reg.MustRegister(
		replica.NewCollector(m.Node),
		newOpsCollector(m),
		mt.requests, mt.signIns,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	if m.card != nil && m.cardStatus != nil {
		status := m.cardStatus
		mt.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "appliance_card_payments_available",
			Help: "1 while the kiosk's card terminal can take cards (its processor answers), else 0; absent on a node without a terminal.", ConstLabels: node},
			func() float64 {
				if ok, _ := status(); ok {
					return 1
				}
				return 0
			}))
	}
	return mt
}

// handler serves /metrics.
func (mt *metrics) handler() http.Handler {
	return promhttp.HandlerFor(mt.reg, promhttp.HandlerOpts{})
}

// signInRoute is the route of the staff sign-in form.
const signInRoute = "POST /staff/login"

// instrument counts every request next answers on a listener, by the
// route pattern that served it (a path would hold ids and account
// numbers: unbounded, and not for a metrics server), and counts refused
// staff sign-ins.
func (mt *metrics) instrument(listener string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		r, pattern := route.Watch(r)
		next.ServeHTTP(rw, r)
		p := pattern()
		if p == "" {
			p = r.Pattern // a route of the appliance's own mux (/healthz)
		}
		if p == "" {
			p = "unmatched"
		}
		mt.requests.WithLabelValues(listener, p, strconv.Itoa(rw.status)).Inc()
		if p == signInRoute {
			switch rw.status {
			case http.StatusUnauthorized:
				mt.signIns.WithLabelValues("wrong").Inc()
			case http.StatusTooManyRequests:
				mt.signIns.WithLabelValues("held").Inc()
			}
		}
	})
}

// statusWriter remembers the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes of
// the backup stream).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
