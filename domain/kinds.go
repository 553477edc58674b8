package domain

// Kinds is the table of every command kind the product knows: one row a
// kind, its descriptor declared in the file of its rule. A new kind is a
// new file (its payload, its rule, its descriptor) and a row here.
var Kinds = NewTable(
	// The resident kiosk.
	payBillKind,             // paybill.go, §5.10
	payBillsKind,            // paybills.go, §5.10: several bills, one card payment
	requestStatusLetterKind, // statusrequest.go, §5.11
	payPropertyTaxKind,      // taxbill.go, Ch. 74
	seedDemoKind,            // seeddemo.go

	// The clerk's office.
	staffUserKind,      // staffuser.go
	apiTokenKind,       // staffuser.go
	createBillsKind,    // billing.go
	parcelRollKind,     // parcelroll.go: the counties' parcel rolls
	mailingAddressKind, // mailing.go: owners' mailing addresses
	drawerOpenKind,     // drawer.go
	windowPaymentKind,  // drawer.go, §5.10
	drawerCloseKind,    // drawer.go
	depositKind,        // drawer.go, §5.06
	returnCheckKind,    // returnedcheck.go, §5.20
	issueRefundKind,    // returnedcheck.go, §5.07(1)
	statusLetterKind,   // statusletterwork.go, §5.11
	novemberRunKind,    // novemberrun.go, §5.10
	chargeKind,         // charges.go, §5.19, §5.21
	resolutionKind,     // resolution.go: parameters set by the board

	// Status letters the office takes at the window and by the API (§5.11).
	officeStatusLetterKind, // statusoffice.go

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
	claimKind,           // payable.go
	apPolicyKind,        // payable.go
	signatureKind,       // payable.go
	checkStockKind,      // payable.go
	checkRunKind,        // payable.go
	checkVoidKind,       // payable.go
	registerReviewKind,  // payable.go
	auditEngagementKind, // audit.go, §5.15

	// Room tax (§5.22): operators, returns, payments, the
	// treasurer's powers and every read of a return.
	roomTaxOperatorKind,      // roomtaxoperator.go
	roomTaxAccessKind,        // roomtaxoperator.go, §5.22(8)
	roomTaxFileKind,          // roomtaxreturn.go, §5.22(3)(b)
	roomTaxAmendKind,         // roomtaxreturn.go
	roomTaxAnnualKind,        // roomtaxreturn.go
	payRoomTaxKind,           // roomtaxreturn.go: by card at the kiosk
	roomTaxWindowPaymentKind, // roomtaxreturn.go
	roomTaxExtendKind,        // roomtaxadmin.go
	roomTaxDetermineKind,     // roomtaxadmin.go, §5.22(4)–(5)
	roomTaxNoInterestKind,    // roomtaxadmin.go, §5.22(6)
	roomTaxCertifyKind,       // roomtaxadmin.go, §5.22(3)(c)
	roomTaxSuccessorKind,     // roomtaxadmin.go, §5.22(3)(c)
	roomTaxTransferKind,      // roomtaxadmin.go, Wis. Stat. 66.0615
	roomTaxForfeitKind,       // roomtaxadmin.go, §5.22(9)
	roomTaxReadKind,          // roomtaxadmin.go, §5.22(8)
	// Special assessments and special charges (§5.14).
	assessmentPreliminaryKind,   // assessmentproject.go, §5.14(3)(a)
	assessmentReportKind,        // assessmentproject.go, §5.14(3)(b)
	assessmentNoticeKind,        // assessmentproject.go, §5.14(6)
	assessmentOwnerKind,         // assessmentproject.go, §5.14(8), §5.14(14)(b)
	assessmentHearingKind,       // assessmentproject.go, §5.14(7)
	assessmentFinalKind,         // assessmentproject.go, §5.14(7)
	assessmentPublishKind,       // assessmentproject.go, §5.14(7)(e)
	assessmentLevyKind,          // assessmentlevy.go, §5.14(5), (12)
	payAssessmentKind,           // assessmentlevy.go, at the kiosk
	windowAssessmentPaymentKind, // assessmentlevy.go, at the window
	assessmentChangeKind,        // assessmentlevy.go, §5.14(9), (10)
	assessmentAppealKind,        // assessmentlevy.go, §5.14(11)
	repairNoticeKind,            // specialcharge.go, §5.14(13)
	specialChargeKind,           // specialcharge.go, §5.14(13)

	// The treasury: legal claims, depositories, investments and the
	// county settlements (§5.06, 5.08, 5.09, 5.17).
	legalClaimKind,         // legalclaims.go, §5.08
	depositoryKind,         // depository.go, §5.06
	depositoryInterestKind, // depository.go, §5.06
	cardSettlementKind,     // cardsettlement.go, §5.06
	bankStatementKind,      // bankrec.go, §5.06: the bank reconciliation
	fundTransferKind,       // fundtransfer.go, §5.05
	investmentKind,         // investment.go, §5.09
	investmentInterestKind, // investment.go, §5.09
	countySettlementKind,   // countysettlement.go, §5.17
	levyApportionmentKind,  // levy.go, §5.17

	// The books (books.go): periods closed, adjusting entries and the
	// opening trial balance.
	booksPeriodKind,  // booksperiod.go
	booksAdjustKind,  // booksperiod.go
	booksOpeningKind, // booksopening.go

	// The cluster's own.
	ledgerFormatKind, // ledgerformat.go
	checkpointKind,   // ledgerformat.go
	revokeNodeKind,   // ledgerformat.go
	nodeMarkKind,     // ledgerformat.go: each node's receipt sequences and time
)
