package domain

// ProvisionalReceipt returns the receipt a node gives for a command it has
// recorded in its outbox but that has not posted yet: numbered
// "<node>-<sequence>" like the posted one, marked Provisional, without the
// figures only applying it can give (the balance left, the allocation, the
// log index). It is nil for a kind that takes no money. The replicated
// ledger's Submit and Receipt answer with it while the cluster is out of
// reach, for every paying kind.
func (c Command) ProvisionalReceipt() *Receipt {
	rc := &Receipt{Number: c.ReceiptNumber(), Kind: c.Kind, CommandID: c.ID, Status: Provisional, At: c.At, Node: c.Node}
	switch {
	case c.PayBill != nil:
		p := c.PayBill
		rc.Kind = "" // a bill payment's receipt has always been unmarked
		rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference = p.BillID, p.Payer, p.Amount, p.Tender, p.Reference
	case c.RequestStatusLetter != nil:
		p := c.RequestStatusLetter
		rc.Parcel, rc.Payer, rc.Amount, rc.Tender, rc.Reference = p.Parcel, p.Requester, p.Fee, p.Tender, p.Reference
	case c.PayPropertyTax != nil:
		p := c.PayPropertyTax
		rc.BillID, rc.Payer, rc.Amount, rc.Tender, rc.Reference = p.TaxBillID, p.Payer, p.Amount, p.Tender, p.Reference
	default:
		return nil
	}
	return rc
}
