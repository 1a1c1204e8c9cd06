package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// scripted plays crafted states into a game, so leaderboard tests control
// scores exactly. The board text only has to be a valid board.
type scripted struct {
	t     *testing.T
	s     Store
	moves map[int64]int // moves stored per game (the engine game is not moved)
}

// newScripted scripts games of s. The games it starts get seeds whose first
// board a left move changes, so that a game replays to its first scripted
// move when it is loaded (a random seed would make 1 in 20 games diverge
// and be ended on load).
func newScripted(t *testing.T, b Backend, s Store) scripted {
	var next uint64
	b.SetSeeds(s, func() uint64 {
		for ; ; next++ {
			g, err := engine.Current.NewGame(4, next)
			if err != nil {
				t.Fatal(err)
			}
			if b := g.Board(); moves(&b, engine.Left) {
				next++
				return next - 1
			}
		}
	})
	return scripted{t, s, map[int64]int{}}
}

func moves(b *engine.Board, d engine.Direction) bool {
	_, moved := b.Move(d)
	return moved
}

const someBoard = "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"

func (sc scripted) game(p store.Player, size int, kind store.Kind) *store.SavedGame {
	sc.t.Helper()
	g, err := sc.s.NewGame(context.Background(), p.ID, size, kind)
	if err != nil {
		sc.t.Fatal(err)
	}
	return g
}

// score appends one move that brings g to the given score.
func (sc scripted) score(g *store.SavedGame, score int) {
	sc.t.Helper()
	seq := sc.moves[g.ID]
	board := someBoard
	if g.Size != 4 {
		b, _ := engine.NewBoard(g.Size)
		board = b.String()
	}
	st := store.MoveState{Score: score, MaxTile: 2, Moves: seq + 1, Board: board}
	if err := sc.s.AppendMove(context.Background(), g.ID, seq, engine.Left, st); err != nil {
		sc.t.Fatal(err)
	}
	sc.moves[g.ID]++
}

// sameEntry compares entries, including the time behind Ended.
func sameEntry(a, b store.Entry) bool {
	if (a.Ended == nil) != (b.Ended == nil) || a.Ended != nil && !a.Ended.Equal(*b.Ended) {
		return false
	}
	a.Ended, b.Ended = nil, nil
	return a == b
}

func testLeaderboardOrderAndTies(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	sc := newScripted(t, b, s)
	alice, bob, carol, dave, erin, nomoves := addPlayer(t, s, "alice"), addPlayer(t, s, "bob"), addPlayer(t, s, "carol"),
		addPlayer(t, s, "dave"), addPlayer(t, s, "erin"), addPlayer(t, s, "nomoves")

	dave1 := sc.game(dave, 4, store.KindHuman)
	sc.score(dave1, 100) // dave reaches 100 first
	alice1 := sc.game(alice, 4, store.KindHuman)
	sc.score(alice1, 40)
	sc.score(alice1, 100)                        // alice reaches 100 second
	alice2 := sc.game(alice, 4, store.KindHuman) // ends alice1, whose 100 still counts
	sc.score(alice2, 100)                        // same score later: alice1 stays her best
	sc.score(alice2, 100)
	bob1 := sc.game(bob, 4, store.KindHuman)
	sc.score(bob1, 100) // bob third at 100
	carol1 := sc.game(carol, 4, store.KindHuman)
	sc.score(carol1, 250) // in progress, top
	erinHuman := sc.game(erin, 4, store.KindHuman)
	sc.score(erinHuman, 10)
	if err := s.EndGame(ctx, erinHuman.ID, store.MoveState{Score: 10, MaxTile: 2, Moves: 1, Board: someBoard}); err != nil {
		t.Fatal(err)
	}
	erinAI := sc.game(erin, 4, store.KindHuman)
	sc.score(erinAI, 500)
	if err := s.MarkAssisted(ctx, erinAI.ID); err != nil {
		t.Fatal(err)
	}
	// Other sizes and kinds have their own boards.
	sc.score(sc.game(bob, 5, store.KindHuman), 9999)
	sc.score(sc.game(dave, 4, store.KindBot), 7777)
	sc.game(nomoves, 4, store.KindHuman)

	type row struct {
		player store.Player
		game   *store.SavedGame
		score  int
	}
	want := []row{{carol, carol1, 250}, {dave, dave1, 100}, {alice, alice1, 100}, {bob, bob1, 100}, {erin, erinHuman, 10}}
	check := func() {
		t.Helper()
		got, err := s.Leaderboard(ctx, 4, store.KindHuman, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("leaderboard has %d rows, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			e := got[i]
			if e.Rank != i+1 || e.PlayerID != w.player.ID || e.Name != w.player.Name || e.GameID != w.game.ID || e.Score != w.score {
				t.Errorf("row %d = %+v, want rank %d %s game %d score %d", i, e, i+1, w.player.Name, w.game.ID, w.score)
			}
			r, err := s.PlayerRank(ctx, w.player.ID, 4, store.KindHuman)
			if err != nil {
				t.Fatal(err)
			}
			if !sameEntry(r, e) {
				t.Errorf("PlayerRank(%s) = %+v, want the leaderboard's %+v", w.player.Name, r, e)
			}
		}
	}
	check()

	top2, err := s.Leaderboard(ctx, 4, store.KindHuman, 2)
	if err != nil || len(top2) != 2 || top2[1].PlayerID != dave.ID {
		t.Fatalf("top 2 = %+v, %v", top2, err)
	}
	board := func(size int, kind store.Kind) []store.Entry {
		t.Helper()
		got, err := s.Leaderboard(ctx, size, kind, 10)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := board(4, store.KindAssisted); len(got) != 1 || got[0].GameID != erinAI.ID || got[0].Score != 500 {
		t.Errorf("assisted board = %+v, want erin's assisted game", got)
	}
	if got := board(5, store.KindHuman); len(got) != 1 || got[0].PlayerID != bob.ID || got[0].Ended != nil {
		t.Errorf("5×5 board = %+v", got)
	}
	if got := board(4, store.KindBot); len(got) != 1 || got[0].Score != 7777 {
		t.Errorf("bot board = %+v", got)
	}
	if got := board(6, store.KindHuman); len(got) != 0 {
		t.Errorf("empty 6×6 board = %+v", got)
	}
	if _, err := s.PlayerRank(ctx, nomoves.ID, 4, store.KindHuman); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PlayerRank without moves: %v", err)
	}

	// Bob overtakes at 101; later, alice's second game overtakes too.
	sc.score(bob1, 101)
	want = append(want[:1], want[3], want[1], want[2], want[4])
	want[1].score = 101
	check()
	sc.score(alice2, 300)
	want = []row{{alice, alice2, 300}, {carol, carol1, 250}, {bob, bob1, 101}, {dave, dave1, 100}, {erin, erinHuman, 10}}
	check()
}

func testMarkAssistedKeepsOneGameInProgress(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	sc := newScripted(t, b, s)
	p := addPlayer(t, s, "gina")
	first := sc.game(p, 4, store.KindHuman)
	sc.score(first, 50)
	if err := s.MarkAssisted(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	second := sc.game(p, 4, store.KindHuman)
	sc.score(second, 20)
	if err := s.MarkAssisted(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	if n := inProgress(t, s, p.ID, func(g store.GameSummary) bool { return g.Kind == store.KindAssisted }); n != 1 {
		t.Fatalf("%d assisted games in progress, want 1", n)
	}
	g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindAssisted)
	if err != nil {
		t.Fatal(err)
	}
	if g.ID != second.ID || g.Kind != store.KindAssisted {
		t.Fatalf("assisted game in progress = %d (%s), want %d", g.ID, g.Kind, second.ID)
	}
	e, err := s.PlayerRank(ctx, p.ID, 4, store.KindAssisted)
	if err != nil || e.GameID != first.ID || e.Score != 50 {
		t.Fatalf("assisted best = %+v, %v; want the first game's 50", e, err)
	}
	if _, err := s.PlayerRank(ctx, p.ID, 4, store.KindHuman); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("human best after both games were assisted: %v, want ErrNotFound", err)
	}
	if err := s.MarkAssisted(ctx, second.ID); err != nil {
		t.Fatalf("marking an assisted game again: %v", err)
	}
	history, err := s.PlayerGames(ctx, p.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 2 || history[0].ID != second.ID || history[0].Kind != store.KindAssisted || history[1].Kind != store.KindAssisted ||
		history[0].EndedAt != nil || history[1].EndedAt == nil {
		t.Fatalf("history = %+v, want both games, assisted, the second in progress", history)
	}
	if err := s.MarkAssisted(ctx, first.ID); !errors.Is(err, store.ErrGameEnded) {
		t.Fatalf("marking an ended game: %v, want ErrGameEnded", err)
	}
}

// inProgress counts the player's games in progress that match.
func inProgress(t *testing.T, s Store, playerID int64, match func(store.GameSummary) bool) int {
	t.Helper()
	games, err := s.PlayerGames(context.Background(), playerID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range games {
		if g.EndedAt == nil && match(g) {
			n++
		}
	}
	return n
}

// SpreadScores gives the best games of many players of s scores across
// many magnitudes, with ties, improvements and games turned assisted,
// through the contract only: the bests CheckBucketsDown counts.
func SpreadScores(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	type played struct {
		g     *store.SavedGame
		moves int
		score int
	}
	var games []*played
	score := func(p *played, score int) {
		t.Helper()
		st := store.MoveState{Score: score, MaxTile: 2, Moves: p.moves + 1, Board: someBoard}
		if err := s.AppendMove(ctx, p.g.ID, p.moves, engine.Left, st); err != nil {
			t.Fatal(err)
		}
		p.moves++
		p.score = score
	}
	for i := range 150 {
		g, err := s.NewGame(ctx, addPlayer(t, s, fmt.Sprintf("spread%d", i)).ID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		p := &played{g: g}
		games = append(games, p)
		v := []int{0, 7, 99, 100, 999, 1000, 1009, 1010, 5000}[rng.IntN(9)]
		if rng.IntN(2) == 0 {
			v = rng.IntN(1 << uint(rng.IntN(24)))
		}
		score(p, v)
	}
	for range 100 { // improvements, some crossing buckets
		p := games[rng.IntN(len(games))]
		score(p, p.score+rng.IntN(2000))
	}
	for range 20 { // some games turn assisted: human bests move
		if err := s.MarkAssisted(ctx, games[rng.IntN(len(games))].g.ID); err != nil {
			t.Fatal(err)
		}
	}
}

// testRankAgreesWithLeaderboard: random scores across many magnitudes and
// bucket boundaries, with ties and improvements; every player's rank must
// be their position on the full leaderboard.
func testRankAgreesWithLeaderboard(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	sc := newScripted(t, b, s)
	rng := rand.New(rand.NewPCG(11, 12))
	scores := map[int64]int{}
	var games []*store.SavedGame
	for i := range 150 {
		p := addPlayer(t, s, fmt.Sprintf("r%d", i))
		g := sc.game(p, 4, store.KindHuman)
		games = append(games, g)
		score := []int{0, 7, 99, 100, 999, 1000, 1009, 1010, 5000}[rng.IntN(9)]
		if rng.IntN(2) == 0 {
			score = rng.IntN(1 << uint(rng.IntN(24)))
		}
		sc.score(g, score)
		scores[g.ID] = score
	}
	for range 100 { // improvements, some crossing buckets
		g := games[rng.IntN(len(games))]
		scores[g.ID] += rng.IntN(2000)
		sc.score(g, scores[g.ID])
	}
	for range 20 { // some games turn assisted: human bests move
		if err := s.MarkAssisted(ctx, games[rng.IntN(len(games))].ID); err != nil {
			t.Fatal(err)
		}
	}
	board, err := s.Leaderboard(ctx, 4, store.KindHuman, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range board {
		if i > 0 && e.Score > board[i-1].Score {
			t.Fatalf("leaderboard out of order at %d: %+v after %+v", i, e, board[i-1])
		}
		r, err := s.PlayerRank(ctx, e.PlayerID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		if r.Rank != e.Rank {
			t.Errorf("PlayerRank(%d) = %d, leaderboard says %d (score %d)", e.PlayerID, r.Rank, e.Rank, e.Score)
		}
	}
}

func testContestGames(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	const day = "daily:2026-11-23"

	free, err := s.LoadOrCreateGame(ctx, ann.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.OpenContestGame(ctx, ann.ID, 4, store.KindHuman, day, 42)
	if err != nil {
		t.Fatal(err)
	}
	bg, err := s.OpenContestGame(ctx, bob.ID, 4, store.KindHuman, day, 42)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == free.ID || a.Seed != 42 || bg.Seed != 42 || a.Engine.Board() != bg.Engine.Board() {
		t.Fatalf("daily games: free %d, ann %+v, bob %+v", free.ID, a, bg)
	}
	again, err := s.OpenContestGame(ctx, ann.ID, 4, store.KindHuman, day, 42)
	if err != nil || again.ID != a.ID {
		t.Fatalf("reopened daily: %v, game %d want %d", err, again.ID, a.ID)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 12 {
		if err := playMove(ctx, s, a, rng); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if err := playMove(ctx, s, bg, rng); err != nil {
			t.Fatal(err)
		}
	}
	// The contest ranks its own games; the all-time board never sees them.
	board, err := s.ContestBoard(ctx, day, 4, 10)
	if err != nil || len(board) != 2 || board[0].Score < board[1].Score || board[0].Rank != 1 {
		t.Fatalf("daily board %+v, %v", board, err)
	}
	if all, err := s.Leaderboard(ctx, 4, store.KindHuman, 10); err != nil || len(all) != 0 {
		t.Fatalf("all-time board %+v, %v: contest games must not rank there", all, err)
	}
	// The free game is still there, untouched.
	if g, err := s.LoadOrCreateGame(ctx, ann.ID, 4, store.KindHuman); err != nil || g.ID != free.ID {
		t.Fatalf("free game after the daily: %v %d, want %d", err, g.ID, free.ID)
	}
	// One attempt: once ended, the day's game is not handed out again.
	if err := s.EndContest(ctx, day); err != nil {
		t.Fatal(err)
	}
	done, err := s.OpenContestGame(ctx, ann.ID, 4, store.KindHuman, day, 42)
	if !errors.Is(err, store.ErrContestPlayed) || done.ID != a.ID {
		t.Fatalf("second attempt: %v, game %+v", err, done)
	}
	if days, err := s.ContestsPlayed(ctx, ann.ID, "daily:", 10); err != nil || len(days) != 1 || days[0] != day {
		t.Fatalf("days played %v, %v", days, err)
	}
	// A day that is over ends its games in progress.
	c, err := s.OpenContestGame(ctx, bob.ID, 5, store.KindHuman, "daily:2026-11-24", 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EndPastDailies(ctx, "2026-11-25"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenContestGame(ctx, bob.ID, 5, store.KindHuman, "daily:2026-11-24", 7); !errors.Is(err, store.ErrContestPlayed) {
		t.Fatalf("daily game %d after its day: %v, want ErrContestPlayed", c.ID, err)
	}
}

// testDailyOneAttemptAtOnce: one attempt a day holds when sessions of
// one player open the day's game at once, on two stores of one database
// (two nodes), first as the day begins and then as the attempt ends: every
// opener gets the day's one game, or ErrContestPlayed with its id once it
// has ended, as one opener alone would; the day ranks one game of the
// player. A check of "already played" read apart from the insert would let
// an opener that read before the end insert after it: a second attempt at
// tiles already seen, or an error that is not ErrContestPlayed.
func testDailyOneAttemptAtOnce(t *testing.T, b Backend) {
	ctx := context.Background()
	s1, reopen := b.Open(t, quiet)
	s2, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	stores := []Store{s1, s2}
	ann := addPlayer(t, s1, "ann")
	const sessions = 8
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for d := range 20 {
		day := "daily:" + first.AddDate(0, 0, d).Format(time.DateOnly)
		open := func(i int) (int64, error) {
			g, err := stores[i%len(stores)].OpenContestGame(ctx, ann.ID, 4, store.KindHuman, day, 42)
			if g == nil {
				return 0, err
			}
			return g.ID, err
		}
		ids := make([]int64, sessions+1)
		if opened := AtOnce(t, sessions, nil, func(i int) (err error) {
			ids[i], err = open(i)
			return err
		}); opened != sessions {
			t.Fatalf("%s: %d of %d first opens succeeded", day, opened, sessions)
		}
		for i, id := range ids[:sessions] {
			if id != ids[0] {
				t.Fatalf("%s: opener %d got game %d, opener 0 game %d: two attempts", day, i, id, ids[0])
			}
		}
		want := ids[0]
		errs := make([]error, sessions)
		AtOnce(t, sessions+1, store.ErrContestPlayed, func(i int) error {
			if i == sessions {
				return s2.EndContest(ctx, day)
			}
			ids[i], errs[i] = open(i)
			return errs[i]
		})
		for i, id := range ids[:sessions] {
			if (errs[i] == nil || errors.Is(errs[i], store.ErrContestPlayed)) && id != want {
				t.Errorf("%s: opener %d got game %d as the day's attempt ended, want %d", day, i, id, want)
			}
		}
		if id, err := open(0); id != want || !errors.Is(err, store.ErrContestPlayed) {
			t.Errorf("%s: open after the end: game %d, %v; want %d, ErrContestPlayed", day, id, err, want)
		}
		board, err := s1.ContestBoard(ctx, day, 4, 10)
		if err != nil || len(board) != 1 || board[0].GameID != want {
			t.Errorf("%s: board %+v, %v; want game %d alone", day, board, err, want)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
}

func testSecretIsKept(t *testing.T, b Backend) {
	ctx := context.Background()
	s, reopen := b.Open(t, quiet)
	first, err := s.Secret(ctx, "daily")
	if err != nil || len(first) != 32 {
		t.Fatalf("secret %x, %v", first, err)
	}
	other, _ := s.Secret(ctx, "other")
	if bytes.Equal(first, other) {
		t.Fatal("two secrets are equal")
	}
	s.Close()
	s, err = reopen()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if again, err := s.Secret(ctx, "daily"); err != nil || !bytes.Equal(again, first) {
		t.Fatalf("after reopening: %x, %v; want %x", again, err, first)
	}
}

// testRacesRateFromStoredRatings: a race with Rate has its new ratings
// reckoned from the ratings stored as it is recorded, not from those its
// racers had when they joined (a race they finished meanwhile would be
// undone); Rate is given the rated players in place order.
func testRacesRateFromStoredRatings(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	start := time.UnixMicro(1_700_000_000_000_000)
	race := func(contest string, rate func([]int64, map[int64]store.Rating) map[int64]store.Rating) {
		t.Helper()
		ga, gb := raceGames(t, s, contest, store.KindHuman, ann.ID, bob.ID)
		stale := &store.Rating{Rating: 1500, Deviation: 350, Volatility: 0.06, Races: 1} // as at the join
		if err := s.RecordRace(ctx, store.RaceResult{Contest: contest, Size: 4, Started: start, Ended: start.Add(time.Minute), Rate: rate,
			Entries: []store.RaceEntry{
				{PlayerID: bob.ID, GameID: gb.ID, Place: 1, After: stale},
				{PlayerID: ann.ID, GameID: ga.ID, Place: 2, After: stale},
			}}); err != nil {
			t.Fatal(err)
		}
	}
	race("race:first", func(rated []int64, current map[int64]store.Rating) map[int64]store.Rating {
		if !slices.Equal(rated, []int64{bob.ID, ann.ID}) || len(current) != 0 {
			t.Errorf("the first race's Rate was given %v, %v; want bob and ann, no rating yet", rated, current)
		}
		return map[int64]store.Rating{bob.ID: {Rating: 1600, Deviation: 300, Volatility: 0.06}, ann.ID: {Rating: 1400, Deviation: 300, Volatility: 0.06}}
	})
	race("race:second", func(rated []int64, current map[int64]store.Rating) map[int64]store.Rating {
		out := map[int64]store.Rating{}
		for _, id := range rated {
			c := current[id]
			out[id] = store.Rating{Rating: c.Rating + 10, Deviation: c.Deviation, Volatility: c.Volatility}
		}
		return out
	})
	got, err := s.Ratings(ctx, []int64{ann.ID, bob.ID})
	if err != nil || got[ann.ID].Rating != 1410 || got[bob.ID].Rating != 1610 || got[ann.ID].Races != 2 {
		t.Fatalf("ratings after two races: %+v, %v; want ann 1410 and bob 1610, from the first race's, over 2 races", got, err)
	}
	race("race:unrated", func([]int64, map[int64]store.Rating) map[int64]store.Rating { return nil })
	if again, err := s.Ratings(ctx, []int64{ann.ID, bob.ID}); err != nil || again[ann.ID] != got[ann.ID] || again[bob.ID] != got[bob.ID] {
		t.Fatalf("ratings after a race Rate rated no one in: %+v, %v; want them as they were, %+v", again, err, got)
	}
}

// testRaces: a race is stored with its entries, its ratings move, its
// games still in progress end, and the ratings board ranks the players.
func testRaces(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	const contest = "race:0123456789abcdef"
	ga, gb := raceGames(t, s, contest, store.KindHuman, ann.ID, bob.ID)
	if r, err := s.Ratings(ctx, []int64{ann.ID, bob.ID}); err != nil || len(r) != 0 {
		t.Fatalf("ratings before any race: %v, %v", r, err)
	}
	start := time.UnixMicro(1_700_000_000_000_000)
	result := store.RaceResult{Contest: contest, Size: 4, Started: start, Ended: start.Add(3 * time.Minute), Entries: []store.RaceEntry{
		{PlayerID: ann.ID, GameID: ga.ID, Place: 1, Score: 0, After: &store.Rating{Rating: 1600, Deviation: 300, Volatility: 0.06, Races: 1}},
		{PlayerID: bob.ID, GameID: gb.ID, Place: 2, Score: 0, Forfeit: true, After: &store.Rating{Rating: 1400, Deviation: 300, Volatility: 0.06, Races: 1}},
	}}
	if err := s.RecordRace(ctx, result); err != nil {
		t.Fatal(err)
	}
	ratings, err := s.Ratings(ctx, []int64{ann.ID, bob.ID})
	if err != nil || ratings[ann.ID].Rating != 1600 || ratings[bob.ID].Races != 1 {
		t.Fatalf("ratings after the race: %+v, %v", ratings, err)
	}
	board, err := s.RatingBoard(ctx, 10)
	if err != nil || len(board) != 2 || board[0].PlayerID != ann.ID || board[0].Name != "ann" || board[0].Fingerprint != ann.Fingerprint || board[1].Rank != 2 {
		t.Fatalf("rating board %+v, %v", board, err)
	}
	if e, n, err := s.ContestRank(ctx, bob.ID, contest, 4); err != nil || n != 2 || e.GameID != gb.ID || e.Rank < 1 || e.Rank > 2 {
		t.Fatalf("bob's rank in the race: %+v of %d, %v", e, n, err)
	}
	if _, _, err := s.ContestRank(ctx, ann.ID, "race:none", 4); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rank in a race not run: %v, want ErrNotFound", err)
	}
	for _, p := range []store.Player{ann, bob} {
		if n := inProgress(t, s, p.ID, func(g store.GameSummary) bool { return g.Contest == contest }); n != 0 {
			t.Fatalf("%d race games of %s still in progress after the race was recorded", n, p.Name)
		}
	}
	result.Contest = "race:second"
	result.Entries = result.Entries[:1]
	if err := s.RecordRace(ctx, result); err != nil {
		t.Fatal(err)
	}
	result.Contest, result.Bots = "race:bots", true
	result.Entries = []store.RaceEntry{{PlayerID: bob.ID, GameID: gb.ID, Place: 1, Score: 40}, {PlayerID: ann.ID, GameID: ga.ID, Place: 2, Score: 60}}
	if err := s.RecordRace(ctx, result); err != nil {
		t.Fatal(err)
	}
	bots, err := s.BotRaceBoard(ctx, 10)
	if err != nil || len(bots) != 2 || bots[0].PlayerID != bob.ID || bots[0].Wins != 1 || bots[1].Best != 60 || bots[1].Races != 1 {
		t.Fatalf("bot race board %+v, %v", bots, err)
	}
	if r, _ := s.Ratings(ctx, []int64{ann.ID}); r[ann.ID].Races != 2 {
		t.Fatalf("races counted %d, want 2", r[ann.ID].Races)
	}
}

// testConcurrentAppends: 100 sessions × 200 moves at once through the group
// commit writer; every move must be stored, in order, with no error (in
// particular no "database is locked").
func testConcurrentAppends(t *testing.T, b Backend) {
	const sessions, moves = 100, 200
	ctx := context.Background()
	s := b.open(t)
	games := make([]*store.SavedGame, sessions)
	errs := make(chan error, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:concurrent-%d", i), "ssh-ed25519", fmt.Sprintf("p%d", i))
			if err != nil {
				errs <- err
				return
			}
			g, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman) // 8×8 lasts far beyond 200 moves
			if err != nil {
				errs <- err
				return
			}
			games[i] = g
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			for range moves {
				if err := playMove(ctx, s, g, rng); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	total := 0
	for _, g := range games {
		total += countMoves(t, s, g.ID)
	}
	if total != sessions*moves {
		t.Fatalf("%d moves stored, want %d", total, sessions*moves)
	}
	for _, g := range games {
		loaded, err := s.LoadOrCreateGame(ctx, g.PlayerID, 8, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		if loaded.ID != g.ID || store.StateOf(loaded.Engine) != store.StateOf(g.Engine) {
			t.Fatalf("game %d reloads as %+v, want %+v", g.ID, store.StateOf(loaded.Engine), store.StateOf(g.Engine))
		}
	}
}

// testRacingMoves has several sessions of each of many players submit
// the same move of the player's game at once, each with its own score,
// so that one group commit holds several moves of one game: exactly one
// of each round's moves must be stored and the others refused with
// store.ErrConflict, and the game and the player's best must be the
// winner's. Half the players end their game half-way and race on a new
// one, so a best is the higher of two games.
func testRacingMoves(t *testing.T, b Backend) {
	s := b.open(t)
	const players, sessions, rounds = 40, 3, 12
	ctx := context.Background()
	var (
		mu    sync.Mutex
		games []int64
		best  = map[int64]int{} // player → the best score stored
	)
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			p, err := s.UpsertPlayer(ctx, fmt.Sprintf("SHA256:racing-%d", i), "ssh-ed25519", fmt.Sprintf("racer%d", i))
			if err != nil {
				t.Error(err)
				return
			}
			g, err := s.NewGame(ctx, p.ID, 4, store.KindHuman)
			if err != nil {
				t.Error(err)
				return
			}
			mine, top, score, seq := []int64{g.ID}, 0, 0, 0
			for round := range rounds {
				if i%2 == 0 && round == rounds/2 {
					if err := s.EndGame(ctx, g.ID, store.MoveState{Score: score, MaxTile: 2, Moves: seq, Board: someBoard}); err != nil {
						t.Error(err)
						return
					}
					if g, err = s.NewGame(ctx, p.ID, 4, store.KindHuman); err != nil {
						t.Error(err)
						return
					}
					mine, score, seq = append(mine, g.ID), 0, 0
				}
				won := make([]int, 0, 1)
				var (
					rmu sync.Mutex
					rwg sync.WaitGroup
				)
				for k := range sessions {
					rwg.Go(func() {
						sc := score + 1 + i%5 + 7*k + round
						err := s.AppendMove(ctx, g.ID, seq, engine.Direction(k%4), store.MoveState{Score: sc, MaxTile: 2, Moves: seq + 1, Board: someBoard})
						switch {
						case err == nil:
							rmu.Lock()
							won = append(won, sc)
							rmu.Unlock()
						case !errors.Is(err, store.ErrConflict):
							t.Errorf("player %d round %d: %v, want nil or ErrConflict", i, round, err)
						}
					})
				}
				rwg.Wait()
				if len(won) != 1 {
					t.Errorf("player %d round %d: %d of %d racing moves stored, want 1", i, round, len(won), sessions)
					return
				}
				score, seq = won[0], seq+1
				top = max(top, score)
			}
			mu.Lock()
			games = append(games, mine...)
			best[p.ID] = top
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	board, err := s.Leaderboard(ctx, 4, store.KindHuman, 10*players)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range board {
		if want, ok := best[e.PlayerID]; ok {
			seen++
			if e.Score != want {
				t.Errorf("player %d's best is %d, want %d", e.PlayerID, e.Score, want)
			}
		}
	}
	if seen != players {
		t.Errorf("%d of the %d racing players on the board", seen, players)
	}
	for _, id := range games {
		if n := countMoves(t, s, id); n != rounds/2 && n != rounds {
			t.Errorf("game %d has %d moves stored, want %d or %d", id, n, rounds/2, rounds)
		}
	}
}

// testHiddenGameLeavesTheBotRaceBoard: `hide GAME` takes a game off
// every board (docs/moderation.md), the board of races with bots
// (`scores --races --bots`) too: a hidden race game is neither a win
// nor a best there, as a hidden player's are not.
func testHiddenGameLeavesTheBotRaceBoard(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	const contest = "race:bots-audit4"
	ga, gb := raceGames(t, s, contest, store.KindBot, ann.ID, bob.ID)
	start := time.Now().Add(-time.Hour)
	if err := s.RecordRace(ctx, store.RaceResult{Contest: contest, Size: 4, Bots: true, Started: start, Ended: start.Add(3 * time.Minute),
		Entries: []store.RaceEntry{{PlayerID: ann.ID, GameID: ga.ID, Place: 1, Score: 900}, {PlayerID: bob.ID, GameID: gb.ID, Place: 2, Score: 40}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.HideGame(ctx, store.Action{Actor: "console:test", Reason: "a script"}, ga.ID); err != nil {
		t.Fatalf("hide ann's race game (ended with the race): %v", err)
	}
	board, err := s.BotRaceBoard(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range board {
		if e.PlayerID == ann.ID && (e.Wins != 0 || e.Best != 0) {
			t.Errorf("bot race board after hiding ann's winning game %d: %+v; the hidden game still counts (a win, best %d)", ga.ID, board, e.Best)
		}
	}
}

// raceGames opens the 4×4 games of first and second in contest, of kind.
func raceGames(t *testing.T, s Store, contest string, kind store.Kind, first, second int64) (a, b *store.SavedGame) {
	t.Helper()
	var g [2]*store.SavedGame
	for i, id := range []int64{first, second} {
		var err error
		if g[i], err = s.OpenContestGame(context.Background(), id, 4, kind, contest, 9); err != nil {
			t.Fatal(err)
		}
	}
	return g[0], g[1]
}
