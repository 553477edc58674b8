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
	// The first run makes the cluster; the second starts it again on the
	// same folders, as a newcomer does the next day.
	for _, run := range []string{"first", "again"} {
		status := runClusterDemo(t, bin, dir, base)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var body []byte
		var err error
		var view struct {
			Leader string `json:"leader"`
			Nodes  []struct {
				ID string `json:"id"`
			} `json:"nodes"`
		}
		for { // the restarted cluster answers once all three run, and elects its leader then
			body, err = exec.CommandContext(ctx, "sh", "-c", status.command+" --fail --silent --show-error").CombinedOutput()
			if err == nil {
				err = json.Unmarshal(body, &view)
			}
			if (err == nil && view.Leader != "") || ctx.Err() != nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		cancel()
		status.stop()
		if err != nil {
			t.Fatalf("%s run: %s: %v\n%s", run, status.command, err, body)
		}
		if len(view.Nodes) != 3 || view.Leader == "" {
			t.Fatalf("%s run: the printed status command answered %q", run, body)
		}
	}
}

// clusterDemo is a running cluster-demo.sh and the status command it
// printed.
type clusterDemo struct {
	command string
	stop    func()
}

// runClusterDemo starts the script on dir with its ports from base and
// waits for its status command.
func runClusterDemo(t *testing.T, bin, dir string, base int) clusterDemo {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "firmware-config", "cluster-demo.sh"), bin, dir)
	cmd.Env = append(cmd.Environ(), "KIOSK_BASE="+strconv.Itoa(base), "STAFF_BASE="+strconv.Itoa(base+3), "PEER_BASE="+strconv.Itoa(base+6))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var printed []string
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				stop()
				t.Fatalf("the script ended without a cluster status command:\n%s", strings.Join(printed, "\n"))
			}
			printed = append(printed, line)
			if s, found := strings.CutPrefix(line, "cluster status: "); found {
				go func() {
					for range lines { // keep the script's output flowing
					}
				}()
				return clusterDemo{command: s, stop: stop}
			}
		case <-timeout:
			stop()
			t.Fatalf("no cluster status command within two minutes:\n%s", strings.Join(printed, "\n"))
		}
	}
}
