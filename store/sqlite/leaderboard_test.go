package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// TestQueryPlansUseIndexes shows the plans and fails on a full scan or a
// sort: the leaderboard must be an index walk.
func TestQueryPlansUseIndexes(t *testing.T) {
	s := openStore(t)
	// Statistics as a big database would have them, so the planner is
	// judged on the shape that matters.
	if _, err := s.write.Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		query string
		args  []any
		want  []string
	}{
		{"leaderboard", leaderboardQuery, []any{4, "human", 10, 1000}, []string{"player_bests_rank"}},
		{"game in progress", `SELECT id FROM games WHERE player_id = ? AND size = ? AND kind = ? AND ended_at IS NULL`, []any{1, 4, "human"}, []string{"games_in_progress"}},
		{"moves", chunksQuery, []any{1}, []string{"PRIMARY KEY (game_id=?)"}},
		{"history", `SELECT id FROM games WHERE player_id = ? ORDER BY id DESC LIMIT ?`, []any{1, 10}, []string{"games_player"}},
		{"a move into the log", appendMoveSQL, []any{1, 5, 0, 1, 5, 8, 0, 9}, []string{"INTEGER PRIMARY KEY"}},
		{"a fold", foldSQL, []any{1, 8, 4, 6, 0, "b", 1, 1, "0", 5, 0}, []string{"INTEGER PRIMARY KEY"}},
		{"a player's games to fold", playerGamesInPlay, []any{1}, []string{"games_in_progress"}},
		{"a contest's games to fold", contestGamesInPlay, []any{"daily:2026-11-28"}, []string{"games_contest_rank"}},
		{"the offer", offerMarked, []any{"[[1],[2,8,9]]"}, []string{"INTEGER PRIMARY KEY"}},
	}
	for _, c := range cases {
		rows, err := s.read.Query(`EXPLAIN QUERY PLAN `+c.query, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "\n")
		t.Logf("%s:\n%s", c.name, text)
		for _, line := range plan {
			if strings.HasPrefix(line, "SCAN") && !strings.Contains(line, "INDEX") && line != "SCAN CONSTANT ROW" || strings.Contains(line, "TEMP B-TREE") {
				t.Errorf("%s: full scan or sort: %q", c.name, line)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: plan does not use %q", c.name, w)
			}
		}
	}
}

// TestRankRightAfterConcurrentMoves: ranks are read on the read pool,
// beside the writer, while other players' moves keep committing. Right
// after each acknowledged move a player's rank shows the score that move
// stored (never an older snapshot); once the moves stop, every player's
// rank is their place on the leaderboard.
func TestRankRightAfterConcurrentMoves(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	const players, moves = 24, 30
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			p := addPlayer(t, s, fmt.Sprintf("racer%d", i))
			g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
			if err != nil {
				t.Error(err)
				return
			}
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			for range moves {
				if err := playMove(ctx, s, g, rng); err != nil {
					return // game over
				}
				e, err := s.PlayerRank(ctx, p.ID, 4, store.KindHuman)
				if err != nil {
					t.Errorf("rank of %s right after a move: %v", p.Name, err)
					return
				}
				if e.Score != g.Engine.Score() || e.Moves != g.Engine.Moves() || e.Rank < 1 || e.Rank > players {
					t.Errorf("rank of %s right after move %d (score %d): %+v", p.Name, g.Engine.Moves(), g.Engine.Score(), e)
					return
				}
			}
		})
	}
	wg.Wait()
	board, err := s.Leaderboard(ctx, 4, store.KindHuman, players)
	if err != nil || len(board) != players {
		t.Fatalf("leaderboard: %d rows, %v", len(board), err)
	}
	for _, want := range board {
		got, err := s.PlayerRank(ctx, want.PlayerID, 4, store.KindHuman)
		if err != nil || got.Rank != want.Rank || got.Score != want.Score {
			t.Errorf("PlayerRank(%d) = rank %d score %d (%v), leaderboard: rank %d score %d", want.PlayerID, got.Rank, got.Score, err, want.Rank, want.Score)
		}
	}
}
