package domain

import "fmt"

// The books of special assessments (§5.14). A levy is revenue of the line
// collecting SourceAssessments (else the general fund's unclassified
// revenue) in full on the day it is levied, against special assessments
// receivable of that line's fund: the reading of full accrual, the one the
// village's bills follow. The part of the installments not yet due is not
// moved to a deferred inflow: a fund that reports on the modified accrual
// basis does so with an adjusting entry at the year's end (an assessment's
// installments are known, so the figure is on its page). Installment
// interest is revenue when it is paid, never accrued. A payment takes the
// money into receipts not yet deposited against the receivable (the
// principal), revenue (the interest) and refunds payable (an overpayment,
// §5.07(1)). The board's change (§5.14(9), (10)) takes the difference of
// the amounts out of revenue and the receivable, and what it leaves to
// refund into refunds payable.

// assessmentRevenue returns the revenue line of special assessments and
// its fund.
func assessmentRevenue(l *Lines) (rev, fund string) {
	rev = l.RevenueOf("", SourceAssessments)
	return rev, l.FundOf(rev)
}

// assessmentLevyLines are the lines of a levy: every assessment it levied,
// into the receivable and revenue.
func assessmentLevyLines(l *Lines, tx Tx, c Command, _ Result) string {
	in := c.Payload.(*AssessmentLevy)
	p, err := getProject(tx, in.Project)
	if err != nil {
		l.err = err
		return ""
	}
	as, err := projectAssessments(tx, p)
	if err != nil {
		l.err = err
		return ""
	}
	rev, fund := assessmentRevenue(l)
	for _, a := range as {
		if a.CommandID != c.ID {
			continue
		}
		memo := "special assessment " + a.ID + " levied"
		l.Debit(l.Control(fund, ControlAssessmentsReceivable), a.Amount, "§5.14(5)", memo)
		l.Credit(rev, a.Amount, "§5.14(5)", memo)
	}
	return fmt.Sprintf("project %s levied", p.ID)
}

// assessmentPaymentLines are the lines of a payment on an assessment, at
// the kiosk or the window, as the receipt allocated it.
func assessmentPaymentLines(l *Lines, _ Tx, _ Command, res Result) string {
	rc := res.Receipt
	if rc == nil {
		return ""
	}
	rev, fund := assessmentRevenue(l)
	al := rc.Allocation
	l.Debit(l.Control(fund, ControlUndeposited), rc.Amount, sectionAssessment, "received "+rc.Number)
	l.Credit(l.Control(fund, ControlAssessmentsReceivable), al.Principal, sectionAssessment, "principal of "+rc.BillID)
	l.Credit(rev, al.Interest, sectionAssessment, "installment interest of "+rc.BillID)
	l.Credit(l.Control(fund, ControlRefunds), al.Overpayment, "§5.07(1)", "overpayment of "+rc.BillID+", to be refunded")
	return "special assessment payment " + rc.Number + " on " + rc.BillID
}

// assessmentChangeLines are the lines of the board's change to a project's
// assessments: for each assessment it changed, revenue down by the
// difference of the amounts, the receivable down by the principal no
// longer to be paid, and refunds payable up by what was paid above the new
// amount. A refund beyond the principal paid above it (interest paid on a
// cancelled assessment) comes out of revenue too.
func assessmentChangeLines(l *Lines, tx Tx, c Command, _ Result) string {
	in := c.Payload.(*AssessmentChangeCmd)
	p, err := getProject(tx, in.Project)
	if err != nil {
		l.err = err
		return ""
	}
	as, err := projectAssessments(tx, p)
	if err != nil {
		l.err = err
		return ""
	}
	rev, fund := assessmentRevenue(l)
	for _, a := range as {
		paid := a.principalPaid()
		for _, ch := range a.Changes {
			if ch.CommandID != c.ID {
				continue
			}
			memo := fmt.Sprintf("%s of special assessment %s", ch.Op, a.ID)
			before := ch.From.Sub(paid).Max(Cents(0))
			after := ch.To.Sub(paid).Max(Cents(0))
			above := paid.Sub(ch.To).Max(Cents(0))
			l.Debit(rev, ch.From.Sub(ch.To).Add(ch.Refund.Sub(above)), "§5.14(9)", memo)
			l.Credit(l.Control(fund, ControlAssessmentsReceivable), before.Sub(after), "§5.14(9)", memo)
			l.Credit(l.Control(fund, ControlRefunds), ch.Refund, "§5.14(10)", "refund of "+memo)
		}
	}
	return fmt.Sprintf("project %s: %s", p.ID, in.Op)
}
