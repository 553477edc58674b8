package staff

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/villagehall/appliance/domain"
)

// malformed is the error of a request body that could not be read as the
// request at all (not JSON, an unknown or a repeated field, data after
// it): a 400 (domain.EMALFORMED), where a request that was read but holds
// a wrong value is a 422.
func malformed(format string, args ...any) error {
	return domain.Errorf(domain.EMALFORMED, "", format, args...)
}

// decodeBody reads a JSON request body of at most maxFormBytes into v,
// strictly, for every JSON body the API accepts. encoding/json alone
// would take a body that names a field twice and keep the last value
// ({"amount":"1.00", …, "amount":"900.00"}), match field names without
// regard to case ("Amount"), ignore data after the object and replace
// bytes that are not UTF-8: a proxy, a log or an audit tool that reads
// the body another way would then see another request than the one that
// was carried out. So the body must be valid UTF-8 and exactly one JSON
// object with no field named twice at any depth (names compared the way
// encoding/json matches them, so "amount" and "AMOUNT" are the same), and
// every field must be one of v's. what names the request in the message
// ("a payment").
func decodeBody(w http.ResponseWriter, r *http.Request, v any, what string) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return malformed("The request body is larger than %d bytes.", maxFormBytes)
		}
		return malformed("The request body could not be read.")
	}
	if !utf8.Valid(body) {
		return malformed("The request body is not UTF-8 text.")
	}
	if err := checkJSONObject(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return malformed("The request body is not %s: %s.", what, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// checkJSONObject walks body token by token: it must be one JSON object
// and nothing after it, with no name twice in any object within it.
func checkJSONObject(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	// frame is an object or array being read; in an object, key says
	// whether the next token is a name, and names holds those read.
	type frame struct {
		object bool
		key    bool
		names  map[string]bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
	for first := true; ; first = false {
		tok, err := dec.Token()
		if err == io.EOF && first {
			return malformed("The request body is empty; send a JSON object.")
		}
		if err != nil {
			return malformed("The request body is not valid JSON.")
		}
		if first && tok != json.Delim('{') {
			return malformed("The request body must be a JSON object.")
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].key {
			top := stack[n-1]
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
			} else {
				name, ok := tok.(string)
				if !ok { // the decoder allows only a string here
					return malformed("The request body is not valid JSON.")
				}
				folded := foldName(name)
				if top.names[folded] {
					return malformed("The request body names the field %q more than once.", name)
				}
				top.names[folded] = true
				top.key = false
			}
		} else {
			switch tok {
			case json.Delim('{'):
				stack = append(stack, &frame{object: true, key: true, names: map[string]bool{}})
			case json.Delim('['):
				stack = append(stack, &frame{})
			case json.Delim(']'):
				stack = stack[:len(stack)-1]
				valueDone()
			default:
				valueDone()
			}
		}
		if len(stack) == 0 {
			break
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return malformed("The request body has data after the JSON object.")
	}
	return nil
}

// foldName folds a field name the way encoding/json matches names to
// fields (its fold.go): ASCII letters to upper case, any other letter to
// the smallest rune of its case-folding orbit, so that two names fold
// alike exactly when encoding/json would take them for the same field.
func foldName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			continue
		}
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		b.WriteRune(r)
	}
	return b.String()
}
