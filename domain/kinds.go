package domain

// Kinds is the table of every command kind the product knows: one row a
// kind, its descriptor declared in the file of its rule. A new kind is a
// new file (its payload, its rule, its descriptor) and a row here.
var Kinds = NewTable(
	// The resident kiosk.
	payBillKind,             // paybill.go, §5.10
	requestStatusLetterKind, // statusrequest.go, §5.11
	payPropertyTaxKind,      // taxbill.go, Ch. 74
	seedDemoKind,            // seeddemo.go

	// The clerk's office.
	staffUserKind,     // staffuser.go
	apiTokenKind,      // staffuser.go
	createBillsKind,   // billing.go
	drawerOpenKind,    // drawer.go
	windowPaymentKind, // drawer.go, §5.10
	drawerCloseKind,   // drawer.go
	depositKind,       // drawer.go, §5.06
	returnCheckKind,   // returnedcheck.go, §5.20
	issueRefundKind,   // returnedcheck.go, §5.07(1)
	statusLetterKind,  // statusletterwork.go, §5.11
	novemberRunKind,   // novemberrun.go, §5.10
	chargeKind,        // charges.go, §5.19, §5.21
	resolutionKind,    // resolution.go: parameters set by the board

	// The budget, appropriations and purchasing (§5.01-5.05, 5.12, 5.13, 5.16).
	chartKind,            // chart.go
	boardMemberKind,      // budgetcycle.go
	budgetEstimateKind,   // budgetcycle.go, §5.01(3)
	budgetProposalKind,   // budgetcycle.go, §5.02(4)
	budgetNoticeKind,     // budgetcycle.go, Wis. Stat. 65.90
	budgetHearingKind,    // budgetcycle.go, §5.02(7)
	budgetVoteKind,       // budgetcycle.go, §5.03(1), §5.04
	employmentKind,       // appropriation.go, §5.16
	expenseKind,          // appropriation.go, §5.05
	appropriationEndKind, // appropriation.go, §5.05
	yearEndCloseKind,     // appropriation.go, §5.05
	orderKind,            // order.go, §5.12, §5.13
	certifyFundsKind,     // order.go, §5.12(6)
	orderReceiptKind,     // order.go, §5.12(8)
	requisitionKind,      // purchasingrecords.go, §5.12(3)
	surplusKind,          // purchasingrecords.go, §5.12(9)
	purchasingRulesKind,  // purchasingrecords.go, §5.12(10)

	// Claims and accounts payable (§5.07(2)-(4), §5.18).
	claimKind,          // payable.go
	apPolicyKind,       // payable.go
	signatureKind,      // payable.go
	checkStockKind,     // payable.go
	checkRunKind,       // payable.go
	checkVoidKind,      // payable.go
	registerReviewKind, // payable.go

	// The treasury: legal claims, depositories, investments and the
	// county settlements (§5.06, 5.08, 5.09, 5.17).
	legalClaimKind,         // legalclaims.go, §5.08
	depositoryKind,         // depository.go, §5.06
	depositoryInterestKind, // depository.go, §5.06
	investmentKind,         // investment.go, §5.09
	investmentInterestKind, // investment.go, §5.09
	countySettlementKind,   // countysettlement.go, §5.17

	// The cluster's own.
	ledgerFormatKind, // ledgerformat.go
	checkpointKind,   // ledgerformat.go
	revokeNodeKind,   // ledgerformat.go
)
