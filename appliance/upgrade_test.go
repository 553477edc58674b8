package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// upgradeFixture is what testdata/upgrade/makefixture recorded of a data
// folder made by an earlier release, as that release's own `verify` saw it.
type upgradeFixture struct {
	Release   string `json:"release"`
	Journal   int    `json:"journal"`
	Applied   uint64 `json:"applied"`
	StateHash string `json:"state_hash"`
	PaidBill  string `json:"paid_bill"`
	Receipt   string `json:"receipt"`
}

// developmentSnapshots are fixtures written by builds of ledger format 2
// before it was released, with the format-2 rule since added that makes
// their log replay differently: a format-1 folder must replay exactly,
// and these cannot (format 2 is still this release's, open to new rules).
var developmentSnapshots = map[string]string{
	"d583ab0": "every receipt counted in the budget's actuals, domain/appropriation.go postReceipt",
}

// TestUpgradeFromEarlierReleases opens data folders written by earlier
// releases (testdata/upgrade, one per release before a change of the
// ledger's layout or rules): this build's `verify` sees the same journal,
// applied index and state hash as the release that wrote it, and the node
// starts on the folder, serves what it holds and takes new payments. Once
// the node has raised the ledger format to this build's, the books are
// open on a folder whose chart names a general fund (the demo's, from the
// last release before the books): balanced in total and in every fund,
// receivables tied to the open bills, and a new payment takes the
// principal it paid off the receivables of one fund. A folder whose chart
// names no general fund keeps no books.
func TestUpgradeFromEarlierReleases(t *testing.T) {
	files, err := filepath.Glob("testdata/upgrade/*.tar.gz")
	booksOpened := 0 // fixtures whose books opened
	if err != nil || len(files) == 0 {
		t.Fatalf("no upgrade fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".tar.gz"), func(t *testing.T) {
			dir := t.TempDir()
			f := unpackFixture(t, file, dir)
			data := filepath.Join(dir, "data")

			var out bytes.Buffer
			err := verifyCommand([]string{"--data", data}, &out, io.Discard)
			switch {
			case developmentSnapshots[f.Release] != "":
				// Its journal and state are checked below as that build
				// saw them; its log replayed with today's format-2 rules
				// gives more, so verify must say so, not pass.
				if err == nil || !strings.Contains(err.Error(), "is not what its raft log gives") {
					t.Fatalf("verify of a development snapshot of format 2, replayed with rules added since (%s): %v", developmentSnapshots[f.Release], err)
				}
			case err != nil:
				t.Fatalf("verify: %v", err)
			}
			want := fmt.Sprintf("journal: %d entries verified; applied index %d; state hash %s", f.Journal, f.Applied, f.StateHash)
			if !strings.Contains(out.String(), want) {
				t.Fatalf("this build's verify says %q; release %s said %q", out.String(), f.Release, want)
			}

			m := NewMain()
			m.Config.DataDir, m.Config.HTTPAddr, m.Config.StaffAddr = data, "127.0.0.1:0", "127.0.0.1:0"
			m.Config.Terminal = "simulator"
			loc, _ := time.LoadLocation(Village)
			m.Config.Now = func() time.Time { return time.Date(2026, 12, 2, 10, 0, 0, 0, loc) }
			m.Config.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			if err := m.Run(context.Background()); err != nil {
				t.Fatalf("start on release %s's folder: %v", f.Release, err)
			}
			defer m.Close()
			resp, err := http.Get("http://" + m.Addr() + "/healthz")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("healthz: %v, %v", resp, err)
			}
			resp.Body.Close()
			b, err := m.Node.Bill(f.PaidBill)
			if err != nil || len(b.Payments) != 1 || b.Payments[0].Receipt != f.Receipt {
				t.Fatalf("bill %s: %+v, %v; want its one payment, receipt %s", f.PaidBill, b.Payments, err, f.Receipt)
			}
			if rc, err := m.Node.Receipt(f.Receipt); err != nil || rc.Status != domain.Posted {
				t.Fatalf("receipt %s: %+v, %v", f.Receipt, rc, err)
			}
			var admin domain.StaffUser
			if err := m.Node.Get(domain.CollectionStaffUsers, "admin", &admin); err != nil || admin.Role != domain.RoleAdministrator {
				t.Fatalf("the staff account made by release %s: %+v, %v", f.Release, admin, err)
			}
			// The node raises the ledger format to this build's once it
			// leads, as it does before loading the demo (serve.go): the
			// books open then on a folder whose chart names a general fund.
			for deadline := time.Now().Add(20 * time.Second); m.Node.FSM().Format() < domain.LedgerFormat; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the ledger of release %s's folder is still at format %d", f.Release, m.Node.FSM().Format())
				}
			}
			// The format is the one the next entry applies at as soon as
			// the raise applies; the raise's batch (the books it opens)
			// is in the store once a barrier after it has applied.
			if err := m.Node.Raft().Barrier(10 * time.Second).Error(); err != nil {
				t.Fatalf("barrier after the format raise: %v", err)
			}
			chart, err := domain.ReadsOf(m.Node).Chart()
			if err != nil {
				t.Fatal(err)
			}
			keepsBooks := chart.GeneralFund() != "" && domain.LedgerFormat >= domain.BooksFormat
			before := upgradeBooks(t, m, keepsBooks)
			if keepsBooks {
				booksOpened++
			}

			// A new payment pays a bill off whole, so that what it pays
			// of the principal is the bill's unpaid principal.
			var next domain.Bill
			var owed domain.Receivable
			bills, _ := m.Node.FSM().Bills()
			for _, b := range bills {
				if fig, err := b.Figures(domain.DateOf(m.Config.Now().In(loc)), m.Node.Params()); err == nil && fig.UnpaidPrincipal.IsPositive() && fig.Status != domain.BillTaxRoll && b.Certified == nil {
					next, owed = b, fig
					break
				}
			}
			if next.ID == "" {
				t.Fatal("no payable bill in the fixture")
			}
			cmd, err := m.Node.NewCommand(domain.KindPayBill, "kiosk")
			if err != nil {
				t.Fatal(err)
			}
			cmd.Payload = &domain.PayBill{BillID: next.ID, Amount: owed.Balance, Tender: domain.Card, Reference: "SIM-1"}
			res, err := m.Node.Submit(context.Background(), cmd)
			if err != nil || res.Receipt == nil || res.Receipt.Status != domain.Posted {
				t.Fatalf("a new payment after the upgrade: %+v, %v", res, err)
			}
			if paid := res.Receipt.Allocation.Principal; !paid.Equal(owed.UnpaidPrincipal) {
				t.Fatalf("the payment of %s's balance %s paid %s of its principal; want its unpaid %s", next.ID, owed.Balance, paid, owed.UnpaidPrincipal)
			}
			after := upgradeBooks(t, m, keepsBooks)
			if keepsBooks {
				// The receivable went down in one fund, the bill's, by the
				// principal paid.
				down := map[string]domain.Money{}
				for fund, f := range before.Funds {
					if diff := f.Receivable.Sub(after.Funds[fund].Receivable); !diff.IsZero() {
						down[fund] = diff
					}
				}
				var by domain.Money
				for _, d := range down {
					by = d
				}
				if len(down) != 1 || !by.Equal(owed.UnpaidPrincipal) {
					t.Fatalf("after paying %s of %s's principal the receivables went down by %v; want one fund's by that", owed.UnpaidPrincipal, next.ID, down)
				}
			}
			if _, err := m.Node.FSM().VerifyJournal(); err != nil {
				t.Fatalf("journal after the upgrade: %v", err)
			}
		})
	}
	if booksOpened == 0 {
		t.Error("no fixture's chart names a general fund: the books were never opened on an upgraded folder")
	}
}

// upgradeBooks reads the books of m's ledger beside its bills. With
// books kept (a chart naming a general fund, at this build's format) they
// are open, the trial balance balances in total and in every fund, and
// each fund's receivables are its open bills' unpaid principal; without,
// they stay closed and hold nothing.
func upgradeBooks(t *testing.T, m *Main, keepsBooks bool) domain.BooksTie {
	t.Helper()
	bills, err := m.Node.FSM().Bills()
	if err != nil {
		t.Fatal(err)
	}
	tie, err := domain.ReadsOf(m.Node).BooksTie(bills)
	if err != nil {
		t.Fatal(err)
	}
	if !keepsBooks {
		if tie.Open || len(tie.Accounts) != 0 {
			t.Fatalf("a folder whose chart names no general fund: books open %t with %d accounts; want them closed and empty", tie.Open, len(tie.Accounts))
		}
		return tie
	}
	if !tie.Open {
		t.Fatal("the chart names a general fund and the books did not open when the format was raised")
	}
	if !tie.Debit.Equal(tie.Credit) || tie.Debit.IsZero() {
		t.Fatalf("the trial balance: debits %s, credits %s", tie.Debit, tie.Credit)
	}
	var owed domain.Money
	for fund, f := range tie.Funds {
		if !f.Balanced() {
			t.Errorf("fund %q does not balance: debits %s, credits %s", fund, f.Debit, f.Credit)
		}
		if !f.Tied() {
			t.Errorf("fund %q's receivables %s do not tie to its open bills' unpaid principal %s", fund, f.Receivable, f.OpenPrincipal)
		}
		owed = owed.Add(f.OpenPrincipal)
	}
	if !owed.IsPositive() {
		t.Fatal("no open bill in the books: the receivables tie trivially")
	}
	if t.Failed() {
		t.FailNow()
	}
	return tie
}

func unpackFixture(t *testing.T, file, dir string) upgradeFixture {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var f upgradeFixture
	safe := regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !safe.MatchString(h.Name) || strings.Contains(h.Name, "..") {
			t.Fatalf("fixture entry %q", h.Name)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "fixture.json" {
			if err := json.Unmarshal(body, &f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, os.FileMode(h.Mode)&0o777|0o600); err != nil {
			t.Fatal(err)
		}
	}
	if f.StateHash == "" {
		t.Fatal("fixture.json missing")
	}
	return f
}
