package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// payRefReader is a record reader holding one return.
type payRefReader map[string][]byte

func (m payRefReader) Get(collection, id string, v any) error {
	b, ok := m[collection+"/"+id]
	if !ok {
		return Errorf(ENOTFOUND, "", "no %s", id)
	}
	return json.Unmarshal(b, v)
}

func (m payRefReader) List(string, string, func(string, []byte) error) error { return nil }

func (m payRefReader) Keys(string, string) ([]string, error) { return nil, nil }

// TestRoomTaxPaymentReference: the reference printed on a return is its id
// and a check code from the command that first put it on record; a wrong
// code and a return not on record get one answer, a malformed reference
// another, and letter case does not matter.
func TestRoomTaxPaymentReference(t *testing.T) {
	filed := QuarterlyReturn{ID: "belle-inn_2026-Q1", Operator: "belle-inn", Period: Quarter{2026, 1},
		Filings: []RoomTaxFiling{{GrossReceipts: MustMoney("20000.00"), CommandID: "01a1f2c3-0000-7000-8000-5eed0fbe11e0"}}}
	ref := filed.PaymentReference()
	if !strings.HasPrefix(ref, "belle-inn_2026-Q1-") || len(ref) != len("belle-inn_2026-Q1-")+8 || strings.ToUpper(ref[18:]) != ref[18:] {
		t.Fatalf("reference %q", ref)
	}
	if again := filed.PaymentReference(); again != ref {
		t.Fatalf("not deterministic: %q, %q", ref, again)
	}
	amended := filed
	amended.Filings = append(amended.Filings, RoomTaxFiling{GrossReceipts: MustMoney("21000.00"), CommandID: "01a1f2c3-0000-7000-8000-000000000002", Amends: true})
	if amended.PaymentReference() != ref {
		t.Error("an amendment changes the reference the operator was given")
	}
	other := filed
	other.Filings = []RoomTaxFiling{{CommandID: "01a1f2c3-0000-7000-8000-5eed0fbe11e1"}}
	if other.PaymentReference() == ref {
		t.Error("the code does not depend on the filing command")
	}
	estimated := QuarterlyReturn{ID: "hale-bnb_2026-Q1", Determinations: []RoomTaxDetermination{{CommandID: "01a1f2c3-0000-7000-8000-00000000e571"}}}
	if !strings.HasPrefix(estimated.PaymentReference(), "hale-bnb_2026-Q1-") {
		t.Errorf("an estimate's reference: %q", estimated.PaymentReference())
	}
	if (QuarterlyReturn{ID: "x_2026-Q1"}).PaymentReference() != "" {
		t.Error("a return with nothing on record has a reference")
	}

	b, _ := json.Marshal(filed)
	reads := ReadsOf(payRefReader{CollectionRoomTaxReturns + "/" + filed.ID: b})
	if got, err := reads.RoomTaxReturnByPaymentReference("  " + strings.ToLower(ref) + " "); err != nil || got.ID != filed.ID {
		t.Fatalf("by its reference, any case: %+v %v", got, err)
	}
	code := ref[len(ref)-8:]
	wrong := strings.Map(func(r rune) rune {
		if r == 'A' {
			return 'B'
		}
		return 'A'
	}, code)
	_, errWrong := reads.RoomTaxReturnByPaymentReference("belle-inn_2026-Q1-" + wrong)
	_, errNone := reads.RoomTaxReturnByPaymentReference("belle-inn_2026-Q2-" + wrong)
	if ErrorCode(errWrong) != ENOTFOUND || ErrorCode(errNone) != ENOTFOUND ||
		strings.Replace(errWrong.Error(), "Q1", "Q2", 1) != errNone.Error() {
		t.Errorf("a wrong code %v and a return not on record %v are told apart", errWrong, errNone)
	}
	for _, bad := range []string{"belle-inn_2026-Q1", "belle-inn_2026-Q1-ABC", "belle inn q1-ABCDEFGH", ""} {
		if _, err := reads.RoomTaxReturnByPaymentReference(bad); ErrorCode(err) != EINVALID {
			t.Errorf("%q: %v, want EINVALID", bad, err)
		}
	}
}
