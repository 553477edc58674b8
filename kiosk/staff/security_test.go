package staff_test

// Tests for the security probe's findings in the clerk's office: each
// replays the attack and checks that it no longer gets through and that
// the ledger did not change.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/staff"
	"github.com/villagehall/appliance/kiosk/staff/november"
	"github.com/villagehall/appliance/kiosk/staff/stafftest"
)

// apiCall sends an API request with a bearer token and returns the status
// and the decoded JSON body.
func apiCall(t *testing.T, base, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

const operatorToken = "operator-secret-token-0123456789abcdef"

// formulaCell reports whether a spreadsheet would run cell as a formula:
// it starts with = + - @ TAB or CR and is not just a number.
func formulaCell(cell string) bool {
	if cell == "" || strings.IndexByte("=+-@\t\r", cell[0]) < 0 {
		return false
	}
	_, err := domain.ParseMoney(cell)
	return err != nil
}

func readCSV(t *testing.T, c *stafftest.Client, path string) [][]string {
	t.Helper()
	resp, err := c.HTTP.Get(c.H.Srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", path, resp.StatusCode)
	}
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestTaxRollCSVNeutralisesFormulas imports bills whose descriptions are
// spreadsheet formulas, runs the November run, and reads the county's
// CSV: each such description comes out prefixed with a quote, so the
// county's spreadsheet shows it as text instead of running it, while the
// amounts stay numbers.
func TestTaxRollCSVNeutralisesFormulas(t *testing.T) {
	h := stafftest.New(t)
	evil := map[string]string{
		"B-EVIL-1": `=HYPERLINK("http://evil.example/pay","Pay your bill online")`,
		"B-EVIL-2": `+cmd|' /C calc'!A0`,
		"B-EVIL-3": `@SUM(1+1)*cmd|' /C calc'!A0`,
		"B-EVIL-4": `-2+3+cmd|' /C calc'!A0`,
	}
	var file bytes.Buffer
	cw := csv.NewWriter(&file)
	cw.Write([]string{"account", "parcel", "description", "billed_on", "amount", "bill_id"})
	for i, id := range []string{"B-EVIL-1", "B-EVIL-2", "B-EVIL-3", "B-EVIL-4"} {
		cw.Write([]string{"100101", "0601-141-2001", evil[id], "2026-03-01", fmt.Sprintf("%d0.00", i+1), id})
	}
	cw.Flush()
	clerk := h.SignedIn("jdoe", domain.RoleClerk)
	clerk.Get("/staff/bills/import")
	if p := clerk.Upload("/staff/bills/import", map[string]string{"mode": "import"}, "march.csv", file.String()); p.Status != http.StatusOK {
		t.Fatalf("import: %d %s", p.Status, p.Text("import-errors"))
	}
	for id, desc := range evil {
		if b, err := h.Ledger.Bill(id); err != nil || b.Description != desc {
			t.Fatalf("bill %s = %+v, %v: the import must keep the text as typed", id, b, err)
		}
	}
	tr := h.SignedIn("treasurer", domain.RoleTreasurer)
	tr.NovemberStep(2026, "penalties")
	h.SetClock(time.Date(2026, 11, 15, 17, 0, 0, 0, h.Loc))
	tr.Login("treasurer", stafftest.Password)
	tr.Get("/staff/november")
	tr.NovemberStep(2026, "certify")
	rows := readCSV(t, tr, "/staff/november/2026/dane.csv")
	found := 0
	for _, row := range rows {
		for i, cell := range row {
			if formulaCell(cell) {
				t.Errorf("column %s of %v is a live formula: %q", november.TaxRollCSVHeader[i], row[5], cell)
			}
		}
		if desc, ok := evil[row[5]]; ok {
			found++
			if row[6] != "'"+desc {
				t.Errorf("%s description = %q, want %q", row[5], row[6], "'"+desc)
			}
			if _, err := domain.ParseMoney(row[8]); err != nil || strings.HasPrefix(row[8], "'") {
				t.Errorf("%s principal = %q: amounts must stay numbers", row[5], row[8])
			}
		}
	}
	if found != len(evil) {
		t.Fatalf("%d of the %d bills on the roll: %v", found, len(evil), rows)
	}
}

// TestJournalCSVNeutralisesFormulas: whatever text the journal holds, the
// journal export goes through the same neutralising writer.
func TestJournalCSVNeutralisesFormulas(t *testing.T) {
	h := stafftest.New(t)
	a := h.SignedIn("audit", domain.RoleAuditor)
	h.Ledger.AppendJournal(staff.JournalEntry{Seq: 99, Index: 99, CommandID: "=1+1", Kind: domain.KindPayBill, Actor: "kiosk", Node: "hall-kiosk",
		At: domain.DateTimeOf(h.Now()), Outcome: "refused", Error: "@SUM(1+1)*cmd|' /C calc'!A0", Hash: "-1+1"})
	rows := readCSV(t, a, "/staff/journal.csv?actor=kiosk")
	if len(rows) != 2 {
		t.Fatalf("rows = %v", rows)
	}
	got := rows[1]
	if got[0] != "99" || got[6] != "'=1+1" || got[8] != "'@SUM(1+1)*cmd|' /C calc'!A0" || got[9] != "'-1+1" {
		t.Fatalf("journal row = %q", got)
	}
}

// TestPasswordChangeEndsSessionsOnEveryNode: someone signs in at one node
// with the password; the owner changes it at another; the first session
// is signed out at its next request and can change nothing. A reset and a
// disabling (then enabling) at a third place do the same.
func TestPasswordChangeEndsSessionsOnEveryNode(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	backup := h.Peer()
	thief := backup.Client()
	if p := thief.Login("jdoe", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("sign in at the backup: %d", p.Status)
	}
	if p := thief.Get("/staff/window"); p.Status != http.StatusOK {
		t.Fatalf("window at the backup: %d", p.Status)
	}
	owner := h.Client()
	owner.Login("jdoe", stafftest.Password)
	owner.Get("/staff/password")
	if p := owner.Post("/staff/password", url.Values{"current": {stafftest.Password}, "new": {"a brand new password"}, "again": {"a brand new password"}}); p.Status != http.StatusSeeOther {
		t.Fatalf("change at the clerk's node: %d %s", p.Status, p.Text("password-error"))
	}
	before := h.Ledger.JournalLen()
	if p := thief.Post("/staff/window/open", url.Values{"float": {"100.00"}}); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("old session's form after the change: %d → %q, want the sign-in page", p.Status, p.Location)
	}
	if p := thief.Get("/staff/window"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("old session's page after the change: %d → %q", p.Status, p.Location)
	}
	if n := h.Ledger.JournalLen(); n != before {
		t.Fatalf("the ended session submitted %d commands", n-before)
	}
	if p := owner.Get("/staff/window"); p.Status != http.StatusOK {
		t.Fatalf("the owner's own session after the change: %d", p.Status)
	}
	// The old password opens nothing at either node; the new one does.
	if p := backup.Client().Login("jdoe", stafftest.Password); p.Status != http.StatusUnauthorized {
		t.Fatalf("old password at the backup: %d", p.Status)
	}
	fresh := backup.Client()
	if p := fresh.Login("jdoe", "a brand new password"); p.Status != http.StatusSeeOther {
		t.Fatalf("new password at the backup: %d", p.Status)
	}

	// A reset by the operator at the backup ends the session at the clerk's node.
	if st, body := apiCall(t, backup.Srv.URL, http.MethodPost, "/api/v1/users", operatorToken, `{"op":"reset","username":"jdoe"}`); st != http.StatusOK {
		t.Fatalf("reset: %d %v", st, body)
	}
	if p := owner.Get("/staff/window"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("session at the clerk's node after a reset at the backup: %d → %q", p.Status, p.Location)
	}

	// Disabled and enabled again at the clerk's node: the backup's session
	// stays ended.
	h.AddUser("asmith", domain.RoleClerk, true)
	other := backup.Client()
	other.Login("asmith", stafftest.Password)
	for _, op := range []string{"disable", "enable"} {
		if st, body := apiCall(t, h.Srv.URL, http.MethodPost, "/api/v1/users", operatorToken, `{"op":"`+op+`","username":"asmith"}`); st != http.StatusOK {
			t.Fatalf("%s: %d %v", op, st, body)
		}
	}
	if p := other.Get("/staff/window"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/staff/login") {
		t.Fatalf("session after disable and enable elsewhere: %d → %q", p.Status, p.Location)
	}
	if p := backup.Client().Login("asmith", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("enabled account signs in again: %d", p.Status)
	}
}

// TestResetAndDisableEndAPITokensOnEveryNode: an API token stops working
// at every node once its account's password is reset, or once the
// account is disabled, and does not come back when it is enabled.
func TestResetAndDisableEndAPITokensOnEveryNode(t *testing.T) {
	h := stafftest.New(t)
	backup := h.Peer()
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	h.AddUser("processor", domain.RoleClerk, true)
	issue := func() string {
		admin.Get("/staff/users")
		tok := admin.Post("/staff/users/processor/tokens", url.Values{"label": {"card processor"}}).Text("secret")
		if !strings.HasPrefix(tok, "vbt_") {
			t.Fatalf("token = %q", tok)
		}
		return tok
	}
	whoami := func(base, tok string) int {
		st, _ := apiCall(t, base, http.MethodGet, "/api/v1/whoami", tok, "")
		return st
	}
	tok := issue()
	if whoami(h.Srv.URL, tok) != http.StatusOK || whoami(backup.Srv.URL, tok) != http.StatusOK {
		t.Fatal("a new token does not work at both nodes")
	}
	if st, body := apiCall(t, backup.Srv.URL, http.MethodPost, "/api/v1/users", operatorToken, `{"op":"reset","username":"processor"}`); st != http.StatusOK {
		t.Fatalf("reset at the backup: %d %v", st, body)
	}
	if s1, s2 := whoami(h.Srv.URL, tok), whoami(backup.Srv.URL, tok); s1 != http.StatusUnauthorized || s2 != http.StatusUnauthorized {
		t.Fatalf("token after a reset: %d at the clerk's node, %d at the backup", s1, s2)
	}
	before := h.Ledger.JournalLen()
	if st, _ := apiCall(t, h.Srv.URL, http.MethodPost, "/api/v1/payments", tok, `{"command_id":"after-reset","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1"}`); st != http.StatusUnauthorized {
		t.Fatalf("payment with the ended token: %d", st)
	}
	if n := h.Ledger.JournalLen(); n != before {
		t.Fatalf("the ended token submitted %d commands", n-before)
	}
	if p := admin.Get("/staff/users"); !p.Has("token-ended") {
		t.Fatal("the users page does not show the token as ended")
	}

	tok = issue()
	if whoami(backup.Srv.URL, tok) != http.StatusOK {
		t.Fatal("a token issued after the reset does not work")
	}
	for _, op := range []string{"disable", "enable"} {
		if st, body := apiCall(t, backup.Srv.URL, http.MethodPost, "/api/v1/users", operatorToken, `{"op":"`+op+`","username":"processor"}`); st != http.StatusOK {
			t.Fatalf("%s: %d %v", op, st, body)
		}
	}
	if s1, s2 := whoami(h.Srv.URL, tok), whoami(backup.Srv.URL, tok); s1 != http.StatusUnauthorized || s2 != http.StatusUnauthorized {
		t.Fatalf("token after disable and enable: %d at the clerk's node, %d at the backup", s1, s2)
	}
}

// TestSignInLimiterSlowsTheGuesserNotTheOwner: five wrong passwords from
// one computer hold that computer (even with the right password, for any
// account) with a wait that doubles; the owner at her own computer signs
// in all the while.
func TestSignInLimiterSlowsTheGuesserNotTheOwner(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	h.AddUser("asmith", domain.RoleClerk, true)
	guesser := h.ClientFrom("10.0.0.66:40000")
	for i := range 5 {
		if p := guesser.Login("jdoe", fmt.Sprintf("guess number %d", i)); p.Status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i+1, p.Status)
		}
	}
	p := guesser.Login("jdoe", stafftest.Password)
	if p.Status != http.StatusTooManyRequests || !strings.Contains(p.Text("login-error"), "from this computer") {
		t.Fatalf("right password from the guesser's computer: %d %q, want 429", p.Status, p.Text("login-error"))
	}
	if p := guesser.Login("asmith", stafftest.Password); p.Status != http.StatusTooManyRequests {
		t.Fatalf("another account from the guesser's computer: %d, want 429", p.Status)
	}
	owner := h.ClientFrom("10.0.0.7:51000")
	if p := owner.Login("jdoe", stafftest.Password); p.Status != http.StatusSeeOther || p.Location != "/staff/" {
		t.Fatalf("the owner from her computer: %d → %q", p.Status, p.Location)
	}
	// One guess after a minute; then two minutes.
	start := h.Now()
	h.SetClock(start.Add(61 * time.Second))
	if p := guesser.Login("jdoe", "guess number 6"); p.Status != http.StatusUnauthorized {
		t.Fatalf("a guess after a minute: %d", p.Status)
	}
	for _, after := range []time.Duration{61 * time.Second, 2*time.Minute + 60*time.Second} {
		h.SetClock(start.Add(after))
		if p := guesser.Login("jdoe", stafftest.Password); p.Status != http.StatusTooManyRequests {
			t.Fatalf("%v after the first hold: %d, want 429 (the wait doubled)", after, p.Status)
		}
	}
	h.SetClock(start.Add(61*time.Second + 2*time.Minute + time.Second))
	if p := guesser.Login("asmith", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("after the doubled wait: %d", p.Status)
	}
	if p := owner.Get("/staff/window"); p.Status != http.StatusOK {
		t.Fatalf("the owner's session: %d", p.Status)
	}
}

// TestSignInLimiterHoldsAnAccountGently: guesses spread over many
// computers hold the account only for computers that failed themselves,
// and only for a minute at most; the owner at a computer that did not
// fail is never held.
func TestSignInLimiterHoldsAnAccountGently(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	mistyped := h.ClientFrom("10.0.0.8:50000")
	if p := mistyped.Login("jdoe", "correct horse batery"); p.Status != http.StatusUnauthorized {
		t.Fatalf("the owner's typo: %d", p.Status)
	}
	guess := func(block, n int) {
		for i := range n {
			g := h.ClientFrom(fmt.Sprintf("10.0.%d.%d:40000", block, 1+i))
			if p := g.Login("jdoe", fmt.Sprintf("spread guess %d", i)); p.Status != http.StatusUnauthorized {
				t.Fatalf("spread guess %d from a fresh computer: %d", i, p.Status)
			}
		}
	}
	guess(1, 40)
	if p := h.ClientFrom("10.0.1.1:40000").Login("jdoe", stafftest.Password); p.Status != http.StatusTooManyRequests || !strings.Contains(p.Text("login-error"), "for this account") {
		t.Fatalf("a guessing computer again: %d %q", p.Status, p.Text("login-error"))
	}
	if p := mistyped.Login("jdoe", stafftest.Password); p.Status != http.StatusTooManyRequests {
		t.Fatalf("the owner where she mistyped: %d, want held for a moment", p.Status)
	}
	h.SetClock(h.Now().Add(61 * time.Second))
	if p := mistyped.Login("jdoe", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("the owner where she mistyped, a minute later: %d", p.Status)
	}
	guess(2, 40)
	if p := h.ClientFrom("10.0.0.9:50000").Login("jdoe", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("the owner from a computer that did not fail, under attack: %d", p.Status)
	}
}

// TestSignInLimiterCountsIPv6By64: addresses of one /64 are one computer,
// which can take any of them.
func TestSignInLimiterCountsIPv6By64(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	for i := range 5 {
		if p := h.ClientFrom(fmt.Sprintf("[fd00:1:2:3::%x]:4000", i+1)).Login("jdoe", "guess"+fmt.Sprint(i)); p.Status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d", i, p.Status)
		}
	}
	if p := h.ClientFrom("[fd00:1:2:3::99]:4000").Login("jdoe", stafftest.Password); p.Status != http.StatusTooManyRequests {
		t.Fatalf("another address of the /64: %d, want 429", p.Status)
	}
	if p := h.ClientFrom("[fd00:1:2:4::1]:4000").Login("jdoe", stafftest.Password); p.Status != http.StatusSeeOther {
		t.Fatalf("another /64: %d", p.Status)
	}
}

// TestSignInLimiterCountsParallelGuesses: guesses sent at once from one
// computer are counted before any is checked, so only five are tried.
func TestSignInLimiterCountsParallelGuesses(t *testing.T) {
	h := stafftest.New(t)
	h.AddUser("jdoe", domain.RoleClerk, true)
	const n = 20
	clients := make([]*stafftest.Client, n)
	for i := range clients {
		clients[i] = h.ClientFrom("10.0.0.66:40000")
		clients[i].Get("/staff/login")
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			statuses[i] = c.Post("/staff/login", url.Values{"username": {"jdoe"}, "password": {fmt.Sprintf("parallel guess %d", i)}}).Status
		})
	}
	wg.Wait()
	tried := 0
	for _, st := range statuses {
		switch st {
		case http.StatusUnauthorized:
			tried++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("status %d", st)
		}
	}
	if tried != 5 {
		t.Fatalf("%d parallel guesses were tried, want 5", tried)
	}
}

func TestNewPasswordPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, username, password, want string // want: part of the message, "" for accepted
	}{
		{"11 characters in 22 bytes", "jdoe", "çàéèùâêîôûë", "at least 12 characters"},
		{"12 characters", "jdoe", "çàéèùâêîôûëï", ""},
		{"short", "jdoe", "short", "at least 12 characters"},
		{"too long", "jdoe", strings.Repeat("horse battery ", 15), "at most 200 characters"},
		{"listed", "jdoe", "password1234", "most common"},
		{"listed keyboard", "jdoe", "qwertyuiop12", "most common"},
		{"listed, any case", "jdoe", "QwertyUiop12", "most common"},
		{"common word and digits", "jdoe", "Password2026!", "most common"},
		{"common word and digits around", "jdoe", "12iloveyou34", "most common"},
		{"listed phrase without spaces", "jdoe", "Correct Horse BatteryStaple", "most common"},
		{"village word", "jdoe", "Villagehall2026", "most common"},
		{"username", "jdoe", "jdoe's long password", "username"},
		{"username, any case", "jdoe", "the JDOE garden party", "username"},
		{"equal to the username", "gardenparty12", "gardenparty12", "username"},
		{"one character", "jdoe", "aaaaaaaaaaaaaa", "too easy"},
		{"two characters", "jdoe", "121212121212", "too easy"},
		{"alphabet", "jdoe", "abcdefghijklm", "too easy"},
		{"digits backwards", "jdoe", "9876543210987", "too easy"},
		{"keyboard row", "jdoe", "asdfghjklzxc", "too easy"},
		{"passphrase", "jdoe", "a brand new password", ""},
		{"passphrase 2", "jdoe", "zebra lamp quiet river", ""},
		{"no composition rules", "jdoe", "tomatoes in the window", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := staff.CheckNewPassword(tc.username, tc.password)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(domain.ErrorMessage(err), tc.want)):
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestPasswordFormRefusesCommonPasswords: the change-of-password form
// shows why a password is refused and changes nothing.
func TestPasswordFormRefusesCommonPasswords(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	c.Get("/staff/password")
	before := h.Ledger.JournalLen()
	for _, pw := range []string{"qwertyuiop12", "password1234", "çàéèùâêîôûë"} {
		p := c.Post("/staff/password", url.Values{"current": {stafftest.Password}, "new": {pw}, "again": {pw}})
		if p.Status != http.StatusUnprocessableEntity || p.Text("password-error") == "" {
			t.Errorf("%q: %d %q", pw, p.Status, p.Text("password-error"))
		}
	}
	if n := h.Ledger.JournalLen(); n != before {
		t.Fatalf("refused passwords submitted %d commands", n-before)
	}
}

// TestCheckPasswordBoundsStoredCost: a stored hash that asks for a GiB
// (or too many passes or lanes, or odd lengths) is refused without
// hashing: checking it allocates next to nothing.
func TestCheckPasswordBoundsStoredCost(t *testing.T) {
	const salt, key = "c2FsdHNhbHRzYWx0c2FsdA", "a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	for _, bad := range []string{
		"$argon2id$v=19$m=1048576,t=1,p=1$" + salt + "$" + key, // a GiB a try
		"$argon2id$v=19$m=65537,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=9,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=5$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=255$" + salt + "$" + key,
		"$argon2id$v=19$m=4,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=16$m=64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1,x=1$" + salt + "$" + key,
		"$argon2id$v=19$t=1,m=64,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=-64,t=1,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdA$" + key,         // a 4-byte salt
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$a2V5a2V5", // a 6-byte key
		"$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + strings.Repeat("A", 1<<20),
		"$argon2i$v=19$m=64,t=1,p=1$" + salt + "$" + key,
		"x$argon2id$v=19$m=64,t=1,p=1$" + salt + "$" + key,
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ok := staff.CheckPassword(bad, "x")
		runtime.ReadMemStats(&after)
		if ok {
			t.Errorf("%.60q accepted", bad)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("%.60q: refusing it allocated %d bytes: it was hashed", bad, n)
		}
	}
	// Within the bounds, a hash is checked at its own cost.
	h := staff.Hasher{Memory: 1024, Time: 1, Threads: 1}.Hash("a brand new password")
	if !staff.CheckPassword(h, "a brand new password") {
		t.Fatal("a hash within the bounds is refused")
	}
	if _, err := staff.New(staff.Config{Ledger: stafftest.NewLedger(time.Now, time.UTC), Hasher: staff.Hasher{Memory: 1 << 20, Time: 1, Threads: 1}}); err == nil {
		t.Fatal("a server was made with a hasher whose hashes sign-in would refuse")
	}
}

// TestHiddenCharactersRefused: NUL, control and text-direction characters
// typed into the staff forms or the API are refused with a message, and
// nothing is recorded.
func TestHiddenCharactersRefused(t *testing.T) {
	h := stafftest.New(t)
	c := h.SignedIn("jdoe", domain.RoleClerk)
	bills := func() int { b, _ := h.Ledger.BillsByAccount("100101"); return len(b) }
	before := bills()

	c.Get("/staff/bills/new")
	form := url.Values{"account": {"100101"}, "parcel": {"0601-141-2001"}, "description": {"Weed cutting \u202e00.09 rof"}, "billed_on": {"2026-11-02"}, "amount": {"90.00"}}
	if p := c.Post("/staff/bills", form); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("bill-error"), "hidden character (U+202E") {
		t.Errorf("bill with a text-direction control: %d %q", p.Status, p.Text("bill-error"))
	}
	c.Get("/staff/bills/import")
	p := c.Upload("/staff/bills/import", map[string]string{"mode": "import"}, "nul.csv", "account,parcel,description,billed_on,amount\n100101,0601-141-2001,Snow\x00removal,2026-11-01,30.00\n")
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("import-errors"), "Line 2: the description contains a hidden character (U+0000") {
		t.Errorf("import with a NUL: %d %q", p.Status, p.Text("import-errors"))
	}
	if n := bills(); n != before {
		t.Fatalf("refused bills were created: %d", n-before)
	}

	c.Post("/staff/window/open", url.Values{"float": {"10.00"}})
	c.Get("/staff/window")
	if p := c.Post("/staff/window/pay", url.Values{"bill": {"B-2026-0101"}, "amount": {"5.00"}, "tender": {"cash"}, "tendered": {"5.00"}, "payer": {"Ana \u2066Gutierrez\u2069"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("window-error"), "payer's name") {
		t.Errorf("payer with isolates: %d %q", p.Status, p.Text("window-error"))
	}
	if b, _ := h.Ledger.Bill("B-2026-0101"); len(b.Payments) != 0 {
		t.Fatalf("a refused payment posted: %+v", b.Payments)
	}

	admin := h.SignedIn("boss", domain.RoleAdministrator)
	admin.Get("/staff/users")
	if p := admin.Post("/staff/users", url.Values{"username": {"eve"}, "name": {"Eve\x00 Admin"}, "role": {"clerk"}}); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text("user-error"), "person's name") {
		t.Errorf("name with a NUL: %d %q", p.Status, p.Text("user-error"))
	}
	var u domain.StaffUser
	if err := h.Ledger.Get(domain.CollectionStaffUsers, "eve", &u); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("the refused account exists: %+v %v", u, err)
	}

	h.AddUser("processor", domain.RoleClerk, true)
	tok := admin.Post("/staff/users/processor/tokens", nil).Text("secret")
	st, body := apiCall(t, h.Srv.URL, http.MethodPost, "/api/v1/payments", tok, `{"command_id":"bidi-1","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1","payer":"x\u202ey"}`)
	if st != http.StatusUnprocessableEntity || body["code"] != "invalid" || !strings.Contains(fmt.Sprint(body["error"]), "payer's name") {
		t.Errorf("API payer with a text-direction control: %d %v", st, body)
	}
	if b, _ := h.Ledger.Bill("B-2026-0101"); len(b.Payments) != 0 {
		t.Fatalf("a refused payment posted: %+v", b.Payments)
	}
}

// TestAPIStrictJSON: a body that names a field twice (in any case), names
// an unknown field, carries data after the object or is not an object is
// refused with a 400 and the API's error body, and changes nothing.
func TestAPIStrictJSON(t *testing.T) {
	h := stafftest.New(t)
	admin := h.SignedIn("boss", domain.RoleAdministrator)
	h.AddUser("processor", domain.RoleClerk, true)
	admin.Get("/staff/users")
	tok := admin.Post("/staff/users/processor/tokens", nil).Text("secret")
	before := h.Ledger.JournalLen()
	for _, tc := range []struct{ name, body, says string }{
		{"duplicate amount", `{"command_id":"dup-1","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1","amount":"142.37"}`, `"amount" more than once`},
		{"duplicate in another case", `{"command_id":"dup-2","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1","AMOUNT":"142.37"}`, "more than once"},
		{"duplicate spelled with an escape", `{"command_id":"dup-3","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1","\u0061mount":"142.37"}`, "more than once"},
		{"unknown field", `{"command_id":"unk-1","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1","discount":"1.00"}`, `unknown field "discount"`},
		{"trailing data", `{"command_id":"tr-1","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1"} {"amount":"9"}`, "after the JSON object"},
		{"trailing garbage", `{"command_id":"tr-2","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1"}]`, "after the JSON object"},
		{"not an object", `["B-2026-0101"]`, "must be a JSON object"},
		{"null", `null`, "must be a JSON object"},
		{"empty", ``, "empty"},
		{"not UTF-8", "{\"command_id\":\"u-1\",\"bill_id\":\"B-2026-0101\",\"amount\":\"1.00\",\"tender\":\"card\",\"reference\":\"A1\",\"payer\":\"\xff\"}", "UTF-8"},
		{"wrong type", `{"command_id":"ty-1","bill_id":"B-2026-0101","amount":1.00,"tender":"card","reference":"A1"}`, "not a payment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, body := apiCall(t, h.Srv.URL, http.MethodPost, "/api/v1/payments", tok, tc.body)
			if st != http.StatusBadRequest || body["code"] != "malformed" || !strings.Contains(fmt.Sprint(body["error"]), tc.says) {
				t.Fatalf("%d %v, want 400 saying %q", st, body, tc.says)
			}
		})
	}
	if b, _ := h.Ledger.Bill("B-2026-0101"); len(b.Payments) != 0 {
		t.Fatalf("a refused body paid: %+v", b.Payments)
	}
	// The same for the users API: a second "role" does not make an administrator.
	st, body := apiCall(t, h.Srv.URL, http.MethodPost, "/api/v1/users", operatorToken, `{"op":"add","username":"mallory","name":"Mallory","role":"clerk","role":"administrator"}`)
	if st != http.StatusBadRequest || body["code"] != "malformed" || !strings.Contains(fmt.Sprint(body["error"]), `"role" more than once`) {
		t.Fatalf("users API with two roles: %d %v", st, body)
	}
	var u domain.StaffUser
	if err := h.Ledger.Get(domain.CollectionStaffUsers, "mallory", &u); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("the refused account exists: %+v", u)
	}
	if n := h.Ledger.JournalLen(); n != before {
		t.Fatalf("refused bodies submitted %d commands", n-before)
	}
	// A strict body is still taken.
	if st, body := apiCall(t, h.Srv.URL, http.MethodPost, "/api/v1/payments", tok, `{"command_id":"ok-1","bill_id":"B-2026-0101","amount":"1.00","tender":"card","reference":"A1"}`); st != http.StatusOK {
		t.Fatalf("a good payment: %d %v", st, body)
	}
}
