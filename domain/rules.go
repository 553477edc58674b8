package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// rule is one entry of the rule table: an id of RULES.md and the function
// that decodes its input and computes its output.
type rule struct {
	id   string
	eval func(input []byte, p *Params) (any, error)
}

// evalWith decodes a rule's input into I strictly (the input types'
// UnmarshalJSON refuse unknown and missing fields) and applies compute.
func evalWith[I, O any](compute func(I, *Params) (O, error)) func([]byte, *Params) (any, error) {
	return func(input []byte, p *Params) (any, error) {
		var in I
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, inputError(err)
		}
		out, err := compute(in, p)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}

// rules is the immutable table of every rule id of RULES.md, in its order.
var rules = [...]rule{
	{"5.10/receivable", evalWith(ComputeReceivable)},
	{"5.22/room-tax-return", evalWith(ComputeRoomTaxReturn)},
	{"5.11/status-letter", evalWith(ComputeStatusLetter)},
	{"5.07/refund", evalWith(ComputeRefund)},
	{"5.12/purchase", evalWith(ComputePurchase)},
	{"5.03/budget-vote", evalWith(ComputeBudgetVote)},
	{"5.14/apportion", evalWith(Apportion)},
	{"5.14/adjust", evalWith(AdjustAssessments)},
	{"5.14/hearing-window", evalWith(ComputeHearingWindow)},
	{"5.14/repair-notice", evalWith(ComputeRepairNotice)},
	{"5.08/legal-claim", evalWith(ComputeLegalClaim)},
	{"5.20/returned-check", evalWith(ComputeReturnedCheck)},
	{"ch74/first-installment", evalWith(ComputeFirstInstallment)},
}

// Rules returns the id of every rule Evaluate knows, in RULES.md's order.
func Rules() []string {
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.id
	}
	return ids
}

// Evaluate runs rule on a JSON input as RULES.md and the conformance cases
// give it, with parameters p, and returns the rule's output, which marshals
// to the JSON fields RULES.md lists. Decoding is strict: an unknown field,
// a missing required field or a value of the wrong type is an EINVALID
// error. The inputs `holidays` and `fee_schedule`, where a rule takes them,
// replace p's holidays and fee rows for that evaluation only. Evaluate never
// panics, whatever the input.
func Evaluate(rule string, input json.RawMessage, p *Params) (any, error) {
	for _, r := range rules {
		if r.id == rule {
			return r.eval(input, p)
		}
	}
	return nil, Errorf(EINVALID, "", "Unknown rule %q.", rule)
}

// inputError turns a decoding error into an EINVALID *Error with a plain
// message.
func inputError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return Errorf(EINVALID, "", "The input is not valid JSON: %v.", syn)
	}
	return Errorf(EINVALID, "", "The input could not be read: %v.", err)
}

// field is one member of a JSON object for decodeObject.
type field struct {
	name     string
	dst      any
	required bool
}

func req(name string, dst any) field { return field{name, dst, true} }
func opt(name string, dst any) field { return field{name, dst, false} }

// decodeObject decodes the JSON object b into fields strictly: b must be an
// object, a member not among fields is an error, and a required member that
// is missing or null is an error (null counts as absent everywhere). what
// names the object in messages ("bill", "payment").
func decodeObject(section, what string, b []byte, fields ...field) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return Errorf(EINVALID, section, "The %s must be a JSON object.", what)
	}
	var unknown []string
	for k := range m {
		if !slices.ContainsFunc(fields, func(f field) bool { return f.name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Errorf(EINVALID, section, "The %s has an unknown field %q.", what, unknown[0])
	}
	for _, f := range fields {
		raw, ok := m[f.name]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			if f.required {
				return Errorf(EINVALID, section, "The %s needs %q.", what, f.name)
			}
			continue
		}
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return Errorf(EINVALID, section, "In %q: %s", f.name, decodeMessage(err, f.dst))
		}
	}
	return nil
}

// decodeMessage explains why a member could not be decoded into dst.
func decodeMessage(err error, dst any) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the value must be " + kindName(te.Type) + "."
	}
	t := reflect.TypeOf(dst)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return "the value must be " + kindName(t) + "."
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object or a value of the right form"
	}
	return fmt.Sprintf("a %s", t.Kind())
}
