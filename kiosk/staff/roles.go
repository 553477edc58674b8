package staff

import "github.com/villagehall/appliance/domain"

// Capability is something a staff page or API call lets a person do. Every
// route names exactly one; roles grant them. The matrix below is the one
// place that says who may do what, and roles_test.go proves each role is
// refused everything it is not granted.
type Capability string

// Capabilities of the clerk's office.
const (
	CapDashboard Capability = "dashboard"  // the start page: any signed-in role
	CapReadBills Capability = "read-bills" // bills, accounts and their history
	CapBills     Capability = "bills"      // create and import bills
	CapWindow    Capability = "window"     // open a drawer, take cash and checks, close the drawer
	CapDeposit   Capability = "deposit"    // make deposit slips (§5.06)
	CapReadCash  Capability = "read-cash"  // drawers and deposit slips, the undeposited alert
	CapUsers     Capability = "users"      // staff accounts and API tokens
	CapCluster   Capability = "cluster"    // the cluster page

	CapReturns       Capability = "returned-checks" // record a returned check (§5.20)
	CapRefundApprove Capability = "refund-approve"  // approve a refund due (§5.07(1))
	CapRefundCheck   Capability = "refund-check"    // record the check that paid an approved refund
	CapReadLetters   Capability = "read-letters"    // the status letter queue and the letters (§5.11)
	CapLetters       Capability = "letters"         // complete status letters and record their delivery
	CapNovemberRun   Capability = "november-run"    // post the penalties and certify the tax roll (§5.10)
	CapJournal       Capability = "journal"         // search and export the journal
	CapReadFees      Capability = "read-fees"       // the fee schedule, the parameters in force and the resolutions that set them
	CapResolutions   Capability = "resolutions"     // record a resolution of the board that sets parameters
)

// Capabilities of the budget, appropriations and purchasing (§5.01-5.05,
// 5.12, 5.13, 5.16; kiosk/staff/budget and kiosk/staff/purchasing).
const (
	CapReadBudget      Capability = "read-budget"      // the chart, budgets, estimates, votes, appropriations, orders and their records
	CapChart           Capability = "chart"            // keep the chart of accounts
	CapEstimates       Capability = "estimates"        // file a unit's estimates (§5.01(3)); a department head for their unit
	CapBudget          Capability = "budget"           // prepare the proposed budget (§5.02)
	CapBudgetMeeting   Capability = "budget-meeting"   // record board members, notices, the hearing and the votes
	CapPurchasing      Capability = "purchasing"       // orders, bids, awards, deliveries, requisitions, surplus (a department head: their unit's requisitions and emergencies)
	CapPurchasingRules Capability = "purchasing-rules" // draft the rules of purchasing and record their approval (§5.12(10))
	CapEmployment      Capability = "employment"       // record an employment drawn against an appropriation (§5.16)
	CapCertify         Capability = "certify"          // certify funds, charge expenses, end appropriations and close the year
)

// Capabilities of the treasury: legal claims, depositories, investments
// and the county settlements (§5.06, 5.08, 5.09, 5.17; kiosk/staff/treasury).
const (
	CapReadLegalClaims Capability = "read-legal-claims" // the register of legal claims, their deadlines and letters
	CapLegalClaims     Capability = "legal-claims"      // record a claim, the President's notice, the attorney, the board's decision, the notice of disallowance
	CapReadTreasury    Capability = "read-treasury"     // depositories, investments and the county settlements
	CapTreasury        Capability = "treasury"          // designate depositories, record interest, investments and settlement payments
)

var grants = map[domain.Role][]Capability{
	domain.RoleClerk: {CapDashboard, CapReadBills, CapBills, CapWindow, CapReadCash, CapReturns, CapRefundCheck, CapReadLetters, CapLetters, CapReadFees,
		CapReadBudget, CapBudgetMeeting},
	domain.RoleTreasurer: {CapDashboard, CapReadBills, CapBills, CapWindow, CapDeposit, CapReadCash, CapReturns, CapRefundApprove, CapRefundCheck, CapReadLetters, CapLetters, CapNovemberRun, CapJournal, CapReadFees,
		CapReadBudget, CapCertify,
		CapReadTreasury, CapTreasury},
	domain.RoleAdministrator: {CapDashboard, CapReadBills, CapReadCash, CapReadLetters, CapUsers, CapCluster, CapJournal, CapReadFees, CapResolutions,
		CapReadBudget, CapChart, CapEstimates, CapBudget, CapBudgetMeeting, CapPurchasing, CapPurchasingRules, CapEmployment,
		CapReadLegalClaims, CapLegalClaims, CapReadTreasury},
	domain.RoleAuditor: {CapDashboard, CapReadBills, CapReadCash, CapReadLetters, CapCluster, CapJournal, CapReadFees, CapReadBudget,
		CapReadLegalClaims, CapReadTreasury},
	domain.RoleBoard: {CapDashboard, CapReadFees, CapResolutions, CapReadBudget,
		CapReadLegalClaims, CapLegalClaims, CapReadTreasury},
	domain.RoleHotelOperator:  {CapDashboard, CapReadFees},
	domain.RoleDepartmentHead: {CapDashboard, CapReadFees, CapReadBudget, CapEstimates, CapPurchasing},
}

// Allowed reports whether role r has capability c.
func Allowed(r domain.Role, c Capability) bool {
	for _, g := range grants[r] {
		if g == c {
			return true
		}
	}
	return false
}
