package records

import (
	"net/http"
	"net/url"

	"github.com/villagehall/appliance/kiosk/view"
)

// Filters of the purchasing records list.
const (
	filterOpenMarket = "open_market"
	filterEmergency  = "emergency"
)

// ShowPurchasesPage lists the public purchasing records (§5.12(5), (7)),
// newest first, all of them or only one kind (?kind=open_market or
// ?kind=emergency). Read-only: the purchasing agent's commands write them.
func (rec *Records) ShowPurchasesPage(w http.ResponseWriter, r *http.Request) {
	filter := r.URL.Query().Get("kind")
	if filter != filterOpenMarket && filter != filterEmergency {
		filter = ""
	}
	p := rec.pages.Page(r, "title.purchases")
	all, err := rec.reads.Purchases()
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	v := view.Purchases{Filter: filter}
	for _, k := range []string{"", filterOpenMarket, filterEmergency} {
		u := "/purchases"
		key := k
		if k != "" {
			u += "?kind=" + k
		} else {
			key = "all"
		}
		v.Tabs = append(v.Tabs, view.Tab{Key: key, Label: p.T("purchases.tab." + key), URL: u, Current: k == filter})
	}
	for _, pu := range all {
		if (filter == filterEmergency && !pu.Emergency) || (filter == filterOpenMarket && pu.Emergency) {
			continue
		}
		v.Items = append(v.Items, view.PurchaseRow{PublicPurchase: pu, URL: "/purchases/" + url.PathEscape(pu.ID)})
	}
	rec.pages.Render(w, r, http.StatusOK, view.PurchasesPage(p, v))
}

// ShowPurchasePage shows one purchasing record: an open-market purchase
// with every bid (the lowest marked), an emergency purchase with its
// invoice and the explanation of the emergency.
func (rec *Records) ShowPurchasePage(w http.ResponseWriter, r *http.Request) {
	pu, err := rec.reads.Purchase(r.PathValue("id"))
	if err != nil {
		rec.pages.Fail(w, r, err)
		return
	}
	p := rec.pages.Page(r, "title.purchase")
	v := view.Purchase{PublicPurchase: pu, LowBid: -1, BackURL: "/purchases"}
	for i, b := range pu.Bids {
		if v.LowBid < 0 || b.Amount.LessThan(pu.Bids[v.LowBid].Amount) {
			v.LowBid = i
		}
	}
	rec.pages.Render(w, r, http.StatusOK, view.PurchasePage(p, v))
}
