package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestStandingRowTag: a look-alike's tag is shown whole beside its name,
// which gives way, and the columns stay where they were.
func TestStandingRowTag(t *testing.T) {
	m := &Model{width: 80}
	c := m.columns()
	plain := c.standingRow("", Standing{Rank: 1, Player: "swap1", Score: 100, MaxTile: 8})
	tagged := c.standingRow("", Standing{Rank: 1, Player: "swap1", Tag: "#AbCdEf", Score: 100, MaxTile: 8})
	long := c.standingRow("", Standing{Rank: 1, Player: "a-very-long-name", Tag: "#AbCdEf", Score: 100, MaxTile: 8})
	if !strings.Contains(tagged, "swap1 #AbCdEf") || !strings.Contains(long, "a-very-… #AbCdEf") {
		t.Errorf("rows:\n%s\n%s", tagged, long)
	}
	scoreAt := func(row string) int { return ansi.StringWidth(row[:strings.Index(row, "100")]) }
	for _, row := range []string{tagged, long} {
		if scoreAt(row) != scoreAt(plain) || ansi.StringWidth(row) != ansi.StringWidth(plain) {
			t.Errorf("row %q is not laid out as %q", row, plain)
		}
	}
}
