package i18n_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
)

func TestLoad(t *testing.T) {
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Keys()) < 100 {
		t.Errorf("only %d keys", len(c.Keys()))
	}
}

// TestEveryKeyUsedExists scans the kiosk's templates and Go files for
// catalogue keys written as literals and checks each is in the catalogue.
// Keys built at run time ("status." + s) are checked by the component
// tests, which render every status.
func TestEveryKeyUsedExists(t *testing.T) {
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	known := make(map[string]bool)
	for _, k := range c.Keys() {
		known[k] = true
	}
	lit := regexp.MustCompile(`"([a-z_]+\.[a-z_.0-9]*[a-z0-9])"`)
	files, _ := filepath.Glob("../*.go")
	more, _ := filepath.Glob("../view/*.templ")
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			k := m[1]
			if strings.HasSuffix(k, ".css") || strings.HasSuffix(k, ".js") || strings.HasSuffix(k, ".svg") || strings.HasPrefix(k, "github") {
				continue
			}
			if !known[k] {
				t.Errorf("%s uses %q, which is not in the catalogue", f, k)
			}
		}
	}
}

func TestPrinter(t *testing.T) {
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	en, es := c.Printer(i18n.English), c.Printer(i18n.Spanish)
	d := domain.MustDate("2026-11-01")
	for _, tc := range []struct{ got, want string }{
		{en.Date(d), "November 1, 2026"},
		{es.Date(d), "1 de noviembre de 2026"},
		{en.DayMonth(d), "November 1"},
		{es.DayMonth(d), "1 de noviembre"},
		{en.Money(domain.MustMoney("1234567.5")), "$1,234,567.50"},
		{en.Money(domain.MustMoney("0")), "$0.00"},
		{en.Money(domain.MustMoney("999.99")), "$999.99"},
		{en.Money(domain.MustMoney("-12.30")), "−$12.30"},
		{es.Money(domain.MustMoney("1000")), "$1,000.00"},
		{en.Clock(time.Date(2026, 1, 1, 14, 5, 0, 0, time.UTC)), "2:05 PM"},
		{es.Clock(time.Date(2026, 1, 1, 14, 5, 0, 0, time.UTC)), "14:05"},
		{en.T("pay.error.too_much_hint", "balance", "$5.00"), "Enter $5.00 or less."},
		{es.T("pay.error.too_much_hint", "balance", "$5.00"), "Escriba $5.00 o menos."},
		{en.T("no.such.key"), "[no.such.key]"},
		{c.Printer("fr").T("start.pay"), en.T("start.pay")},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]i18n.Lang{"en": i18n.English, "ES": i18n.Spanish, "es-US": i18n.Spanish, " en ": i18n.English} {
		if got, ok := i18n.Parse(in); !ok || got != want {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "fr", "e"} {
		if _, ok := i18n.Parse(in); ok {
			t.Errorf("%q parsed", in)
		}
	}
}
