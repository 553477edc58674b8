package kiosk

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

// letterhead fills in the receipt's letterhead and, when the village has a
// public site, the QR code that opens the receipt there.
func (s *Server) letterhead(v *view.Receipt) error {
	vi := s.village
	v.Letterhead = view.Letterhead{Name: vi.Name, Address: vi.Address, Phone: vi.Phone, Email: vi.Email}
	if vi.PublicURL == "" || v.Number == "" {
		return nil
	}
	link := s.publicReceiptURL(v.Number)
	png, err := qrcode.Encode(link, qrcode.Medium, 256)
	if err != nil {
		return fmt.Errorf("receipt QR code: %w", err)
	}
	v.QR = "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	v.QRLink = link
	return nil
}

// publicReceiptURL is receipt number's address on the village's public
// site: the number and a key that proves the kiosk issued the link (an
// HMAC of the number under the receipt key, in a purpose of its own), so
// that the sequential number alone opens nothing there either.
func (s *Server) publicReceiptURL(number string) string {
	base := strings.TrimRight(s.village.PublicURL, "/")
	return base + "/receipt/" + url.PathEscape(number) + "?" + url.Values{"k": {mac(s.keys.receipt, "public receipt", number)}}.Encode()
}
