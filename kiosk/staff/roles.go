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

// Capabilities of special assessments and special charges (§5.14,
// kiosk/staff/assessments).
const (
	CapReadAssessments Capability = "read-assessments" // projects, their steps and schedules, assessments, repair notices
	CapAssessmentBoard Capability = "assessment-board" // record the board's resolutions, hearings and changes on a project
	CapAssessmentClerk Capability = "assessment-clerk" // file the report, give notice, record waivers, objections, publication and appeals
	CapAssessmentLevy  Capability = "assessment-levy"  // levy a project's assessments
	CapSpecialCharges  Capability = "special-charges"  // repair notices and their hearings, special charges (§5.14(13))
)

var grants = map[domain.Role][]Capability{
	domain.RoleClerk:         {CapDashboard, CapReadBills, CapBills, CapWindow, CapReadCash, CapReturns, CapRefundCheck, CapReadLetters, CapLetters, CapReadFees},
	domain.RoleTreasurer:     {CapDashboard, CapReadBills, CapBills, CapWindow, CapDeposit, CapReadCash, CapReturns, CapRefundApprove, CapRefundCheck, CapReadLetters, CapLetters, CapNovemberRun, CapJournal, CapReadFees},
	domain.RoleAdministrator: {CapDashboard, CapReadBills, CapReadCash, CapReadLetters, CapUsers, CapCluster, CapJournal, CapReadFees, CapResolutions},
	domain.RoleAuditor:       {CapDashboard, CapReadBills, CapReadCash, CapReadLetters, CapCluster, CapJournal, CapReadFees},
	domain.RoleBoard:         {CapDashboard, CapReadFees, CapResolutions},
	domain.RoleHotelOperator: {CapDashboard, CapReadFees},
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

// Allowed reports whether role r has capability c.
func Allowed(r domain.Role, c Capability) bool {
	for _, g := range grants[r] {
		if g == c {
			return true
		}
	}
	for _, g := range assessmentGrants[r] {
		if g == c {
			return true
		}
	}
	return false
}
