package view

import "github.com/villagehall/appliance/domain"

// RoomTax is the room tax page: the reference of the return and the
// amount to pay. It shows nothing of the return (§5.22(8)).
type RoomTax struct {
	Action  string
	Ref     string
	Amount  string
	Problem *Problem
}

// RoomTaxConfirm shows a room tax payment before the card is charged.
type RoomTaxConfirm struct {
	Ref, Period          string
	Amount               domain.Money
	CommandID, Signature string
	Action, ChangeURL    string
	Problem              *Problem
	Simulator            bool
	Outcomes             []string
}

// RoomTax reports whether the receipt is for a room tax payment; its
// Description is the return's quarter.
func (r Receipt) RoomTax() bool { return r.Kind == domain.KindPayRoomTax }

// RoomTaxCollections is the public page of room tax collected in a year:
// by quarter and in total, never by operator.
type RoomTaxCollections struct {
	Year       string
	Quarters   []RoomTaxQuarter
	Total      domain.Money
	Prev, Next string
}

// RoomTaxQuarter is one quarter's collections.
type RoomTaxQuarter struct {
	Period string
	Total  domain.Money
}
