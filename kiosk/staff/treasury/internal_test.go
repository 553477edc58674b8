package treasury

import "testing"

// TestFileSafe: an id an API client chose cannot break the file name of a
// Content-Disposition header.
func TestFileSafe(t *testing.T) {
	for in, want := range map[string]string{"LC-2026-001": "LC-2026-001", `LC"x;y`: "LC_x_y", "LC\\é": "LC__"} {
		if got := fileSafe(in); got != want {
			t.Errorf("fileSafe(%q) = %q, want %q", in, got, want)
		}
	}
}
