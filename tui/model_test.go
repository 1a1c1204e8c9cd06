package tui

import (
	"errors"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// afterMove is the game the store holds for size, moved once more by d.
func afterMove(t *testing.T, s *fakeStore, size int, d engine.Direction) engine.Board {
	t.Helper()
	s.mu.Lock()
	g, err := engine.PCG.Replay(size, s.seeds[size], append(slices.Clone(s.recorded[size]), d))
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	return g.Board()
}

func TestMoveKeys(t *testing.T) {
	for _, tt := range []struct {
		key string
		dir engine.Direction
	}{
		{"up", engine.Up}, {"w", engine.Up}, {"k", engine.Up},
		{"down", engine.Down}, {"s", engine.Down}, {"j", engine.Down},
		{"left", engine.Left}, {"a", engine.Left}, {"h", engine.Left},
		{"right", engine.Right}, {"d", engine.Right}, {"l", engine.Right},
	} {
		t.Run(tt.key, func(t *testing.T) {
			h := newHarness(t, Options{}, 80, 24)
			// Find a position where this direction changes the board.
			for _, d := range []string{"left", "up", "right", "down", "left", "up"} {
				b := h.m.game.Board()
				if _, moved := b.Move(tt.dir); moved {
					break
				}
				h.press(d)
			}
			want := afterMove(t, h.store, 4, tt.dir)
			before := len(h.store.moves(4))
			h.press(tt.key)
			if got := h.m.game.Board(); got != want {
				t.Fatalf("%s: board\n%v\nwant\n%v", tt.key, got, want)
			}
			moves := h.store.moves(4)
			if len(moves) != before+1 || moves[len(moves)-1] != tt.dir {
				t.Fatalf("%s: recorded %v, want one more %v", tt.key, moves, tt.dir)
			}
		})
	}
}

// Every key is applied, in order, and recorded before the next one; the
// stored moves replay to exactly the board on screen.
func TestKeysAppliedInOrder(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	keys := strings.Fields("left up right down a w d s h k l j left left up up right down")
	var moved []engine.Direction
	for _, k := range keys {
		before := h.m.game.Board()
		h.press(k)
		if h.m.game.Board() != before {
			d, _ := h.m.direction(event.NameOf(tuitest.KeyPress(k)))
			moved = append(moved, d)
		}
	}
	if got := h.store.moves(4); !slices.Equal(got, moved) {
		t.Fatalf("recorded %v, want %v", got, moved)
	}
	if n := h.store.count("MISMATCH"); n != 0 {
		t.Fatalf("%d moves were recorded against a game that was not the stored one", n)
	}
	replayed, err := engine.PCG.Replay(4, 1, moved)
	if err != nil {
		t.Fatal(err)
	}
	if replayed.Board() != h.m.game.Board() || replayed.Score() != h.m.game.Score() {
		t.Fatalf("screen shows\n%v\nstore replays to\n%v", h.m.game.Board(), replayed.Board())
	}
	if !strings.Contains(h.frame(), "Moves "+strconv.Itoa(len(moved))) {
		t.Errorf("moves count missing:\n%s", h.frame())
	}
}

func resize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func TestNoOpMoveIsNotRecorded(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("left")
	for range 10 { // after enough lefts, left changes nothing
		h.press("left")
	}
	b := h.m.game.Board()
	if _, moved := b.Move(engine.Left); moved {
		t.Fatal("left still moves; test setup wrong")
	}
	n := len(h.store.moves(4))
	h.press("left")
	if len(h.store.moves(4)) != n {
		t.Fatal("a move that changed nothing was recorded")
	}
}

func TestScoreShowsLastGain(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	for i := 0; h.m.lastGain == 0; i++ {
		if i > 100 {
			t.Fatal("no merge in 100 moves")
		}
		h.press([]string{"left", "up"}[i%2])
	}
	if want := "+" + strconv.Itoa(h.m.lastGain); !strings.Contains(h.frame(), want) {
		t.Fatalf("frame lacks %q:\n%s", want, h.frame())
	}
	if !strings.Contains(h.frame(), "Score "+strconv.Itoa(h.m.game.Score())) {
		t.Fatalf("frame lacks the score:\n%s", h.frame())
	}
}

func TestNewGameAsksFirst(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("left", "up")
	before := h.m.game.Board()
	for _, cancel := range []string{"n", "esc"} {
		h.press("n")
		if h.m.screen != screenConfirmNew || !strings.Contains(h.frame(), "Start a new game?") {
			t.Fatalf("n did not ask:\n%s", h.frame())
		}
		h.press("left") // moves are ignored while asking
		h.press(cancel)
		if h.m.screen != screenGame || h.m.game.Board() != before || h.store.count("new") != 0 {
			t.Fatalf("%s did not cancel", cancel)
		}
	}
	for _, yes := range []string{"y", "enter"} {
		h.press("n", yes)
		if h.m.screen != screenGame || h.m.game.Moves() != 0 {
			t.Fatalf("%s did not start a new game", yes)
		}
	}
	if n := h.store.count("new 4"); n != 2 {
		t.Fatalf("NewGame called %d times, want 2", n)
	}
}

func TestWinScreen(t *testing.T) {
	win := loadMoves(t, "win-3x3-seed7.moves")
	setup := func(t *testing.T) *harness {
		st := newFakeStore()
		st.put(3, 7, win[:len(win)-1])
		h := newHarness(t, Options{Store: st, Size: 3}, 80, 24)
		if h.m.game.Won() {
			t.Fatal("already won before the last move")
		}
		h.press(win[len(win)-1].String())
		if h.m.screen != screenWon || !strings.Contains(h.frame(), "You made 256!") {
			t.Fatalf("no win screen:\n%s", h.frame())
		}
		return h
	}
	t.Run("keep going", func(t *testing.T) {
		h := setup(t)
		before := h.m.game.Board()
		h.press("left", "up", "right", "down")
		if h.m.game.Board() != before {
			t.Fatal("moves went through the win screen")
		}
		h.press("c")
		if h.m.screen != screenGame {
			t.Fatal("c did not keep going")
		}
		for _, k := range []string{"left", "up", "right", "down"} {
			h.press(k)
		}
		if h.m.game.Board() == before {
			t.Fatal("could not move after keep going")
		}
		if h.m.screen == screenWon {
			t.Fatal("win screen shown twice")
		}
	})
	t.Run("new game", func(t *testing.T) {
		h := setup(t)
		h.press("n")
		if h.m.screen != screenGame || h.m.game.Moves() != 0 || h.store.count("new 3") != 1 {
			t.Fatal("n on the win screen did not start a new game")
		}
	})
}

// TestRankAfterFirstMove: a player with no rank yet gets one shown after
// their first move, not 16 moves later.
func TestRankAfterFirstMove(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	if f := h.frame(); !strings.Contains(f, "Rank –") {
		t.Fatalf("a new player has a rank before moving:\n%s", f)
	}
	h.store.top, h.store.me = standings(3, 3) // on the board once a move is stored
	for _, k := range []string{"left", "right", "up", "down"} {
		if h.press(k); h.m.game.Moves() == 1 {
			break
		}
	}
	if f := h.frame(); !strings.Contains(f, "Rank #3") {
		t.Fatalf("no rank after the first move:\n%s", f)
	}
}

func TestGameOver(t *testing.T) {
	h := newHarness(t, Options{Size: 3}, 80, 24)
	h.store.top, h.store.me = standings(20, 14)
	playUntilOver(h)
	if h.store.count("end 3") != 1 {
		t.Fatalf("End not called once: %v", h.store.calls)
	}
	f := h.frame()
	for _, want := range []string{"Game over", "Score " + strconv.Itoa(h.m.game.Score()), "Best 36000", "Rank #14"} {
		if !strings.Contains(f, want) {
			t.Errorf("game-over screen lacks %q:\n%s", want, f)
		}
	}
	board := h.m.game.Board()
	h.press("left", "up")
	if h.m.game.Board() != board {
		t.Fatal("a finished game moved")
	}
	h.press("tab")
	if h.m.screen != screenLeaderboard {
		t.Fatal("tab on game over did not open the leaderboard")
	}
	h.press("tab")
	if h.m.screen != screenOver {
		t.Fatal("back from the leaderboard did not return to game over")
	}
	h.press("n") // no confirmation: the game is over
	if h.m.screen != screenGame || h.m.game.Moves() != 0 || h.store.count("new 3") != 1 {
		t.Fatal("n after game over did not start a new game")
	}
}

func TestResumedFinishedGameShowsGameOver(t *testing.T) {
	st := newFakeStore()
	h := newHarness(t, Options{Store: st, Size: 3}, 80, 24)
	playUntilOver(h)
	h2 := newHarness(t, Options{Store: st, Size: 3}, 80, 24)
	if h2.m.screen != screenOver {
		t.Fatalf("resumed finished game not shown as over:\n%s", h2.frame())
	}
}

func TestEachSizeHasItsOwnGame(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("left", "up", "right")
	four := h.m.game.Board()
	h.press("6")
	if h.m.size != 6 || h.m.game.Size() != 6 {
		t.Fatalf("6 did not switch to 6×6: size %d", h.m.size)
	}
	if !strings.Contains(h.frame(), "6×6") {
		t.Errorf("header lacks the size:\n%s", h.frame())
	}
	h.press("left")
	h.press("4")
	if h.m.game.Board() != four {
		t.Fatal("4×4 game not resumed as left")
	}
	for _, tt := range []struct {
		key  string
		want int
	}{{"+", 5}, {"=", 6}, {"-", 5}, {"3", 3}, {"-", 3}, {"8", 8}, {"+", 8}} {
		h.press(tt.key)
		if h.m.size != tt.want {
			t.Fatalf("%s: size %d, want %d", tt.key, h.m.size, tt.want)
		}
	}
	if len(h.store.moves(6)) != 1 {
		t.Errorf("6×6 game has %d moves recorded, want 1", len(h.store.moves(6)))
	}
}

func TestLeaderboard(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.store.top, h.store.me = standings(30, 27)
	h.press("tab")
	f := h.frame()
	if h.m.screen != screenLeaderboard {
		t.Fatal("tab did not open the leaderboard")
	}
	for _, want := range []string{"Leaderboard 4×4", "player01", "player10", "›   27  ann"} {
		if !strings.Contains(f, want) {
			t.Errorf("leaderboard lacks %q:\n%s", want, f)
		}
	}
	if strings.Contains(f, "player11") {
		t.Errorf("leaderboard shows more than 10:\n%s", f)
	}
	h.press("left")
	if h.m.game.Moves() != 0 {
		t.Fatal("a move went through the leaderboard")
	}
	h.press("5")
	if h.m.size != 5 || h.m.screen != screenLeaderboard || !strings.Contains(h.frame(), "Leaderboard 5×5") {
		t.Fatalf("5 on the leaderboard did not switch size:\n%s", h.frame())
	}
	h.press("esc")
	if h.m.screen != screenGame {
		t.Fatal("esc did not close the leaderboard")
	}
	h.press("tab", "tab")
	if h.m.screen != screenGame {
		t.Fatal("tab did not toggle the leaderboard")
	}
}

func TestLeaderboardEmptyAndError(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("tab")
	// One thing at a time: an empty leaderboard says only that.
	if f := h.frame(); !strings.Contains(f, "No scores yet") || strings.Contains(f, "no ranked score") {
		t.Errorf("empty leaderboard:\n%s", f)
	}
	h.store.standingsErr = errors.New("database is locked")
	h.press("tab", "tab")
	if f := h.frame(); !strings.Contains(f, "database is locked") {
		t.Errorf("leaderboard error not shown:\n%s", f)
	}
}

func TestHelpScreen(t *testing.T) {
	for _, withAI := range []bool{false, true} {
		opts := Options{}
		if withAI {
			opts.Hinter = &fakeHinter{}
		}
		h := newHarness(t, opts, 100, 30)
		h.press("?")
		f := h.frame()
		if h.m.screen != screenHelp {
			t.Fatal("? did not open help")
		}
		// Every enabled binding of the key map is on the help screen.
		for _, col := range h.m.keys.FullHelp() {
			for _, b := range col {
				if b.Enabled() && !strings.Contains(f, b.Help().Desc) {
					t.Errorf("help lacks %q:\n%s", b.Help().Desc, f)
				}
			}
		}
		if got := strings.Contains(f, "hint (AI)"); got != withAI {
			t.Errorf("AI keys shown = %v with Hinter = %v:\n%s", got, withAI, f)
		}
		h.press("left")
		if h.m.game.Moves() != 0 {
			t.Fatal("a move went through the help screen")
		}
		h.press("?")
		if h.m.screen != screenGame {
			t.Fatal("? did not close help")
		}
	}
}

func TestQuitKeepsGame(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		st := newFakeStore()
		h := newHarness(t, Options{Store: st}, 80, 24)
		h.press("5", "left", "4", "left", "up")
		board := h.m.game.Board()
		h.press(k)
		if !h.quit {
			t.Fatalf("%s did not quit", k)
		}
		v := h.m.View()
		if v.AltScreen || !strings.Contains(v.Content, "saved") {
			t.Fatalf("%s: final view %+v", k, v)
		}
		for size, g := range h.m.games {
			if !g.(*fakeGame).closed {
				t.Errorf("%s: the %d×%d game was left open", k, size, size)
			}
		}
		h2 := newHarness(t, Options{Store: st}, 80, 24)
		if h2.m.game.Board() != board {
			t.Fatalf("%s: game not resumed as left", k)
		}
	}
}

// TestQuitAfterTheEnd: quitting a game that is over does not promise it
// will be waiting; a new one starts next time.
func TestQuitAfterTheEnd(t *testing.T) {
	h := newHarness(t, Options{Size: 3}, 80, 24)
	playUntilOver(h)
	h.press("q")
	if v := h.m.View().Content; !h.quit || !strings.Contains(v, "Your game is over and saved; a new one starts") {
		t.Fatalf("quit %v after game over, last line %q", h.quit, v)
	}
}

func TestSessionEndMessages(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  tea.Msg
		want string
	}{
		{"taken over", event.TakenOverMsg{}, "newer session"},
		{"shutdown", event.ShutdownMsg{}, "restarting"},
		{"server's own text", event.ShutdownMsg{Text: "ssh2048 is updating; back in a minute."}, "updating"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{}, 80, 24)
			h.send(tt.msg)
			if !h.quit || !strings.Contains(h.m.View().Content, tt.want) {
				t.Fatalf("quit %v, view %q", h.quit, h.m.View().Content)
			}
			h.press("left")
			if h.m.game.Moves() != 0 {
				t.Fatal("moved after the session ended")
			}
		})
	}
}

func TestMoveTakenOverEnds(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.store.moveErr = game.ErrTakenOver
	h.press("left", "up")
	if !h.quit || !strings.Contains(h.m.View().Content, "newer session") {
		t.Fatalf("quit %v, view %q", h.quit, h.m.View().Content)
	}
}

// A move refused because the session's key joined another account (a
// merge) is not a move not saved: the session is being told to end, and
// says why (game.Seat's takenOver). Opening the game again would open the
// account the key left, and its failure ended the session with the wrong
// line and status 1.
func TestMoveOfAKeyThatJoinedAnotherAccountWaitsForItsNotice(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("left")
	h.store.moveErr = game.ErrMovedAccount
	h.store.openErr = errors.New("no such player")
	h.press("up", "right")
	if h.quit || h.m.Failed() {
		t.Fatalf("quit %v, failed %v, view %q", h.quit, h.m.Failed(), h.m.View().Content)
	}
}

// A game that cannot be opened as the player's account is gone (a merge
// the node did not hear of: game.ErrAccountGone) is no failure of the
// server's: the seat has told the session, whose notice ends the screen
// with its line. The screen said "Could not load your game" (or open
// another size, or start a new one) until the notice came, and a move
// not saved whose game could not be opened again ended it as failed, with
// "Could not save your move".
func TestGameOfAnAccountGoneWaitsForItsNotice(t *testing.T) {
	const line = "This key joined another account."
	tests := []struct {
		name    string
		keys    []string // pressed once the account is gone; none: the screen's first game
		moveErr error
	}{
		{name: "load"},
		{name: "new game", keys: []string{"n", "y"}},
		{name: "another size", keys: []string{"5"}},
		{name: "a move not saved", keys: []string{"left", "up", "right", "down"}, moveErr: errors.New("disk full")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newFakeStore()
			if tt.keys == nil {
				st.openErr = game.ErrAccountGone
			}
			h := newHarness(t, Options{Store: st}, 80, 24)
			if tt.keys != nil {
				st.openErr, st.moveErr = game.ErrAccountGone, tt.moveErr
				h.press(tt.keys...)
			}
			if f := h.frame(); h.quit || h.m.Failed() || strings.Contains(f, "Could not") {
				t.Fatalf("before the notice: quit %v, failed %v, frame\n%s", h.quit, h.m.Failed(), f)
			}
			h.send(event.EndMsg{Text: line})
			if v := h.m.View(); !h.quit || h.m.Failed() || strings.TrimSpace(v.Content) != line {
				t.Fatalf("after the notice: quit %v, failed %v, view %q", h.quit, h.m.Failed(), v.Content)
			}
		})
	}
}

// A move the store could not save is not shown: the board goes back to the
// stored one and the player is told.
func TestMoveFailureShowsStoredBoard(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("left")
	stored := h.m.game.Board()
	h.store.moveErr = errors.New("disk full")
	h.press("up", "right")
	if h.m.game.Board() != stored {
		t.Fatalf("board shows an unsaved move:\n%v\nstored:\n%v", h.m.game.Board(), stored)
	}
	// What failed is the server's log's, not the player's.
	if f := h.frame(); !strings.Contains(f, "Could not save that move") || strings.Contains(f, "disk full") {
		t.Fatalf("error not shown, or shown with its cause:\n%s", f)
	}
	h.store.moveErr = nil
	h.press("up", "down")
	if strings.Contains(h.frame(), "Could not save") {
		t.Fatal("error still shown after a saved move")
	}
}

// A move not saved, whose game cannot be opened again either, ends the
// session with one line that fits the window, and without the cause.
func TestMoveFailureWithoutItsGameEnds(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("left")
	h.store.moveErr = errors.New("append move 1 to game 1: commit: disk I/O error: file too large")
	h.store.openErr = errors.New("disk I/O error: file too large")
	h.press("up", "right")
	v := h.m.View()
	if !h.quit || !h.m.Failed() || v.AltScreen {
		t.Fatalf("quit %v, failed %v, view %+v", h.quit, h.m.Failed(), v)
	}
	line := strings.TrimRight(v.Content, "\n")
	if line != event.NotSavedLine || strings.Contains(line, "\n") || len(line) > 80 {
		t.Fatalf("last line %q", v.Content)
	}
}

func TestLoadFailure(t *testing.T) {
	st := newFakeStore()
	st.openErr = errors.New("no database")
	h := newHarness(t, Options{Store: st}, 80, 24)
	if f := h.frame(); !strings.Contains(f, "no database") {
		t.Fatalf("load error not shown:\n%s", f)
	}
	h.press("left", "tab", "n", "?")
	h.press("q")
	if !h.quit {
		t.Fatal("q did not quit after a failed load")
	}
}

func TestResize(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	widths := map[int]int{} // window width → tile tier width
	for _, size := range [][2]int{{40, 20}, {80, 24}, {100, 34}, {120, 40}, {200, 60}} {
		h.send(resize(size[0], size[1]))
		f := h.frame()
		tuitest.AssertFits(t, f, size[0], size[1])
		widths[size[0]] = h.m.cache.Tier.W
	}
	if !(widths[40] < widths[80] && widths[80] < widths[100] && widths[100] < widths[120] && widths[120] < widths[200]) {
		t.Fatalf("tiles do not grow with the window: %v", widths)
	}
	h.send(resize(20, 6))
	f := h.frame()
	if !strings.Contains(f, "too small") || !strings.Contains(f, "need 34×13") {
		t.Fatalf("too-small message:\n%s", f)
	}
	tuitest.AssertFits(t, f, 20, 6)
	h.press("left", "up")
	if h.m.game.Moves() != 0 {
		t.Fatal("moved while the board could not be seen")
	}
	h.send(resize(80, 24))
	h.press("left", "up")
	if h.m.game.Moves() == 0 {
		t.Fatal("could not move after growing the window back")
	}
}

func TestColourProfiles(t *testing.T) {
	for _, tt := range []struct {
		profile colorprofile.Profile
		want    string // an escape the frame must hold
		wantNot string
	}{
		// Empty cells, which every fresh board has (a 2 tile it may lack:
		// both starting tiles are 4s once in a hundred games).
		{colorprofile.TrueColor, "48;2;205;193;180", ""}, // #cdc1b4
		{colorprofile.ANSI256, "48;5;180", "48;2;"},      // from the 256 palette
		{colorprofile.ANSI, "\x1b[40m", "48;5;"},         // on black
		{colorprofile.ASCII, "┌──────┐", "\x1b[4"},       // boxes, no background at all
	} {
		t.Run(tt.profile.String(), func(t *testing.T) {
			h := newHarness(t, Options{Profile: tt.profile}, 80, 24)
			c := h.m.View().Content
			if !strings.Contains(c, tt.want) {
				t.Errorf("frame lacks %q: %q", tt.want, c)
			}
			if tt.wantNot != "" && strings.Contains(c, tt.wantNot) {
				t.Errorf("frame holds %q", tt.wantNot)
			}
		})
	}
}

// With no colour every tile value looks different from every other and
// from an empty cell.
func TestTilesDistinctWithoutColour(t *testing.T) {
	for _, tr := range draw.Tiers {
		s := draw.DefaultStyles(colorprofile.ASCII, true)
		c := draw.NewBoardCache(&s, tr, 4)
		seen := map[string]uint8{}
		for exp := uint8(0); exp <= 20; exp++ {
			key := strings.Join(c.Tile(exp, draw.MarkNone), "\n")
			if prev, ok := seen[key]; ok {
				t.Fatalf("tier %v: exponents %d and %d look the same", tr, prev, exp)
			}
			seen[key] = exp
		}
	}
}

// In colour, a tile's rows without its label are written in its
// background alone (a frame is kept by every screen until the next), and
// its label's rows in its full style: one row of text, or the rows of its
// block digits where the tile has room.
func TestBlankTileRowsOnlyBackground(t *testing.T) {
	for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI} {
		s := draw.DefaultStyles(p, true)
		for _, tr := range draw.Tiers {
			c := draw.NewBoardCache(&s, tr, 4)
			for _, exp := range []uint8{0, 1, 11} {
				st := s.Tile(exp)
				blank := lipgloss.NewStyle().Background(st.GetBackground()).Render(strings.Repeat(" ", tr.W))
				label := draw.Label(exp, tr.W-2)
				rows := draw.BigDigits(label, draw.PickDigits(label, tr.W-2, tr.H-2, tr.H))
				top := (tr.H - len(rows)) / 2
				for i, l := range c.Tile(exp, draw.MarkNone) {
					labelled := exp > 0 && i >= top && i < top+len(rows)
					if !labelled && l != blank {
						t.Errorf("%v tier %v exp %d row %d: %q, want %q", p, tr, exp, i, l, blank)
					}
					if labelled && !strings.Contains(l, rows[i-top]) {
						t.Errorf("%v tier %v exp %d: the label's row %q lacks %q", p, tr, exp, l, rows[i-top])
					}
				}
			}
		}
	}
}

func TestLabel(t *testing.T) {
	for _, tt := range []struct {
		exp   uint8
		width int
		want  string
	}{
		{1, 4, "2"}, {11, 4, "2048"}, {14, 4, "16k"}, {14, 5, "16384"}, {17, 4, "128k"},
		{20, 4, "1M"}, {30, 4, "1G"}, {62, 4, "4E"}, {10, 2, "1k"},
	} {
		if got := draw.Label(tt.exp, tt.width); got != tt.want {
			t.Errorf("label(%d, %d) = %q, want %q", tt.exp, tt.width, got, tt.want)
		}
	}
}

func TestHint(t *testing.T) {
	hinter := &fakeHinter{dirs: []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down}}
	h := newHarness(t, Options{Hinter: hinter}, 80, 24)
	// A ranked game asks first, and no stays ranked.
	h.press("i")
	if f := h.frame(); !strings.Contains(f, "Ask the AI?") || !strings.Contains(f, "leaves the leaderboard") {
		t.Fatalf("the first hint of a ranked game did not ask first:\n%s", f)
	}
	h.press("n")
	if h.store.count("assisted") != 0 || hinter.calls != 0 || strings.Contains(h.frame(), "Hint:") || strings.Contains(h.frame(), "assisted") {
		t.Fatalf("no to the AI still asked it or marked the game:\n%s", h.frame())
	}
	h.press("i", "y")
	if !strings.Contains(h.frame(), "Hint: ← left") && !strings.Contains(h.frame(), "Hint: ↑ up") {
		t.Fatalf("no hint shown:\n%s", h.frame())
	}
	if h.store.count("assisted") != 1 {
		t.Fatal("a hinted game was not marked assisted")
	}
	if f := h.frame(); !strings.Contains(f, "4×4 assisted") {
		t.Fatalf("the header does not say the game is assisted:\n%s", f)
	}
	h.press("i")
	if h.store.count("assisted") != 1 || h.m.screen != screenGame {
		t.Fatal("MarkAssisted called twice for one game, or asked twice")
	}
	h.press("left", "up")
	if strings.Contains(h.frame(), "Hint:") {
		t.Fatal("hint still shown after moving")
	}
	// A hint that arrives after the board moved on is dropped.
	stale := hintMsg{board: engine.Board{}, dir: engine.Up}
	h.send(stale)
	if strings.Contains(h.frame(), "Hint:") {
		t.Fatal("stale hint shown")
	}
	// Each game is marked once: another size's game is another game.
	h.press("5", "i", "y")
	if h.store.count("assisted 5") != 1 {
		t.Fatal("the 5×5 game was not marked assisted")
	}
	// The 4×4 game, opened again from the store, is known to be assisted.
	h.press("4", "i")
	if h.store.count("assisted 4") != 1 || h.m.screen != screenGame {
		t.Fatal("the 4×4 game was marked twice, or asked again")
	}
	hinter.err = errors.New("AI busy")
	h.press("i")
	if !strings.Contains(h.frame(), "AI busy") {
		t.Fatalf("hinter error not shown:\n%s", h.frame())
	}
}

// TestNoHinterNoAIKeys: without a Hinter the AI keys are not offered
// and do nothing but say why (TestOffKeysSayWhy).
func TestNoHinterNoAIKeys(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.press("i", "p")
	if h.m.auto || h.m.notice != "The AI is off on this server." || strings.Contains(h.frame(), "hint") {
		t.Fatalf("AI keys act without a Hinter:\n%s", h.frame())
	}
}

func TestAutoplay(t *testing.T) {
	hinter := &fakeHinter{dirs: []engine.Direction{engine.Down, engine.Left, engine.Right, engine.Up}}
	h := newHarness(t, Options{Hinter: hinter}, 80, 24)
	h.press("p")                       // asks first: a ranked game
	h.sendN(tuitest.KeyPress("y"), 23) // yes, then the standings, then 10 AI moves (each a Batch and its message)
	if !h.m.auto {
		t.Fatal("p did not start the AI")
	}
	n := len(h.store.moves(4))
	if n < 5 {
		t.Fatalf("the AI made %d moves", n)
	}
	if h.store.count("assisted") != 1 {
		t.Fatal("an AI-played game was not marked assisted once")
	}
	if h.store.count("MISMATCH") != 0 {
		t.Fatal("AI moves recorded out of order")
	}
	h.press("p")
	if h.m.auto {
		t.Fatal("p did not stop the AI")
	}
	// A move already asked for arrives after the stop and is dropped.
	h.send(autoMsg{gen: h.m.autoGen - 1, board: h.m.game.Board(), dir: engine.Down})
	if len(h.store.moves(4)) != n {
		t.Fatal("an AI move arrived after stopping and was played")
	}
	h.sendN(tuitest.KeyPress("p"), 3)
	h.press("left") // the player takes over
	if h.m.auto {
		t.Fatal("a move key did not stop the AI")
	}
	h.sendN(tuitest.KeyPress("p"), 3)
	h.press("tab")
	if h.m.auto || strings.Contains(h.m.notice, "AI is playing") {
		t.Fatal("opening the leaderboard did not stop the AI")
	}
}

func TestGuest(t *testing.T) {
	board := newFakeStore()
	board.top, board.me = standings(5, 2)
	st := NewGuestStore(board, func() uint64 { return 9 })
	h := newHarness(t, Options{Store: st, Guest: true}, 80, 24)
	if !strings.Contains(h.frame(), "SSH key") {
		t.Fatalf("guest not told how to get on the leaderboard:\n%s", h.frame())
	}
	// The notice stays until the guest hides it.
	h.press("left", "up")
	if !strings.Contains(h.frame(), "SSH key") {
		t.Fatalf("guest notice gone after a move:\n%s", h.frame())
	}
	h.press("esc")
	if strings.Contains(h.frame(), "SSH key") {
		t.Fatal("esc did not hide the guest notice")
	}
	if !strings.Contains(h.frame(), "Rank guest") {
		t.Fatalf("guest rank:\n%s", h.frame())
	}
	h.press("tab")
	f := h.frame()
	if !strings.Contains(f, "player01") || strings.Contains(f, "›") || !strings.Contains(f, "Guests are not on the leaderboard") {
		t.Fatalf("guest leaderboard:\n%s", f)
	}
	h.press("tab", "5", "4")
	if h.m.game.Moves() == 0 {
		t.Fatal("guest's 4×4 game lost when switching sizes")
	}
	h.press("q")
	if !strings.Contains(h.m.View().Content, "SSH key") {
		t.Fatalf("guest goodbye: %q", h.m.View().Content)
	}
}

// The text around the board follows the terminal's background.
func TestLightBackground(t *testing.T) {
	h := newHarness(t, Options{Profile: colorprofile.TrueColor}, 80, 24)
	gold := "38;2;237;194;46m2048" // the title on a dark background
	if !strings.Contains(h.m.View().Content, gold) {
		t.Fatalf("dark: title not gold: %q", h.m.View().Content)
	}
	h.send(tea.BackgroundColorMsg{Color: color.White})
	if c := h.m.View().Content; strings.Contains(c, gold) || !strings.Contains(c, "38;2;119;110;101m2048") {
		t.Fatalf("light: title not brown: %q", c)
	}
}

// A login reads only the player's rank, for the header: the leaderboard's
// top rows are read when it opens, and until they are in it says it is
// loading rather than that nobody has played.
func TestLoginReadsRankOnly(t *testing.T) {
	st := newFakeStore()
	st.top, st.me = standings(30, 27)
	h := newHarness(t, Options{Store: st}, 80, 24)
	if n, all := st.count("standings 4 0"), st.count("standings 4"); n != 1 || all != 1 {
		t.Errorf("a login read the standings %d times, %d of them the rank alone; want once, the rank", all, n)
	}
	if f := h.frame(); !strings.Contains(f, "27") {
		t.Errorf("the header lacks the rank 27:\n%s", f)
	}
	if top, _, loaded, _ := h.m.shownRows(); loaded || top != nil {
		t.Errorf("before the leaderboard opens its rows are loaded=%v (%d rows), want not loaded", loaded, len(top))
	}
	h.press("tab")
	if n := st.count("standings 4 " + strconv.Itoa(leaderboardRows)); n != 1 {
		t.Errorf("opening the leaderboard read its rows %d times, want once", n)
	}
	if f := h.frame(); !strings.Contains(f, "player01") {
		t.Errorf("the leaderboard lacks its top row:\n%s", f)
	}
}

// The login's rank read does not hold back the next: a new player's first
// move reads their rank at once, to show them on the leaderboard.
func TestFirstMoveReadsRankAfterLogin(t *testing.T) {
	rankEvery = time.Minute
	t.Cleanup(func() { rankEvery = 0 })
	st := newFakeStore()
	h := newHarness(t, Options{Store: st}, 80, 24)
	for _, k := range []string{"left", "up", "right", "down"} {
		if h.m.game.Moves() == 0 {
			h.press(k)
		}
	}
	if h.m.game.Moves() != 1 {
		t.Fatalf("no first move: %d moves", h.m.game.Moves())
	}
	if n := st.count("standings 4 0"); n != 2 {
		t.Errorf("the rank was read %d times by the login and the first move, want 2", n)
	}
}
