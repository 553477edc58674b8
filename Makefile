# The village hall finance appliance. `make run` and `make test` are all a
# fresh machine with Go needs; everything else is provisioned from here.

GO        ?= go
MODULE    := $(shell $(GO) list -m)
# Where `make run` keeps its ledger and the two addresses it listens on:
# move them on a machine where the ports are taken
# (make run HTTP=127.0.0.1:18080 HTTPS=127.0.0.1:18443 DATA=/tmp/vh).
DATA      ?= ./data
HTTP      ?= 127.0.0.1:8080
HTTPS     ?= 127.0.0.1:8443
CHROMIUM  ?= /usr/lib/chromium/chromium
BIN       := bin

CLUSTER   ?= ./data/cluster
# The release a build names (appliance version, backups' manifests).
RELEASE   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.release=$(RELEASE)

.PHONY: run cluster test test-faults test-stress generate check-generated vet check-imports chromium systemd qemu poppler stripe-mock tools docs-documents build build-pi bench bench-clusters bench-memory bench-scale profile lint check-monitoring clean

## run: one node with the embedded defaults and demo data, built into bin/:
## the kiosk on http://$(HTTP)/, the clerk's office on https://$(HTTPS)/staff/
run: build
	@echo "The kiosk:          http://$(HTTP)/"
	@echo "The clerk's office: https://$(HTTPS)/staff/ (the node's own certificate: trust $(DATA)/pki/ca.crt or accept it once)"
	@echo "The first administrator, from another terminal once the node runs:"
	@echo "  $(BIN)/appliance user add --data $(DATA) --node https://$(HTTPS) --username admin --name 'Village Administrator' --role administrator"
	@echo "Stop the node with Ctrl-C."
	$(BIN)/appliance serve --data $(DATA) --http $(HTTP) --https $(HTTPS) --demo

## cluster: three nodes on 127.0.0.1 (kiosks :8081-8083, peers :9081-9083) with demo data
cluster: build
	firmware-config/cluster-demo.sh $(BIN)/appliance $(CLUSTER)

## test: the whole suite, including the real-browser kiosk tests, the unit
## files under systemd-analyze, the Pi build under qemu and the monitoring
## rules under promtool
test: check-generated vet check-imports tools check-monitoring
	$(GO) test -race -count=1 -timeout 25m ./...

## tools: what the tests run besides Go, from Debian's packages, and
## Stripe's API mock from the Go module proxy
tools: chromium systemd qemu stripe-mock

## stripe-mock: Stripe's own API mock, for the Stripe Terminal driver's
## tests, built into bin/ (the tests build it there too when it is missing)
STRIPE_MOCK := github.com/stripe/stripe-mock@v0.203.0
stripe-mock:
	@if [ -x "$(BIN)/stripe-mock" ]; then exit 0; fi; \
	echo "building $(STRIPE_MOCK) into $(BIN)/"; \
	GOBIN="$(CURDIR)/$(BIN)" GOFLAGS= $(GO) install $(STRIPE_MOCK)

## test-faults: the full randomized fault suite (about 10 minutes): partitions of the
## WebSocket transport, kill -9 of appliance processes, restarts, leader crashes during
## writes, slow disks; then exactly-once, linearizability (porcupine) and state-hash checks.
## `make test` runs a bounded subset (one short run of each kind and the scenarios).
FAULTS_RUNS      ?= 8
FAULTS_PROC_RUNS ?= 4
FAULTS_SECONDS   ?= 15
test-faults:
	@mkdir -p $(BIN)
	FAULTS_RUNS=$(FAULTS_RUNS) FAULTS_PROC_RUNS=$(FAULTS_PROC_RUNS) FAULTS_SECONDS=$(FAULTS_SECONDS) \
		$(GO) test -race -count=1 -timeout 20m -v ./sync/faults/ ./sync/faultsuite/ >$(BIN)/test-faults.log 2>&1; \
		status=$$?; \
		grep -E -- '--- FAIL|^FAIL|^ok|^panic|DATA RACE|fault suite:|_test\.go:[0-9]+: ' $(BIN)/test-faults.log; \
		echo "full log: $(BIN)/test-faults.log"; exit $$status

## test-stress: the replica cluster tests and the fault-suite scenarios 20 times each beside
## a CPU, I/O and disk hog (stress-ng, installed from Debian when missing and root), with random
## pauses at the replica's racing points, then 100 kill -9 restarts under writes; ends with
## "stress: N runs (F failed), diverged D, lost L, duplicated U" (about an hour on 2 cores)
STRESS_RUNS     ?= 20
STRESS_RESTARTS ?= 100
test-stress:
	STRESS_RUNS=$(STRESS_RUNS) STRESS_RESTARTS=$(STRESS_RESTARTS) GO=$(GO) .ci/stress

## generate: templ components → Go
generate:
	$(GO) tool templ generate -path kiosk

## check-generated: generated code is checked in and up to date
check-generated: generate
	@if [ -n "$$(git status --porcelain -- '*_templ.go')" ]; then \
		echo "templ output is not up to date with the .templ files; run 'make generate' and commit:"; \
		git status --porcelain -- '*_templ.go'; exit 1; fi

## vet: go vet, gofmt, and no tracker references (the word issue or item
## and a number, or a number after #) in code, tests, docs or configuration:
## a reader has no tracker, so a sentence says why in its own words and the
## history stays in git. A board meeting's agenda item in test and demo data
## ("motion of March 1, item 7") is the village's own numbering.
vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	@bad=$$(git grep -InE '[Ii]ssues? #?[0-9]+|[Ii]tems? [0-9]+|#[0-9]{2}\b' | grep -vE '(motion|meeting) of [^"]*, item [0-9]+' || true); \
		if [ -n "$$bad" ]; then echo "say why in the sentence, not which issue or item asked for it:"; echo "$$bad"; exit 1; fi

## check-imports: dependencies point inward (domain ← sync, kiosk ← appliance),
## and each capability of the back office (kiosk/staff/*) imports no other's
## package: what two share is the office's own (kiosk/staff, kiosk/staff/view)
check-imports:
	@bad=$$($(GO) list -deps ./domain/... | grep -E '^$(MODULE)/(sync|kiosk|appliance)' || true); \
		if [ -n "$$bad" ]; then echo "domain must not import: $$bad"; exit 1; fi
	@bad=$$($(GO) list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' ./domain/... | grep -vE '^($(MODULE)|github.com/shopspring/decimal)' || true); \
		if [ -n "$$bad" ]; then echo "domain imports beyond the standard library and decimal: $$bad"; exit 1; fi
	@bad=$$($(GO) list -deps ./kiosk/... | grep -E '^$(MODULE)/sync' || true); \
		if [ -n "$$bad" ]; then echo "kiosk must not import sync: $$bad"; exit 1; fi
	@bad=$$($(GO) list -f '{{$$p := .ImportPath}}{{range .Imports}}{{$$p}} {{.}}{{"\n"}}{{end}}' ./kiosk/staff/... | \
		awk '$$1 ~ "/kiosk/staff/" && $$1 !~ "/stafftest$$" && $$2 ~ "/kiosk/staff/" && $$2 !~ "/kiosk/staff/view$$" && index($$2, $$1 "/") != 1 && index($$1, $$2 "/") != 1'); \
		if [ -n "$$bad" ]; then echo "a capability of the back office imports another's package (share through kiosk/staff):"; echo "$$bad"; exit 1; fi

## chromium: the browser the kiosk tests drive (Debian's package)
chromium:
	@if [ -x "$(CHROMIUM)" ] || command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing Chromium from Debian's packages"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null; \
	else \
		echo "Chromium is missing; install it with: sudo apt-get install -y chromium"; exit 1; \
	fi

## systemd: systemd-analyze, for the unit checks (Debian's systemd package)
systemd:
	@if command -v systemd-analyze >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing systemd from Debian's packages (for systemd-analyze)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd >/dev/null; \
	else \
		echo "systemd-analyze is missing; install it with: sudo apt-get install -y systemd"; exit 1; \
	fi

## qemu: qemu-user for running the Pi build in the tests (Debian's qemu-user-static)
qemu:
	@if command -v qemu-aarch64-static >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing qemu-user-static from Debian's packages"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null; \
	else \
		echo "qemu-aarch64-static is missing; install it with: sudo apt-get install -y qemu-user-static"; exit 1; \
	fi

## poppler: pdftoppm, for the pictures of the documents (Debian's poppler-utils)
poppler:
	@if command -v pdftoppm >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "installing poppler-utils from Debian's packages (for pdftoppm)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null; \
	else \
		echo "pdftoppm is missing; install it with: sudo apt-get install -y poppler-utils"; exit 1; \
	fi

## docs-documents: the pictures in docs/documents/ of the documents that
## leave the office: TestEveryDocumentReadsRight writes each PDF it reads
## to a temporary folder (DOCS_DOCUMENTS), and pdftoppm renders each one's
## first page to a PNG of the same name; docs/documents/README.md lists them
DOCS_DPI ?= 60
docs-documents: poppler
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	DOCS_DOCUMENTS="$$tmp" $(GO) test -count=1 -run '^TestEveryDocumentReadsRight$$' ./appliance/ && \
	mkdir -p docs/documents && rm -f docs/documents/*.png && \
	for f in "$$tmp"/*.pdf; do \
		n=$$(basename "$$f" .pdf); \
		pdftoppm -png -r $(DOCS_DPI) -f 1 -l 1 -singlefile "$$f" "docs/documents/$$n" || exit 1; \
		echo "docs/documents/$$n.png $$(wc -c <"docs/documents/$$n.png") bytes"; \
	done

## check-monitoring: the alert rules and their tests under promtool (from the
## Prometheus module v0.316.0, pinned in .ci/promtool.mod; built once, cached)
check-monitoring:
	$(GO) tool -modfile=.ci/promtool.mod promtool check rules firmware-config/monitoring/alerts.yml
	$(GO) tool -modfile=.ci/promtool.mod promtool test rules firmware-config/monitoring/alerts_test.yml
	$(GO) tool -modfile=.ci/promtool.mod promtool check config firmware-config/monitoring/prometheus.yml

## build: the appliance for this machine
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/appliance ./appliance

## build-pi: the appliance for 64-bit Raspberry Pi OS (linux/arm64 only; see
## docs/operating.md), stamped with the release (appliance version)
build-pi:
	CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/appliance-linux-arm64 ./appliance

## bench: benchmarks, reported side by side (never asserted in tests); the
## three-node cluster benchmarks and etcd beside them (bench-clusters) run
## last; sync/replica's flat-cost benchmark pre-fills a ledger of 1,000,000
## payments first (several minutes)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 45m $$($(GO) list ./domain/ ./sync/... ./kiosk/... | grep -v /sync/raftbench)
	$(GO) test -run '^$$' -bench '^Benchmark(KioskServerTime|RulesFile)$$' -benchmem ./appliance/
	$(MAKE) bench-clusters
	$(MAKE) bench-memory

## bench-clusters: the three-node clusters (sync/raftbench: bare raft beside
## the appliance) and etcd doing the same payment on three embedded members
## (bench/etcd, a module of its own so that etcd's dependencies stay out of
## go.mod). First an untimed pass of each under strace counts the sync
## system calls per payment (skipped, n/a, without strace); then etcd is
## timed, then the clusters, whose last table puts the appliance's submit
## path beside etcd and bare raft, with the targets
CLUSTER_BENCHTIME ?= 2s
SYNCS_BENCHTIME   ?= 1000x
STRACE_SYNCS      := strace -f --seccomp-bpf -qq -e signal=none -e trace=fsync,fdatasync,msync,sync_file_range,syncfs
bench-clusters:
	@mkdir -p $(BIN)
	rm -f $(BIN)/etcd.json $(BIN)/etcd-syncs.json $(BIN)/raftbench-syncs.json
	cd bench/etcd && $(GO) test -c -o $(CURDIR)/$(BIN)/etcdbench.test .
	$(GO) test -c -o $(BIN)/raftbench-syncs.test ./sync/raftbench/
	@if ! command -v strace >/dev/null 2>&1; then \
		echo "strace is missing (apt-get install -y strace): sync calls per payment will read n/a"; exit 0; fi; \
	echo "counting sync calls under strace, untimed: etcd, then ws-bare and ws-badger submit"; \
	SYNCTRACE=$(BIN)/etcd.strace ETCDBENCH_OUT=$(BIN)/etcd-syncs.json $(STRACE_SYNCS) -o $(BIN)/etcd.strace \
		$(BIN)/etcdbench.test -test.run '^$$' -test.bench Payment -test.benchtime $(SYNCS_BENCHTIME) >$(BIN)/etcd-syncs.log 2>&1 \
		|| { cat $(BIN)/etcd-syncs.log; exit 1; }; \
	grep -E '^Benchmark' $(BIN)/etcd-syncs.log; \
	SYNCTRACE=$(BIN)/raftbench.strace RAFTBENCH_SYNCS_OUT=$(BIN)/raftbench-syncs.json $(STRACE_SYNCS) -o $(BIN)/raftbench.strace \
		$(BIN)/raftbench-syncs.test -test.run '^$$' -test.bench 'Replication/(submit|ratios)/c(1|16)/ws-(bare|badger)$$' \
		-test.benchtime $(SYNCS_BENCHTIME) -test.timeout 20m >$(BIN)/raftbench-syncs.log 2>&1 \
		|| { cat $(BIN)/raftbench-syncs.log; exit 1; }; \
	grep -E '^Benchmark' $(BIN)/raftbench-syncs.log; \
	rm -f $(BIN)/etcd.strace $(BIN)/raftbench.strace
	ETCDBENCH_OUT=$(CURDIR)/$(BIN)/etcd.json $(BIN)/etcdbench.test -test.run '^$$' -test.bench Payment -test.benchtime $(CLUSTER_BENCHTIME)
	RAFTBENCH_COMPARE=$(CURDIR)/$(BIN) $(GO) test -run '^$$' -bench . -benchtime $(CLUSTER_BENCHTIME) -timeout 20m ./sync/raftbench/

## profile: CPU and block profiles of the apply and submit paths at 16 clients (ws-badger,
## sync/raftbench), written to bin/{apply,submit}-{cpu,block}.pprof, with their top entries
PROFILE_N ?= 3000x
profile:
	@mkdir -p $(BIN)
	for p in apply submit; do \
		$(GO) test -run '^$$' -bench "Replication/$$p/c16/ws-badger\$$" -benchtime $(PROFILE_N) -timeout 20m \
			-o $(BIN)/raftbench.test -cpuprofile $(BIN)/$$p-cpu.pprof -blockprofile $(BIN)/$$p-block.pprof ./sync/raftbench/ | grep -E '^Benchmark' || exit 1; \
		echo "== $$p: CPU, top by cumulative time in the replica and badger"; \
		$(GO) tool pprof -top -cum -nodecount 30 -focus 'villagehall|badger' $(BIN)/raftbench.test $(BIN)/$$p-cpu.pprof 2>/dev/null | tail -n +6; \
		echo "== $$p: CPU, top by own time"; \
		$(GO) tool pprof -top -nodecount 20 $(BIN)/raftbench.test $(BIN)/$$p-cpu.pprof 2>/dev/null | tail -n +6; \
		echo "== $$p: blocking (where goroutines waited), top by cumulative delay"; \
		$(GO) tool pprof -top -cum -nodecount 20 -focus 'villagehall' $(BIN)/raftbench.test $(BIN)/$$p-block.pprof 2>/dev/null | tail -n +6; \
	done

## bench-memory: the memory and start-up budget of one node on a Pi,
## reported and never asserted: 100,000 bills imported through the clerk's
## page into a ledger of 5,000 parcels, a year of window payments, then the
## node started cold and serving, with and without the Pi's GOMEMLIMIT
## (each run its own process, so each peak RSS is its own); a node 10,000
## payments behind catching up; the heap profiles of the Pi runs (imports,
## serving) are left in bin/memory-{import,serving}.pprof
bench-memory:
	@mkdir -p $(BIN)
	GOMEMLIMIT=64MiB $(GO) test -run '^$$' -bench '^BenchmarkMemoryBudget$$' -benchtime 1x -timeout 30m ./appliance/
	GOMEMLIMIT= $(GO) test -run '^$$' -bench '^BenchmarkMemoryBudget$$' -benchtime 1x -timeout 30m ./appliance/
	$(GO) test -run '^$$' -bench '^BenchmarkCatchUp10000$$' -benchtime 1x -timeout 10m ./sync/replica/
	GOMEMLIMIT=64MiB MEMPROFILE=$(CURDIR)/$(BIN)/memory-import.pprof $(GO) test -run '^$$' -bench '^BenchmarkImportHeapProfile$$' -benchtime 1x -timeout 30m ./appliance/
	$(GO) tool pprof -sample_index=inuse_space -top -nodecount=12 $(BIN)/memory-import.pprof
	GOMEMLIMIT=64MiB MEMPROFILE=$(CURDIR)/$(BIN)/memory-serving.pprof $(GO) test -run '^$$' -bench '^BenchmarkServingHeapProfile$$' -benchtime 1x -timeout 30m ./appliance/
	$(GO) tool pprof -sample_index=inuse_space -top -nodecount=12 $(BIN)/memory-serving.pprof

## bench-scale: every staff page and export timed on five years of books,
## reported as a table (never asserted): 20,000 parcels, 100,000 bills,
## 500,000 payments built through the product's commands in process and
## cached in bin/bench-scale/ by size, with a layer of 5,000 claims paid by check
## and 40 room tax operators cached beside it, then the real binary serving a copy
## with GOMEMLIMIT=64MiB: the fifth year imported through the pages, 30,000
## payments through the API from 4 clients, every route asked 20 times, the
## November run taken, peak RSS per phase; heap profiles and the node's log in bin/profiles/.
## SCALE=0.1 builds a tenth (a few minutes); the first full build takes a while
SCALE ?= 1
bench-scale:
	@mkdir -p $(BIN)/bench-scale $(BIN)/profiles
	SCALE=$(SCALE) BENCH_SCALE_CACHE=$(CURDIR)/$(BIN)/bench-scale BENCH_SCALE_PROFILES=$(CURDIR)/$(BIN)/profiles \
		$(GO) test -run '^$$' -bench '^BenchmarkScale$$' -benchtime 1x -timeout 3h ./appliance/

## lint: staticcheck from .ci/tools.mod (the app's go.mod stays clean)
lint:
	$(GO) tool -modfile=.ci/tools.mod staticcheck ./...

clean:
	rm -rf $(BIN)
