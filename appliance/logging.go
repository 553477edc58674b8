package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// The node logs with log/slog, as JSON by default (journald keeps each
// line; a collector reads the fields). Nothing secret is logged: no
// password, token, session, key, or card approval reference. The code
// does not log them, and the handler redacts any attribute whose name
// says it holds one, so a careless log line later still cannot leak it.

// secretAttrs are the words that mark an attribute as secret.
var secretAttrs = []string{"password", "token", "secret", "authorization", "cookie", "session", "csrf", "key", "reference", "card_ref", "pan"}

// redacted is what a secret attribute's value is replaced with.
const redacted = "[redacted]"

// newLogger returns the node's logger writing to w in format (json or
// text) at level, with secrets redacted.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	lv, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: redact}
	switch format {
	case "json", "":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("unknown log format %q (json or text)", format)
}

// parseLevel reads a log level name.
func parseLevel(s string) (slog.Level, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(s)); err != nil || s == "" {
		return 0, fmt.Errorf("%q is not a log level (debug, info, warn or error)", s)
	}
	return lv, nil
}

// redact replaces the value of an attribute whose name marks it secret.
func redact(groups []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindGroup {
		return a
	}
	name := strings.ToLower(a.Key)
	for _, w := range secretAttrs {
		if name == w || strings.Contains(name, w) {
			return slog.String(a.Key, redacted)
		}
	}
	return a
}
