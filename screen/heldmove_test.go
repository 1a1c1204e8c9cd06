package screen_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/tui"
)

// heldStore is a guest store whose moves wait, as a commit does, until
// the test lets them through, and that records the moves in the order
// they were played.
type heldStore struct {
	*tui.GuestStore
	entered chan engine.Direction // a move is waiting for its commit
	release chan struct{}         // closed: every commit returns
	mu      sync.Mutex
	played  []engine.Direction
}

func (s *heldStore) Open(ctx context.Context, size int, fresh bool) (tui.Play, error) {
	g, err := s.GuestStore.Open(ctx, size, fresh)
	if err != nil {
		return nil, err
	}
	return &heldPlay{Play: g, s: s}, nil
}

func (s *heldStore) moves() []engine.Direction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.played)
}

// heldPlay holds its lock while its commit waits, as game.Play does: the
// game's reads wait for the commit too.
type heldPlay struct {
	tui.Play
	s  *heldStore
	mu sync.Mutex
}

func (p *heldPlay) Move(ctx context.Context, d engine.Direction) (engine.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	res, err := p.Play.Move(ctx, d)
	if err != nil || !res.Moved {
		return res, err
	}
	p.s.mu.Lock()
	p.s.played = append(p.s.played, d)
	p.s.mu.Unlock()
	p.s.entered <- d
	<-p.s.release
	return res, nil
}

func (p *heldPlay) Board() engine.Board { p.mu.Lock(); defer p.mu.Unlock(); return p.Play.Board() }
func (p *heldPlay) Score() int          { p.mu.Lock(); defer p.mu.Unlock(); return p.Play.Score() }
func (p *heldPlay) Moves() int          { p.mu.Lock(); defer p.mu.Unlock(); return p.Play.Moves() }
func (p *heldPlay) Won() bool           { p.mu.Lock(); defer p.mu.Unlock(); return p.Play.Won() }
func (p *heldPlay) Over() bool          { p.mu.Lock(); defer p.mu.Unlock(); return p.Play.Over() }
func (p *heldPlay) Watchers() int       { p.mu.Lock(); defer p.mu.Unlock(); return p.Play.Watchers() }

// keyCount is a game screen that counts the keys it is given, and
// keeps the last width it was told.
type keyCount struct {
	*tui.Model
	n, width atomic.Int64
}

func (k *keyCount) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		k.n.Add(1)
	case tea.WindowSizeMsg:
		k.width.Store(int64(msg.Width))
	}
	_, cmd := k.Model.Update(msg)
	return k, cmd
}

// TestScreenMoveCommitHeld plays the game screen on a screen while its
// first move's commit is held: the screen must stay free meanwhile (a
// resize sent is handled at once), nothing drawn shows the move, and the
// keys typed during the wait are applied in order once the commit
// returns.
func TestScreenMoveCommitHeld(t *testing.T) {
	st := &heldStore{
		GuestStore: tui.NewGuestStore(nil, func() uint64 { return 1 }),
		entered:    make(chan engine.Direction, 8),
		release:    make(chan struct{}),
	}
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(st.release) }) }
	t.Cleanup(let) // a failed test must not leave the commit waiting

	// The moves that change the board, from the game the store opens.
	g, err := engine.PCG.NewGame(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	arrows := map[engine.Direction]string{engine.Up: "\x1b[A", engine.Down: "\x1b[B", engine.Right: "\x1b[C", engine.Left: "\x1b[D"}
	var typed []engine.Direction
	for len(typed) < 3 {
		for _, d := range []engine.Direction{engine.Left, engine.Down, engine.Right, engine.Up} {
			if g.Move(d).Moved {
				typed = append(typed, d)
				break
			}
		}
	}

	in := newQueue()
	term := newTerminal(80, 24, false, in)
	model := &keyCount{Model: tui.New(tui.Options{Store: st, Player: "ann", Guest: true})}
	scr := screen.New(model, term, screen.Options{Width: 80, Height: 24, Profile: colorprofile.ASCII,
		Unsupported: func(what string) { t.Errorf("the game screen asked for %s", what) }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := scr.Run(ctx, in); err != nil {
			t.Errorf("screen: %v", err)
		}
	}()
	t.Cleanup(func() {
		let()
		cancel()
		<-done
		in.close()
		term.close()
	})
	text := func() string { return term.snapshot().text() }
	waitFor(t, "the first frame", func() bool { return strings.Contains(text(), "Moves 0") })

	in.write(arrows[typed[0]])
	select {
	case <-st.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the move did not reach the store")
	}
	sent := make(chan struct{})
	go func() {
		term.resize(100, 30)
		scr.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
		close(sent)
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("Send waited for the move's commit: the screen's lock is held while a move commits")
	}
	waitFor(t, "the resize to be handled", func() bool { return model.width.Load() == 100 })

	// Keys typed while the commit waits are applied after it, in order.
	in.write(arrows[typed[1]] + arrows[typed[2]])
	waitFor(t, "the keys typed during the commit", func() bool { return model.n.Load() == 3 })
	if f := text(); !strings.Contains(f, "Moves 0") {
		t.Fatalf("a frame drawn while the move commits shows a move:\n%s", f)
	}
	let()
	waitFor(t, "the three moves' frame", func() bool { return strings.Contains(text(), "Moves 3") })

	if got := st.moves(); !slices.Equal(got, typed) {
		t.Errorf("moves played %v, typed %v", got, typed)
	}
}
