package domain

// The clerk's office commands. command.go dispatches to these functions so
// that the shared switch grows by one line a group, not one a kind.

// Command kinds of the clerk's office. Kinds only grow.
const (
	KindStaffUser     Kind = "staff_user"     // add or change a staff account
	KindAPIToken      Kind = "api_token"      // issue or revoke an API token
	KindCreateBills   Kind = "create_bills"   // create village bills (a form or an import)
	KindDrawerOpen    Kind = "drawer_open"    // open a cash drawer at the window
	KindWindowPayment Kind = "window_payment" // a cash or check payment at the window (§5.10)
	KindDrawerClose   Kind = "drawer_close"   // close a drawer on a blind count; over/short posted
	KindDeposit       Kind = "deposit"        // a deposit slip to a public depository (§5.06)
	KindReturnCheck   Kind = "return_check"   // a check came back unpaid (§5.20)
	KindIssueRefund   Kind = "issue_refund"   // approve a refund due, or record its check (§5.07(1))
	KindStatusLetter  Kind = "status_letter"  // complete a status letter, or record its delivery (§5.11)
	KindNovemberRun   Kind = "november_run"   // post the penalties, or certify the tax roll (§5.10)
	KindCharge        Kind = "charge"         // collection costs, a chargeback (§5.21) or a notice fee (§5.19)
)

// staffPayloads returns how many clerk's-office payloads c carries, and
// whether kind k is one of the clerk's office kinds with its payload set.
func (c Command) staffPayloads(k Kind) (n int, known, ok bool) {
	set := map[Kind]bool{
		KindStaffUser:     c.StaffUser != nil,
		KindAPIToken:      c.APIToken != nil,
		KindCreateBills:   c.CreateBills != nil,
		KindDrawerOpen:    c.DrawerOpen != nil,
		KindWindowPayment: c.WindowPayment != nil,
		KindDrawerClose:   c.DrawerClose != nil,
		KindDeposit:       c.Deposit != nil,
		KindReturnCheck:   c.ReturnCheck != nil,
		KindIssueRefund:   c.IssueRefund != nil,
		KindStatusLetter:  c.StatusLetter != nil,
		KindNovemberRun:   c.NovemberStep != nil,
		KindCharge:        c.Charge != nil,
	}
	for _, v := range set {
		if v {
			n++
		}
	}
	has, known := set[k]
	return n, known, has
}

// applyStaff applies a clerk's office command; known is false for any
// other kind.
func applyStaff(tx Tx, c Command, index uint64, p *Params, res *Result) (known bool, err error) {
	switch c.Kind {
	case KindStaffUser:
		return true, applyStaffUser(tx, c, res)
	case KindAPIToken:
		return true, applyAPIToken(tx, c, res)
	case KindCreateBills:
		return true, applyCreateBills(tx, c, res)
	case KindDrawerOpen:
		return true, applyDrawerOpen(tx, c, res)
	case KindWindowPayment:
		return true, applyWindowPayment(tx, c, index, p, res)
	case KindDrawerClose:
		return true, applyDrawerClose(tx, c, res)
	case KindDeposit:
		return true, applyDeposit(tx, c, res)
	case KindReturnCheck:
		return true, applyReturnCheck(tx, c, p, res)
	case KindIssueRefund:
		return true, applyIssueRefund(tx, c, res)
	case KindStatusLetter:
		return true, applyStatusLetterWork(tx, c, res)
	case KindNovemberRun:
		return true, applyNovemberStep(tx, c, p, res)
	case KindCharge:
		return true, applyCharge(tx, c, res)
	}
	return false, nil
}
