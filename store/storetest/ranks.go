package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// testRanksFollowWrites: random sequences of the writes that move a
// player's best (moves, ends, new games, games turned assisted, renames,
// an account merged into another, contest games beside them) on two sizes
// and both ranked kinds; after
// every write each player's PlayerRank is their row of the full
// Leaderboard, field for field, or store.ErrNotFound where that board has
// no row of theirs, and their ContestRank in a race and a daily challenge
// is their newest game's row of the full ContestBoard, with its length.
// Real moves, so equal scores (early in a game) come often and the tie
// rule is exercised.
func testRanksFollowWrites(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 31))
			var players []store.Player
			for i := range 6 {
				players = append(players, addPlayer(t, s, fmt.Sprintf("follow%d-%d", seed, i)))
			}
			type seat struct {
				player int64
				size   int
				kind   store.Kind
			}
			games := map[seat]*store.SavedGame{}
			contests := []string{fmt.Sprint("race:follow", seed), fmt.Sprintf("daily:2026-01-%02d", seed+1)}
			sizes, kinds := []int{3, 4}, []store.Kind{store.KindHuman, store.KindAssisted}
			for step := range 120 {
				p := players[rng.IntN(len(players))]
				st := seat{p.ID, sizes[rng.IntN(2)], kinds[rng.IntN(2)]}
				g := games[st]
				var err error
				switch op := rng.IntN(20); {
				case g == nil || op == 0:
					g, err = s.LoadOrCreateGame(ctx, st.player, st.size, st.kind)
					games[st] = g
				case op == 1:
					g, err = s.NewGame(ctx, st.player, st.size, st.kind)
					games[st] = g
				case op == 2:
					err = s.EndGame(ctx, g.ID, fenced(g))
					delete(games, st)
				case op == 3 && st.kind == store.KindHuman:
					err = s.MarkAssisted(ctx, g.ID)
					delete(games, st)
					delete(games, seat{st.player, st.size, store.KindAssisted}) // ended, or this one now
				case op == 4:
					_, err = s.ClaimName(ctx, store.AccountID(p.ID), fmt.Sprintf("renamed%d-%d", seed, step))
					if errors.Is(err, store.ErrRenameTooSoon) {
						err = nil
					}
				case step == 60:
					// The last player's account merges into the first's:
					// its games and bests are the first's now.
					from := players[len(players)-1]
					_, err = s.Link(ctx, linkCode(t, s, players[0].ID), from.Fingerprint, true)
					players = players[:len(players)-1]
					for st := range games {
						if st.player == from.ID || st.player == players[0].ID {
							delete(games, st) // ended by the merge
						}
					}
				case op == 5 || op == 6:
					var c *store.SavedGame
					contest := contests[op-5]
					if c, err = s.OpenContestGame(ctx, st.player, st.size, store.KindHuman, contest, seed); err == nil {
						for range rng.IntN(6) {
							if playFenced(ctx, s, c, rng) != nil {
								break
							}
						}
						if rng.IntN(3) == 0 {
							err = s.EndGame(ctx, c.ID, fenced(c))
						}
					} else if errors.Is(err, store.ErrContestPlayed) {
						err = nil
					}
				case op == 7 && rng.IntN(4) == 0:
					err = s.EndContest(ctx, contests[0])
				default:
					for range 1 + rng.IntN(4) {
						if err = playFenced(ctx, s, g, rng); err != nil {
							break
						}
					}
					if errors.Is(err, errGameOver) {
						err = s.EndGame(ctx, g.ID, fenced(g))
						delete(games, st)
					}
				}
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				for _, size := range sizes {
					for _, kind := range kinds {
						checkRanks(t, s, size, kind, players)
					}
					for _, c := range contests {
						checkContestRanks(t, s, c, size, players)
					}
				}
				if t.Failed() {
					t.Fatalf("after step %d", step)
				}
			}
		})
	}
}

var errGameOver = errors.New("game over")

// playFenced makes one real move in g with its token and stores it, or
// says the game is over.
func playFenced(ctx context.Context, s Store, g *store.SavedGame, rng *rand.Rand) error {
	d, ok := movingDirection(g.Engine, rng)
	if !ok {
		return errGameOver
	}
	seq := g.Engine.Moves()
	g.Engine.Move(d)
	return s.AppendMove(ctx, g.ID, seq, d, fenced(g))
}

// checkRanks fails unless every player's PlayerRank on a board is their
// row of the full leaderboard, or store.ErrNotFound where it has none.
func checkRanks(t *testing.T, s Store, size int, kind store.Kind, players []store.Player) {
	t.Helper()
	ctx := context.Background()
	board, err := s.Leaderboard(ctx, size, kind, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int64]store.Entry{}
	for _, e := range board {
		rows[e.PlayerID] = e
	}
	for _, p := range players {
		got, err := s.PlayerRank(ctx, p.ID, size, kind)
		want, ok := rows[p.ID]
		switch {
		case !ok && !errors.Is(err, store.ErrNotFound):
			t.Errorf("%d×%d %s: PlayerRank(%d) = %+v, %v; the leaderboard has no row of theirs", size, size, kind, p.ID, got, err)
		case ok && err != nil:
			t.Errorf("%d×%d %s: PlayerRank(%d): %v; the leaderboard has %+v", size, size, kind, p.ID, err, want)
		case ok && !sameEntry(got, want):
			t.Errorf("%d×%d %s: PlayerRank(%d) = %+v, the leaderboard has %+v", size, size, kind, p.ID, got, want)
		}
	}
}

// testRanksSeeAnotherStore: a second store on the same database (another
// process on the SQLite file, another node on PostgreSQL) opens a new
// game for a player, beats everyone with it and renames the player; the
// first store, which had ranked that board already, comes to show the
// new best, its rank, its game and the new name, and the rank below it.
func testRanksSeeAnotherStore(t *testing.T, b Backend) {
	ctx := context.Background()
	s1, reopen := b.Open(t, quiet)
	sc1 := newScripted(t, b, s1)
	a, c := addPlayer(t, s1, "ahead"), addPlayer(t, s1, "chaser")
	sc1.score(sc1.game(a, 4, store.KindHuman), 100)
	sc1.score(sc1.game(c, 4, store.KindHuman), 50)
	if e, err := s1.PlayerRank(ctx, c.ID, 4, store.KindHuman); err != nil || e.Rank != 2 {
		t.Fatalf("before: PlayerRank(chaser) = %+v, %v; want rank 2", e, err)
	}

	s2, err := reopen()
	if err != nil {
		t.Fatal(err)
	}
	g, err := s2.NewGame(ctx, c.ID, 4, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	(scripted{t, s2, map[int64]int{}}).score(g, 500)
	if _, err := s2.ClaimName(ctx, store.AccountID(c.ID), "overtaker"); err != nil {
		t.Fatal(err)
	}

	var got, behind store.Entry
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, err = s1.PlayerRank(ctx, c.ID, 4, store.KindHuman); err != nil {
			t.Fatal(err)
		}
		if behind, err = s1.PlayerRank(ctx, a.ID, 4, store.KindHuman); err != nil {
			t.Fatal(err)
		}
		if got.Rank == 1 && got.Score == 500 && got.GameID == g.ID && got.Name == "overtaker" && behind.Rank == 2 {
			return
		}
	}
	t.Errorf("the first store never showed the second's write: chaser %+v, ahead %+v; want chaser first with 500 in game %d as overtaker",
		got, behind, g.ID)
}

// checkContestRanks fails unless every player's ContestRank is their
// newest game's row of the contest's full board, with the board's length,
// or store.ErrNotFound where they have no game in it.
func checkContestRanks(t *testing.T, s Store, contest string, size int, players []store.Player) {
	t.Helper()
	ctx := context.Background()
	board, err := s.ContestBoard(ctx, contest, size, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[int64]store.Entry{}
	for _, e := range board {
		if r, ok := rows[e.PlayerID]; !ok || r.GameID < e.GameID {
			rows[e.PlayerID] = e
		}
	}
	for _, p := range players {
		got, n, err := s.ContestRank(ctx, p.ID, contest, size)
		want, ok := rows[p.ID]
		switch {
		case !ok && !errors.Is(err, store.ErrNotFound):
			t.Errorf("%s %d×%d: ContestRank(%d) = %+v, %d, %v; the board has no game of theirs", contest, size, size, p.ID, got, n, err)
		case ok && err != nil:
			t.Errorf("%s %d×%d: ContestRank(%d): %v; the board has %+v", contest, size, size, p.ID, err, want)
		case ok && (!sameEntry(got, want) || n != len(board)):
			t.Errorf("%s %d×%d: ContestRank(%d) = %+v of %d, the board has %+v of %d", contest, size, size, p.ID, got, n, want, len(board))
		}
	}
}
