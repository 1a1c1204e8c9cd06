package reader_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/reader"
)

// fakePlay is a game on a board the test sets, whose new tile is always
// a 2 in the first empty cell, so that a test knows every sentence.
type fakePlay struct {
	mu      sync.Mutex
	board   engine.Board
	score   int
	moves   int
	entered chan struct{} // told when Move starts, if set
	gate    chan struct{} // Move waits for it, if set
	err     error         // Move fails with it, if set
	closed  bool
}

func (p *fakePlay) Board() engine.Board { p.mu.Lock(); defer p.mu.Unlock(); return p.board }
func (p *fakePlay) Size() int           { b := p.Board(); return b.Size() }
func (p *fakePlay) Score() int          { p.mu.Lock(); defer p.mu.Unlock(); return p.score }
func (p *fakePlay) Moves() int          { p.mu.Lock(); defer p.mu.Unlock(); return p.moves }
func (p *fakePlay) Won() bool {
	b := p.Board()
	return b.MaxExponent() >= engine.WinExponent(b.Size())
}
func (p *fakePlay) Over() bool                         { b := p.Board(); return !b.CanMove() }
func (p *fakePlay) MarkAssisted(context.Context) error { return nil }
func (p *fakePlay) Close()                             { p.mu.Lock(); p.closed = true; p.mu.Unlock() }

func (p *fakePlay) Move(_ context.Context, d engine.Direction) (engine.Result, error) {
	if p.entered != nil {
		p.entered <- struct{}{}
	}
	if p.gate != nil {
		<-p.gate
	}
	if p.err != nil {
		return engine.Result{}, p.err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	gained, moved := p.board.Move(d)
	if !moved {
		return engine.Result{}, nil
	}
	p.score += gained
	p.moves++
	res := engine.Result{Moved: true, Gained: gained}
	n := p.board.Size()
	for i := range n * n {
		if p.board.At(i/n, i%n) == 0 {
			p.board.Set(i/n, i%n, 1)
			res.Spawn = engine.Spawn{Row: i / n, Col: i % n, Exp: 1}
			break
		}
	}
	return res, nil
}

type fakeStore struct {
	mu     sync.Mutex
	games  map[int]*fakePlay
	fresh  func(size int) *fakePlay
	openEr error
	me     *reader.Row
	opens  int // calls of Open
}

func (s *fakeStore) Open(_ context.Context, size int, fresh bool) (reader.Play, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opens++
	if s.openEr != nil {
		return nil, s.openEr
	}
	if g := s.games[size]; g != nil && !fresh {
		return g, nil
	}
	s.games[size] = s.fresh(size)
	return s.games[size], nil
}

// failOpens has every Open from now on fail with err.
func (s *fakeStore) failOpens(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openEr = err
}

func (s *fakeStore) openCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens
}

func (s *fakeStore) Standings(_ context.Context, _, limit int) ([]reader.Row, *reader.Row, error) {
	var top []reader.Row
	if limit > 0 && s.me != nil {
		top = []reader.Row{{Rank: 1, Player: "bea", Score: 9000}, *s.me}
	}
	return top, s.me, nil
}

func boardOf(t *testing.T, s string) engine.Board {
	t.Helper()
	b, err := engine.ParseBoard(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// storeWith is a store whose game of the board's size is on board; new
// games start empty but for a 2.
func storeWith(t *testing.T, board string) (*fakeStore, *fakePlay) {
	t.Helper()
	p := &fakePlay{board: boardOf(t, board)}
	return &fakeStore{games: map[int]*fakePlay{p.Size(): p}, fresh: func(size int) *fakePlay {
		b, _ := engine.NewBoard(size)
		b.Set(0, 0, 1)
		return &fakePlay{board: b}
	}}, p
}

// transcript is what a screen running the model wrote.
type transcript struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (w *transcript) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *transcript) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.ReplaceAll(w.buf.String(), "\r\n", "\n")
}

// run runs m on a screen, as the server does, and returns what it writes
// and a function that types keys.
func run(t *testing.T, m tea.Model) (*screen.Screen, *transcript, func(string)) {
	t.Helper()
	out := &transcript{}
	in, typed := io.Pipe()
	t.Cleanup(func() { typed.Close() })
	scr := screen.New(m, out, screen.Options{Width: 80, Height: 24, Unsupported: func(what string) { t.Errorf("unsupported: %s", what) }})
	scr.Start(in)
	t.Cleanup(scr.Stop)
	return scr, out, func(keys string) {
		if _, err := typed.Write([]byte(keys)); err != nil {
			t.Fatal(err)
		}
	}
}

func waitText(t *testing.T, out *transcript, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q; transcript:\n%s", want, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestGameOverIsSaid(t *testing.T) {
	st, _ := storeWith(t, "2 4 8/16 32 64/4 128 0")
	st.me = &reader.Row{Rank: 3, Player: "ada", Score: 500}
	m := reader.New(reader.Options{Store: st, Size: 3})
	scr, out, send := run(t, m)
	waitText(t, out, "Press ? for the keys.")
	send("d")
	waitText(t, out, "Best 500, rank 3 on the 3 by 3 leaderboard.\n")
	send("a")
	send("q")
	<-scr.Done()
	want := `2048 for screen readers.
3 by 3 game, 0 moves, score 0.
Row 1: 2, 4, 8.
Row 2: 16, 32, 64.
Row 3: 4, 128, empty.
Press ? for the keys.
Right: tiles slide, nothing merges; new 2 at row 3, column 1. Score 0.
Game over: no move is left. Final score 0. n starts a new game, q quits.
Score 0, 1 move. Best 500, rank 3 on the 3 by 3 leaderboard.
Game over: no move is left. Final score 0. n starts a new game, q quits.
Your game is over and saved; a new one starts when you come back.
`
	if got := out.String(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

// TestSentenceWaitsForCommit: a move's sentence is written once its
// commit returns, and the keys typed meanwhile are handled after it, in
// order.
func TestSentenceWaitsForCommit(t *testing.T) {
	st, p := storeWith(t, "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0")
	p.entered, p.gate = make(chan struct{}, 4), make(chan struct{})
	m := reader.New(reader.Options{Store: st})
	_, out, send := run(t, m)
	waitText(t, out, "Press ? for the keys.")
	send("a")
	<-p.entered
	send("b")
	send("d")
	// b's board must not come before the move's sentence: it waits too.
	if strings.Contains(out.String(), "Left:") || strings.Count(out.String(), "Row 1:") != 1 {
		t.Fatalf("said before the commit returned:\n%s", out.String())
	}
	p.gate <- struct{}{}
	<-p.entered
	p.gate <- struct{}{}
	waitText(t, out, "Right: ")
	got := out.String()
	got = got[strings.Index(got, "Press ?"):]
	want := `Press ? for the keys.
Left: 2 and 2 merged into 4 in row 1; new 2 at row 1, column 2. Score 4.
Row 1: 4, 2, empty, empty.
Row 2: empty, empty, empty, empty.
Row 3: empty, empty, empty, empty.
Row 4: empty, empty, empty, empty.
Right: tiles slide, nothing merges; new 2 at row 1, column 1. Score 4.
`
	if got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}

func TestReaderKeys(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  reader.Options
		keys  []string
		wants []string
	}{
		{"new game asks first", reader.Options{}, []string{"n", "x", "y"},
			[]string{"Start a new game?", "Start a new game?", "New game.\n4 by 4 game, 0 moves, score 0.\nRow 1: 2, empty"}},
		{"new game declined", reader.Options{}, []string{"n", "\x1b"}, []string{"Start a new game?", "Carry on with this game."}},
		{"size", reader.Options{}, []string{"5"}, []string{"5 by 5 game, 0 moves, score 0.\nRow 1: 2, empty, empty, empty, empty."}},
		{"smallest", reader.Options{Size: 3}, []string{"3"}, []string{"This is the 3 by 3 game"}},
		{"no AI", reader.Options{}, []string{"i"}, []string{"The AI is off on this server."}},
		{"daily is one game", reader.Options{Daily: "2026-11-27"}, []string{"n", "6", "i"},
			[]string{"daily challenge of 2026-11-27", "The daily is one game: no new game, other sizes or AI.\nThe daily is one game"}},
		{"guest", reader.Options{Guest: true}, []string{"r"}, []string{"You play as a guest: nothing is saved.", "Guests are not ranked."}},
		{"your games", reader.Options{}, []string{"g"}, []string{"Your games are not on this screen: the history command reads them"}},
		{"leaderboard", reader.Options{}, []string{"\t"}, []string{"Top 2 of the 4 by 4 leaderboard:\n1. bea, 9000.\n3. ada, 500.\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, _ := storeWith(t, "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2")
			st.me = &reader.Row{Rank: 3, Player: "ada", Score: 500}
			opts := tt.opts
			opts.Store = st
			_, out, send := run(t, reader.New(opts))
			waitText(t, out, "Press ? for the keys.")
			for _, k := range tt.keys {
				send(k)
			}
			for _, w := range tt.wants {
				waitText(t, out, w)
			}
		})
	}
}

func TestReaderEnds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		open   error
		moveEr error
		msg    any
		keys   string
		want   string
		failed bool
	}{
		{name: "taken over", msg: event.TakenOverMsg{},
			want: "Your 4×4 game was opened in a newer session, which takes over from here; nothing was lost.\n"},
		{name: "shutdown", msg: event.ShutdownMsg{Text: "The server is restarting; your game is saved."},
			want: "The server is restarting; your game is saved.\n"},
		{name: "idle", msg: event.EndMsg{Text: "No input."}, want: "No input.\n"},
		{name: "daily played", open: game.ErrDailyPlayed, keys: "q",
			want: "Today's 4 by 4 challenge is played."},
		{name: "load fails", open: errors.New("disk gone"),
			want: "Could not load your game (disk gone). Please try again later.\n", failed: true},
		{name: "move taken over", moveEr: game.ErrTakenOver, keys: "a",
			want: "Your 4×4 game was opened in a newer session, which takes over from here; nothing was lost.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, p := storeWith(t, "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2")
			st.openEr, p.err = tt.open, tt.moveEr
			opts := reader.Options{Store: st}
			if tt.open == game.ErrDailyPlayed {
				opts.Daily = "2026-11-27"
			}
			m := reader.New(opts)
			scr, out, send := run(t, m)
			if tt.msg != nil {
				waitText(t, out, "Press ? for the keys.")
				scr.Send(tt.msg)
			}
			if tt.keys != "" {
				send(tt.keys)
			}
			select {
			case <-scr.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("the screen did not end; transcript:\n%s", out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("transcript:\n%s\nwant %q", out.String(), tt.want)
			}
			if m.Failed() != tt.failed {
				t.Errorf("Failed() = %v, want %v", m.Failed(), tt.failed)
			}
		})
	}
}

// TestReaderGameOfAnAccountGoneWaitsForItsNotice: a game that cannot be
// opened as the player's account is gone (a merge the node did not hear
// of: game.ErrAccountGone) is no failure of the server's: the seat has
// told the session, whose notice ends the screen with its line. The
// screen said it could not load the game, start a new one or open
// another size, and a move not saved whose game could not be opened
// again ended it as failed, with "Could not save your move".
func TestReaderGameOfAnAccountGoneWaitsForItsNotice(t *testing.T) {
	const line = "This key joined another account."
	for _, tt := range []struct {
		name    string
		keys    string // typed once the account is gone; none: the screen's first game
		moveErr error
	}{
		{name: "load"},
		{name: "new game", keys: "ny"},
		{name: "another size", keys: "5"},
		{name: "a move not saved", keys: "a", moveErr: errors.New("disk full")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, p := storeWith(t, "0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2")
			p.err = tt.moveErr
			if tt.keys == "" {
				st.failOpens(game.ErrAccountGone)
			}
			m := reader.New(reader.Options{Store: st})
			scr, out, send := run(t, m)
			if tt.keys != "" {
				waitText(t, out, "Press ? for the keys.")
				st.failOpens(game.ErrAccountGone)
				send(tt.keys)
				deadline := time.Now().Add(10 * time.Second)
				for st.openCalls() < 2 {
					if time.Now().After(deadline) {
						t.Fatalf("the screen never opened a game again; transcript:\n%s", out.String())
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			scr.Send(event.EndMsg{Text: line})
			select {
			case <-scr.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("the screen did not end; transcript:\n%s", out.String())
			}
			if got := out.String(); strings.Contains(got, "Could not") || !strings.HasSuffix(got, line+"\n") || m.Failed() {
				t.Errorf("failed %v, transcript:\n%s\nwant nothing it could not do, and %q last", m.Failed(), got, line)
			}
		})
	}
}
