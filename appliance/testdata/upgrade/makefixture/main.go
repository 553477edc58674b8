// Command makefixture writes a data folder made by a given appliance
// binary, for the upgrade test (appliance/upgrade_test.go): it starts the
// binary on an empty folder with demo data, pays a bill through the
// kiosk's pages as a resident would, stops it cleanly, records what the
// binary's own `verify` says of the ledger (journal entries, applied
// index, state hash) and packs the folder with that record.
//
//	git worktree add /tmp/rel <commit> && (cd /tmp/rel && go build -o /tmp/appliance-rel ./appliance)
//	go run ./appliance/testdata/upgrade/makefixture -bin /tmp/appliance-rel -name <commit> \
//	    -out appliance/testdata/upgrade/<commit>.tar.gz
//
// Make one with the release before a change of the ledger's layout or
// rules, and keep it: later releases must open it and serve it.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Fixture is what the upgrade test checks a later release against.
type Fixture struct {
	Release   string `json:"release"`
	Journal   int    `json:"journal"`
	Applied   uint64 `json:"applied"`
	StateHash string `json:"state_hash"`
	PaidBill  string `json:"paid_bill"`
	Receipt   string `json:"receipt"`
}

func main() {
	bin := flag.String("bin", "", "the appliance binary of the release")
	name := flag.String("name", "", "the release's name (a commit)")
	out := flag.String("out", "", "the .tar.gz to write")
	flag.Parse()
	if *bin == "" || *name == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "fixture-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data")
	addr := freeAddr()
	args := []string{"serve", "--data", data, "--http", addr, "--demo"}
	staff := "http://" + addr // releases before the HTTPS staff listener
	if help, _ := exec.Command(*bin, "serve", "-h").CombinedOutput(); bytes.Contains(help, []byte("-https")) {
		https := freeAddr()
		args = append(args, "--https", https)
		staff = "https://" + https
	}
	cmd := exec.Command(*bin, args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	base := "http://" + addr
	waitUp(base, &logs)
	bill, receipt := payInFull(base)
	if out, err := exec.Command(*bin, "user", "add", "--username", "admin", "--name", "Village Administrator", "--role", "administrator",
		"--data", data, "--node", staff).CombinedOutput(); err != nil {
		log.Fatalf("user add: %v\n%s", err, out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		log.Fatalf("stop: %v\n%s", err, logs.String())
	}
	vout, err := exec.Command(*bin, "verify", "--data", data).CombinedOutput()
	if err != nil {
		log.Fatalf("verify: %v\n%s", err, vout)
	}
	m := regexp.MustCompile(`journal: (\d+) entries verified; applied index (\d+); state hash ([0-9a-f]+)`).FindStringSubmatch(string(vout))
	if m == nil {
		log.Fatalf("verify said %q", vout)
	}
	f := Fixture{Release: *name, StateHash: m[3], PaidBill: bill, Receipt: receipt}
	fmt.Sscan(m[1], &f.Journal)
	fmt.Sscan(m[2], &f.Applied)
	if err := pack(*out, data, f); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s: %+v\n", *out, f)
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitUp(base string, logs *bytes.Buffer) {
	for range 200 {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Fatalf("the release did not come up:\n%s", logs.String())
}

// payInFull pays the first open bill of demo account 100101 through the
// kiosk's pages and returns the bill and the receipt number.
func payInFull(base string) (string, string) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(path string) *goquery.Document {
		resp, err := c.Get(base + path)
		if err != nil {
			log.Fatal(err)
		}
		return read(resp)
	}
	doc := get("/accounts/100101")
	var bill string
	doc.Find(`[data-testid="bill-row"]`).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if strings.TrimSpace(s.Find(`[data-testid="bill-balance"]`).Text()) != "$0.00" {
			bill = s.AttrOr("data-bill", "")
			return false
		}
		return true
	})
	if bill == "" {
		log.Fatal("no open demo bill")
	}
	doc = submit(c, base, get("/bills/"+bill+"/pay"), `[data-testid="pay-full"]`)
	doc = submit(c, base, doc, `[data-testid="charge-form"]`)
	number := strings.TrimSpace(doc.Find(`[data-testid="receipt-number"]`).Text())
	if number == "" {
		log.Fatal("no receipt number after the charge")
	}
	return bill, number
}

func read(resp *http.Response) *goquery.Document {
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		log.Fatalf("%s %s: %s\n%s", resp.Request.Method, resp.Request.URL, resp.Status, body)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	return doc
}

func submit(c *http.Client, base string, doc *goquery.Document, sel string) *goquery.Document {
	form := doc.Find(sel).First()
	if !form.Is("form") {
		form = form.Closest("form")
	}
	vals := url.Values{}
	form.Find("input").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		typ, _ := in.Attr("type")
		if name == "" || ((typ == "radio" || typ == "checkbox") && in.AttrOr("checked", "-") == "-") {
			return
		}
		vals.Set(name, in.AttrOr("value", ""))
	})
	resp, err := c.PostForm(base+form.AttrOr("action", ""), vals)
	if err != nil {
		log.Fatal(err)
	}
	return read(resp)
}

// pack writes the data folder, under data/, and fixture.json.
func pack(out, data string, f Fixture) error {
	file, err := os.Create(out)
	if err != nil {
		return err
	}
	defer file.Close()
	gz := gzip.NewWriter(file)
	tw := tar.NewWriter(gz)
	meta, _ := json.MarshalIndent(f, "", "  ")
	if err := tw.WriteHeader(&tar.Header{Name: "fixture.json", Mode: 0o644, Size: int64(len(meta)), ModTime: time.Unix(0, 0)}); err != nil {
		return err
	}
	tw.Write(meta)
	err = filepath.WalkDir(data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(data), path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Size: int64(len(b)), ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}
