package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocs holds README.md, the guides in docs/ (and the index of its
// pictures, docs/documents/README.md) and firmware-config's
// README to the code, so that a reader who follows them gets what they
// say:
//   - every `appliance …` command they show, in a code block or an inline
//     code span, names a real subcommand (and operation) and only flags
//     that subcommand defines;
//   - every default they state for a flag (a "default" column in a flag
//     table under a heading naming `appliance <command>`, or "`--flag` …
//     (default `X`)" in prose after an appliance command) is the code's;
//   - every `make …` names a real target and real variables of the
//     Makefile;
//   - every relative link resolves to a file, and its #anchor to a heading
//     of that file;
//   - the output shown after `$ appliance version`, `$ … | appliance rules`
//     and `$ appliance config check FILE` is what the binary prints ("…"
//     stands for any text);
//   - `make run` prints the README's command for the first administrator.
//
// The flags and their defaults are read from the flag sets the commands
// build, through their own -h output (the flag package's PrintDefaults),
// so a flag added or changed in the code is seen here without a list to
// keep in step.
func TestDocs(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md", "firmware-config/README.md", "docs/documents/README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(root, m)
		docs = append(docs, filepath.ToSlash(rel))
	}
	mk, err := readMakefile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	c := &docChecker{root: root, make: mk, flags: map[string]flagDefaults{}}
	for _, rel := range docs {
		t.Run(rel, func(t *testing.T) {
			d, err := parseDoc(root, rel)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, d)
		})
	}
	t.Run("make run prints the README's first administrator", func(t *testing.T) {
		if _, err := exec.LookPath("make"); err != nil {
			t.Skip("make is not installed")
		}
		out, err := exec.Command("make", "-s", "-n", "-C", root, "run").Output()
		if err != nil {
			t.Fatalf("make -n run: %v", err)
		}
		var printed string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "appliance user add") {
				printed = strings.TrimSpace(strings.Trim(strings.TrimPrefix(strings.TrimSpace(l), "echo"), ` "`))
			}
		}
		readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
		if printed == "" || !strings.Contains(string(readme), "\n"+printed+"\n") {
			t.Errorf("make run prints %q as the first administrator's command; README.md does not show it on a line of its own", printed)
		}
	})
}

// TestDocumentPictures holds docs/documents/ and its README in step:
// every picture the README names is in the folder and every picture in
// the folder is named, so that a document `make docs-documents` draws for
// the first time, or no longer draws, shows in the index too. That every
// link to a picture resolves is TestDocs's link check.
func TestDocumentPictures(t *testing.T) {
	dir := filepath.Join("..", "docs", "documents")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, n := range regexp.MustCompile(`[A-Za-z0-9._-]+\.png`).FindAllString(string(readme), -1) {
		named[n] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s has no pictures: run make docs-documents", dir)
	}
	for _, f := range files {
		if n := filepath.Base(f); !named[n] {
			t.Errorf("docs/documents/%s is not in docs/documents/README.md: list it with the document it shows, or remove it", n)
		}
		delete(named, filepath.Base(f))
	}
	for _, n := range slices.Sorted(maps.Keys(named)) {
		t.Errorf("docs/documents/README.md names %s, which is not in the folder: run make docs-documents, or take it off the list", n)
	}
}

// A doc is one Markdown file, split into what the checks read.
type doc struct {
	rel      string
	headings []string // the slugs of its headings, for anchors
	items    []docItem
}

// A docItem is a command line, a table row, a prose line or a link, in
// document order, with the heading it sits under.
type docItem struct {
	kind    string // "command", "output", "row", "prose", "link"
	line    int
	text    string
	heading string
	output  []string // "command": the output shown after a "$ " line
}

var (
	fenceRe = regexp.MustCompile("^(\\s*)```+\\s*([A-Za-z]*)")
	headRe  = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	linkRe  = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	spanRe  = regexp.MustCompile("`([^`]+)`")
)

// parseDoc reads a Markdown file: fenced code blocks (sh, bash, console,
// shell or no language) give command lines, with the output that follows a
// "$ " line; outside them, headings, table rows, prose lines and links.
func parseDoc(root, rel string) (*doc, error) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	d := &doc{rel: rel}
	lines := strings.Split(string(b), "\n")
	heading := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fenceRe.FindStringSubmatch(l); m != nil {
			shell := slices.Contains([]string{"", "sh", "bash", "console", "shell"}, m[2])
			var block []string
			start := i + 1
			for i++; i < len(lines) && !fenceRe.MatchString(lines[i]); i++ {
				block = append(block, strings.TrimPrefix(lines[i], m[1]))
			}
			if shell {
				d.items = append(d.items, blockCommands(block, start, heading)...)
			}
			continue
		}
		line := i + 1
		kind := "prose"
		switch m := headRe.FindStringSubmatch(l); {
		case m != nil:
			heading = m[2]
			d.headings = append(d.headings, slug(m[2]))
		case strings.HasPrefix(strings.TrimSpace(l), "|"):
			kind = "row"
		case strings.TrimSpace(l) != "":
			// A paragraph (or a list item) is one prose item: a code
			// span, and a flag and its default, may be split over lines.
			for i+1 < len(lines) && continuesParagraph(lines[i+1]) {
				i++
				l += " " + strings.TrimSpace(lines[i])
			}
		}
		d.items = append(d.items, docItem{kind: kind, line: line, text: l, heading: heading})
		for _, m := range linkRe.FindAllStringSubmatch(spanRe.ReplaceAllString(l, ""), -1) {
			d.items = append(d.items, docItem{kind: "link", line: line, text: m[1], heading: heading})
		}
	}
	return d, nil
}

// continuesParagraph reports whether line l carries on the paragraph or
// list item above it rather than starting a block of its own.
func continuesParagraph(l string) bool {
	t := strings.TrimSpace(l)
	return t != "" && !headRe.MatchString(l) && !fenceRe.MatchString(l) && !strings.HasPrefix(t, "|") &&
		!regexp.MustCompile(`^([-*+]|\d+\.)\s`).MatchString(t)
}

// blockCommands returns the command lines of a shell block. Where the
// block marks commands with "$ ", the lines after one, up to the next, are
// its output; lines ending in a backslash continue on the next.
func blockCommands(block []string, start int, heading string) []docItem {
	prompted := slices.ContainsFunc(block, func(l string) bool { return strings.HasPrefix(l, "$ ") })
	var items []docItem
	for j := 0; j < len(block); j++ {
		l, line := block[j], start+j
		for strings.HasSuffix(l, "\\") && j+1 < len(block) {
			j++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(block[j])
		}
		if prompted {
			if !strings.HasPrefix(l, "$ ") {
				if n := len(items); n > 0 && items[n-1].kind == "command" {
					items[n-1].output = append(items[n-1].output, l)
				}
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
		}
		items = append(items, docItem{kind: "command", line: line, text: l, heading: heading})
	}
	for i := range items {
		for len(items[i].output) > 0 && strings.TrimSpace(items[i].output[len(items[i].output)-1]) == "" {
			items[i].output = items[i].output[:len(items[i].output)-1]
		}
	}
	return items
}

// slug is the anchor GitHub gives a heading.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// A makefile is what the docs may name of the Makefile.
type makefile struct{ targets, vars map[string]string }

var (
	makeTargetRe = regexp.MustCompile(`^([A-Za-z0-9_./-]+(?:\s+[A-Za-z0-9_./-]+)*)\s*:([^=]|$)`)
	makeVarRe    = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)\s*(?:\?|:|\+)?=\s*(.*)$`)
)

func readMakefile(path string) (makefile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return makefile{}, err
	}
	m := makefile{targets: map[string]string{}, vars: map[string]string{}}
	for _, l := range strings.Split(string(b), "\n") {
		if t := makeTargetRe.FindStringSubmatch(l); t != nil && !strings.HasPrefix(l, ".") {
			for _, name := range strings.Fields(t[1]) {
				m.targets[name] = ""
			}
		}
		if v := makeVarRe.FindStringSubmatch(l); v != nil {
			m.vars[v[1]] = strings.TrimSpace(v[2])
		}
	}
	return m, nil
}

// flagDefaults maps a command's flags to their defaults; nil when the
// command takes no flags.
type flagDefaults map[string]string

type docChecker struct {
	root  string
	make  makefile
	flags map[string]flagDefaults // by "serve", "cert issue", "user add" …
}

// command is an appliance command a doc shows: its subcommand, its
// operations (user add|reset…), and the flags given.
type command struct {
	sub   string
	ops   []string
	flags []string
	args  []string // everything after the subcommand, for running it
}

var errLineRe = regexp.MustCompile(`unknown command|unknown operation|usage: appliance (cert|config)`)

// subcommand returns the flags and defaults of `appliance <key>` (key
// "serve", "cert issue", "user add"), read from its -h output, and
// whether the command exists.
func (c *docChecker) subcommand(key string) (flagDefaults, bool) {
	if f, ok := c.flags[key]; ok {
		return f, f != nil || key == "version" || key == "config check"
	}
	var out, errOut bytes.Buffer
	args := append(strings.Fields(key), "-h")
	if key == "config check" {
		args = []string{"config", "check", filepath.Join(c.root, "firmware-config", "nodes", "clerk.toml")}
	}
	run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	text := errOut.String()
	if errLineRe.MatchString(text) && !strings.Contains(text, "Usage of") {
		c.flags[key] = nil
		return nil, false
	}
	if !strings.Contains(text, "Usage of") {
		c.flags[key] = nil // a command without flags (version, config check)
		return nil, true
	}
	c.flags[key] = parseDefaults(text)
	return c.flags[key], true
}

var (
	flagLineRe   = regexp.MustCompile(`^  -(\S+)`)
	flagUsageRe  = regexp.MustCompile(`^    \t(.*)$`)
	flagDefault  = regexp.MustCompile(`\(default ("(?:[^"\\]|\\.)*"|[^):]*)\)\s*$`)
	defaultProse = regexp.MustCompile(`\(default: [^)]*\)\s*$`)
)

// parseDefaults reads the flag package's PrintDefaults output: each flag
// and its default. A flag whose default is its type's zero value has none
// printed; a flag.Func's default is the one its usage states.
func parseDefaults(text string) flagDefaults {
	f := flagDefaults{}
	name := ""
	for _, l := range strings.Split(text, "\n") {
		if m := flagLineRe.FindStringSubmatch(l); m != nil {
			name = m[1]
			if _, ok := f[name]; !ok {
				f[name] = ""
			}
			continue
		}
		if m := flagUsageRe.FindStringSubmatch(l); m != nil && name != "" {
			if defaultProse.MatchString(m[1]) {
				continue
			}
			if d := flagDefault.FindStringSubmatch(m[1]); d != nil {
				f[name] = strings.Trim(d[1], `"`)
			}
		}
	}
	return f
}

// shellWords splits a command line as a shell would for the checks: words,
// with quotes removed, and the operators that end a command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words // a comment
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// clean strips the brackets and ellipses of a usage synopsis from a word.
func clean(w string) string {
	w = strings.TrimLeft(w, "[(")
	w = strings.TrimRight(w, "]),…")
	return strings.TrimSuffix(w, "...")
}

func isOperator(w string) bool {
	return w == "&&" || w == "||" || w == ";" || w == "|" || strings.HasPrefix(w, "<") || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>")
}

// segments splits a command line into the commands it runs. A "|" between
// two flags ([--token T | --token-file F]) is a synopsis's "or", not a
// pipe.
func segments(words []string) [][]string {
	var segs [][]string
	var cur []string
	for i, w := range words {
		if isOperator(w) && !(w == "|" && i+1 < len(words) && strings.HasPrefix(clean(words[i+1]), "-")) {
			segs = append(segs, cur)
			cur = nil
			if strings.HasPrefix(w, "<") || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") {
				cur = []string{"#redirect"} // what follows a redirection is a file, not a command
			}
			continue
		}
		cur = append(cur, w)
	}
	return append(segs, cur)
}

// commandWord drops sudo (and its -u USER), and environment assignments,
// and returns the program a segment runs and its arguments.
func commandWord(seg []string) (string, []string) {
	for len(seg) > 0 {
		switch {
		case seg[0] == "sudo":
			seg = seg[1:]
			for len(seg) > 0 && strings.HasPrefix(seg[0], "-") {
				if seg[0] == "-u" && len(seg) > 1 {
					seg = seg[1:]
				}
				seg = seg[1:]
			}
		case regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(seg[0]):
			seg = seg[1:]
		default:
			return seg[0], seg[1:]
		}
	}
	return "", nil
}

// parseCommand reads the arguments of an appliance command.
func parseCommand(args []string) command {
	var cmd command
	cmd.args = args
	if len(args) == 0 {
		return cmd
	}
	cmd.sub = clean(args[0])
	rest := args[1:]
	if slices.Contains([]string{"cert", "user", "config"}, cmd.sub) && len(rest) > 0 && !strings.HasPrefix(clean(rest[0]), "-") {
		cmd.ops = strings.Split(clean(rest[0]), "|")
		rest = rest[1:]
	}
	for _, w := range rest {
		w = clean(w)
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if name != "" {
				cmd.flags = append(cmd.flags, name)
			}
		}
	}
	return cmd
}

// keys returns the flag-set keys a command is checked against.
func (cmd command) keys() []string {
	switch cmd.sub {
	case "user":
		return []string{"user add"}
	case "cert":
		return []string{"cert issue"}
	case "config":
		return []string{"config check"}
	case "backup-key":
		return []string{"backup-key show"} // one flag set for every operation
	}
	return []string{cmd.sub}
}

func (c *docChecker) check(t *testing.T, d *doc) {
	var last *command // the appliance command a prose default speaks of
	for _, it := range d.items {
		at := func(format string, args ...any) {
			t.Helper()
			t.Errorf("%s:%d: "+format, append([]any{d.rel, it.line}, args...)...)
		}
		switch it.kind {
		case "command":
			for _, cmd := range c.checkLine(at, it.text) {
				last = &cmd
			}
			c.checkOutput(t, at, it)
		case "prose", "row":
			for _, m := range spanRe.FindAllStringSubmatch(it.text, -1) {
				for _, cmd := range c.checkLine(at, m[1]) {
					last = &cmd
				}
			}
			if it.kind == "row" {
				c.checkFlagRow(at, it)
			} else {
				c.checkProseDefaults(at, it.text, last)
			}
		case "link":
			c.checkLink(at, d, it.text)
		}
	}
}

// checkLine checks each appliance and make command of a line, and returns
// the appliance commands.
func (c *docChecker) checkLine(at func(string, ...any), line string) []command {
	var cmds []command
	for _, seg := range segments(shellWords(line)) {
		prog, args := commandWord(seg)
		switch filepath.Base(prog) {
		case "appliance":
			cmd := parseCommand(args)
			if cmd.sub == "" || strings.HasPrefix(cmd.sub, "<") || cmd.sub == "-h" || cmd.sub == "--help" {
				continue
			}
			c.checkCommand(at, cmd)
			cmds = append(cmds, cmd)
		case "make":
			for _, a := range args {
				a = clean(a)
				switch name, _, isVar := strings.Cut(a, "="); {
				case isVar:
					if _, ok := c.make.vars[name]; !ok {
						at("`make … %s` sets %s, which the Makefile does not use", a, name)
					}
				case strings.HasPrefix(a, "-"):
				default:
					if _, ok := c.make.targets[a]; !ok {
						at("`make %s`: the Makefile has no target %q", a, a)
					}
				}
			}
		}
	}
	return cmds
}

func (c *docChecker) checkCommand(at func(string, ...any), cmd command) {
	if _, ok := c.subcommand(cmd.keys()[0]); !ok && !slices.Contains([]string{"user", "cert", "config", "backup-key"}, cmd.sub) {
		at("`appliance %s`: no such command", cmd.sub)
		return
	}
	for _, op := range cmd.ops {
		if !c.validOp(cmd.sub, op) {
			at("`appliance %s %s`: no such operation", cmd.sub, op)
		}
	}
	for _, key := range cmd.keys() {
		defaults, _ := c.subcommand(key)
		for _, f := range cmd.flags {
			if f == "h" || f == "help" {
				continue
			}
			if _, ok := defaults[f]; !ok {
				at("`appliance %s --%s`: %s has no flag --%s (its flags: %s)", cmd.sub, f, key, f, flagNames(defaults))
			}
		}
	}
}

// validOp runs the operation the way a reader would, with nothing to act
// on, and reports whether the command knew it.
func (c *docChecker) validOp(sub, op string) bool {
	var out, errOut bytes.Buffer
	args := []string{sub, op}
	switch sub {
	case "user":
		args = append(args, "--username", "docs-test", "--data", filepath.Join(c.root, "no-such-folder"))
	case "config":
		args = append(args, filepath.Join(c.root, "no-such-file.toml"))
	case "cert":
		args = append(args, "-h")
	}
	run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return !errLineRe.MatchString(errOut.String())
}

func flagNames(f flagDefaults) string {
	var names []string
	for n := range f {
		names = append(names, "--"+n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

var cellFlagRe = regexp.MustCompile("^`--([a-z0-9-]+)[^`]*`$")

// checkFlagRow checks a row of a flag table (| `--flag ARG` | default | …)
// under a heading that names `appliance <command>` (one or more).
func (c *docChecker) checkFlagRow(at func(string, ...any), it docItem) {
	cells := strings.Split(strings.Trim(strings.TrimSpace(it.text), "|"), "|")
	if len(cells) < 2 {
		return
	}
	m := cellFlagRe.FindStringSubmatch(strings.TrimSpace(cells[0]))
	if m == nil {
		return
	}
	var keys []string
	for _, s := range spanRe.FindAllStringSubmatch(it.heading, -1) {
		if w := strings.Fields(s[1]); len(w) >= 2 && w[0] == "appliance" {
			keys = append(keys, parseCommand(w[1:]).keys()...)
		}
	}
	if len(keys) == 0 {
		return // a flag table of something else (a make target's variables …)
	}
	shown := strings.TrimSpace(cells[1])
	for _, key := range keys {
		defaults, _ := c.subcommand(key)
		code, ok := defaults[m[1]]
		if !ok {
			at("the table under %q shows --%s, which `appliance %s` does not define (its flags: %s)", it.heading, m[1], key, flagNames(defaults))
			continue
		}
		c.compareDefault(at, key, m[1], shown, code)
	}
}

// compareDefault compares a default as a doc shows it with the code's: a
// single code span must be the code's default; "none" or "off" (possibly
// followed by a remark in parentheses) an empty, zero or false one; other
// words describe a default the code computes, and are not compared.
func (c *docChecker) compareDefault(at func(string, ...any), key, flag, shown, code string) {
	if m := regexp.MustCompile("^`([^`]*)`$").FindStringSubmatch(shown); m != nil {
		if m[1] != code {
			at("`appliance %s --%s` defaults to %q in the code; the doc says %q", key, flag, code, m[1])
		}
		return
	}
	if w := strings.Fields(shown); len(w) > 0 && (w[0] == "none" || w[0] == "off") && (len(w) == 1 || strings.HasPrefix(w[1], "(")) {
		if code != "" && code != "0" && code != "false" {
			at("`appliance %s --%s` defaults to %q in the code; the doc says %s", key, flag, code, w[0])
		}
	}
}

var proseDefaultRe = regexp.MustCompile("`--([a-z0-9-]+)(?: [^`]*)?`[^.;`]*?\\(?defaults?(?: to)? `([^`]*)`")

// checkProseDefaults checks "`--flag` … (default `X`)" in prose against the
// appliance command the text last showed.
func (c *docChecker) checkProseDefaults(at func(string, ...any), text string, last *command) {
	for _, m := range proseDefaultRe.FindAllStringSubmatch(text, -1) {
		if last == nil {
			at("the default of --%s is stated before any appliance command: say which command it belongs to", m[1])
			continue
		}
		for _, key := range last.keys() {
			defaults, _ := c.subcommand(key)
			code, ok := defaults[m[1]]
			if !ok {
				at("`appliance %s` has no flag --%s, whose default the text gives", key, m[1])
				continue
			}
			c.compareDefault(at, key, m[1], "`"+m[2]+"`", code)
		}
	}
}

func (c *docChecker) checkLink(at func(string, ...any), d *doc, target string) {
	if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
		return
	}
	path, anchor, _ := strings.Cut(target, "#")
	file := d.rel
	if path != "" {
		file = filepath.ToSlash(filepath.Join(filepath.Dir(d.rel), path))
	}
	if _, err := os.Stat(filepath.Join(c.root, file)); err != nil {
		at("link %s: %s does not exist", target, file)
		return
	}
	if anchor == "" {
		return
	}
	td := d
	if file != d.rel {
		var err error
		if td, err = parseDoc(c.root, file); err != nil {
			at("link %s: %v", target, err)
			return
		}
	}
	if !slices.Contains(td.headings, anchor) {
		at("link %s: %s has no heading #%s", target, file, anchor)
	}
}

// checkOutput runs a command whose output the doc shows, where the test
// can: `appliance version`, `echo '…' | appliance rules`, and
// `appliance config check FILE` with FILE in the repository.
func (c *docChecker) checkOutput(t *testing.T, at func(string, ...any), it docItem) {
	if len(it.output) == 0 {
		return
	}
	segs := segments(shellWords(it.text))
	var stdin string
	var args []string
	for _, seg := range segs {
		prog, a := commandWord(seg)
		switch filepath.Base(prog) {
		case "echo":
			stdin = strings.Join(a, " ") + "\n"
		case "appliance":
			args = a
		}
	}
	if len(args) == 0 {
		at("the doc shows the output of %q, which TestDocs does not run: run it here, or show no output", it.text)
		return
	}
	switch {
	case args[0] == "version", args[0] == "rules":
	case args[0] == "config" && len(args) == 3:
		if _, err := os.Stat(filepath.Join(c.root, args[2])); err != nil {
			t.Logf("%s:%d: not run: %s is not in the repository", it.heading, it.line, args[2])
			return
		}
		t.Chdir(c.root)
	default:
		at("the doc shows the output of `appliance %s`, which TestDocs does not run: run it here, or show no output", strings.Join(args, " "))
		return
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut); code != 0 {
		at("`appliance %s` exits %d: %s", strings.Join(args, " "), code, errOut.String())
		return
	}
	if !matchShown(it.output, out.String()) {
		at("`appliance %s` prints\n%s\nbut the doc shows\n%s", strings.Join(args, " "), out.String(), strings.Join(it.output, "\n"))
	}
}

// matchShown reports whether got is the output shown, where "…" on a line
// of its own stands for any lines and within a line for any text.
func matchShown(shown []string, got string) bool {
	var re strings.Builder
	re.WriteString(`^`)
	for i, l := range shown {
		if i > 0 {
			re.WriteString(`\n`)
		}
		if strings.TrimSpace(l) == "…" {
			re.WriteString(`(?s:.*?)`)
			continue
		}
		parts := strings.Split(l, "…")
		for j, p := range parts {
			if j > 0 {
				re.WriteString(`[^\n]*`)
			}
			re.WriteString(regexp.QuoteMeta(p))
		}
	}
	re.WriteString(`$`)
	return regexp.MustCompile(re.String()).MatchString(strings.TrimRight(got, "\n"))
}
