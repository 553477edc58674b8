// Package receipt is a kiosk receipt as the village issues it, on paper
// and by e-mail: the letterhead from the node's configuration, the QR code
// that opens the receipt on the village's public site, and the plain text
// of the e-mailed copy. It fills in and reads view.Receipt, which the
// kiosk maps from the ledger's receipt; the receipt page, its links bound
// to the resident's session and the keys that sign them stay with the
// kiosk's server, which passes in the public link's proof.
package receipt

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/villagehall/appliance/kiosk/view"
)

// Village is what a receipt's letterhead says about the village: its
// name, postal address, telephone and e-mail for questions, and its public
// web site, where a receipt's QR code leads. It comes from the node's
// configuration ([village] in appliance's config file); empty fields are
// left off the receipt, and an empty name falls back to the catalogue's.
type Village struct {
	Name      string
	Address   string
	Phone     string
	Email     string
	PublicURL string // https://…, without a trailing slash; empty: no QR code
}

// Letterhead fills in v's letterhead from vi and, when the village has a
// public site, the QR code that opens the receipt there. proof is the
// key of the link: the kiosk's HMAC of the receipt number, under a
// purpose of its own, which shows the public site that the kiosk issued
// the link, so that the sequential number alone opens nothing there
// either.
func Letterhead(v *view.Receipt, vi Village, proof string) error {
	v.Letterhead = view.Letterhead{Name: vi.Name, Address: vi.Address, Phone: vi.Phone, Email: vi.Email}
	if vi.PublicURL == "" || v.Number == "" {
		return nil
	}
	link := publicURL(vi, v.Number, proof)
	png, err := qrcode.Encode(link, qrcode.Medium, 256)
	if err != nil {
		return fmt.Errorf("receipt QR code: %w", err)
	}
	v.QR = "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	v.QRLink = link
	return nil
}

// publicURL is receipt number's address on the village's public site,
// with its proof.
func publicURL(vi Village, number, proof string) string {
	base := strings.TrimRight(vi.PublicURL, "/")
	return base + "/receipt/" + url.PathEscape(number) + "?" + url.Values{"k": {proof}}.Encode()
}
