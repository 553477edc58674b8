package replica

import (
	"sync"
	"testing"
	"time"

	"github.com/villagehall/appliance/domain"
)

// TestCheckStampTakesNoNumber: the kiosk asks CheckStamp before it charges
// a card and stamps the command only once the card is approved, so a
// declined card leaves no gap in the receipt numbers. Asking takes no receipt number, and it refuses exactly
// when NewCommand would: here, a clock set back before the last command
// taken.
func TestCheckStampTakesNoNumber(t *testing.T) {
	var mu sync.Mutex
	loc, err := time.LoadLocation("America/Chicago")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 10, 20, 10, 0, 0, 0, loc)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	n := openNodeClock(t, t.TempDir(), clock)
	defer n.Close()
	seedNode(t, n)
	first, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := n.CheckStamp(domain.KindPayBill); err != nil {
			t.Fatal(err)
		}
	}
	next, err := n.NewCommand(domain.KindPayBill, "kiosk")
	if err != nil {
		t.Fatal(err)
	}
	if next.Seq != first.Seq+1 {
		t.Errorf("sequence %d after %d: CheckStamp took a number", next.Seq, first.Seq)
	}
	mu.Lock()
	now = now.Add(-2 * time.Hour)
	mu.Unlock()
	_, stampErr := n.NewCommand(domain.KindPayBill, "kiosk")
	checkErr := n.CheckStamp(domain.KindPayBill)
	if stampErr == nil || checkErr == nil || stampErr.Error() != checkErr.Error() {
		t.Errorf("a clock set back: NewCommand %v, CheckStamp %v", stampErr, checkErr)
	}
}
