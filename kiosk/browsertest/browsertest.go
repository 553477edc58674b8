// Package browsertest starts a real Chromium for end-to-end tests of the
// kiosk through chromedp, and saves screenshots of the pages residents see
// as test artifacts. The kiosk's own browser test and the appliance's
// end-to-end test share it.
//
// Chromium comes from Debian (`apt-get install -y chromium`; `make
// chromium`). A missing Chromium fails the test: the browser tests are
// part of the suite, never skipped.
package browsertest

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// debianChromium is Debian's Chromium binary; using it directly skips the
// wrapper script in /usr/bin, which prints noise and reads user config.
const debianChromium = "/usr/lib/chromium/chromium"

// Missing is the message a test fails with when Chromium is not installed.
const Missing = "Chromium not found: run `make chromium` (apt-get install -y chromium)"

// ExecPath returns the Chromium to run: $CHROMIUM if set (the Makefile's
// variable of the same name), else Debian's binary if present, else
// "chromium" (or "chromium-browser", "google-chrome") on PATH.
func ExecPath() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			if lp, err := exec.LookPath(p); err == nil {
				return lp, nil
			}
			return "", fmt.Errorf("%s (CHROMIUM=%s does not exist)", Missing, p)
		}
		return p, nil
	}
	if _, err := os.Stat(debianChromium); err == nil {
		return debianChromium, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s", Missing)
}

// Options adjust the browser New starts.
type Options struct {
	Width, Height int           // window size; default 1080×1920, the kiosk's portrait screen
	Timeout       time.Duration // for the whole test; default 5 minutes (CI runs the race detector on two cores)
	// Trust lists server certificates the browser accepts although no
	// root it knows signed them (the node's own certificate for its HTTPS
	// staff pages): Chromium's --ignore-certificate-errors-spki-list,
	// which trusts exactly those keys and nothing else.
	Trust []*x509.Certificate
}

// New starts a headless Chromium for t and returns a chromedp context for
// one tab in it. The browser stops when t ends. It fails t (never skips)
// when Chromium is missing.
func New(t testing.TB, opts ...Options) context.Context {
	t.Helper()
	o := Options{Width: 1080, Height: 1920, Timeout: 5 * time.Minute}
	if len(opts) > 0 {
		if opts[0].Width > 0 && opts[0].Height > 0 {
			o.Width, o.Height = opts[0].Width, opts[0].Height
		}
		if opts[0].Timeout > 0 {
			o.Timeout = opts[0].Timeout
		}
		o.Trust = opts[0].Trust
	}
	path, err := ExecPath()
	if err != nil {
		t.Fatal(err)
	}
	flags := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.WindowSize(o.Width, o.Height),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("lang", "en-US"),
		chromedp.Flag("font-render-hinting", "none"),
	)
	if os.Geteuid() == 0 {
		flags = append(flags, chromedp.NoSandbox)
	}
	if len(o.Trust) > 0 {
		var spki []string
		for _, c := range o.Trust {
			sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			spki = append(spki, base64.StdEncoding.EncodeToString(sum[:]))
		}
		flags = append(flags, chromedp.Flag("ignore-certificate-errors-spki-list", strings.Join(spki, ",")))
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), o.Timeout)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, flags...)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTimeout()
	})
	// The tab behaves as the kiosk's screen does, a window that has the
	// focus. A headless tab has none, and with the Chromium Debian ships
	// now (148) an autofocused field there gets no focus event, which is
	// what opens the on-screen keyboard.
	focused := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		return err
	})
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(int64(o.Width), int64(o.Height)), focused); err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	return context.WithValue(bctx, dirKey{}, Dir(t))
}

type dirKey struct{}

// Resize changes the viewport, to look at the same page on another screen.
func Resize(t testing.TB, ctx context.Context, width, height int) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("resize to %d×%d: %v", width, height, err)
	}
}

// Dir returns the folder screenshots of t go to: $KIOSK_SCREENSHOTS/<test
// name> when that is set (CI keeps it as an artifact), else a temporary
// folder of t.
func Dir(t testing.TB) string {
	t.Helper()
	base := os.Getenv("KIOSK_SCREENSHOTS")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, safeName(t.Name()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("screenshot folder: %v", err)
	}
	return dir
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func safeName(s string) string { return strings.Trim(unsafe.ReplaceAllString(s, "_"), "_") }

// Screenshot saves a full-page PNG of the current page as <name>.png in
// the screenshot folder of the test that made ctx with New (see Dir), and
// returns its path.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	dir, ok := ctx.Value(dirKey{}).(string)
	if !ok {
		dir = Dir(t)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, safeName(name)+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	t.Logf("screenshot %s", path)
	return path
}
