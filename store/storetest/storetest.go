// Package storetest is the conformance suite of the stores behind
// store.Store: package sqlite's SQLite store and package postgres's
// PostgreSQL store run the same tests (Run), so that "the same guarantees" is
// checked, not hoped for. What only one backend has (SQLite's files,
// pragmas, query plans and crash tests) stays in that backend's own tests.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// Store is what the suite tests: the contract, the optional abilities
// both stores have (the suite checks them too, so a store under test must
// have them), and Close.
type Store interface {
	store.Store
	store.ContestEnder
	store.BotRaceBoarder
	store.ContestRanker
	store.Moderator
	store.ReviewStore
	store.SettingsKeeper
	store.Accounts
	store.MergeWatcher
	io.Closer
}

// Backend opens stores of one kind. The suite reaches a store only
// through Store: what only one kind of store keeps (its tables, files,
// pragmas) is checked in that store's own tests.
type Backend struct {
	// Open opens a store on a fresh, empty database, logging to log, and
	// closes it when the test ends. reopen opens another store on the
	// same database.
	Open func(tb testing.TB, log *slog.Logger) (s Store, reopen func() (Store, error))
	// SetSeeds makes s start its free games on the seeds next returns
	// (a test hook: the contract takes seeds from store.NewSeed), for
	// the tests that need a first board of a known shape.
	SetSeeds func(s Store, next func() uint64)
}

// Run runs every test of the suite against b.
func Run(t *testing.T, b Backend) {
	for _, c := range []struct {
		name string
		test func(*testing.T, Backend)
	}{
		{"GameLifecycle", testGameLifecycle},
		{"SeedsAboveMaxInt64RoundTrip", testSeedsAboveMaxInt64RoundTrip},
		{"InvalidArguments", testInvalidArguments},
		{"CanceledContextWritesNothing", testCanceledContextWritesNothing},
		{"CloseFlushesAndRefusesLaterWrites", testCloseFlushesAndRefusesLaterWrites},
		{"ReplayMismatchIsLoggedLoudly", testReplayMismatchIsLoggedLoudly},
		{"ReplayDivergenceEndsGameAndStartsNew", testReplayDivergenceEndsGameAndStartsNew},
		{"FullGame", testFullGame},
		{"LongGameReadsBack", testLongGameReadsBack},
		{"LoadingTouchesTheGame", testLoadingTouchesTheGame},
		{"NewGameIsAsStored", testNewGameIsAsStored},
		{"LeaderboardOrderAndTies", testLeaderboardOrderAndTies},
		{"MarkAssistedKeepsOneGameInProgress", testMarkAssistedKeepsOneGameInProgress},
		{"RankAgreesWithLeaderboard", testRankAgreesWithLeaderboard},
		{"RanksFollowWrites", testRanksFollowWrites},
		{"RanksSeeAnotherStore", testRanksSeeAnotherStore},
		{"ContestGames", testContestGames},
		{"DailyOneAttemptAtOnce", testDailyOneAttemptAtOnce},
		{"SecretIsKept", testSecretIsKept},
		{"Races", testRaces},
		{"ConcurrentAppends", testConcurrentAppends},
		{"RacingMoves", testRacingMoves},
		{"Admins", testAdmins},
		{"Bans", testBans},
		{"ConcurrentBans", testConcurrentBans},
		{"Hide", testHide},
		{"RenameAndFind", testRenameAndFind},
		{"LinkPastABan", testLinkPastABan},
		{"BansNameTheAccountsKeys", testBansNameTheAccountsKeys},
		{"MergeKeepsModeration", testMergeKeepsModeration},
		{"MergeKeepsNameLock", testMergeKeepsNameLock},
		{"HiddenGames", testHiddenGames},
		{"Reviews", testReviews},
		{"PlayerReviews", testPlayerReviews},
		{"SettingsAreKeptPerPlayer", testSettingsAreKeptPerPlayer},
		{"MergeKeepsSettings", testMergeKeepsSettings},
		{"LinkKeyWithoutGames", testLinkKeyWithoutGames},
		{"MergeKeepsEveryGame", testMergeKeepsEveryGame},
		{"RaceAfterAMerge", testRaceAfterAMerge},
		{"TwoSeatsOfOneRace", testTwoSeatsOfOneRace},
		{"RacesRateFromStoredRatings", testRacesRateFromStoredRatings},
		{"HiddenGameLeavesTheBotRaceBoard", testHiddenGameLeavesTheBotRaceBoard},
		{"RemoveKey", testRemoveKey},
		{"MergedIDIsNotReused", testMergedIDIsNotReused},
		{"GoneAccounts", testGoneAccounts},
		{"MergedInto", testMergedInto},
		{"Names", testNames},
		{"ConcurrentNameClaims", testConcurrentNameClaims},
		{"ConcurrentLinks", testConcurrentLinks},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, b) })
	}
}

// quiet discards logs of tests that do not look at them.
var quiet = slog.New(slog.DiscardHandler)

func (b Backend) open(tb testing.TB) Store {
	s, _ := b.Open(tb, quiet)
	return s
}

// countMoves is how many moves of the game s keeps: FullGame's.
func countMoves(tb testing.TB, s Store, gameID int64) int {
	tb.Helper()
	full, err := s.FullGame(context.Background(), gameID)
	if err != nil {
		tb.Fatalf("FullGame(%d): %v", gameID, err)
	}
	return len(full.Dirs)
}

func addPlayer(tb testing.TB, s Store, name string) store.Player {
	tb.Helper()
	p, err := s.UpsertPlayer(context.Background(), "SHA256:"+name+"-fingerprint", "ssh-ed25519", name)
	if err != nil {
		tb.Fatalf("UpsertPlayer(%q): %v", name, err)
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
func playMove(ctx context.Context, s Store, g *store.SavedGame, rng *rand.Rand) error {
	d, ok := movingDirection(g.Engine, rng)
	if !ok {
		return fmt.Errorf("game %d is over", g.ID)
	}
	seq := g.Engine.Moves()
	g.Engine.Move(d)
	return s.AppendMove(ctx, g.ID, seq, d, store.StateOf(g.Engine))
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

func testGameLifecycle(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	p := addPlayer(t, s, "alice")
	rng := rand.New(rand.NewPCG(1, 2))
	if got, err := s.PlayerByID(ctx, p.ID); err != nil || got.Fingerprint != p.Fingerprint || got.Name != "alice" || !got.FirstSeen.Equal(p.FirstSeen) {
		t.Fatalf("PlayerByID(%d) = %+v, %v; want %+v", p.ID, got, err, p)
	}
	if _, err := s.PlayerByID(ctx, p.ID+100); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("PlayerByID of no one: %v, want ErrNotFound", err)
	}

	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if g.PlayerID != p.ID || g.Size != 4 || g.Kind != store.KindHuman || g.Engine.Moves() != 0 {
		t.Fatalf("new game = %+v", g)
	}
	again, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != g.ID {
		t.Fatalf("LoadOrCreateGame made a second game %d, want %d", again.ID, g.ID)
	}
	other, err := s.LoadOrCreateGame(ctx, p.ID, 5, store.KindHuman)
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
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || store.StateOf(loaded.Engine) != store.StateOf(g.Engine) || loaded.Seed != g.Seed {
		t.Fatalf("reloaded %+v\n want %+v", store.StateOf(loaded.Engine), store.StateOf(g.Engine))
	}

	// A stale writer (same seq again) conflicts and writes nothing.
	err = s.AppendMove(ctx, g.ID, 28, engine.Up, store.StateOf(g.Engine)) // state says 30 moves
	if !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("seq not matching state: err = %v, want ErrInvalid", err)
	}
	st := store.StateOf(g.Engine)
	st.Moves = 30
	if err := s.AppendMove(ctx, g.ID, 29, engine.Up, st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale seq: err = %v, want ErrConflict", err)
	}
	st.Moves = 41
	if err := s.AppendMove(ctx, g.ID, 40, engine.Up, st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("future seq: err = %v, want ErrConflict", err)
	}
	if n := countMoves(t, s, g.ID); n != 30 {
		t.Fatalf("stored moves = %d after rejected writes, want 30", n)
	}

	// NewGame ends the one in progress; its score still counts.
	fresh, err := s.NewGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.ID == g.ID || fresh.Engine.Moves() != 0 {
		t.Fatalf("NewGame = %+v", fresh)
	}
	wantScore := g.Engine.Score()
	if err := playMove(ctx, s, g, rng); !errors.Is(err, store.ErrGameEnded) {
		t.Fatalf("move on replaced game: err = %v, want ErrGameEnded", err)
	}
	e, err := s.PlayerRank(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if e.GameID != g.ID || e.Score != wantScore || e.Ended == nil || e.Rank != 1 {
		t.Fatalf("rank entry %+v, want ended game %d with score %d", e, g.ID, wantScore)
	}

	// EndGame checks the count and refuses twice.
	if err := s.EndGame(ctx, fresh.ID, store.MoveState{Moves: 3, Board: fresh.Engine.Board().String()}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("EndGame with wrong count: err = %v, want ErrConflict", err)
	}
	if err := s.EndGame(ctx, fresh.ID, store.StateOf(fresh.Engine)); err != nil {
		t.Fatal(err)
	}
	if err := s.EndGame(ctx, fresh.ID, store.StateOf(fresh.Engine)); !errors.Is(err, store.ErrGameEnded) {
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
	next, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID == fresh.ID || next.ID == g.ID {
		t.Fatalf("LoadOrCreateGame after end returned old game %d", next.ID)
	}
}

func testSeedsAboveMaxInt64RoundTrip(t *testing.T, b Backend) {
	ctx := context.Background()
	for _, seed := range []uint64{0, 1, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64} {
		s := b.open(t)
		b.SetSeeds(s, func() uint64 { return seed })
		p := addPlayer(t, s, "seed")
		g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindBot)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		for range 10 {
			if err := playMove(ctx, s, g, rng); err != nil {
				t.Fatal(err)
			}
		}
		loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindBot)
		if err != nil {
			t.Fatal(err)
		}
		if loaded.Seed != seed || store.StateOf(loaded.Engine) != store.StateOf(g.Engine) {
			t.Errorf("seed %d: loaded seed %d, state %+v want %+v", seed, loaded.Seed, store.StateOf(loaded.Engine), store.StateOf(g.Engine))
		}
	}
}

func testInvalidArguments(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	p := addPlayer(t, s, "bob")
	if _, err := s.LoadOrCreateGame(ctx, p.ID, 2, store.KindHuman); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("size 2: err = %v", err)
	}
	if _, err := s.NewGame(ctx, p.ID, 4, store.Kind("cheat")); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad kind: err = %v", err)
	}
	if _, err := s.LoadOrCreateGame(ctx, p.ID+100, 4, store.KindHuman); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown player: err = %v", err)
	}
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	st := store.StateOf(g.Engine)
	st.Moves = 1
	if err := s.AppendMove(ctx, g.ID, 0, engine.Direction(9), st); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad direction: err = %v", err)
	}
	st.Board = "2 2/2"
	if err := s.AppendMove(ctx, g.ID, 0, engine.Up, st); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("bad board: err = %v", err)
	}
	if err := s.AppendMove(ctx, g.ID+100, 0, engine.Up, store.MoveState{Moves: 1, Board: g.Engine.Board().String()}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown game: err = %v", err)
	}
	if err := s.MarkAssisted(ctx, g.ID+100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("MarkAssisted unknown game: err = %v", err)
	}
	if _, err := s.PlayerRank(ctx, p.ID, 4, store.KindHuman); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("rank without moves: err = %v", err)
	}
	// A score that goes down is refused, and nothing is written.
	first := store.MoveState{Score: 8, MaxTile: 4, Moves: 1, Board: g.Engine.Board().String()}
	if err := s.AppendMove(ctx, g.ID, 0, engine.Up, first); err != nil {
		t.Fatal(err)
	}
	lower := store.MoveState{Score: 4, MaxTile: 4, Moves: 2, Board: g.Engine.Board().String()}
	if err := s.AppendMove(ctx, g.ID, 1, engine.Up, lower); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("score going down: err = %v, want ErrInvalid", err)
	}
	if n := countMoves(t, s, g.ID); n != 1 {
		t.Errorf("%d moves stored after a refused one, want 1", n)
	}
	if err := s.EndGame(ctx, g.ID+100, first); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EndGame unknown game: err = %v", err)
	}
	if _, err := s.UpsertPlayer(ctx, "", "ssh-ed25519", "x"); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("empty fingerprint: err = %v", err)
	}
}

func testCanceledContextWritesNothing(t *testing.T, b Backend) {
	s := b.open(t)
	p := addPlayer(t, s, "carol")
	g, err := s.LoadOrCreateGame(context.Background(), p.ID, 4, store.KindHuman)
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

func testCloseFlushesAndRefusesLaterWrites(t *testing.T, b Backend) {
	ctx := context.Background()
	s, reopen := b.Open(t, quiet)
	p := addPlayer(t, s, "dave")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
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
	if _, err := s.UpsertPlayer(ctx, "SHA256:x", "ssh-rsa", "x"); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("write after Close: err = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s2, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	loaded, err := s2.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || loaded.Engine.Moves() != 20 {
		t.Fatalf("after reopen: game %d with %d moves, want %d with 20", loaded.ID, loaded.Engine.Moves(), g.ID)
	}
}

func testReplayMismatchIsLoggedLoudly(t *testing.T, b Backend) {
	ctx := context.Background()
	var logs logBuffer
	s, _ := b.Open(t, logs.logger())
	p := addPlayer(t, s, "erin")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 4 {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	// The fifth move is stored with a snapshot its replay will not reach:
	// stores keep the writer's state as it comes and replay only on load.
	d, ok := movingDirection(g.Engine, rng)
	if !ok {
		t.Fatal("game over after 4 moves")
	}
	g.Engine.Move(d)
	wrong := store.StateOf(g.Engine)
	wrong.Score += 1000
	if err := s.AppendMove(ctx, g.ID, 4, d, wrong); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || store.StateOf(loaded.Engine) != store.StateOf(g.Engine) {
		t.Fatalf("loaded %+v, want the replayed game %+v", store.StateOf(loaded.Engine), store.StateOf(g.Engine))
	}
	if !strings.Contains(logs.String(), "REPLAY MISMATCH") || !strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("no loud log of the mismatch; logs:\n%s", logs.String())
	}
}

func testReplayDivergenceEndsGameAndStartsNew(t *testing.T, b Backend) {
	ctx := context.Background()
	var logs logBuffer
	s, _ := b.Open(t, logs.logger())
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
	b.SetSeeds(s, func() uint64 { return seed - 1 })
	p := addPlayer(t, s, "frank")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	// Store a first move that does not move the board, as if the rules had
	// changed since it was played: replay counts 0 moves, the row says 1.
	st := store.StateOf(g.Engine)
	st.Moves = 1
	if err := s.AppendMove(ctx, g.ID, 0, still, st); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID == g.ID {
		t.Fatal("diverged game was handed out again")
	}
	if full, err := s.FullGame(ctx, g.ID); err != nil || full.EndedAt == nil {
		t.Fatalf("diverged game not ended: %+v, %v", full.GameSummary, err)
	}
	if !strings.Contains(logs.String(), "REPLAY MISMATCH") {
		t.Fatalf("no loud log; logs:\n%s", logs.String())
	}
	if n := countMoves(t, s, g.ID); n != 1 {
		t.Fatalf("diverged game lost its moves: %d", n)
	}
}

// MakeOld turns game id of s into a game stored before generators were
// recorded: its generator is PCG (1, the column's default) and its
// snapshot the given board and largest tile. The contract cannot write
// such a game, so each store's own tests give the statement.
type MakeOld func(tb testing.TB, s Store, id int64, board string, maxTile int)

// RunOldGenerator checks that new games record the current generator and
// that a game stored before generators were recorded still replays with
// PCG. It is not part of Run: only a store's own tests can make an old
// game (makeOld).
func RunOldGenerator(t *testing.T, b Backend, makeOld MakeOld) {
	ctx := context.Background()
	s := b.open(t)
	p := addPlayer(t, s, "gen")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
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
	makeOld(t, s, g.ID, old.Board().String(), old.MaxTile())
	for _, d := range []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down, engine.Left} {
		if old.Move(d).Moved {
			if err := s.AppendMove(ctx, g.ID, old.Moves()-1, d, store.StateOf(old)); err != nil {
				t.Fatal(err)
			}
		}
	}
	loaded, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID != g.ID || loaded.Engine.Generator() != engine.PCG || store.StateOf(loaded.Engine) != store.StateOf(old) {
		t.Fatalf("old game reloads as %v %+v, want PCG %+v", loaded.Engine.Generator(), store.StateOf(loaded.Engine), store.StateOf(old))
	}
}

func testFullGame(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	p := addPlayer(t, s, "hal")
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
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
		store.StateOf(replayed) != store.StateOf(g.Engine) {
		t.Fatalf("full game %+v replays to %+v, want %+v", full, store.StateOf(replayed), store.StateOf(g.Engine))
	}
	if _, err := s.FullGame(ctx, g.ID+1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown game: %v", err)
	}
}

// testLoadingTouchesTheGame: loading a game to play it counts as playing
// it (its UpdatedAt moves), so that the size a player switched to and
// made no move on is the one a new session opens (game.Seat.LastSize).
// testNewGameIsAsStored: a game a store has just made (a login's first
// game, a new game, a contest's) is the game it reads back for the next
// load, field for field and board for board, a hidden player's hidden too,
// however the store builds it.
func testNewGameIsAsStored(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	if err := s.HidePlayer(ctx, console, bob.ID); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		make func(playerID int64) (*store.SavedGame, error)
		load func(playerID int64) (*store.SavedGame, error)
	}{
		{"LoadOrCreateGame",
			func(id int64) (*store.SavedGame, error) { return s.LoadOrCreateGame(ctx, id, 4, store.KindHuman) },
			func(id int64) (*store.SavedGame, error) { return s.LoadOrCreateGame(ctx, id, 4, store.KindHuman) }},
		{"NewGame",
			func(id int64) (*store.SavedGame, error) { return s.NewGame(ctx, id, 5, store.KindAssisted) },
			func(id int64) (*store.SavedGame, error) { return s.LoadOrCreateGame(ctx, id, 5, store.KindAssisted) }},
		{"OpenContestGame",
			func(id int64) (*store.SavedGame, error) {
				return s.OpenContestGame(ctx, id, 4, store.KindHuman, "daily:2026-11-28", 77)
			},
			func(id int64) (*store.SavedGame, error) {
				return s.OpenContestGame(ctx, id, 4, store.KindHuman, "daily:2026-11-28", 77)
			}},
	} {
		for _, p := range []store.Player{ann, bob} {
			t.Run(c.name+"/"+p.Name, func(t *testing.T) {
				made, err := c.make(p.ID)
				if err != nil {
					t.Fatal(err)
				}
				read, err := c.load(p.ID)
				if err != nil {
					t.Fatal(err)
				}
				if made.ID != read.ID || made.PlayerID != read.PlayerID || made.Size != read.Size || made.Kind != read.Kind ||
					made.Seed != read.Seed || !made.StartedAt.Equal(read.StartedAt) || made.Hidden != read.Hidden {
					t.Fatalf("made %+v, read back %+v", *made, *read)
				}
				if made.Hidden != (p.ID == bob.ID) {
					t.Fatalf("%s's new game hidden %v", p.Name, made.Hidden)
				}
				if got, want := store.StateOf(made.Engine), store.StateOf(read.Engine); got != want {
					t.Fatalf("made %+v, read back %+v", got, want)
				}
				if made.Engine.Generator() != read.Engine.Generator() || made.Fence == 0 {
					t.Fatalf("made generator %v fence %d, read back %v", made.Engine.Generator(), made.Fence, read.Engine.Generator())
				}
			})
		}
	}
}

func testLoadingTouchesTheGame(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	p := addPlayer(t, s, "touch")
	g4, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadOrCreateGame(ctx, p.ID, 5, store.KindHuman); err != nil {
		t.Fatal(err)
	}
	updated := func() map[int64]time.Time {
		t.Helper()
		games, err := s.PlayerGames(ctx, p.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		m := make(map[int64]time.Time)
		for _, g := range games {
			m[g.ID] = g.UpdatedAt
		}
		return m
	}
	before := updated()
	time.Sleep(2 * time.Millisecond) // stores keep microseconds
	if _, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman); err != nil {
		t.Fatal(err)
	}
	after := updated()
	for id, at := range after {
		switch {
		case id == g4.ID && !at.After(before[id]):
			t.Errorf("the 4×4 game loaded again: updated %v, as before", at)
		case id != g4.ID && !at.Equal(before[id]):
			t.Errorf("game %d, not loaded: updated %v, was %v", id, at, before[id])
		}
	}
}
