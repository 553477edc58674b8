package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

// TestPiBinaryUnderQemu builds the Raspberry Pi binary as `make build-pi`
// does (linux/arm64, no cgo, a stamped release) and runs it under
// qemu-user (Debian's qemu-user-static): `appliance version` names the
// release and the platform, and `appliance rules` answers the whole
// conformance file exactly as this machine's build does (which
// TestRulesConformance checks case by case). A Pi build that compiles
// but crashes fails here.
func TestPiBinaryUnderQemu(t *testing.T) {
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Fatal("qemu-aarch64-static is missing: apt-get install -y qemu-user-static (make qemu does it as root)")
	}
	bin := filepath.Join(t.TempDir(), "appliance-linux-arm64")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.release=pi-test", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build for linux/arm64: %v\n%s", err, out)
	}
	out, err := exec.Command(qemu, bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "appliance pi-test (linux/arm64") || !strings.Contains(string(out), "ledger format") {
		t.Fatalf("appliance version under qemu: %v\n%s", err, out)
	}
	cases, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	rules := exec.Command(qemu, bin, "rules")
	rules.Stdin = bytes.NewReader(cases)
	var stderr bytes.Buffer
	rules.Stderr = &stderr
	got, err := rules.Output()
	if err != nil {
		t.Fatalf("appliance rules under qemu: %v\n%s", err, stderr.String())
	}
	var want bytes.Buffer
	if err := runRules(bytes.NewReader(cases), &want, domain.DefaultParams()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		g, w := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("line %d: the Pi build answers\n%s\nthis build answers\n%s", i+1, g[i], w[i])
			}
		}
		t.Fatalf("the Pi build answered %d lines, this build %d", len(g), len(w))
	}
	if n := bytes.Count(got, []byte("\n")); n < 100 {
		t.Fatalf("only %d answers", n)
	}
}
