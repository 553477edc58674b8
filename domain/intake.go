package domain

import "time"

// Intake rules: what a node asks before it takes a command. They are the
// domain's, like the rules of Chapter 5, because they decide what a
// resident or a clerk is told; the node gives them what it knows (its
// clock, what it took before, what its ledger and its peers say) and they
// read no clock.

// ClockFacts is what a node knows about its clock when it dates a command.
type ClockFacts struct {
	Now         DateTime      // the node's clock, on the village calendar
	LastTaken   DateTime      // the intake time of the latest command it took
	Latest      DateTime      // the latest intake time in its ledger
	MaxSkew     time.Duration // how far clocks may disagree
	PeersDiffer string        // why its peers distrust its clock ("" when they do not)
}

// CheckClock says why a node's clock cannot date a command, if it cannot:
// it reads earlier than a command it took before, or than the ledger's
// latest entry by more than the allowed skew, or its peers say it is off.
// A Pi without its RTC boots in the past; dating a payment then would date
// it wrong, which is worse than asking the resident to use the window.
func CheckClock(f ClockFacts) error {
	const ask = " Payments are refused until the clock is set right; please ask the clerk."
	if f.Now.Before(f.LastTaken) {
		return Errorf(EUNAVAILABLE, "", "This node's clock reads %s, earlier than a payment it already took (%s).%s", f.Now, f.LastTaken, ask)
	}
	if !f.Latest.IsZero() && f.Now.Time(time.UTC).Add(f.MaxSkew).Before(f.Latest.Time(time.UTC)) {
		return Errorf(EUNAVAILABLE, "", "This node's clock reads %s, earlier than the ledger's latest entry (%s).%s", f.Now, f.Latest, ask)
	}
	if f.PeersDiffer != "" {
		return Errorf(EUNAVAILABLE, "", "%s%s", f.PeersDiffer, ask)
	}
	return nil
}

// OfflinePolicy is what a node takes while it cannot reach the leader: the
// kinds its table marks offline-safe (queued with a provisional receipt,
// re-validated when they reach the ledger), and card payments up to a
// limit (the card network may be down too, and the charge is only the
// terminal's approval).
type OfflinePolicy struct {
	Kinds     Table
	CardLimit Money // zero: no limit
}

// Check says why c cannot be taken offline, if it cannot.
func (o OfflinePolicy) Check(c Command) error {
	if !o.Kinds.OfflineSafe(c.Kind) {
		return Errorf(EUNAVAILABLE, "", "This needs the current ledger, and this node cannot reach it right now. Please try again when the connection returns.")
	}
	if rc := c.ProvisionalReceipt(); rc != nil && rc.Tender == Card && o.CardLimit.IsPositive() && rc.Amount.GreaterThan(o.CardLimit) {
		return Errorf(EUNAVAILABLE, "", "While the network is down, card payments over %s cannot be taken here. Please pay a smaller amount or pay at the clerk's window.", o.CardLimit.Dollars())
	}
	return nil
}

// CheckAdmission is the leader's check of a command before it enters the
// log: the node that took it (its role) must be allowed its kind, and it
// must not be dated after the leader's clock by more than the allowed
// skew. A command dated in the future would raise the ledger's latest
// intake time, below which every node refuses to date payments: one bad
// clock, or one forged command, would freeze the ledger. (A command dated
// in the past is an offline payment replayed, and is taken.)
func CheckAdmission(kinds Table, c Command, role NodeRole, leaderNow DateTime, maxSkew time.Duration) *Error {
	if !kinds.MayTake(role, c.Kind) {
		return Errorf(EFORBIDDEN, "", "A %s node may not take %s commands.", role, c.Kind)
	}
	if c.At.Time(time.UTC).After(leaderNow.Time(time.UTC).Add(maxSkew)) {
		return Errorf(EINVALID, "", "Command %s is dated %s, after the leader's clock (%s) by more than the allowed %s; the clock of node %s is wrong.",
			c.ID, c.At, leaderNow, maxSkew, c.Node)
	}
	return nil
}
