package racing

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// runningRace starts a race of names in the public lobby and returns
// their tickets once it runs, and the first racer's screen with the race
// on it.
func runningRace(t testing.TB, names ...string) (*Model, []*race.Ticket) {
	return runningRaceWoken(t, false, names...)
}

// runningRaceWoken is runningRace with the screen run Woken or not.
func runningRaceWoken(t testing.TB, woken bool, names ...string) (*Model, []*race.Ticket) {
	t.Helper()
	return runningRaceOf(t, 4, woken, names...)
}

// runningRaceOf is runningRace on size×size boards.
func runningRaceOf(t testing.TB, size int, woken bool, names ...string) (*Model, []*race.Ticket) {
	t.Helper()
	svc := raceService(t, raceTimes)
	return runningRaceIn(t, svc, size, woken, names...)
}

// raceTimes are runningRace's: the lobby's countdown is long enough for
// every name to join first, even on a busy machine (a racer who came
// after the start would be in a lobby of their own, with no game).
var raceTimes = race.WithTimes(250*time.Millisecond, 10*time.Millisecond, time.Minute)

// runningRaceIn is runningRaceOf on svc, whose races are built with
// raceTimes.
func runningRaceIn(t testing.TB, svc racing, size int, woken bool, names ...string) (*Model, []*race.Ticket) {
	t.Helper()
	ctx := context.Background()
	tickets := joinRaceOf(t, svc, "", size, names...)
	m := New(Options{Ticket: tickets[0], Context: ctx, Woken: woken})
	for {
		v, err := tickets[0].Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Phase == race.Running {
			if len(v.Racers) != len(names) {
				t.Fatalf("the race started with %d racers of %d", len(v.Racers), len(names))
			}
			m.Update(raceViewMsg{ticket: tickets[0], view: v})
			break
		}
	}
	return m, tickets
}

// showUntil shows m each view of the race that ticket waits for, until
// one satisfies done, and returns that one.
func showUntil(t testing.TB, m *Model, ticket *race.Ticket, done func(race.View) bool) race.View {
	t.Helper()
	for {
		v, err := ticket.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m.Update(raceViewMsg{ticket: ticket, view: v})
		if done(v) {
			return v
		}
	}
}

// racing is a game service and its races.
type racing struct {
	*game.Service
	*race.Hall
}

// raceService is a game service on a new database of its own, and its
// races built with opts.
func raceService(t testing.TB, opts ...race.Option) racing {
	t.Helper()
	return raceServiceOn(t, openStore(t), opts...)
}

// raceServiceOn is raceService on st.
func raceServiceOn(t testing.TB, st store.Store, opts ...race.Option) racing {
	t.Helper()
	svc := game.New(st, nil)
	return racing{svc, race.New(svc, opts...)}
}

// openStore opens a new SQLite database, closed when the test ends.
func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// joinRace has names join room ("" for the public lobby) on 4×4, in turn.
func joinRace(t testing.TB, svc racing, room string, names ...string) []*race.Ticket {
	t.Helper()
	return joinRaceOf(t, svc, room, 4, names...)
}

// joinRaceOf is joinRace on size×size boards.
func joinRaceOf(t testing.TB, svc racing, room string, size int, names ...string) []*race.Ticket {
	t.Helper()
	ctx := context.Background()
	var tickets []*race.Ticket
	for _, name := range names {
		p, err := svc.Identify(ctx, "SHA256:"+name, "ssh-ed25519", name)
		if err != nil {
			t.Fatal(err)
		}
		seat := svc.Seat(p, nil)
		t.Cleanup(seat.Close)
		tk, err := svc.Join(ctx, seat, netip.Addr{}, room, size, false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tk.Leave)
		tickets = append(tickets, tk)
	}
	return tickets
}

// moveOnce plays p's first direction that moves.
func moveOnce(t *testing.T, p *game.Play) {
	t.Helper()
	moves := p.Moves()
	for _, d := range []engine.Direction{engine.Up, engine.Left, engine.Down, engine.Right} {
		if _, err := p.Move(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		if p.Moves() > moves {
			return
		}
	}
	t.Fatal("no direction moved the board")
}

var arrowKeys = []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyLeft}, {Code: tea.KeyDown}, {Code: tea.KeyRight}}

// TestRaceOwnMoveCarriesItsView: the racer's own move is drawn with the
// race's view that move made (its board among the others', the places),
// not a view behind it; the wake for that view, which comes after, finds
// nothing new and draws the same screen. An opponent's move, when its
// view arrives, is drawn.
func TestRaceOwnMoveCarriesItsView(t *testing.T) {
	m, tickets := runningRace(t, "ann", "bob")
	before := m.View().Content
	moves := m.play.Moves()
	for _, k := range arrowKeys {
		press(m, k)
		if m.play.Moves() > moves {
			break
		}
	}
	if m.play.Moves() == moves {
		t.Fatal("no direction moved the board")
	}
	now := tickets[0].Now()
	if m.view.Version != now.Version {
		t.Fatalf("after the move the screen has view %d, the race is at %d", m.view.Version, now.Version)
	}
	if got, want := m.view.Racers[m.me].Board, m.play.Board(); got != want {
		t.Fatalf("the screen's view has the racer's board before the move:\n%v\nwant\n%v", got, want)
	}
	moved := m.View().Content
	if moved == before {
		t.Fatal("the move's frame is the frame before it")
	}
	// The wake for the view the move made.
	m.Update(raceViewMsg{ticket: tickets[0], view: now})
	if again := m.View().Content; again != moved {
		t.Fatalf("the view the move made, arriving after it, changed the screen:\n%s\nwant\n%s", again, moved)
	}
	// The opponent moves.
	bob := tickets[1].Play()
	moveOnce(t, bob)
	m.Update(raceViewMsg{ticket: tickets[0], view: tickets[0].Now()})
	if after := m.View().Content; after == moved {
		t.Fatal("the opponent's move did not change the screen")
	}
}

// TestRaceWoken: run Woken, the race screen waits for no view itself
// (the runner does, with Wake); Wake has news once an opponent moves,
// none after the racer's own move (its frame carries its view), and a
// WakeMsg brings the new view.
func TestRaceWoken(t *testing.T) {
	m, tickets := runningRaceWoken(t, true, "ann", "bob")
	// The clock shows a whole second for a whole second from here: no
	// news of it while the test runs.
	ends := m.view.Ends
	m.now = func() time.Time { return ends.Add(-30 * time.Second) }
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if cmd := m.waitView(); cmd != nil {
		t.Fatal("run Woken, the screen waits for views in a command of its own")
	}
	isClosed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	if news, _ := m.Wake(); news == nil || isClosed(news) {
		t.Fatal("news before anything happened")
	}
	moves := m.play.Moves()
	for _, k := range arrowKeys {
		press(m, k)
		if m.play.Moves() > moves {
			break
		}
	}
	if news, _ := m.Wake(); isClosed(news) {
		t.Fatal("news after the racer's own move: its frame already shows its view")
	}
	bob := tickets[1].Play()
	moveOnce(t, bob)
	news, _ := m.Wake()
	select {
	case <-news:
	case <-time.After(5 * time.Second):
		t.Fatal("no news of the opponent's move")
	}
	m.Update(event.WakeMsg{})
	if got, want := m.view.Racers[1].Board, bob.Board(); got != want {
		t.Fatalf("after the wake the screen shows bob's board\n%v\nwant\n%v", got, want)
	}
	if news, _ := m.Wake(); isClosed(news) {
		t.Fatal("news again once the view is on screen")
	}
}

// TestRaceWokenClock: run Woken, the race clock's seconds come through
// Wake (moved at the next second, then news), not a goroutine of the
// screen's own, and the clock on screen shows the new second.
func TestRaceWokenClock(t *testing.T) {
	m, _ := runningRaceWoken(t, true, "ann", "bob")
	ends, start := m.view.Ends, time.Now()
	m.now = func() time.Time { return ends.Add(-30*time.Second - 50*time.Millisecond).Add(time.Since(start)) }
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View().Content; !strings.Contains(v, "0:31") {
		t.Fatalf("the clock does not show 0:31:\n%s", v)
	}
	_, moved := m.Wake()
	select {
	case <-moved:
	case <-time.After(5 * time.Second):
		t.Fatal("the clock's next second never came")
	}
	news, _ := m.Wake()
	select {
	case <-news:
	default:
		t.Fatal("no news once the clock's second came")
	}
	m.Update(event.WakeMsg{})
	if v := m.View().Content; !strings.Contains(v, "0:30") {
		t.Fatalf("after the clock's wake the screen does not show 0:30:\n%s", v)
	}
}

// TestRaceTooSmallSaysWhatFits: the size the race screen asks for is the
// one it draws in: one line less and it asks again.
func TestRaceTooSmallSaysWhatFits(t *testing.T) {
	m, _ := runningRace(t, "ann", "bob")
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 8})
	v := m.View().Content
	var w, h int
	if i := strings.Index(v, "need "); i < 0 {
		t.Fatalf("a 30×8 window does not say what the race needs:\n%s", v)
	} else if _, err := fmt.Sscanf(v[i:], "need %d×%d", &w, &h); err != nil {
		t.Fatalf("%v in %q", err, v[i:])
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	if v := m.View().Content; strings.Contains(v, "too small") {
		t.Fatalf("the race does not fit the %d×%d it asked for:\n%s", w, h, v)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h - 1})
	if v := m.View().Content; !strings.Contains(v, "too small") {
		t.Fatalf("the race is drawn in %d×%d, less than the %d×%d it asks for", w, h-1, w, h)
	}
}

// TestRaceOpponentLeftFits: an opponent who left is marked so in full in
// the opponents' column at 80 columns, not cut at the window's edge.
func TestRaceOpponentLeftFits(t *testing.T) {
	m, tickets := runningRace(t, "ann", "bob")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tickets[1].Leave()
	showUntil(t, m, tickets[0], func(v race.View) bool { return v.Racers[1].Left })
	for _, l := range strings.Split(ansi.Strip(m.View().Content), "\n") {
		if strings.Contains(l, "bob") {
			if !strings.HasSuffix(strings.TrimRight(l, " "), " left") || ansi.StringWidth(l) > 80 {
				t.Fatalf("bob's line %q (%d columns) lacks its whole ' left' within 80 columns", l, ansi.StringWidth(l))
			}
			return
		}
	}
	t.Fatalf("no line for bob:\n%s", ansi.Strip(m.View().Content))
}

// TestRaceOwnBoardFromLastFrame: the player's board, when an opponent's
// move leaves it as it was, is copied from the last frame; the frame is
// the one drawn from the tiles, at every window size and after the
// player's own moves too. Once the race is off the screen the last
// frame is let go.
func TestRaceOwnBoardFromLastFrame(t *testing.T) {
	m, tickets := runningRace(t, "ann", "bob", "cat", "dan")
	// The clock stands still: a frame and the one drawn from the tiles to
	// compare it with would otherwise differ when a second passes between
	// them.
	frozen := time.Now()
	m.now = func() time.Time { return frozen }
	fresh := func() string {
		t.Helper()
		saved := m.ownDrawn
		m.ownDrawn.lines, m.ownDrawn.cache = nil, nil
		m.drawn = ""
		s := m.View().Content
		m.ownDrawn = saved
		return s
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}, {60, 12}, {200, 60}, {40, 30}} {
		m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
		for i := range 3 {
			m.View()
			if len(m.ownDrawn.lines) == 0 {
				t.Fatalf("%d×%d: no board kept from the frame", size.w, size.h)
			}
			moveOnce(t, tickets[1+i%3].Play())
			m.Update(raceViewMsg{ticket: tickets[0], view: tickets[0].Now()})
			got := m.View().Content
			if want := fresh(); got != want {
				t.Fatalf("%d×%d: after an opponent's move the frame is\n%s\nwant, drawn from the tiles,\n%s", size.w, size.h, got, want)
			}
			for _, k := range arrowKeys {
				press(m, k)
			}
			if got, want := m.View().Content, fresh(); got != want {
				t.Fatalf("%d×%d: after the player's moves the frame is\n%s\nwant\n%s", size.w, size.h, got, want)
			}
		}
	}
	done := tickets[0].Now()
	done.Phase, done.Version = race.Finished, done.Version+1
	m.Update(raceViewMsg{ticket: tickets[0], view: done})
	m.View()
	if m.ownDrawn.lines != nil {
		t.Fatal("the results screen keeps the race's last frame")
	}
}

// TestRaceLobbyFitsNarrowWindows: a room's lobby in the smallest windows a
// board fits says everything whole (wrapped, or shortened where it has a
// shorter form), in the window, with the host's keys and quit in sight.
func TestRaceLobbyFitsNarrowWindows(t *testing.T) {
	store, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc := game.New(store, nil)
	ctx := context.Background()
	p, err := svc.Identify(ctx, "SHA256:ann", "ssh-ed25519", "ann")
	if err != nil {
		t.Fatal(err)
	}
	seat := svc.Seat(p, nil)
	t.Cleanup(seat.Close)
	tk, err := race.New(svc).Join(ctx, seat, netip.Addr{}, "blue-fox", 4, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tk.Leave)
	v, err := tk.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Ticket: tk, Context: ctx, JoinHint: "ssh -t -p 23234 example.org race --room blue-fox"})
	m.Update(raceViewMsg{ticket: tk, view: v})
	for _, size := range [][2]int{{26, 11}, {34, 13}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		f := ansi.Strip(m.View().Content)
		tuitest.AssertFits(t, f, size[0], size[1])
		if strings.Contains(f, "…") {
			t.Errorf("%dx%d: a line is cut:\n%s", size[0], size[1], f)
		}
		flat := strings.Join(strings.Fields(f), " ")
		for _, want := range []string{"room blue-fox", "ann (host)", "Waiting for a second racer; then enter starts the race.",
			"ssh -t -p 23234 example.org race --room blue-fox", "enter start", "q quit"} {
			if !strings.Contains(flat, want) {
				t.Errorf("%dx%d: %q is not on the screen:\n%s", size[0], size[1], want, f)
			}
		}
	}
}

// TestRaceAppendViewAsView: the race screen appended to a buffer
// (screen.ViewAppender, as a racer's screen draws it) is the frame View
// draws, at every size, after opponents' moves and the player's own, and
// the buffer's earlier bytes are left as they were.
func TestRaceAppendViewAsView(t *testing.T) {
	m, tickets := runningRace(t, "ann", "bob", "cat", "dan")
	frozen := time.Now()
	m.now = func() time.Time { return frozen }
	var buf []byte
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}, {60, 12}, {200, 60}, {40, 30}, {20, 8}} {
		m.Update(tea.WindowSizeMsg{Width: size.w, Height: size.h})
		for i := range 3 {
			for step := range 2 {
				if step == 0 {
					moveOnce(t, tickets[1+i%3].Play())
					m.Update(raceViewMsg{ticket: tickets[0], view: tickets[0].Now()})
				} else {
					for _, k := range arrowKeys {
						press(m, k)
					}
				}
				v, b := m.AppendView(append(buf[:0], "kept"...))
				buf = b
				if v.Content != "" || !v.AltScreen || v.WindowTitle != "2048 race" {
					t.Fatalf("%d×%d: the appended view %+v", size.w, size.h, v)
				}
				if !strings.HasPrefix(string(b), "kept") {
					t.Fatalf("%d×%d: the buffer's first bytes were overwritten: %q", size.w, size.h, b[:min(len(b), 8)])
				}
				if got, want := string(b[len("kept"):]), m.View().Content; got != want {
					t.Fatalf("%d×%d: appended\n%s\nwant, as View draws it,\n%s", size.w, size.h, got, want)
				}
			}
		}
	}
}

// TestRaceHeaderFollowsTheRace: the header shows the clock's next
// second, a new place and a new score as soon as they come.
func TestRaceHeaderFollowsTheRace(t *testing.T) {
	m, _ := runningRace(t, "ann", "bob")
	now := time.Now()
	m.now = func() time.Time { return now }
	opp := 1 - m.me
	header := func() string {
		t.Helper()
		m.drawn = "" // as after a move: drawn again
		for _, l := range strings.Split(ansi.Strip(m.View().Content), "\n") {
			if strings.Contains(l, "Race ") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no header:\n%s", ansi.Strip(m.View().Content))
		return ""
	}
	for _, step := range []struct {
		name   string
		change func()
		want   string
	}{
		{"at first", func() {}, "Place 1 of 2"},
		{"the clock's next second", func() { now = now.Add(time.Second) }, func() string {
			s := int(m.left(m.view.Ends.Add(-time.Second)) / time.Second)
			return fmt.Sprintf("%d:%02d left", s/60, s%60)
		}()},
		{"an opponent ahead", func() { m.view.Racers[opp].Score = 1 << 20 }, "Place 2 of 2"},
		{"a higher score", func() { m.lastGain = 4 }, "+4 Place"},
		{"another window", func() { m.Update(tea.WindowSizeMsg{Width: 100, Height: 30}) }, "Place 2 of 2"},
	} {
		step.change()
		if got := header(); !strings.Contains(got, step.want) {
			t.Errorf("%s: the header is %q, without %q", step.name, got, step.want)
		}
	}
}

// An opponent's line is their name, cut or padded to the column once and
// kept, and their figures as they are at each frame: score, highest
// tile, and whether they left; the figures take the bytes the frame's
// size counts for them.
func TestOpponentLinesFollowTheRace(t *testing.T) {
	m, _ := runningRace(t, "ann", "bob", "cat")
	opp := 0
	if opp == m.me {
		opp = 1
	}
	r := &m.view.Racers[opp]
	var name opponentName
	line := func(nameW int) string {
		t.Helper()
		b := m.appendOpponentFigures([]byte(name.padded(r.Name, nameW)), r)
		if got, want := len(b)-len(name.s), m.opponentFiguresSize(r); got != want {
			t.Errorf("the figures %q take %d bytes, the frame counts %d", b[len(name.s):], got, want)
		}
		return ansi.Strip(string(b))
	}
	first := name.padded(r.Name, 10)
	if again := name.padded(r.Name, 10); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Errorf("an unchanged name was made again: %q", again)
	}
	for _, step := range []struct {
		name   string
		change func()
		want   string
	}{
		{"a score", func() { r.Score += 1234 }, " 1234 "},
		{"a seven-figure score", func() { r.Score = 1234567 }, " 1234567"},
		{"a tile", func() { r.MaxTile = 2048 }, "  2048"},
		{"leaving", func() { r.Left = true }, "2048 left"},
	} {
		step.change()
		if l := line(10); !strings.Contains(l, step.want) {
			t.Errorf("after %s the line is %q, without %q", step.name, l, step.want)
		}
	}
	r.Score = 12
	if l := line(6); ansi.StringWidth(l) != 6+1+6+6+len(" left") {
		t.Errorf("a 6-column name made a line %d wide: %q", ansi.StringWidth(l), l)
	}
}

// A running race's frame can be drawn again, the same bytes, once what
// it shows has changed: the clock, an opponent's move, the player's own
// move, a notice (the screen keeps no copy of it, screen.ViewRedrawer).
// A frame of another phase cannot.
func TestRaceRedrawsLastFrame(t *testing.T) {
	m, tickets := runningRace(t, "ann", "bob", "cat")
	now := time.Now()
	m.now = func() time.Time { return now }
	opp := (m.me + 1) % 3
	for _, step := range []struct {
		name   string
		change func()
	}{
		{"the clock's next second", func() { now = now.Add(time.Second) }},
		{"an opponent's move", func() {
			v := m.view // as the race publishes it: racers are not changed once shown
			v.Racers, v.Version = slices.Clone(v.Racers), v.Version+1
			v.Racers[opp].Score, v.Racers[opp].MaxTile = v.Racers[opp].Score+8, 8
			m.Update(raceViewMsg{ticket: tickets[0], view: v})
		}},
		{"the player's move", func() {
			for _, k := range []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyLeft}, {Code: tea.KeyDown}} {
				press(m, k)
			}
		}},
		{"a notice", func() { m.notice = "the race is over soon" }},
	} {
		_, frame := m.AppendView(nil)
		if !m.LastRedrawable() {
			t.Fatalf("before %s: the running race's frame cannot be drawn again", step.name)
		}
		step.change()
		if again := m.AppendLastView(nil); string(again) != string(frame) {
			t.Errorf("after %s the last frame drawn again is\n%s\nnot\n%s", step.name, again, frame)
		}
		if _, next := m.AppendView(nil); string(next) == string(frame) {
			t.Errorf("%s did not change the frame", step.name)
		}
	}

	v := m.view
	v.Phase, v.Version = race.Finished, v.Version+1
	m.Update(raceViewMsg{ticket: tickets[0], view: v})
	m.AppendView(nil)
	if m.LastRedrawable() {
		t.Error("a frame of the finished race can be drawn again")
	}
}

// Run Woken, a running race's clock alarm is made as the screen updates,
// and Wake hands out that one: Wake runs on the session's long-lived
// goroutine, whose stack making an alarm there grew for good.
func TestRaceWakeHandsOutTheClockAlarm(t *testing.T) {
	m, _ := runningRaceWoken(t, true, "ann", "bob")
	m.Update(event.WakeMsg{})
	a := m.clockAlarm.Load()
	if a == nil || m.clockAt.Load() != a.at {
		t.Fatalf("after an update the clock alarm is %+v, the clock at %d", a, m.clockAt.Load())
	}
	if _, moved := m.Wake(); moved != a.c {
		t.Error("Wake made an alarm of its own rather than the update's")
	}
}

// TestRaceBoardOverKeepsItsPlace: once the racer's board is over, the
// screen says their score keeps its place, whole in every window the
// race fits, and leaving is no forfeit: not on the key line, not in the
// last words, not in the race, nor on the others' results. (Dan's screen
// said the others raced on until the clock ran out; he pressed q and was
// placed below a racer who never moved, "left: forfeit".)
func TestRaceBoardOverKeepsItsPlace(t *testing.T) {
	m, tickets := runningRaceOf(t, 3, false, "ann", "bob")
	for i := 0; !m.play.Over(); i++ {
		if i > 10000 {
			t.Fatal("ann's board is never over")
		}
		press(m, arrowKeys[i%len(arrowKeys)])
	}
	m.Update(tea.WindowSizeMsg{Width: 20, Height: 5})
	var w, h int
	if v := m.View().Content; !strings.Contains(v, "need ") {
		t.Fatalf("a 20×5 window does not say what the race needs:\n%s", v)
	} else if _, err := fmt.Sscanf(v[strings.Index(v, "need "):], "need %d×%d", &w, &h); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{w, h}, {40, 16}, {80, 24}, {120, 30}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		f := ansi.Strip(m.View().Content)
		tuitest.AssertFits(t, f, size[0], size[1])
		var status string
		for _, l := range strings.Split(f, "\n") {
			if strings.Contains(l, "over:") {
				status = strings.TrimSpace(l)
			}
		}
		if status == "" || strings.Contains(status, "…") || !strings.Contains(status, "kept") && !strings.Contains(status, "keeps its place") {
			t.Errorf("%dx%d: the status line %q does not say whole that the score keeps its place:\n%s", size[0], size[1], status, f)
		}
		if strings.Contains(f, "forfeit") || strings.Contains(f, "race on until") {
			t.Errorf("%dx%d: the screen of a racer whose board is over:\n%s", size[0], size[1], f)
		}
	}
	m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if m.final == "" || strings.Contains(m.final, "forfeit") || !strings.Contains(m.final, "keeps its place") {
		t.Errorf("ann's last words as she leaves with her board over: %q", m.final)
	}
	ctx := context.Background()
	// Bob's board is over too: the race ends, and bob sees the results.
	mb := New(Options{Ticket: tickets[1], Context: ctx})
	bob := tickets[1].Play()
	for !bob.Over() {
		moveOnce(t, bob)
	}
	v := showUntil(t, mb, tickets[1], func(v race.View) bool { return v.Phase == race.Finished })
	if ann := v.Racers[0]; !ann.Left || ann.Forfeit {
		t.Fatalf("ann in the race's results: %+v", ann)
	}
	res := ansi.Strip(mb.View().Content)
	if !strings.Contains(res, "Results") {
		t.Fatalf("bob's screen at the end:\n%s", res)
	}
	for _, l := range strings.Split(res, "\n") {
		if strings.Contains(l, "ann") && strings.Contains(l, "forfeit") {
			t.Fatalf("ann, who left with her board over, is a forfeit on bob's results:\n%s", res)
		}
	}
}

// TestRaceOpponentOverThenLeft: an opponent who leaves with their board
// over keeps their place in the header's standing and is marked over,
// not left (a forfeit).
func TestRaceOpponentOverThenLeft(t *testing.T) {
	m, tickets := runningRaceOf(t, 3, false, "ann", "bob")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	bob := tickets[1].Play()
	for !bob.Over() {
		moveOnce(t, bob)
	}
	tickets[1].Leave()
	showUntil(t, m, tickets[0], func(v race.View) bool { return v.Racers[1].Left })
	f := ansi.Strip(m.View().Content)
	if !strings.Contains(f, "Place 2 of 2") {
		t.Errorf("ann, who never moved, against bob, who left with %d points and his board over:\n%s", bob.Score(), f)
	}
	for _, l := range strings.Split(f, "\n") {
		if strings.Contains(l, "bob") && !strings.HasSuffix(strings.TrimRight(l, " "), " over") {
			t.Errorf("bob's line %q is not marked over", l)
		}
	}
}
