package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClusterDemoPrintsCommandsThatWork runs firmware-config/cluster-demo.sh
// (what `make cluster` runs) on ports of its own and runs the cluster
// status command it prints, as printed, through the shell: it answers
// with the cluster of three nodes, not a 404.
func TestClusterDemoPrintsCommandsThatWork(t *testing.T) {
	bin := buildAppliance(t)
	dir := filepath.Join(t.TempDir(), "cluster")
	base := 20000 + 10*rand.IntN(3000) // three ranges of three ports, apart from the usual ones
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "firmware-config", "cluster-demo.sh"), bin, dir)
	cmd.Env = append(cmd.Environ(), "KIOSK_BASE="+strconv.Itoa(base), "STAFF_BASE="+strconv.Itoa(base+3), "PEER_BASE="+strconv.Itoa(base+6))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	var status string
	var printed []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		printed = append(printed, line)
		if s, ok := strings.CutPrefix(line, "cluster status: "); ok {
			status = s
			break
		}
	}
	if status == "" {
		t.Fatalf("the script printed no cluster status command:\n%s", strings.Join(printed, "\n"))
	}
	go func() {
		for sc.Scan() { // keep the script's output flowing
		}
	}()
	body, err := exec.CommandContext(ctx, "sh", "-c", status+" --fail --silent --show-error").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", status, err, body)
	}
	var view struct {
		Leader string `json:"leader"`
		Nodes  []struct {
			ID string `json:"id"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(body, &view); err != nil || len(view.Nodes) != 3 || view.Leader == "" {
		t.Fatalf("the printed status command answered %q (%v)", body, err)
	}
}
