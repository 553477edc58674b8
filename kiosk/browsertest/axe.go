package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// AxeVersion is the axe-core release the accessibility checks run, from
// the npm registry; it is installed into a cache folder at test set-up,
// never copied into the repository.
const AxeVersion = "4.10.3"

var (
	axeOnce sync.Once
	axeSrc  string
	axeErr  error
)

// axeSource returns axe.min.js, installing axe-core@AxeVersion with npm
// into $AXE_CORE_DIR (default: the user cache folder) when it is missing.
// The install goes to a fresh folder first and is renamed into place, so
// test binaries of several packages running at once do not collide.
func axeSource() (string, error) {
	axeOnce.Do(func() {
		base := os.Getenv("AXE_CORE_DIR")
		if base == "" {
			c, err := os.UserCacheDir()
			if err != nil {
				c = os.TempDir()
			}
			base = filepath.Join(c, "belleville-kiosk")
		}
		dir := filepath.Join(base, "axe-core-"+AxeVersion)
		file := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
		if _, err := os.Stat(file); err != nil {
			if err := os.MkdirAll(base, 0o755); err != nil {
				axeErr = err
				return
			}
			tmp, err := os.MkdirTemp(base, "install-")
			if err != nil {
				axeErr = err
				return
			}
			defer os.RemoveAll(tmp)
			cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", tmp, "axe-core@"+AxeVersion)
			if out, err := cmd.CombinedOutput(); err != nil {
				axeErr = fmt.Errorf("npm install axe-core@%s: %v\n%s", AxeVersion, err, out)
				return
			}
			if err := os.Rename(tmp, dir); err != nil {
				if _, serr := os.Stat(file); serr != nil {
					axeErr = fmt.Errorf("install axe-core: %w", err)
					return
				}
			}
		}
		b, err := os.ReadFile(file)
		axeSrc, axeErr = string(b), err
	})
	return axeSrc, axeErr
}

// Violation is one accessibility rule axe-core found broken on a page.
type Violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// Axe runs axe-core's WCAG 2.0/2.1 A and AA rules on the page ctx shows and
// fails t on every serious or critical violation (the lesser ones are
// logged). It injects axe through the DevTools protocol, which the kiosk's
// Content-Security-Policy does not restrict.
func Axe(t testing.TB, ctx context.Context, page string) []Violation {
	t.Helper()
	src, err := axeSource()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](src+";true")); err != nil {
		t.Fatalf("inject axe-core into %s: %v", page, err)
	}
	const run = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, resultTypes: ["violations"]})
		.then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(" "))}))))`
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe-core on %s: %v", page, err)
	}
	var vs []Violation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		t.Fatalf("axe-core result of %s: %v", page, err)
	}
	for _, v := range vs {
		msg := fmt.Sprintf("axe %s on %s: %s (%s) at %s", v.Impact, page, v.ID, v.Help, strings.Join(v.Targets, ", "))
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	return vs
}
