package kiosk

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/villagehall/appliance/domain"
	"github.com/villagehall/appliance/kiosk/i18n"
	"github.com/villagehall/appliance/kiosk/terminal"
)

func TestErrorStatus(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	keys := make(map[string]bool)
	for _, k := range cat.Keys() {
		keys[k] = true
	}
	for _, tc := range []struct {
		err    error
		status int
		msg    string
	}{
		{domain.Errorf(domain.EINVALID, "§5.10", "bad"), http.StatusUnprocessableEntity, "error.invalid"},
		{fmt.Errorf("wrapped: %w", domain.Errorf(domain.ENOTFOUND, "", "no bill")), http.StatusNotFound, "error.not_found"},
		{domain.Errorf(domain.ECONFLICT, "§5.10", "bill is on the tax roll"), http.StatusConflict, "error.conflict"},
		{domain.Errorf(domain.EFORBIDDEN, "", "no"), http.StatusForbidden, "error.forbidden"},
		{domain.Errorf(domain.EUNAVAILABLE, "", "no quorum"), http.StatusServiceUnavailable, "error.unavailable"},
		{domain.Errorf(domain.EINTERNAL, "", "disk"), http.StatusInternalServerError, "error.internal"},
		{errors.New("plain"), http.StatusInternalServerError, "error.internal"},
		{terminal.ErrDeclined, http.StatusPaymentRequired, "charge.declined"},
		{fmt.Errorf("x: %w", terminal.ErrTimeout), http.StatusGatewayTimeout, "charge.timeout"},
		{terminal.ErrCancelled, http.StatusPaymentRequired, "charge.cancelled"},
		{chargeError{errors.New("usb unplugged")}, http.StatusBadGateway, "charge.failed"},
	} {
		status, msg, hint := errorStatus(tc.err)
		if status != tc.status || msg != tc.msg {
			t.Errorf("%v: %d %s, want %d %s", tc.err, status, msg, tc.status, tc.msg)
		}
		if !keys[msg] || !keys[hint] {
			t.Errorf("%v: %s or %s is not in the catalogue", tc.err, msg, hint)
		}
	}
}
