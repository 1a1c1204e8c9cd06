package tui

import (
	"strconv"
	"strings"
	"testing"
)

// TestPanelInWideWindows: a window of panelMinWidth and more shows the
// panel beside the board, its leaderboard's top rows read once for it
// (and the player's own row last when below them); narrower windows show
// none and read only the rank, as a login always did.
func TestPanelInWideWindows(t *testing.T) {
	for _, tt := range []struct {
		width, height int
		panel         bool
	}{{80, 24, false}, {100, 30, false}, {120, 40, true}, {200, 60, true}} {
		t.Run(strconv.Itoa(tt.width)+"x"+strconv.Itoa(tt.height), func(t *testing.T) {
			st := newFakeStore()
			st.top, st.me = standings(30, 27)
			h := newHarness(t, Options{Store: st}, tt.width, tt.height)
			h.press("left", "up", "right", "down")
			f := h.frame()
			rows := st.count("standings 4 " + strconv.Itoa(leaderboardRows))
			hasPanel := strings.Contains(f, "Leaderboard 4×4") && strings.Contains(f, "player01") && strings.Contains(f, "›27")
			if hasPanel != tt.panel || (rows == 1) != tt.panel {
				t.Errorf("panel shown %v, top rows read %d times; want the panel %v (read once)\n%s", hasPanel, rows, tt.panel, f)
			}
			if !tt.panel {
				return
			}
			// Beside the board: between the header and the key line, in
			// the window's right half (the golden frames show the rest).
			lines := strings.Split(f, "\n")
			header, keys, at := -1, -1, -1
			for i, l := range lines {
				switch {
				case strings.Contains(l, "Score"):
					header = i
				case strings.Contains(l, "q quit"):
					keys = i
				case strings.Contains(l, "player01"):
					at = i
					if col := len([]rune(l[:strings.Index(l, "player01")])); col < tt.width/2 {
						t.Errorf("the panel's first row starts at column %d of %d", col, tt.width)
					}
				}
			}
			if at < header || at > keys {
				t.Errorf("the panel's first row (line %d) is not between the header (%d) and the keys (%d)", at, header, keys)
			}
		})
	}
}

// TestHeaderStaysPut: as the score and the move count gain digits the
// header's left edge stays in its column (the header is centred by a
// width that leaves room for them), so the frame is not redrawn from
// there on.
func TestHeaderStaysPut(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	col := -1
	keys := []string{"left", "down", "right", "down"}
	for i := 0; h.m.game.Moves() < 120 && h.m.screen == screenGame; i++ {
		h.press(keys[i%len(keys)])
		line := strings.Split(h.frame(), "\n")
		for _, l := range line {
			if strings.Contains(l, "Score") {
				at := len(l) - len(strings.TrimLeft(l, " "))
				if col >= 0 && at != col {
					t.Fatalf("after %d moves (score %d) the header starts at column %d, was %d", h.m.game.Moves(), h.m.game.Score(), at, col)
				}
				col = at
				break
			}
		}
	}
	if h.m.game.Moves() < 100 || h.m.game.Score() < 100 {
		t.Fatalf("the game ended too soon to test: %d moves, score %d", h.m.game.Moves(), h.m.game.Score())
	}
}
