package refunds

import "testing"

func TestPresentedByHolder(t *testing.T) {
	for _, c := range []struct {
		payer string
		names []string
		want  bool
	}{
		{"Luis Ramirez", []string{"Luis Ramirez"}, true},
		{"luis  ramirez", []string{"RAMIREZ, LUIS"}, true},
		{"Maria Ramirez", []string{"Luis & Maria Ramirez"}, true},
		{"Luis Ramirez", []string{"", "Luis Ramirez Trust"}, true},
		{"O'Brien Kate", []string{"Kate O'Brien"}, true},
		{"Jane Tenant", []string{"Ana Gutierrez", "Ana Gutierrez"}, false},
		{"Ramirez", []string{"Luis Ramirez"}, false}, // one word names no one whole
		{"Ramirez", []string{"Ramirez"}, true},
		{"Luis Ramirez Jr", []string{"Luis Ramirez"}, false},
		{"", []string{"Luis Ramirez"}, false},
		{"Jane Tenant", nil, false},
	} {
		if got := presentedByHolder(c.payer, c.names...); got != c.want {
			t.Errorf("presentedByHolder(%q, %q) = %v, want %v", c.payer, c.names, got, c.want)
		}
	}
}
