package domain

import (
	"errors"
	"fmt"
)

// Code classifies an error so that adapters can map it to a response (an
// HTTP status, a kiosk message, an exit code) in exactly one place.
type Code string

// Error codes used across the appliance.
const (
	EMALFORMED       Code = "malformed"       // the request itself cannot be read (not JSON, an unknown field)
	EINVALID         Code = "invalid"         // bad input: fix it and try again
	ENOTFOUND        Code = "not_found"       // no such bill, parcel, account …
	ECONFLICT        Code = "conflict"        // the state does not allow it (bill on the tax roll …)
	EUNAUTHENTICATED Code = "unauthenticated" // no credential, or one that is not valid
	EFORBIDDEN       Code = "forbidden"       // the actor may not do this
	EUNAVAILABLE     Code = "unavailable"     // no quorum or leader; retry later
	EINTERNAL        Code = "internal"        // a bug or a broken disk; logged, not explained
)

// Error is the domain's error: a code, the ordinance section the rule comes
// from (empty when none applies) and a plain message a resident or clerk can
// read.
type Error struct {
	Code    Code   `json:"code"`
	Section string `json:"section,omitempty"`
	Message string `json:"message"`
}

// Error returns the message, prefixed by the section when there is one.
func (e *Error) Error() string {
	if e.Section != "" {
		return e.Section + ": " + e.Message
	}
	return e.Message
}

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, section, format string, args ...any) *Error {
	return &Error{Code: code, Section: section, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error and "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the plain message of the first *Error in err's chain,
// or a generic sentence for internal errors, whose details are for the log.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on our side. Please ask the clerk for help."
}

// ErrorSection returns the section of the first *Error in err's chain.
func ErrorSection(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Section
	}
	return ""
}
