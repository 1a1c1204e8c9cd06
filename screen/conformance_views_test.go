package screen_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/tui/racing"
	"github.com/ssh2048/ssh2048/tui/viewer"
)

// server is how the server runs its screens: on a terminal that erases
// with the background colour, line feeds as written.
var server = screen.Options{Term: "xterm-256color", RawLineFeed: true}

// service is a game service over a real SQLite file of the test's own.
func service(t *testing.T) *game.Service {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(context.Background(), t.TempDir(), sqlite.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return game.New(st, quiet)
}

// seat is name's seat in svc, closed when the test ends.
func seat(t *testing.T, svc *game.Service, name string) *game.Seat {
	t.Helper()
	p, err := svc.Identify(context.Background(), "SHA256:"+name, "ssh-ed25519", name)
	if err != nil {
		t.Fatal(err)
	}
	st := svc.Seat(p, func(error) {})
	t.Cleanup(st.Close)
	return st
}

// openGame opens name's 4×4 game.
func openGame(t *testing.T, svc *game.Service, name string) *game.Play {
	t.Helper()
	p, err := seat(t, svc, name).Open(context.Background(), 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// move plays the first of left, down, right, up that moves p's board.
func move(t *testing.T, p *game.Play) {
	t.Helper()
	for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
		res, err := p.Move(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		if res.Moved {
			return
		}
	}
	t.Fatal("no move changes the board")
}

// TestConformanceReplay: a replay of a saved game, stepped through with
// its keys, on both sides.
func TestConformanceReplay(t *testing.T) {
	svc := service(t)
	p := openGame(t, svc, "ann")
	for range 30 {
		move(t, p)
	}
	replay := func() tea.Model {
		r, err := svc.Replay(context.Background(), p.ID())
		if err != nil {
			t.Fatal(err)
		}
		return viewer.NewReplay(viewer.ViewOptions{Games: svc, Context: t.Context(), Profile: colorprofile.ANSI256}, r)
	}
	const w, h = 80, 24
	sides := []*side{
		startProgram(t, colorprofile.ANSI256, w, h, replay()),
		startScreen(t, colorprofile.ANSI256, w, h, server, false, replay()),
	}
	right := keys("right")
	play(t, sides, "Move 0/30", []step{
		{keys: []string{"right"}, shows: "Move 1/30"}, right, right, keys("left"),
		{keys: []string{"G"}, shows: "Move 30/30"}, keys("left", "left"),
		{keys: []string{"g"}, shows: "Move 0/30"},
		keys("?"), keys("esc"),
		{resize: [2]int{60, 20}}, right,
		{keys: []string{"q"}, quits: true},
	})
}

// TestConformanceSpectator: spectators of one live game as the server
// runs them, in step (screen.Options.InStep: they share their frames'
// bytes), each compared with a tea.Program of its own watching the
// same game, as the player moves. Of the three in step, the first to
// draw a frame marks it, the second works it out and keeps it, and the
// third copies it.
func TestConformanceSpectator(t *testing.T) {
	svc := service(t)
	p := openGame(t, svc, "ann")
	watch := func() tea.Model {
		w, err := svc.WatchPlayer(context.Background(), "ann")
		if err != nil {
			t.Fatal(err)
		}
		return viewer.NewWatch(viewer.ViewOptions{Games: svc, Context: t.Context(), Profile: colorprofile.ANSI256}, w, "ann")
	}
	const w, h = 80, 24
	inStep := server
	inStep.InStep = true
	sides := []*side{
		startProgram(t, colorprofile.ANSI256, w, h, watch()),
		startScreen(t, colorprofile.ANSI256, w, h, inStep, false, watch()),
		startScreen(t, colorprofile.ANSI256, w, h, inStep, false, watch()),
		startScreen(t, colorprofile.ANSI256, w, h, inStep, false, watch()),
	}
	var steps []step
	for i := 1; i <= 20; i++ {
		steps = append(steps, step{do: func() { move(t, p) }, shows: fmt.Sprintf("Moves %d ", i)})
	}
	steps = append(steps, step{keys: []string{"q"}, quits: true})
	play(t, sides, "4 watching", steps)
}

// races are svc's races, closed when the test ends.
func races(t *testing.T, svc *game.Service, opts ...race.Option) *race.Hall {
	t.Helper()
	h := race.New(svc, opts...)
	t.Cleanup(h.Close)
	return h
}

// racer joins room ("" the public lobby) of svc's races h on 4×4 as p.
func racer(t *testing.T, svc *game.Service, h *race.Hall, p game.Player, room string) *race.Ticket {
	t.Helper()
	st := svc.Seat(p, func(error) {})
	t.Cleanup(st.Close)
	tk, err := h.Join(context.Background(), st, netip.Addr{}, room, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tk.Leave)
	return tk
}

func raceScreen(t *testing.T, tk *race.Ticket, p game.Player, room string) tea.Model {
	return racing.New(racing.Options{Ticket: tk, Room: room, Player: p.Name, Guest: p.Guest,
		Context: t.Context(), Profile: colorprofile.ANSI256})
}

// TestConformanceRaceLobby: a private room's lobby, its host setting the
// race up with the host's keys. Each side has a service and a room of
// its own, alike.
func TestConformanceRaceLobby(t *testing.T) {
	lobby := func() tea.Model {
		svc := service(t)
		ann := seat(t, svc, "ann").Player()
		return raceScreen(t, racer(t, svc, races(t, svc), ann, "blue-fox"), ann, "blue-fox")
	}
	const w, h = 80, 24
	sides := []*side{
		startProgram(t, colorprofile.ANSI256, w, h, lobby()),
		startScreen(t, colorprofile.ANSI256, w, h, server, true, lobby()),
	}
	play(t, sides, "blue-fox", []step{
		keys("5"), keys("+"), keys("+", "-"), keys("3"),
		{resize: [2]int{50, 16}}, keys("6"),
		{keys: []string{"q"}, quits: true},
	})
}

// TestConformanceRace: a running race as the server runs a racer's
// screen (its view written into the screen's buffers, and written again
// rather than kept: screen.ViewRedrawer), against tea.Program. The two
// sides are two guests in one race, on its one seed, typing the same
// keys: their boards, scores and opponents are alike. Only the header
// differs, where a tie goes to the earlier racer (and its clock ticks):
// it is not compared.
func TestConformanceRace(t *testing.T) {
	svc := service(t)
	hall := races(t, svc, race.WithTimes(10*time.Millisecond, 10*time.Millisecond, time.Minute))
	tickets := []*race.Ticket{racer(t, svc, hall, game.Guest, ""), racer(t, svc, hall, game.Guest, "")}
	// Started once it runs, without taking a view from the tickets:
	// the screens wait for the next one after those they took.
	for v := tickets[0].Now(); v.Phase != race.Running; v = tickets[0].Now() {
		<-tickets[0].ChangedSince(v.Version)
	}
	const w, h = 80, 24
	sides := []*side{
		startProgram(t, colorprofile.ANSI256, w, h, raceScreen(t, tickets[0], game.Guest, "")),
		startScreen(t, colorprofile.ANSI256, w, h, server, true, raceScreen(t, tickets[1], game.Guest, "")),
	}
	for _, s := range sides {
		s.skip = " left   Score " // the header
	}
	play(t, sides, "guest", []step{
		keys("left"), keys("up"), keys("right"), keys("down"),
		moves, moves,
		{resize: [2]int{60, 20}}, keys("left"),
		{resize: [2]int{80, 24}}, moves,
	})
}
