package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/villagehall/appliance/domain"
)

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "node.toml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigFileAndFlags: the file sets every serve setting; a flag given
// on the command line overrides the file; what neither sets keeps its
// default.
func TestConfigFileAndFlags(t *testing.T) {
	path := writeConfig(t, `# the clerk's node
node_id = "hall-clerk"
data = "/var/lib/appliance"
http = "127.0.0.1:8080"
https = "0.0.0.0:8443"
terminal = "none"
offline_card_limit = "250.00"

[log]
format = "text"
level = "warn"

[backup]
dir = "/media/usb"
keep_daily = 7
`)
	c, err := parseServe([]string{"--config", path, "--https", "127.0.0.1:9443", "--log-level", "debug"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.NodeID != "hall-clerk" || c.DataDir != "/var/lib/appliance" || c.StaffAddr != "127.0.0.1:9443" || c.Terminal != "none" ||
		!c.OfflineCardLimit.Equal(domain.MustMoney("250.00")) || c.LogFormat != "text" || c.LogLevel != "debug" {
		t.Fatalf("config: %+v", c)
	}
	if c.Backup.Dir != "/media/usb" || c.Backup.KeepDaily != 7 || c.Backup.KeepMonthly != 12 {
		t.Fatalf("backup section: %+v (keep_monthly keeps its default 12)", c.Backup)
	}
	if c.HTTPAddr != "127.0.0.1:8080" || c.Demo {
		t.Fatalf("defaults: %+v", c)
	}
	// The offline card limit flag overrides the file too.
	c, err = parseServe([]string{"--offline-card-limit", "75.00", "--config", path}, io.Discard)
	if err != nil || !c.OfflineCardLimit.Equal(domain.MustMoney("75.00")) {
		t.Fatalf("--offline-card-limit over the file: %v, %v", c.OfflineCardLimit, err)
	}
}

// TestConfigMistakesNameFileLineAndKey: an unknown key, a value of the
// wrong type, a value that cannot work and a syntax error are refused at
// start with the file, the line and the key.
func TestConfigMistakesNameFileLineAndKey(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"unknown key", "node_id = \"hall-clerk\"\noffline_card_limt = \"5.00\"\n", ":2: offline_card_limt: unknown key"},
		{"unknown key in a section", "[backup]\ndir = \"/media/backup\"\nkeep_weekly = 4\n", ":3: backup.keep_weekly: unknown key"},
		{"unknown section", "[peer]\nlisten = \"x\"\n", ":1: peer: unknown key"},
		{"wrong type", "node_id = \"n\"\n\ndemo = \"yes\"\n", ":3: demo: wrong type: this key takes true or false"},
		{"wrong type in a section", "[backup]\nkeep_daily = \"14\"\n", ":2: backup.keep_daily: wrong type: this key takes a whole number"},
		{"a number for a string", "https = 8443\n", ":1: https: wrong type: this key takes a string"},
		{"bad terminal", "\nterminal = \"paypal\"\n", ":2: terminal: \"paypal\" is not a card terminal"},
		{"stripe without a reader", "terminal = \"stripe\"\n[stripe]\nsecret_file = \"/etc/appliance/stripe.key\"\n", ":1: stripe.reader: \"\" is not a Stripe Terminal reader id"},
		{"stripe without a key file", "terminal = \"stripe\"\n[stripe]\nreader = \"tmr_1\"\n", ":1: stripe.secret_file: the Stripe terminal needs"},
		{"bad amount", "offline_card_limit = \"lots\"\n", ":1: offline_card_limit:"},
		{"bad log level", "[log]\nlevel = \"loud\"\n", ":2: log.level:"},
		{"no backups kept", "[backup]\nkeep_daily = 0\n", ":2: backup.keep_daily: keep at least one"},
		{"syntax", "node_id = \n", ":1:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeConfig(t, c.body)
			_, err := parseServe([]string{"--config", path}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), path+c.want) {
				t.Fatalf("got %v, want %q", err, path+c.want)
			}
			var out bytes.Buffer
			if err := configCommand([]string{"check", path}, &out, io.Discard); err == nil || !strings.Contains(err.Error(), path+c.want) {
				t.Fatalf("config check: %v", err)
			}
		})
	}
}

// TestRoleFilesCheck: the three role files in firmware-config/nodes are
// valid, and say what each role is.
func TestRoleFilesCheck(t *testing.T) {
	want := map[string]string{"kiosk": `"off"`, "clerk": `"0.0.0.0:8443"`, "backup": `"0.0.0.0:8443"`}
	for role, https := range want {
		path := filepath.Join("..", "firmware-config", "nodes", role+".toml")
		var out bytes.Buffer
		if err := configCommand([]string{"check", path}, &out, io.Discard); err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if !strings.Contains(out.String(), "https                "+https) || !strings.Contains(out.String(), `data                 "/var/lib/appliance"`) {
			t.Fatalf("%s:\n%s", role, out.String())
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "firmware-config", "nodes", "*"))
	if len(files) != len(want) {
		t.Fatalf("firmware-config/nodes holds %v", files)
	}
}
