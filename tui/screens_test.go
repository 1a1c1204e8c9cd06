package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// lastLine is the last non-empty line of a frame.
func lastLine(frame string) string {
	lines := strings.Split(strings.TrimRight(frame, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestKeyLine: the key line under the board fits the window; at 80
// columns it has every key, and at any width quit and help are the last
// to go.
func TestKeyLine(t *testing.T) {
	h := newHarness(t, Options{Hinter: &fakeHinter{}}, 80, 24)
	if got, want := lastLine(h.frame()), "←↑→↓ move · n new · tab ranks · 3-8 size · i hint · p autoplay · ? help · q quit"; got != want {
		t.Errorf("the key line at 80 columns is\n%q, want\n%q", got, want)
	}
	for width := 26; width <= 200; width++ {
		for _, withAI := range []bool{false, true} {
			opts := Options{Size: 3}
			if withAI {
				opts.Hinter = &fakeHinter{}
			}
			h := newHarness(t, opts, width, 24)
			keys := lastLine(h.frame())
			if w := ansi.StringWidth(keys); w > width {
				t.Fatalf("width %d: the key line is %d wide: %q", width, w, keys)
			}
			if !strings.HasSuffix(keys, "? help · q quit") {
				t.Fatalf("width %d: the key line lost help or quit: %q", width, keys)
			}
		}
	}
}

// screens are every screen a player can be on, and how to get there.
var screens = []struct {
	name  string
	setup func(h *harness)
	want  []string // on the frame, whole
}{
	{"game", func(h *harness) { h.press("left", "up") }, []string{"q quit"}},
	{"confirm new", func(h *harness) { h.press("n") }, []string{"Start a new game?", "y yes · n no"}},
	{"confirm AI", func(h *harness) { h.press("i") }, []string{"Ask the AI?", "y yes, ask · n no"}},
	{"help", func(h *harness) { h.press("?") }, []string{"esc back", "q", "quit", "board size"}},
	{"leaderboard", func(h *harness) {
		h.store.top, h.store.me = standings(30, 27)
		h.press("tab")
	}, []string{"tab back", "q quit", "ann"}},
	{"leaderboard, empty", func(h *harness) { h.press("tab") }, []string{"No scores yet for this size.", "q quit"}},
	{"leaderboard, a guest's", func(h *harness) {
		h.m.opts.Guest = true
		h.press("tab")
	}, []string{"No scores yet for this size. Guests are not ranked.", "q quit"}},
	{"game over", func(h *harness) {
		h.store.top, h.store.me = standings(12, 12)
		if h.m.size > 4 {
			// Playing a large board to its end takes long; the box
			// does not depend on the board.
			h.m.screen = screenOver
			h.send(standingsMsg{size: h.m.size, top: h.store.top, me: h.store.me})
			return
		}
		playUntilOver(h)
	}, []string{"Game over", "n new", "q quit"}},
}

// smallest is the smallest window an n×n board fits, with the header on
// two lines.
func smallest(n int) (int, int) {
	w, h := draw.Tiers[0].BoardSize(n)
	return w, h + chrome(2)
}

// TestEveryScreenFits: every screen fits every window the board fits,
// down to the smallest: no line wider than the window, no more lines,
// boxes whole (both borders on every line), and what the screen is for
// still there.
func TestEveryScreenFits(t *testing.T) {
	for n := engine.MinSize; n <= engine.MaxSize; n++ {
		sw, sh := smallest(n)
		for _, size := range [][2]int{{sw, sh}, {sw + 7, sh + 1}, {40, 12}, {80, 24}, {200, 60}} {
			for _, sc := range screens {
				t.Run(fmt.Sprintf("%dx%d/%dx%d/%s", n, n, size[0], size[1], sc.name), func(t *testing.T) {
					h := newHarness(t, Options{Size: n, Hinter: &fakeHinter{}}, size[0], size[1])
					if !h.m.fits() {
						t.Skip("the board does not fit")
					}
					sc.setup(h)
					f := h.frame()
					tuitest.AssertFits(t, f, size[0], size[1])
					inBox := false
					for _, l := range strings.Split(f, "\n") {
						l = strings.TrimSpace(l)
						inBox = inBox || strings.HasPrefix(l, "╭")
						if inBox {
							first, last := []rune(l)[0], []rune(l)[len([]rune(l))-1]
							if !strings.ContainsRune("╭│╰", first) || !strings.ContainsRune("╮│╯", last) {
								t.Errorf("a box line lost a border: %q\n%s", l, f)
							}
						}
						inBox = inBox && !strings.HasPrefix(l, "╰")
						if strings.Contains(l, "…") && !strings.Contains(l, "Zoë") {
							t.Errorf("a line is cut: %q\n%s", l, f)
						}
					}
					flat := strings.Join(strings.Fields(f), " ")
					for _, w := range sc.want {
						if !strings.Contains(flat, w) {
							t.Errorf("%q is not on the screen:\n%s", w, f)
						}
					}
				})
			}
		}
	}
}

// boardRows are the lines of a frame that show the board: those after
// the header.
func boardRows(h *harness, frame string) []string {
	lines := strings.Split(frame, "\n")
	start := 0
	for start < len(lines) && !strings.Contains(lines[start], "2048 ") {
		start++
	}
	start += len(h.m.header(new([]byte)))
	_, bh := h.m.cache.Tier.BoardSize(h.m.size)
	rows := lines[start:min(len(lines), start+bh)]
	for i, r := range rows {
		rows[i] = strings.TrimSpace(r) // the block may sit a column off
	}
	return rows
}

// TestEndBoxesLeaveTheBoard: the win and game-over boxes leave the whole
// final board in sight, at every size.
func TestEndBoxesLeaveTheBoard(t *testing.T) {
	win3 := loadMoves(t, "win-3x3-seed7.moves")
	for _, size := range [][2]int{{26, 11}, {40, 12}, {80, 24}, {120, 40}} {
		for _, end := range []string{"won", "over"} {
			t.Run(fmt.Sprintf("%s-%dx%d", end, size[0], size[1]), func(t *testing.T) {
				st := newFakeStore()
				if end == "won" {
					st.put(3, 7, win3[:len(win3)-1])
				}
				h := newHarness(t, Options{Size: 3, Store: st}, size[0], size[1])
				if end == "won" {
					h.press(win3[len(win3)-1].String())
				} else {
					playUntilOver(h)
				}
				if (end == "won") != (h.m.screen == screenWon) || (end == "over") != (h.m.screen == screenOver) {
					t.Fatalf("not on the %s screen", end)
				}
				boxed := boardRows(h, h.frame())
				h.m.screen = screenGame
				plainBoard := boardRows(h, h.frame())
				if got := boxed; strings.Join(got, "\n") != strings.Join(plainBoard, "\n") {
					t.Errorf("the board under the %s box:\n%s\nwant the whole board:\n%s", end, strings.Join(got, "\n"), strings.Join(plainBoard, "\n"))
				}
			})
		}
	}
}

// TestMarks: the frame after a move marks the tile it added (reverse
// video) and the tiles its merges made (underlined), until the next move.
func TestMarks(t *testing.T) {
	h := newHarness(t, Options{Profile: colorprofile.TrueColor}, 80, 24)
	// Play until a move merges.
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatal("no merge in 200 moves")
		}
		before := h.m.game.Board()
		d := []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down}[i%4]
		h.press(d.String())
		if h.m.game.Board() != before && h.m.lastGain > 0 {
			if want := before.Merges(d); h.m.marks.Merged != want {
				t.Fatalf("marked merges %v, want %v", h.m.marks.Merged, want)
			}
			break
		}
	}
	ms := h.m.marks
	b := h.m.game.Board()
	if !ms.On || b.At(ms.Spawn.Row, ms.Spawn.Col) != ms.Spawn.Exp {
		t.Fatalf("the new tile %+v is not marked on the board\n%v", ms.Spawn, b)
	}
	content := h.m.View().Content
	c := h.m.cache
	mid := c.Tier.H / 2
	newTile := c.Tile(ms.Spawn.Exp, draw.MarkNew)[mid]
	if !strings.Contains(content, newTile) || newTile == c.Tile(ms.Spawn.Exp, draw.MarkNone)[mid] {
		t.Errorf("the new tile is not drawn marked")
	}
	if !strings.Contains(newTile, "7m") && !strings.Contains(newTile, ";7") {
		t.Errorf("the new tile's label is not in reverse video: %q", newTile)
	}
	merged := 0
	for r := range 4 {
		for col := range 4 {
			if e := ms.Merged.At(r, col); e != 0 {
				merged++
				if l := c.Tile(e, draw.MarkMerged)[mid]; !strings.Contains(content, l) || (!strings.Contains(l, "4m") && !strings.Contains(l, ";4")) {
					t.Errorf("the merged %d at (%d, %d) is not drawn underlined: %q", engine.Value(e), r, col, l)
				}
			}
		}
	}
	if merged == 0 {
		t.Fatal("no merged tile marked")
	}
	// A key that moves nothing leaves the marks; a move replaces them.
	h.press("?", "esc")
	if h.m.marks != ms {
		t.Error("the marks changed without a move")
	}
	for _, d := range []string{"left", "up", "right", "down"} {
		h.press(d)
		if h.m.game.Board() != b {
			break
		}
	}
	if h.m.marks == ms {
		t.Error("the marks stayed after the next move")
	}
	// A new game starts unmarked.
	h.press("n", "y")
	if h.m.marks.On {
		t.Error("a new game starts with marks")
	}
}

// TestRankAfterEveryScoringMove: the rank in the header is read again
// after every move that scores, one read at a time.
func TestRankAfterEveryScoringMove(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	top, _ := standings(5, 0)
	h.store.top = top
	reads := func() int { return h.store.count("standings") }
	scoring := 0
	for i := 0; scoring < 5; i++ {
		if i > 300 {
			t.Fatal("too few scoring moves")
		}
		// The player climbs one place with each scoring move.
		rank := 6 - scoring
		h.store.mu.Lock()
		h.store.me = &Standing{Rank: rank, Player: "ann", Score: h.m.game.Score()}
		h.store.mu.Unlock()
		before := reads()
		h.press([]string{"left", "up", "right", "down"}[i%4])
		if h.m.lastGain > 0 && h.m.game.Moves() > 1 {
			scoring++
			if reads() != before+1 {
				t.Fatalf("a scoring move made %d reads of the standings, want 1", reads()-before)
			}
			if want := fmt.Sprintf("Rank #%d", rank); !strings.Contains(h.frame(), want) {
				t.Fatalf("after a scoring move the header does not say %s:\n%s", want, h.frame())
			}
		}
	}
	// While a read is out, moves wait for it and ask once more after.
	h.m.rankBusy = true
	h.m.refreshRank()
	h.m.refreshRank()
	if !h.m.rankAgain {
		t.Fatal("a read asked while one is out was dropped")
	}
	cmd := h.m.standingsArrived(standingsMsg{size: h.m.size, rankOnly: true, me: &Standing{Rank: 1, Player: "ann"}})
	if cmd == nil || h.m.rankAgain || !h.m.rankBusy {
		t.Fatal("the rank is not read again after the read that was out")
	}
}

// TestAssistedStandings: a game the AI helped in says so in the header;
// Best and Rank are then the ones the leaderboard has (the player's
// ranked games), not the assisted game's, and the game-over box never
// waits for a rank for ever.
func TestAssistedStandings(t *testing.T) {
	h := newHarness(t, Options{Hinter: &fakeHinter{dirs: []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down}}}, 80, 24)
	for range 30 {
		h.press("left", "up", "right", "down")
	}
	if h.m.game.Score() == 0 {
		t.Fatal("no score")
	}
	// The store ranks nothing once the game is assisted: the player has
	// no other game.
	h.store.me = nil
	h.press("i", "y")
	f := h.frame()
	if !strings.Contains(f, "4×4 assisted") || !strings.Contains(f, "Best –") || !strings.Contains(f, "Rank –") {
		t.Fatalf("assisted game with no ranked one: want assisted, Best – and Rank –:\n%s", f)
	}
	// With a ranked game elsewhere, its best and rank.
	h.store.me = &Standing{Rank: 3, Player: "ann", Score: 10}
	h.press("tab", "tab")
	if f := h.frame(); !strings.Contains(f, "Best 10") || !strings.Contains(f, "Rank #3") {
		t.Fatalf("assisted game: want the ranked Best 10 and Rank #3:\n%s", f)
	}
	h.store.me = nil
	playUntilOver(h)
	f = h.frame()
	if !strings.Contains(f, "assisted, not ranked") || strings.Contains(f, "Rank …") || !strings.Contains(f, "Rank –") {
		t.Fatalf("assisted game over:\n%s", f)
	}
}

// TestSwitchingSizeReleasesTheGame: a session holds only the game on
// screen, so that the player's other session opening the size left does
// not take this one over.
func TestSwitchingSizeReleasesTheGame(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	four := h.m.game.(*fakeGame)
	h.press("left", "6")
	if !four.closed {
		t.Error("the 4×4 game is still held after switching to 6×6")
	}
	if h.m.size != 6 || len(h.m.games) != 1 {
		t.Errorf("size %d, %d games held; want 6 and 1", h.m.size, len(h.m.games))
	}
	h.press("4")
	if got := h.m.game.Moves(); got != 1 {
		t.Errorf("back on 4×4: %d moves, want the one made", got)
	}
}

// TestGuestNoticeFits: the server's guest notice fits 80 columns under
// the board with the key that hides it, and stays until hidden; narrower,
// its first sentence.
func TestGuestNoticeFits(t *testing.T) {
	const notice = "Guest: not saved. To rank, use an SSH key: ssh-keygen -t ed25519"
	for _, tt := range []struct {
		width int
		want  string
	}{
		{80, notice + " · esc hides"},
		{120, notice + " · esc hides"},
		{70, notice},
		{40, "Guest: not saved. · esc hides"},
		{26, "Guest: not saved."},
	} {
		h := newHarness(t, Options{Size: 3, Guest: true, GuestNotice: notice, Store: NewGuestStore(nil, func() uint64 { return 5 })}, tt.width, 24)
		h.press("left", "up", "right")
		lines := strings.Split(strings.TrimRight(h.frame(), "\n"), "\n")
		if got := strings.TrimSpace(lines[len(lines)-2]); got != tt.want {
			t.Errorf("at %d columns the guest's line is %q, want %q", tt.width, got, tt.want)
		}
	}
}
