package domain

import (
	"encoding/base32"
	"hash/fnv"
	"strings"
)

// The payment reference of a room tax return. The kiosk stands in a
// public hallway and takes a card payment toward a return by a reference
// the operator types; the return's id alone (operator and quarter, such
// as belle-inn_2026-Q1) is easy to guess, and a kiosk that answered "no
// such return" to one and showed a confirmation for another would tell
// anyone which operators filed which quarters (§5.22(8)). So the reference
// printed for the operator is the id followed by a check code derived from
// the command that first put the return on record (its filing, or the
// treasurer's estimate), whose id is random and never shown at the kiosk;
// a reference whose code does not match is answered exactly as one of a
// return not on record. The code is computed, not stored: nothing in the
// ledger's records or its encoding changes.

// payRefCodeLen is the length of the check code: 8 base32 characters,
// 40 bits.
const payRefCodeLen = 8

// PaymentReference returns the reference an operator types at the kiosk
// to pay toward the return: its id, "-", and the check code. It is "" for
// a return with nothing on record yet.
func (r QuarterlyReturn) PaymentReference() string {
	code := r.payRefCode()
	if code == "" {
		return ""
	}
	return r.ID + "-" + code
}

func (r QuarterlyReturn) payRefCode() string {
	var first string
	switch {
	case len(r.Filings) > 0:
		first = r.Filings[0].CommandID
	case len(r.Determinations) > 0:
		first = r.Determinations[0].CommandID
	}
	if first == "" {
		return ""
	}
	// FNV, not a cryptographic hash: what makes the code unguessable is
	// the random command id it is made from, which the kiosk never shows
	// (and crypto/sha256 would pull internal packages that make
	// check-imports refuse the domain).
	h := fnv.New128a()
	h.Write([]byte("room-tax-payment-reference\x00" + r.ID + "\x00" + first))
	return base32.StdEncoding.EncodeToString(h.Sum(nil))[:payRefCodeLen]
}

// ParsePaymentReference checks the shape of a payment reference and
// returns it as printed (the id in its canonical form, the code in
// capitals). A malformed one is EINVALID; the shape says nothing about
// any return.
func ParsePaymentReference(ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	bad := Errorf(EINVALID, sectionRoomTax, "%q is not a room tax payment reference like belle-inn_2026-Q1-7KQ2M4XA.", ref)
	i := strings.LastIndexByte(ref, '-')
	if i < 0 || len(ref)-i-1 != payRefCodeLen {
		return "", bad
	}
	op, q, err := ParseQuarterlyReturnID(ref[:i])
	if err != nil {
		return "", bad
	}
	return QuarterlyReturnID(op, q) + "-" + strings.ToUpper(ref[i+1:]), nil
}

// RoomTaxReturnByPaymentReference returns the return a payment reference
// names. A malformed reference is EINVALID; one that names no return on
// record and one with the wrong check code get one answer, ENOTFOUND in
// the same words. Letters are compared without case, and spaces around
// it are ignored.
func (x Reads) RoomTaxReturnByPaymentReference(ref string) (QuarterlyReturn, error) {
	ref, err := ParsePaymentReference(ref)
	if err != nil {
		return QuarterlyReturn{}, err
	}
	notFound := Errorf(ENOTFOUND, sectionRoomTax, "No room tax return has the payment reference %s; check the reference printed on the return.", ref)
	i := strings.LastIndexByte(ref, '-')
	r, err := x.RoomTaxReturn(ref[:i])
	if ErrorCode(err) == ENOTFOUND {
		return QuarterlyReturn{}, notFound
	}
	if err != nil {
		return QuarterlyReturn{}, err
	}
	if want := r.payRefCode(); want == "" || want != ref[i+1:] {
		return QuarterlyReturn{}, notFound
	}
	return r, nil
}
