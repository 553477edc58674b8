package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/villagehall/appliance/domain"
)

// ruleLine is one answer of `appliance rules`: the case's id and either the
// rule's output or an error.
type ruleLine struct {
	ID     json.RawMessage `json:"id"`
	Output any             `json:"output,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// runRules evaluates Chapter 5 rules over JSON lines, as RULES.md specifies:
// each non-blank line of in is a case {"id", "rule", "input"} (other fields
// ignored), and exactly one line goes to out for it, in order:
// {"id": …, "output": {…}} or {"id": …, "error": "…"}. A malformed line gets
// an error line too, with id null when it cannot be read. A case never stops
// the run; only failing to read in or write out does. Lines may be of any
// length.
func runRules(in io.Reader, out io.Writer, p *domain.Params) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	for {
		line, readErr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if err := writeRuleLine(w, evalLine(line, p)); err != nil {
				return err
			}
		}
		// Flush whenever the input has nothing more buffered, so that an
		// interactive caller sees each answer as soon as it is ready.
		if r.Buffered() == 0 || readErr != nil {
			if err := w.Flush(); err != nil {
				return fmt.Errorf("rules: write: %w", err)
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return fmt.Errorf("rules: read: %w", readErr)
		}
	}
}

// evalLine answers one case line. A panic in a rule (a bug: the domain is
// fuzzed never to panic) becomes an error line instead of ending the run.
func evalLine(line []byte, p *domain.Params) (res ruleLine) {
	res.ID = json.RawMessage("null")
	defer func() {
		if v := recover(); v != nil {
			res = ruleLine{ID: res.ID, Error: fmt.Sprintf("internal error evaluating the case: %v", v)}
		}
	}()
	var c map[string]json.RawMessage
	if err := json.Unmarshal(line, &c); err != nil || c == nil {
		res.Error = "The line is not a JSON object with id, rule and input."
		return res
	}
	if id, ok := c["id"]; ok {
		res.ID = id
	}
	var rule string
	if err := json.Unmarshal(c["rule"], &rule); err != nil || rule == "" {
		res.Error = "The case has no rule (a string like \"5.10/receivable\")."
		return res
	}
	input, ok := c["input"]
	if !ok {
		res.Error = "The case has no input."
		return res
	}
	out, err := domain.Evaluate(rule, input, p)
	if err != nil {
		res.Error = ruleError(err)
		return res
	}
	res.Output = out
	return res
}

// ruleError is the text of an error line: the domain's plain message with
// its section, or a generic sentence for anything unexpected.
func ruleError(err error) string {
	var e *domain.Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return domain.ErrorMessage(err)
}

// writeRuleLine writes one answer. An output that cannot be marshalled
// (a bug) is answered with an error line rather than a broken one.
func writeRuleLine(w *bufio.Writer, res ruleLine) error {
	b, err := json.Marshal(res)
	if err != nil {
		b, err = json.Marshal(ruleLine{ID: res.ID, Error: "internal error writing the output: " + err.Error()})
		if err != nil {
			b, _ = json.Marshal(ruleLine{ID: json.RawMessage("null"), Error: "internal error writing the output"})
		}
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("rules: write: %w", err)
	}
	return nil
}
