package db

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
)

func TestGameLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := addPlayer(t, s, "alice")
	rng := rand.New(rand.NewPCG(1, 2))

	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if g.PlayerID != p.ID || g.Size != 4 || g.Kind != KindHuman || g.Engine.Moves() != 0 {
		t.Fatalf("new game = %+v", g)
	}
	again, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != g.ID {
		t.Fatalf("LoadOrCreateGame made a second game %d, want %d", again.ID, g.ID)
	}
	other, err := s.LoadOrCreateGame(ctx, p.ID, 5, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if other.ID == g.ID {
		t.Fatal("a 5×5 game shares the 4×4 game's id")
	}

	for range 30 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || StateOf(loaded.Engine) != StateOf(g.Engine) || loaded.Seed != g.Seed {
		t.Fatalf("reloaded %+v\n want %+v", StateOf(loaded.Engine), StateOf(g.Engine))
	}

	// A stale writer (same seq again) conflicts and writes nothing.
	err = s.AppendMove(ctx, g.ID, 28, engine.Up, StateOf(g.Engine)) // state says 30 moves
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("seq not matching state: err = %v, want ErrInvalid", err)
	}
	st := StateOf(g.Engine)
	st.Moves = 30
	if err := s.AppendMove(ctx, g.ID, 29, engine.Up, st); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale seq: err = %v, want ErrConflict", err)
	}
	st.Moves = 41
	if err := s.AppendMove(ctx, g.ID, 40, engine.Up, st); !errors.Is(err, ErrConflict) {
		t.Fatalf("future seq: err = %v, want ErrConflict", err)
	}
	if n := countMoves(t, s, g.ID); n != 30 {
		t.Fatalf("stored moves = %d after rejected writes, want 30", n)
	}

	// NewGame ends the one in progress; its score still counts.
	fresh, err := s.NewGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ID == g.ID || fresh.Engine.Moves() != 0 {
		t.Fatalf("NewGame = %+v", fresh)
	}
	wantScore := g.Engine.Score()
	if err := playMove(ctx, s, g, rng); !errors.Is(err, ErrGameEnded) {
		t.Fatalf("move on replaced game: err = %v, want ErrGameEnded", err)
	}
	e, err := s.PlayerRank(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if e.GameID != g.ID || e.Score != wantScore || e.Ended == nil || e.Rank != 1 {
		t.Fatalf("rank entry %+v, want ended game %d with score %d", e, g.ID, wantScore)
	}

	// EndGame checks the count and refuses twice.
	if err := s.EndGame(ctx, fresh.ID, MoveState{Moves: 3, Board: fresh.Engine.Board().String()}); !errors.Is(err, ErrConflict) {
		t.Fatalf("EndGame with wrong count: err = %v, want ErrConflict", err)
	}
	if err := s.EndGame(ctx, fresh.ID, StateOf(fresh.Engine)); err != nil {
		t.Fatal(err)
	}
	if err := s.EndGame(ctx, fresh.ID, StateOf(fresh.Engine)); !errors.Is(err, ErrGameEnded) {
		t.Fatalf("EndGame twice: err = %v, want ErrGameEnded", err)
	}

	games, err := s.PlayerGames(ctx, p.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, gs := range games {
		ids = append(ids, gs.ID)
	}
	if len(games) != 3 || games[0].ID != fresh.ID || games[2].ID != g.ID || games[2].Moves != 30 || games[1].EndedAt != nil {
		t.Fatalf("PlayerGames ids %v: %+v", ids, games)
	}

	// After an end, LoadOrCreateGame starts a new game.
	next, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID == fresh.ID || next.ID == g.ID {
		t.Fatalf("LoadOrCreateGame after end returned old game %d", next.ID)
	}
}

func countMoves(t testing.TB, s *Store, gameID int64) int {
	t.Helper()
	var n int
	if err := s.read.QueryRow(`SELECT count(*) FROM moves WHERE game_id = ?`, gameID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSeedsAboveMaxInt64RoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []uint64{0, 1, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64} {
		s := openStore(t)
		s.newSeed = func() uint64 { return seed }
		p := addPlayer(t, s, "seed")
		g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindBot)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		for range 10 {
			if err := playMove(ctx, s, g, rng); err != nil {
				t.Fatal(err)
			}
		}
		loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindBot)
		if err != nil {
			t.Fatal(err)
		}
		if loaded.Seed != seed || StateOf(loaded.Engine) != StateOf(g.Engine) {
			t.Errorf("seed %d: loaded seed %d, state %+v want %+v", seed, loaded.Seed, StateOf(loaded.Engine), StateOf(g.Engine))
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := addPlayer(t, s, "bob")
	if _, err := s.LoadOrCreateGame(ctx, p.ID, 2, KindHuman); !errors.Is(err, ErrInvalid) {
		t.Errorf("size 2: err = %v", err)
	}
	if _, err := s.NewGame(ctx, p.ID, 4, Kind("cheat")); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad kind: err = %v", err)
	}
	if _, err := s.LoadOrCreateGame(ctx, p.ID+100, 4, KindHuman); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown player: err = %v", err)
	}
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	st := StateOf(g.Engine)
	st.Moves = 1
	if err := s.AppendMove(ctx, g.ID, 0, engine.Direction(9), st); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad direction: err = %v", err)
	}
	st.Board = "2 2/2"
	if err := s.AppendMove(ctx, g.ID, 0, engine.Up, st); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad board: err = %v", err)
	}
	if err := s.AppendMove(ctx, g.ID+100, 0, engine.Up, MoveState{Moves: 1, Board: g.Engine.Board().String()}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown game: err = %v", err)
	}
	if err := s.MarkAssisted(ctx, g.ID+100); !errors.Is(err, ErrNotFound) {
		t.Errorf("MarkAssisted unknown game: err = %v", err)
	}
	if _, err := s.PlayerRank(ctx, p.ID, 4, KindHuman); !errors.Is(err, ErrNotFound) {
		t.Errorf("rank without moves: err = %v", err)
	}
	// A score that goes down is refused, and nothing is written.
	first := MoveState{Score: 8, MaxTile: 4, Moves: 1, Board: g.Engine.Board().String()}
	if err := s.AppendMove(ctx, g.ID, 0, engine.Up, first); err != nil {
		t.Fatal(err)
	}
	lower := MoveState{Score: 4, MaxTile: 4, Moves: 2, Board: g.Engine.Board().String()}
	if err := s.AppendMove(ctx, g.ID, 1, engine.Up, lower); !errors.Is(err, ErrInvalid) {
		t.Errorf("score going down: err = %v, want ErrInvalid", err)
	}
	if n := countMoves(t, s, g.ID); n != 1 {
		t.Errorf("%d moves stored after a refused one, want 1", n)
	}
	if err := s.EndGame(ctx, g.ID+100, first); !errors.Is(err, ErrNotFound) {
		t.Errorf("EndGame unknown game: err = %v", err)
	}
	if _, err := s.UpsertPlayer(ctx, "", "ssh-ed25519", "x"); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty fingerprint: err = %v", err)
	}
}

func TestCanceledContextWritesNothing(t *testing.T) {
	s := openStore(t)
	p := addPlayer(t, s, "carol")
	g, err := s.LoadOrCreateGame(context.Background(), p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = playMove(ctx, s, g, rand.New(rand.NewPCG(3, 4)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := countMoves(t, s, g.ID); n != 0 {
		t.Fatalf("%d moves stored after a canceled append", n)
	}
}

func TestCloseFlushesAndRefusesLaterWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	p := addPlayer(t, s, "dave")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 8, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpsertPlayer(ctx, "SHA256:x", "ssh-rsa", "x"); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after Close: err = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s2, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	loaded, err := s2.LoadOrCreateGame(ctx, p.ID, 8, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || loaded.Engine.Moves() != 20 {
		t.Fatalf("after reopen: game %d with %d moves, want %d with 20", loaded.ID, loaded.Engine.Moves(), g.ID)
	}
}

func TestReplayMismatchIsLoggedLoudly(t *testing.T) {
	ctx := context.Background()
	var logs logBuffer
	s := openStore(t, WithLogger(logs.logger()))
	p := addPlayer(t, s, "erin")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.write.Exec(`UPDATE games SET score = score + 1000 WHERE id = ?`, g.ID); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || StateOf(loaded.Engine) != StateOf(g.Engine) {
		t.Fatalf("loaded %+v, want the replayed game %+v", StateOf(loaded.Engine), StateOf(g.Engine))
	}
	if !strings.Contains(logs.String(), "REPLAY MISMATCH") || !strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("no loud log of the mismatch; logs:\n%s", logs.String())
	}
}

func TestReplayDivergenceEndsGameAndStartsNew(t *testing.T) {
	ctx := context.Background()
	var logs logBuffer
	s := openStore(t, WithLogger(logs.logger()))
	// Find a seed whose first board has a direction that does not move it.
	var still engine.Direction
	seed, found := uint64(0), false
	for ; !found; seed++ {
		eg, err := engine.Current.NewGame(4, seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range engine.Directions() {
			b := eg.Board()
			if _, moved := b.Move(d); !moved {
				still, found = d, true
				break
			}
		}
	}
	s.newSeed = func() uint64 { return seed - 1 }
	p := addPlayer(t, s, "frank")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	// Store a first move that does not move the board, as if the rules had
	// changed since it was played: replay counts 0 moves, the row says 1.
	st := StateOf(g.Engine)
	st.Moves = 1
	if err := s.AppendMove(ctx, g.ID, 0, still, st); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID == g.ID {
		t.Fatal("diverged game was handed out again")
	}
	var ended bool
	if err := s.read.QueryRow(`SELECT ended_at IS NOT NULL FROM games WHERE id = ?`, g.ID).Scan(&ended); err != nil || !ended {
		t.Fatalf("diverged game not ended (%v)", err)
	}
	if !strings.Contains(logs.String(), "REPLAY MISMATCH") {
		t.Fatalf("no loud log; logs:\n%s", logs.String())
	}
	if n := countMoves(t, s, g.ID); n != 1 {
		t.Fatalf("diverged game lost its moves: %d", n)
	}
}

// TestGamesReplayWithTheirOwnGenerator: new games record the current
// generator; a game stored before generators were recorded (generator 1,
// PCG, the column's default) still replays with PCG.
func TestGamesReplayWithTheirOwnGenerator(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := addPlayer(t, s, "gen")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if g.Engine.Generator() != engine.Current {
		t.Fatalf("new game uses %v, want %v", g.Engine.Generator(), engine.Current)
	}
	// Turn it into a game of before: PCG from the same seed, a few moves.
	old, err := engine.PCG.NewGame(4, g.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.db.ExecContext(ctx, `UPDATE games SET generator = 1, board = ?, max_tile = ? WHERE id = ?`,
		old.Board().String(), old.MaxTile(), g.ID); err != nil {
		t.Fatal(err)
	}
	for _, d := range []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down, engine.Left} {
		if old.Move(d).Moved {
			if err := s.AppendMove(ctx, g.ID, old.Moves()-1, d, StateOf(old)); err != nil {
				t.Fatal(err)
			}
		}
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || loaded.Engine.Generator() != engine.PCG || StateOf(loaded.Engine) != StateOf(old) {
		t.Fatalf("old game reloads as %v %+v, want PCG %+v", loaded.Engine.Generator(), StateOf(loaded.Engine), StateOf(old))
	}
}

func TestFullGame(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := addPlayer(t, s, "hal")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 30 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	full, err := s.FullGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := full.Generator.Replay(full.Size, full.Seed, full.Dirs)
	if err != nil {
		t.Fatal(err)
	}
	if full.Player != "hal" || full.Fingerprint != p.Fingerprint || full.EndedAt != nil || full.Moves != 30 ||
		StateOf(replayed) != StateOf(g.Engine) {
		t.Fatalf("full game %+v replays to %+v, want %+v", full, StateOf(replayed), StateOf(g.Engine))
	}
	if _, err := s.FullGame(ctx, g.ID+1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown game: %v", err)
	}
}
