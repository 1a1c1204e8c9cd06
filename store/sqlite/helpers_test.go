package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// openStore opens a store in a fresh temporary directory and closes it at
// the end of the test.
func openStore(t testing.TB, opts ...Option) *Store {
	t.Helper()
	opts = append([]Option{WithLogger(quiet), WithBestsEvery(time.Hour)}, opts...)
	s, err := Open(context.Background(), t.TempDir(), opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// quiet discards logs of tests that do not look at them.
var quiet = slog.New(slog.DiscardHandler)

func addPlayer(t testing.TB, s *Store, name string) store.Player {
	t.Helper()
	p, err := s.UpsertPlayer(context.Background(), "SHA256:"+name+"-fingerprint", "ssh-ed25519", name)
	if err != nil {
		t.Fatalf("UpsertPlayer(%q): %v", name, err)
	}
	return p
}

// movingDirection returns a direction that changes g's board, chosen with
// rng, or false when the game is over.
func movingDirection(g *engine.Game, rng *rand.Rand) (engine.Direction, bool) {
	start := rng.IntN(4)
	for i := range 4 {
		d := engine.Direction((start + i) % 4)
		b := g.Board()
		if _, moved := b.Move(d); moved {
			return d, true
		}
	}
	return 0, false
}

// playMove makes one real move in g and stores it.
func playMove(ctx context.Context, s *Store, g *store.SavedGame, rng *rand.Rand) error {
	d, ok := movingDirection(g.Engine, rng)
	if !ok {
		return fmt.Errorf("game %d is over", g.ID)
	}
	seq := g.Engine.Moves()
	g.Engine.Move(d)
	return s.AppendMove(ctx, g.ID, seq, d, store.StateOf(g.Engine))
}

// playFencedMove is playMove with g's claim token (SavedGame.Fence), as a
// game service stores moves.
func playFencedMove(ctx context.Context, s *Store, g *store.SavedGame, rng *rand.Rand) error {
	d, _ := movingDirection(g.Engine, rng)
	seq := g.Engine.Moves()
	g.Engine.Move(d)
	st := store.StateOf(g.Engine)
	st.Fence = g.Fence
	return s.AppendMove(ctx, g.ID, seq, d, st)
}

// logBuffer is a slog handler target tests can read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// storedMoves is SQL for how many moves game g holds: its chunks and its
// tail (moves.go).
const foldedMoves = `(length(g.tail) + coalesce((SELECT sum(length(c.dirs)) FROM move_chunks c WHERE c.game_id = g.id), 0))`

// storedMoves is game g's moves: those in its row and chunks, and those
// in the log not folded yet.
const storedMoves = `(` + foldedMoves + ` + (SELECT count(*) FROM move_log l WHERE l.game_id = g.id AND l.seq >= g.moves))`

func countMoves(t testing.TB, s *Store, gameID int64) int {
	t.Helper()
	var n int
	if err := s.read.QueryRow(`SELECT `+storedMoves+` FROM games g WHERE g.id = ?`, gameID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
