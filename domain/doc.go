// Package domain is Chapter 5 ("Finance and Taxation") of the Village of
// Belleville municipal code as code: money, the village calendar,
// effective-dated parameters, one file per ordinance section, and the
// commands that change the ledger.
//
// The package is pure. It imports only the standard library and
// shopspring/decimal, reads no clock, does no I/O and starts no goroutines:
// every date comes in with the event it dates, so every node of the cluster
// reaches the same answer from the same input.
//
// Section → file:
//
//	shared      money.go calendar.go params.go error.go
//	§5.03/§5.04 budget.go          (budget adoption and amendment votes)
//	§5.07(1)    refund.go          (refund of excess escrow)
//	§5.06       depository.go      (designated public depositories, their interest)
//	§5.08       claim.go           (claims against the village)
//	§5.08       legalclaims.go     (the register of legal claims and its steps)
//	§5.09       investment.go      (the investment register)
//	§5.10       receivable.go      (accounts receivable: interest, penalty, tax roll)
//	§5.11       statusletter.go    (statement of real property status)
//	§5.12/§5.13 purchasing.go      (purchasing, bids, class 2 notice)
//	§5.14       assessment.go      (special assessments)
//	§5.20       check.go           (returned checks)
//	§5.22       roomtax.go         (room tax returns)
//	Ch. 74      installment.go     (property tax installments, adopted by §5.03(3))
//	§5.17       countysettlement.go (settlements with the county treasurers, Wis. Stat. 74.25)
//	§5.05       books.go statements.go (the books by fund; the balance
//	            sheet, the statement of revenues, expenditures and changes
//	            in fund balance, and the Form CT schedule read from them)
//	            statementsmonth.go (a month's statement, for the board's packet)
//	            controls.go bookstie.go (control accounts tied to their records)
//	§5.06       bankrec.go cardsettlement.go (cash by depository, bank
//	            statements and their reconciliation; card settlements)
//	commands    command.go ledger.go
//	            billpayments.go (how a bill's payments are stored: in its
//	            record below ledger format 3, as records of their own with
//	            a summary of its §5.10 account from format 3)
//
// Sections are cited by their content, not by the headings of the published
// text, several of which sit over the wrong paragraphs (see RULES.md, "Known
// defects of the text").
package domain
