package staff

import (
	"slices"

	"github.com/villagehall/appliance/domain"
)

// Capability is something a staff page or API call lets a person do. Every
// route names exactly one; roles grant them. The matrix below is the one
// place that says who may do what, and roles_test.go proves each role is
// refused everything it is not granted.
type Capability string

// Capabilities of the clerk's office.
const (
	CapDashboard Capability = "dashboard"  // the start page: any signed-in role
	CapReadBills Capability = "read-bills" // bills, accounts and their history
	CapBills     Capability = "bills"      // create and import bills; import the counties' parcel rolls
	CapWindow    Capability = "window"     // open a drawer, take cash and checks, close the drawer
	CapDeposit   Capability = "deposit"    // make deposit slips (§5.06)
	CapReadCash  Capability = "read-cash"  // drawers and deposit slips, the undeposited alert
	CapUsers     Capability = "users"      // staff accounts and API tokens
	CapCluster   Capability = "cluster"    // the cluster page
	// CapOperations is looking after the appliance itself: the start
	// page's alerts about the ledger's health, the backups and the card
	// terminal's processor, which say what the person who runs the nodes
	// (their accounts, tokens, backups and restores) must fix. They are
	// internal: an operator filing room tax or a board member has no
	// business with them.
	CapOperations Capability = "operations"

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

// Capabilities of claims and accounts payable (§5.07(2)-(4), §5.18;
// kiosk/staff/payables).
const (
	CapReadPayables Capability = "read-payables" // claims, check runs, signatures, the check register and the policy
	CapClaims       Capability = "claims"        // enter claims and give the certifications a role may give (the ledger says which)
	CapCheckRuns    Capability = "check-runs"    // run checks, void them, set the check stock
	CapSignatures   Capability = "signatures"    // record the board's approval or withdrawal of a facsimile or digital signature
	CapAPPolicy     Capability = "ap-policy"     // record the accounts payable policy and its annual review
	CapRegister     Capability = "register"      // record the board's review of the monthly check register
)

// Capabilities of the audit (§5.15; kiosk/staff/audit).
const (
	CapAudit           Capability = "audit"            // the engagements and the yearly extract of the ledger
	CapAuditEngagement Capability = "audit-engagement" // record the firm engaged and the board's confirmation
)

// Capabilities of the room tax (§5.22, kiosk/staff/roomtax). Reading a
// return is offered to every role, but the ledger decides whose returns a
// person may read (the filer, the treasurer's office, the auditors, an
// official with an access grant) and records every read before it is
// shown.
const (
	CapRoomTaxForms     Capability = "room-tax-forms"     // the blank return, at no cost (§5.22(3)(a))
	CapRoomTaxFile      Capability = "room-tax-file"      // file and amend returns and the annual return (an operator: its own only)
	CapRoomTaxRead      Capability = "room-tax-read"      // open returns and audit reports, each read journaled (§5.22(8))
	CapRoomTaxDirectory Capability = "room-tax-directory" // the operators and the returns on record, without figures
	CapRoomTaxAdmin     Capability = "room-tax-admin"     // operators, extensions, audits, estimates, window payments, grants, certificates, transfers, forfeitures, exports
	CapRoomTaxLog       Capability = "room-tax-log"       // who read which return, when and why
	CapRoomTaxTotals    Capability = "room-tax-totals"    // collections in total (public) and the tourism share
	CapRoomTaxPay       Capability = "room-tax-pay"       // pay its own returns by card or with a remittance slip, and read its receipts (an operator)
)

// Capabilities of special assessments and special charges (§5.14,
// kiosk/staff/assessments).
const (
	CapReadAssessments Capability = "read-assessments" // projects, their steps and schedules, assessments, repair notices
	CapAssessmentBoard Capability = "assessment-board" // record the board's resolutions, hearings and changes on a project
	CapAssessmentClerk Capability = "assessment-clerk" // file the report, give notice, record waivers, objections, publication and appeals
	CapAssessmentLevy  Capability = "assessment-levy"  // levy a project's assessments
	CapSpecialCharges  Capability = "special-charges"  // repair notices and their hearings, special charges (§5.14(13))
)

// Capabilities of the treasury: legal claims, depositories, investments
// and the county settlements (§5.06, 5.08, 5.09, 5.17; kiosk/staff/treasury).
const (
	CapReadLegalClaims Capability = "read-legal-claims" // the register of legal claims, their deadlines and letters
	CapLegalClaims     Capability = "legal-claims"      // record a claim, the President's notice, the attorney, the board's decision, the notice of disallowance
	CapReadTreasury    Capability = "read-treasury"     // depositories, investments and the county settlements
	CapTreasury        Capability = "treasury"          // designate depositories, record interest, investments and settlement payments
	CapLevy            Capability = "levy"              // record a tax roll's levy by taxing jurisdiction when the roll is received (§5.17)
)

// Capabilities of the Village President's steps on a legal claim (§5.08;
// kiosk/staff/treasury). The administrator contacts the President
// immediately, and records it, as the President may; whether to contact
// the Village Attorney is the President's decision alone. The ledger
// refuses anyone else either way (domain/legalclaims.go).
const (
	CapLegalNotify   Capability = "legal-notify"   // record that the Village President was told of a claim
	CapLegalAttorney Capability = "legal-attorney" // record the President's decision on contacting the Village Attorney
)

// The card terminal's capability (kiosk/staff/cards).
const (
	CapCardReconcile Capability = "card-reconcile" // the daily card reconciliation and its CSV
)

// The books' capabilities (kiosk/staff/books). The books are a report
// over the ledger's postings: the people who keep or answer for the
// village's money read them (the treasurer, the clerk, the administrator,
// the auditors and the board), a hotel operator or a department head does
// not. The treasurer keeps them: closes the periods, posts the adjusting
// entries and imports the opening trial balance; the treasurer or the
// administrator reopens the latest closed period, with a reason.
const (
	CapReadBooks   Capability = "read-books"   // the trial balance by fund, each account's detail, the statements (balance sheet, fund statement, Form CT schedule), their CSV; the periods closed
	CapKeepBooks   Capability = "keep-books"   // close a period, post an adjusting entry, import the opening trial balance
	CapReopenBooks Capability = "reopen-books" // reopen the latest closed period of the books
)

// booksGrants are the books' capabilities, by role; Allowed reads them
// beside grants.
var booksGrants = map[domain.Role][]Capability{
	domain.RoleClerk:         {CapReadBooks},
	domain.RoleTreasurer:     {CapReadBooks, CapKeepBooks, CapReopenBooks},
	domain.RoleAdministrator: {CapReadBooks, CapReopenBooks},
	domain.RoleAuditor:       {CapReadBooks},
	domain.RoleBoard:         {CapReadBooks},
}

// cardGrants are the card terminal's capabilities, by role; Allowed reads
// them beside grants.
var cardGrants = map[domain.Role][]Capability{
	domain.RoleTreasurer: {CapCardReconcile},
	domain.RoleAuditor:   {CapCardReconcile},
}

var grants = map[domain.Role][]Capability{
	domain.RoleClerk: {CapDashboard, CapReadBills, CapBills, CapWindow, CapReadCash, CapReturns, CapRefundCheck, CapReadLetters, CapLetters, CapReadFees,
		CapReadBudget, CapBudgetMeeting,
		CapReadPayables, CapClaims, CapSignatures, CapRegister, CapAuditEngagement,
		CapRoomTaxForms, CapRoomTaxRead, CapRoomTaxTotals,
		CapLevy},
	domain.RoleTreasurer: {CapDashboard, CapReadBills, CapBills, CapWindow, CapDeposit, CapReadCash, CapReturns, CapRefundApprove, CapRefundCheck, CapReadLetters, CapLetters, CapNovemberRun, CapJournal, CapReadFees,
		CapReadBudget, CapCertify,
		CapReadPayables, CapClaims, CapCheckRuns, CapSignatures, CapAPPolicy, CapRegister, CapAudit, CapAuditEngagement,
		CapRoomTaxForms, CapRoomTaxFile, CapRoomTaxRead, CapRoomTaxDirectory, CapRoomTaxAdmin, CapRoomTaxLog, CapRoomTaxTotals,
		CapReadTreasury, CapTreasury, CapLevy},
	domain.RoleAdministrator: {CapDashboard, CapReadBills, CapReadCash, CapReadLetters, CapUsers, CapCluster, CapOperations, CapJournal, CapReadFees, CapResolutions,
		CapReadBudget, CapChart, CapEstimates, CapBudget, CapBudgetMeeting, CapPurchasing, CapPurchasingRules, CapEmployment,
		CapReadPayables, CapClaims, CapSignatures, CapAPPolicy, CapAudit, CapAuditEngagement,
		CapRoomTaxRead, CapRoomTaxTotals,
		CapReadLegalClaims, CapLegalClaims, CapReadTreasury},
	domain.RoleAuditor: {CapDashboard, CapReadBills, CapReadCash, CapReadLetters, CapCluster, CapJournal, CapReadFees, CapReadBudget, CapReadPayables, CapAudit,
		CapRoomTaxRead, CapRoomTaxDirectory, CapRoomTaxLog, CapRoomTaxTotals,
		CapReadLegalClaims, CapReadTreasury},
	domain.RoleBoard: {CapDashboard, CapReadFees, CapResolutions, CapReadBudget, CapReadPayables, CapClaims,
		CapRoomTaxRead, CapRoomTaxTotals,
		CapReadLegalClaims, CapLegalClaims, CapReadTreasury},
	domain.RoleHotelOperator: {CapDashboard, CapReadFees,
		CapRoomTaxForms, CapRoomTaxFile, CapRoomTaxRead, CapRoomTaxTotals, CapRoomTaxPay},
	domain.RoleDepartmentHead: {CapDashboard, CapReadFees, CapReadBudget, CapEstimates, CapPurchasing, CapReadPayables, CapClaims,
		CapRoomTaxRead, CapRoomTaxTotals},
}

// assessmentGrants are the capabilities of special assessments and
// special charges, by role; Allowed reads them beside grants.
var assessmentGrants = map[domain.Role][]Capability{
	domain.RoleClerk:         {CapReadAssessments, CapAssessmentClerk, CapSpecialCharges},
	domain.RoleTreasurer:     {CapReadAssessments, CapAssessmentLevy, CapSpecialCharges},
	domain.RoleAdministrator: {CapReadAssessments, CapAssessmentBoard, CapAssessmentClerk, CapAssessmentLevy},
	domain.RoleAuditor:       {CapReadAssessments},
	domain.RoleBoard:         {CapReadAssessments, CapAssessmentBoard},
}

// presidentGrants are the capabilities of the President's steps on legal
// claims, by role. The Village President holds, besides these, every
// capability of a board member (domain.Role.Is).
var presidentGrants = map[domain.Role][]Capability{
	domain.RoleAdministrator: {CapLegalNotify},
	domain.RolePresident:     {CapLegalNotify, CapLegalAttorney},
}

// Allowed reports whether role r has capability c: granted to r, or to a
// role r acts as (the President as a board member).
func Allowed(r domain.Role, c Capability) bool {
	for _, m := range []map[domain.Role][]Capability{grants, assessmentGrants, presidentGrants, booksGrants} {
		for role, caps := range m {
			if r.Is(role) && slices.Contains(caps, c) {
				return true
			}
		}
	}
	for _, g := range cardGrants[r] {
		if g == c {
			return true
		}
	}
	return false
}
