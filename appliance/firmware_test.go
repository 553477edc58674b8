package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The firmware-config files, as they land on a node: install.sh into a
// scratch root, then systemd's own checks of every unit it installed.

const firmware = "../firmware-config"

// scratchRoot makes an empty target system with only root in its user
// database, as a fresh image has.
func scratchRoot(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the install test sets owners, so it runs as root: sudo go test ./appliance/ -run 'TestInstall|TestUnits'")
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	for name, body := range map[string]string{
		"passwd": "root:x:0:0:root:/root:/bin/sh\n", "group": "root:x:0:\n",
		"shadow": "root:*:19000:0:99999:7:::\n", "gshadow": "root:*::\n",
	} {
		if err := os.WriteFile(filepath.Join(root, "etc", name), []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func install(t *testing.T, root, bin, role string) {
	t.Helper()
	out, err := exec.Command("sh", filepath.Join(firmware, "install.sh"), "--root", root, "--bin", bin, role).CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh %s: %v\n%s", role, err, out)
	}
}

// userNames reads a user database of the target system: id → name.
func userNames(t *testing.T, path string) map[uint32]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[uint32]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), ":")
		if len(parts) < 3 {
			continue
		}
		if id, err := strconv.ParseUint(parts[2], 10, 32); err == nil {
			out[uint32(id)] = parts[0]
		}
	}
	return out
}

// TestInstallScriptInAScratchRoot: for each role, every file lands where
// the node expects it, with its owner, group and mode.
func TestInstallScriptInAScratchRoot(t *testing.T) {
	type want struct{ owner, group, mode string }
	common := map[string]want{
		"etc/appliance/node.toml":              {"root", "appliance", "-rw-r-----"},
		"etc/systemd/system/appliance.service": {"root", "root", "-rw-r--r--"},
		"var/lib/appliance":                    {"appliance", "appliance", "drwxr-x---"},
		"media/backup":                         {"appliance", "appliance", "drwxr-x---"},
		"usr/local/bin/appliance":              {"root", "root", "-rwxr-xr-x"},
		"usr/share/doc/appliance/README.md":    {"root", "root", "-rw-r--r--"},
		"etc/chrony/chrony.conf":               {"root", "root", "-rw-r--r--"},
		"boot/firmware/config.txt":             {"root", "root", "-rw-r--r--"},
	}
	roles := map[string]map[string]want{
		"kiosk": {
			"etc/systemd/system/kiosk.service":                   {"root", "root", "-rw-r--r--"},
			"etc/chromium/policies/managed/appliance-kiosk.json": {"root", "root", "-rw-r--r--"},
			"home/kiosk": {"kiosk", "kiosk", "drwxr-xr-x"},
		},
		"clerk":  {},
		"backup": {},
	}
	backupUnits := []string{"appliance-backup.service", "appliance-backup.timer", "appliance-drill.service", "appliance-drill.timer"}
	bin := filepath.Join(t.TempDir(), "appliance")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o700)
	for role, extra := range roles {
		t.Run(role, func(t *testing.T) {
			root := scratchRoot(t)
			install(t, root, bin, role)
			install(t, root, bin, role) // a second run changes nothing
			users, groups := userNames(t, filepath.Join(root, "etc/passwd")), userNames(t, filepath.Join(root, "etc/group"))
			files := map[string]want{}
			for k, v := range common {
				files[k] = v
			}
			for k, v := range extra {
				files[k] = v
			}
			if role != "kiosk" {
				for _, u := range backupUnits {
					files["etc/systemd/system/"+u] = want{"root", "root", "-rw-r--r--"}
				}
			}
			for path, w := range files {
				info, err := os.Stat(filepath.Join(root, path))
				if err != nil {
					t.Errorf("%s: %v", path, err)
					continue
				}
				st := info.Sys().(*syscall.Stat_t)
				got := want{users[st.Uid], groups[st.Gid], info.Mode().String()}
				if got != w {
					t.Errorf("%s: %+v, want %+v", path, got, w)
				}
			}
			node, _ := os.ReadFile(filepath.Join(root, "etc/appliance/node.toml"))
			role0, _ := os.ReadFile(filepath.Join(firmware, "nodes", role+".toml"))
			if string(node) != string(role0) {
				t.Errorf("node.toml is not nodes/%s.toml", role)
			}
			fstab, _ := os.ReadFile(filepath.Join(root, "etc/fstab"))
			if n := strings.Count(string(fstab), "/media/backup"); (role == "kiosk") != (n == 0) || n > 1 {
				t.Errorf("fstab: %q", fstab)
			}
			boot, _ := os.ReadFile(filepath.Join(root, "boot/firmware/config.txt"))
			if strings.Count(string(boot), "i2c-rtc") != 1 {
				t.Errorf("config.txt: %q", boot)
			}
			if role == "kiosk" {
				for _, u := range backupUnits {
					if _, err := os.Stat(filepath.Join(root, "etc/systemd/system", u)); err == nil {
						t.Errorf("the kiosk got %s (it serves no staff listener to back up from)", u)
					}
				}
			}
		})
	}
}

// exposure is the overall exposure level systemd-analyze security gives.
var exposure = regexp.MustCompile(`Overall exposure level for (\S+): ([0-9.]+) (\S+)`)

// TestUnitsVerifyAndSecurity installs every role into one scratch root
// (the real binary; Debian's own units beside; cage and chromium stand-ins,
// which the kiosk's image installs from Debian) and runs systemd-analyze
// verify on every unit and security on every service. The exposure
// scores must be those recorded in firmware-config/README.md.
func TestUnitsVerifyAndSecurity(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze is missing: apt-get install -y systemd (make systemd does it as root)")
	}
	root := scratchRoot(t)
	bin := buildAppliance(t)
	for _, role := range []string{"clerk", "kiosk"} {
		install(t, root, bin, role)
	}
	if err := os.MkdirAll(filepath.Join(root, "usr/lib/systemd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", "/usr/lib/systemd/system", filepath.Join(root, "usr/lib/systemd/")).CombinedOutput(); err != nil {
		t.Fatalf("copy Debian's units: %v\n%s", err, out)
	}
	for _, stand := range []string{"usr/bin/cage", "usr/bin/chromium"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, stand)), 0o755)
		os.WriteFile(filepath.Join(root, stand), []byte("#!/bin/sh\n"), 0o755)
	}
	units, _ := filepath.Glob(filepath.Join(firmware, "*", "*.service"))
	timers, _ := filepath.Glob(filepath.Join(firmware, "*", "*.timer"))
	if len(units) != 4 || len(timers) != 2 {
		t.Fatalf("units %v, timers %v", units, timers)
	}
	readme, _ := os.ReadFile(filepath.Join(firmware, "README.md"))
	for _, u := range append(units, timers...) {
		name := filepath.Base(u)
		out, err := exec.Command(analyze, "verify", "--man=no", "--root="+root, "/etc/systemd/system/"+name).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("systemd-analyze verify %s: %v\n%s", name, err, out)
		}
		if !strings.HasSuffix(name, ".service") {
			continue
		}
		out, err = exec.Command(analyze, "security", "--offline=yes", "--root="+root, "/etc/systemd/system/"+name).CombinedOutput()
		m := exposure.FindStringSubmatch(string(out))
		if err != nil || m == nil {
			t.Errorf("systemd-analyze security %s: %v\n%s", name, err, out)
			continue
		}
		row := fmt.Sprintf("| `%s` | %s %s |", name, m[2], m[3])
		t.Log(row)
		if !strings.Contains(string(readme), row) {
			t.Errorf("firmware-config/README.md does not record %s's exposure as systemd-analyze gives it now: %s", name, row)
		}
	}
}
