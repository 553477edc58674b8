package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/mail"
)

// A node's configuration is one TOML file, /etc/appliance/node.toml
// (firmware-config/nodes/ has one per role). Every flag of `appliance
// serve` has a key there; a flag given on the command line overrides the
// file. A key the appliance does not know, or a value of the wrong type, is
// refused at start with the file, the line and the key, so that a typo
// ("offline_card_limt") never falls back silently to a default.
//
//	node_id = "hall-clerk"
//	data = "/var/lib/appliance"
//	http = "127.0.0.1:8080"            # the kiosk's own browser, loopback
//	https = "0.0.0.0:8443"             # the staff pages on the LAN; "off" for none
//	metrics = "0.0.0.0:9100"           # Prometheus on the LAN; "" for none
//	terminal = "none"                  # "stripe", or "simulator" (demo only)
//	demo = false
//	params = ""                        # parameter rows that seed a new cluster
//	offline_card_limit = "500.00"
//
//	[log]
//	format = "json"                    # or "text"
//	level = "info"                     # debug, info, warn, error
//
//	[stripe]                           # terminal = "stripe": Stripe Terminal, server-driven
//	reader = "tmr_FDOt2wlRZEdpd7"      # the smart reader on the hall's LAN
//	secret_file = "/etc/appliance/stripe.key"  # key = "sk_live_…"; mode 0600
//	descriptor = "BELLEVILLE"          # statement descriptor suffix
//	max_amount = "5000.00"             # the single card payment limit
//
//	[backup]
//	dir = "/media/backup"              # the USB drive's mount point
//	keep_daily = 14
//	keep_monthly = 12
//
//	[village]                          # the kiosk receipts' letterhead
//	name = "Village of Belleville"
//	address = "24 W Main St, Belleville, WI 53508"
//	phone = "608-555-0142"
//	email = "clerk@belleville.example"
//	public_url = "https://belleville.example"  # a QR code on receipts opens them there; "" for none
//
//	[mail]                             # e-mailed receipt copies; no relay, no e-mail
//	relay = "smtp.belleville.example:25"
//	from = "Village of Belleville <kiosk@belleville.example>"

// fileConfig is the TOML file. Its keys are the flags' names with
// underscores; the sections group the logging and the backups.
type fileConfig struct {
	NodeID           string `toml:"node_id" help:"this node's id"`
	Data             string `toml:"data" help:"data folder"`
	HTTP             string `toml:"http" help:"address of the resident kiosk (plain HTTP, for the kiosk's own browser)"`
	HTTPS            string `toml:"https" help:"HTTPS address of the staff pages and the API (off: none)"`
	Metrics          string `toml:"metrics" help:"plain HTTP address of /metrics, /healthz and /readyz for Prometheus on the LAN (empty: none)"`
	Terminal         string `toml:"terminal" help:"the card terminal: stripe, simulator or none (default: simulator with --demo, else none)"`
	Demo             bool   `toml:"demo" help:"load demo data into an empty ledger"`
	Params           string `toml:"params" help:"parameter file layered over the embedded defaults"`
	OfflineCardLimit string `toml:"offline_card_limit" help:"largest card payment taken while the leader is unreachable"`
	Log              struct {
		Format string `toml:"format" help:"log format: json or text"`
		Level  string `toml:"level" help:"log level: debug, info, warn or error"`
	} `toml:"log"`
	Stripe  stripeConfig  `toml:"stripe"`
	Backup  backupConfig  `toml:"backup"`
	Village villageConfig `toml:"village"`
	Mail    mailConfig    `toml:"mail"`
}

// mailConfig is the [mail] section: the SMTP relay the kiosk's e-mailed
// receipt copies go through. Without a relay the receipt offers none.
type mailConfig struct {
	Relay string `toml:"relay" help:"the SMTP relay, host:port (empty: no e-mailed receipts)"`
	From  string `toml:"from" help:"the sender of e-mailed receipts, like \"Village of Belleville <kiosk@belleville.example>\""`
}

// villageConfig is the [village] section: the letterhead of the kiosk's
// receipts and the village's public site, where a receipt's QR code leads.
type villageConfig struct {
	Name      string `toml:"name" help:"the village's name on receipts (empty: the kiosk's catalogue)"`
	Address   string `toml:"address" help:"the village hall's postal address on receipts"`
	Phone     string `toml:"phone" help:"the telephone number for questions about a receipt"`
	Email     string `toml:"email" help:"the e-mail address for questions about a receipt"`
	PublicURL string `toml:"public_url" help:"the village's public site (https://…): a QR code on each receipt opens it there; empty: no QR code"`
}

// stripeConfig is the [stripe] section: the Stripe Terminal reader and
// where its key is. The key itself is never in this file, in a flag, in a
// log line or under the data folder (which the backups copy): it is read
// from secret_file, which must be readable by its owner only.
type stripeConfig struct {
	Reader     string `toml:"reader" help:"the Stripe Terminal reader id (tmr_…)"`
	SecretFile string `toml:"secret_file" help:"file holding the Stripe API key as key = \"sk_…\" (mode 0600, outside the data folder)"`
	Descriptor string `toml:"descriptor" help:"statement descriptor suffix on residents' card statements (at most 22 characters)"`
	MaxAmount  string `toml:"max_amount" help:"the largest single card payment"`
	APIURL     string `toml:"api_url" help:"Stripe's API address (empty: Stripe's own; tests: stripe-mock)"`
}

// defaultStripe is the [stripe] section a node starts with.
var defaultStripe = stripeConfig{MaxAmount: "5000.00"}

// backupConfig is the [backup] section: where the nightly backup goes and
// how many are kept.
type backupConfig struct {
	Dir         string `toml:"dir" help:"the backup drive's mount point"`
	KeepDaily   int    `toml:"keep_daily" help:"daily backups kept"`
	KeepMonthly int    `toml:"keep_monthly" help:"monthly backups kept (the first of each month)"`
}

// defaultBackup is where backups go on an appliance and how many are kept.
var defaultBackup = backupConfig{Dir: "/media/backup", KeepDaily: 14, KeepMonthly: 12}

// fileConfigOf returns c in the file's form.
func fileConfigOf(c Config) fileConfig {
	fc := fileConfig{NodeID: c.NodeID, Data: c.DataDir, HTTP: c.HTTPAddr, HTTPS: c.StaffAddr, Metrics: c.MetricsAddr, Terminal: c.Terminal,
		Demo: c.Demo, Params: c.ParamsFile, OfflineCardLimit: c.OfflineCardLimit.String(), Stripe: c.Stripe, Backup: c.Backup, Village: c.Village, Mail: c.Mail}
	fc.Log.Format, fc.Log.Level = c.LogFormat, c.LogLevel
	return fc
}

// apply sets c from the file's values.
func (fc fileConfig) apply(c *Config) error {
	lim, err := domain.ParseMoney(fc.OfflineCardLimit)
	if err != nil {
		return err
	}
	c.NodeID, c.DataDir, c.HTTPAddr, c.StaffAddr, c.MetricsAddr, c.Terminal = fc.NodeID, fc.Data, fc.HTTP, fc.HTTPS, fc.Metrics, fc.Terminal
	c.Demo, c.ParamsFile, c.OfflineCardLimit, c.Stripe, c.Backup = fc.Demo, fc.Params, lim, fc.Stripe, fc.Backup
	c.Village, c.Mail = fc.Village, fc.Mail
	c.LogFormat, c.LogLevel = fc.Log.Format, fc.Log.Level
	return nil
}

// configError is a mistake in a configuration file, where it is.
type configError struct {
	File string
	Line int    // 0 when the whole file is at fault
	Key  string // dotted ("backup.keep_daily"), or ""
	Msg  string
}

func (e *configError) Error() string {
	switch {
	case e.Line > 0 && e.Key != "":
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// readConfigFile reads the TOML file at path over base: keys the file does
// not set keep base's values. Unknown keys, values of the wrong type and
// values out of range are refused with the file, line and key.
func readConfigFile(path string, base fileConfig) (fileConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("read the configuration: %w", err)
	}
	fc := base
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fc); err != nil {
		return base, explainTOML(path, err)
	}
	if err := fc.check(path, data); err != nil {
		return base, err
	}
	return fc, nil
}

// explainTOML turns go-toml's errors into the file, line and key, and a
// sentence without Go's type names.
func explainTOML(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		var msgs []string
		for _, e := range strict.Errors {
			row, _ := e.Position()
			key := strings.Join(e.Key(), ".")
			msgs = append(msgs, (&configError{File: path, Line: row, Key: key, Msg: "unknown key (known keys: " + strings.Join(knownKeys(), ", ") + ")"}).Error())
		}
		return errors.New(strings.Join(msgs, "\n"))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		key := strings.Join(de.Key(), ".")
		msg := de.Error()
		if want, ok := keyTypes()[key]; ok && strings.Contains(msg, "cannot decode") {
			msg = "wrong type: this key takes " + want
		} else {
			msg = strings.TrimPrefix(msg, "toml: ")
		}
		return &configError{File: path, Line: row, Key: key, Msg: msg}
	}
	return &configError{File: path, Msg: err.Error()}
}

// check refuses values of the right type that cannot work.
func (fc fileConfig) check(path string, data []byte) error {
	bad := func(key, format string, args ...any) error {
		return &configError{File: path, Line: keyLine(data, key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if fc.NodeID == "" {
		return bad("node_id", "a node needs an id")
	}
	if fc.Data == "" {
		return bad("data", "a node needs a data folder")
	}
	if _, _, err := net.SplitHostPort(fc.HTTP); err != nil {
		return bad("http", "%q is not an address like 127.0.0.1:8080", fc.HTTP)
	}
	if _, _, err := net.SplitHostPort(fc.HTTPS); err != nil && fc.HTTPS != "off" {
		return bad("https", "%q is not an address like 0.0.0.0:8443, nor off", fc.HTTPS)
	}
	if _, _, err := net.SplitHostPort(fc.Metrics); err != nil && fc.Metrics != "" {
		return bad("metrics", "%q is not an address like 0.0.0.0:9100, nor empty", fc.Metrics)
	}
	switch fc.Terminal {
	case "", "none", "simulator":
	case "stripe":
		if err := fc.Stripe.check(); err != nil {
			line := keyLine(data, err.key)
			if line == 0 { // not in the file: the line that asks for Stripe
				line = keyLine(data, "terminal")
			}
			return &configError{File: path, Line: line, Key: err.key, Msg: err.msg}
		}
	default:
		return bad("terminal", "%q is not a card terminal this build knows (stripe, simulator or none)", fc.Terminal)
	}
	if lim, err := domain.ParseMoney(fc.OfflineCardLimit); err != nil || lim.IsNegative() {
		return bad("offline_card_limit", "%q is not an amount of money like \"500.00\"", fc.OfflineCardLimit)
	}
	switch fc.Log.Format {
	case "json", "text":
	default:
		return bad("log.format", "%q is not a log format (json or text)", fc.Log.Format)
	}
	if _, err := parseLevel(fc.Log.Level); err != nil {
		return bad("log.level", "%v", err)
	}
	if fc.Mail.Relay != "" {
		if _, _, err := net.SplitHostPort(fc.Mail.Relay); err != nil {
			return bad("mail.relay", "%q is not an address like smtp.example:25", fc.Mail.Relay)
		}
		if err := (mail.Config{Relay: fc.Mail.Relay, From: fc.Mail.From}).Check(); err != nil {
			return bad("mail.from", "%q is not a sender like \"Village of Belleville <kiosk@belleville.example>\"", fc.Mail.From)
		}
	}
	if u := fc.Village.PublicURL; u != "" {
		if pu, err := url.Parse(u); err != nil || pu.Scheme != "https" || pu.Host == "" {
			return bad("village.public_url", "%q is not an https:// address like https://belleville.example", u)
		}
	}
	if fc.Backup.Dir == "" {
		return bad("backup.dir", "backups need a folder (the backup drive's mount point)")
	}
	if fc.Backup.KeepDaily < 1 {
		return bad("backup.keep_daily", "keep at least one daily backup (%d)", fc.Backup.KeepDaily)
	}
	if fc.Backup.KeepMonthly < 0 {
		return bad("backup.keep_monthly", "cannot keep %d monthly backups", fc.Backup.KeepMonthly)
	}
	return nil
}

// stripeProblem is what is wrong with the [stripe] section, by key.
type stripeProblem struct{ key, msg string }

// check refuses a [stripe] section that cannot drive a reader. It does
// not read the key file: serve does, when it starts.
func (sc stripeConfig) check() *stripeProblem {
	if !strings.HasPrefix(sc.Reader, "tmr_") {
		return &stripeProblem{"stripe.reader", fmt.Sprintf("%q is not a Stripe Terminal reader id (tmr_…)", sc.Reader)}
	}
	if sc.SecretFile == "" {
		return &stripeProblem{"stripe.secret_file", "the Stripe terminal needs the file that holds its API key"}
	}
	if len(sc.Descriptor) > 22 {
		return &stripeProblem{"stripe.descriptor", fmt.Sprintf("%q is longer than 22 characters", sc.Descriptor)}
	}
	if m, err := domain.ParseMoney(sc.MaxAmount); err != nil || !m.IsPositive() {
		return &stripeProblem{"stripe.max_amount", fmt.Sprintf("%q is not an amount of money like \"5000.00\"", sc.MaxAmount)}
	}
	return nil
}

// readStripeKey reads the Stripe API key from its secret file: TOML with
// one key, `key = "sk_…"`. A file others may read (any permission for
// group or other), one under the data folder (the backups would copy it)
// or a key that does not look like a secret key is refused; the key never
// appears in an error.
func readStripeKey(path, dataDir string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("stripe.secret_file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("stripe.secret_file: %s has mode %04o; a key file must be readable by its owner only (chmod 600 %s)", path, fi.Mode().Perm(), path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		if data, err := filepath.Abs(dataDir); err == nil {
			if rel, err := filepath.Rel(data, abs); err == nil && !strings.HasPrefix(rel, "..") {
				return "", fmt.Errorf("stripe.secret_file: %s is inside the data folder %s, which backups copy; keep it in /etc/appliance", path, dataDir)
			}
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("stripe.secret_file: %w", err)
	}
	var f struct {
		Key string `toml:"key"`
	}
	dec := toml.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		// go-toml's message may quote the file's text: never the key.
		return "", fmt.Errorf("stripe.secret_file: %s is not `key = \"sk_…\"`", path)
	}
	if !strings.HasPrefix(f.Key, "sk_") && !strings.HasPrefix(f.Key, "rk_") {
		return "", fmt.Errorf("stripe.secret_file: %s holds no secret key (sk_… or rk_…)", path)
	}
	return f.Key, nil
}

// keyLine finds the line of the file that sets a dotted key ("log.level"
// is level = … under [log]), or 0.
func keyLine(data []byte, dotted string) int {
	section, key := "", dotted
	if i := strings.LastIndexByte(dotted, '.'); i >= 0 {
		section, key = dotted[:i], dotted[i+1:]
	}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			cur = strings.TrimSpace(strings.Trim(t, "[]"))
			continue
		}
		if k, _, ok := strings.Cut(t, "="); ok && cur == section && strings.TrimSpace(k) == key {
			return line
		}
	}
	return 0
}

// configKeys walks fileConfig's fields: each dotted key, its Go type and
// its help text.
func configKeys() []struct {
	key, help string
	typ       reflect.Type
} {
	var out []struct {
		key, help string
		typ       reflect.Type
	}
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := prefix + f.Tag.Get("toml")
			if f.Type.Kind() == reflect.Struct {
				walk(name+".", f.Type)
				continue
			}
			out = append(out, struct {
				key, help string
				typ       reflect.Type
			}{name, f.Tag.Get("help"), f.Type})
		}
	}
	walk("", reflect.TypeFor[fileConfig]())
	return out
}

func knownKeys() []string {
	var ks []string
	for _, k := range configKeys() {
		ks = append(ks, k.key)
	}
	return ks
}

// keyTypes says what each key takes, in words.
func keyTypes() map[string]string {
	words := map[reflect.Kind]string{reflect.String: `a string in quotes ("…")`, reflect.Bool: "true or false", reflect.Int: "a whole number"}
	out := map[string]string{}
	for _, k := range configKeys() {
		out[k.key] = words[k.typ.Kind()]
	}
	return out
}

// configCommand runs `appliance config check FILE`: the file is read as
// serve reads it, and either its settings are printed or what is wrong.
func configCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) != 2 || args[0] != "check" {
		fmt.Fprintln(stderr, "usage: appliance config check FILE")
		return errUsage
	}
	fc, err := readConfigFile(args[1], fileConfigOf(NewMain().Config))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: ok\n", args[1])
	for _, k := range configKeys() {
		fmt.Fprintf(stdout, "  %-20s %v\n", k.key, valueOf(fc, k.key))
	}
	return nil
}

// valueOf returns the value of a dotted key of fc.
func valueOf(fc fileConfig, dotted string) any {
	v := reflect.ValueOf(fc)
	for _, part := range strings.Split(dotted, ".") {
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("toml") == part {
				v = v.Field(i)
				break
			}
		}
	}
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	return v.Interface()
}

// serveFlags defines serve's flags over c; --config names the file.
func serveFlags(fs *flag.FlagSet, c *Config, configPath *string) {
	fs.StringVar(configPath, "config", "", "the node's configuration file (TOML); flags given here override it")
	fs.StringVar(&c.DataDir, "data", c.DataDir, "data folder")
	fs.StringVar(&c.HTTPAddr, "http", c.HTTPAddr, "address of the resident kiosk (plain HTTP, for the kiosk's own browser)")
	fs.StringVar(&c.StaffAddr, "https", c.StaffAddr, "HTTPS address of the staff pages and the API (off: none)")
	fs.StringVar(&c.MetricsAddr, "metrics", c.MetricsAddr, "plain HTTP address of /metrics, /healthz and /readyz for Prometheus on the LAN (default: none)")
	fs.StringVar(&c.Terminal, "terminal", c.Terminal, "the card terminal: stripe, simulator or none (default: simulator with --demo, else none)")
	fs.StringVar(&c.Stripe.Reader, "stripe-reader", c.Stripe.Reader, "the Stripe Terminal reader id (tmr_…)")
	fs.StringVar(&c.Stripe.SecretFile, "stripe-secret-file", c.Stripe.SecretFile, "file holding the Stripe API key as key = \"sk_…\" (mode 0600)")
	fs.StringVar(&c.Stripe.Descriptor, "stripe-descriptor", c.Stripe.Descriptor, "statement descriptor suffix on residents' card statements")
	fs.StringVar(&c.Stripe.MaxAmount, "stripe-max-amount", c.Stripe.MaxAmount, "the largest single card payment (default 5000.00)")
	fs.StringVar(&c.Stripe.APIURL, "stripe-api-url", c.Stripe.APIURL, "Stripe's API address (empty: Stripe's own)")
	fs.StringVar(&c.NodeID, "node-id", c.NodeID, "this node's id")
	fs.BoolVar(&c.Demo, "demo", c.Demo, "load demo data into an empty ledger")
	fs.StringVar(&c.Today, "today", c.Today, "with --demo: the day (YYYY-MM-DD) the node's clock runs from, on a new data folder")
	fs.StringVar(&c.ParamsFile, "params", c.ParamsFile, "parameter file layered over the embedded defaults")
	fs.Func("offline-card-limit", "largest card payment taken while the leader is unreachable (default 500.00)", func(v string) error {
		lim, err := domain.ParseMoney(v)
		c.OfflineCardLimit = lim
		return err
	})
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log format: json or text")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "log level: debug, info, warn or error")
}

// parseServe reads serve's configuration: the defaults, then the file
// named by --config, then the flags given, which override the file.
func parseServe(args []string, stderr io.Writer) (Config, error) {
	c := NewMain().Config
	var path string
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	serveFlags(fs, &c, &path)
	if err := fs.Parse(args); err != nil {
		return c, errUsage
	}
	if path == "" {
		return c, nil
	}
	c = NewMain().Config
	fc, err := readConfigFile(path, fileConfigOf(c))
	if err != nil {
		return c, err
	}
	if err := fc.apply(&c); err != nil {
		return c, err
	}
	// Parse again over the file's values: what was given on the command
	// line wins.
	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	serveFlags(fs, &c, &path)
	if err := fs.Parse(args); err != nil {
		return c, errUsage
	}
	return c, nil
}
