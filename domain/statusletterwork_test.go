package domain

import "testing"

func TestStatusLetterWork(t *testing.T) {
	tx := newStaffTx()
	req := staffCmd(KindRequestStatusLetter, "kiosk", "2026-11-02T09:00")
	req.Payload = &RequestStatusLetter{Parcel: "0601-141-2001", Requester: "Title Co", Contact: "x@example.com", Fee: DefaultParams().At(MustDate("2026-11-02")).StatusLetterFee, Tender: Card}
	if _, err := tx.run(t, req); err != nil {
		t.Fatal(err)
	}
	claim := req.ReceiptNumber()
	deliver := staffCmd(KindStatusLetter, "clerk", "2026-11-03T09:00")
	deliver.Payload = &StatusLetterWork{Op: "deliver", Claim: claim, Delivery: "pickup"}
	if _, err := tx.run(t, deliver); ErrorCode(err) != ECONFLICT {
		t.Fatalf("deliver before writing: %v", err)
	}
	work := StatusLetterWork{Op: "complete", Claim: claim, AsOf: MustDate("2026-11-03"), AssessmentChanges: "none", Deferred: "none", Improvements: "none", Floodplain: "no", Violations: ""}
	c := staffCmd(KindStatusLetter, "clerk", "2026-11-03T10:00")
	c.Payload = &work
	if _, err := tx.run(t, c); ErrorCode(err) != EINVALID {
		t.Fatalf("no violations answer: %v", err)
	}
	work.Violations = "none"
	work.AsOf = MustDate("2026-11-04")
	if _, err := tx.run(t, c); ErrorCode(err) != EINVALID {
		t.Fatalf("as of tomorrow: %v", err)
	}
	work.AsOf = MustDate("2026-11-03")
	if _, err := tx.run(t, c); err != nil {
		t.Fatal(err)
	}
	var doc StatusLetterDoc
	tx.Get(CollectionStatusLetters, claim, &doc)
	var sr StatusRequest
	tx.Get(StatusRequests, claim, &sr)
	if doc.Number != "SL-2026-0001" || sr.State != StatusCompleted || doc.CompletedBy != "clerk" {
		t.Fatalf("doc %+v, request state %s", doc, sr.State)
	}
	again := staffCmd(KindStatusLetter, "clerk", "2026-11-03T10:05")
	again.Payload = &work
	if _, err := tx.run(t, again); ErrorCode(err) != ECONFLICT {
		t.Fatalf("completing twice: %v", err)
	}
	deliver.ID += "-2"
	if _, err := tx.run(t, deliver); err != nil {
		t.Fatal(err)
	}
	tx.Get(StatusRequests, claim, &sr)
	if sr.State != StatusDelivered {
		t.Fatalf("state %s", sr.State)
	}
}
