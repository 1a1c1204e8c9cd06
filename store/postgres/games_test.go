package postgres_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
)

// TestLoadingAGameIsOneRoundTrip: a game opened to play is read in one
// statement, its row and its moves (chunks and tail) in one snapshot, so
// that no move slips between them: a round trip of the read pool, not a
// transaction's four. Every login reads its game so, and on one machine a
// cluster's ramp is mostly its logins' round trips.
func TestLoadingAGameIsOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	trips := &roundTrips{}
	s := openTraced(t, postgres.WithReadTracer(trips))
	p := newPlayer(t, s, "onetrip")
	for _, moves := range []int{0, store.ChunkLen - 1, store.ChunkLen, 2*store.ChunkLen + 5} {
		g, err := s.NewGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(moves), 1))
		for seq := range moves {
			d := engine.Direction(rng.IntN(4))
			for b := g.Engine.Board(); ; d = (d + 1) % 4 {
				if _, moved := b.Move(d); moved {
					break
				}
				b = g.Engine.Board()
			}
			g.Engine.Move(d)
			st := store.StateOf(g.Engine)
			st.Fence = g.Fence
			if err := s.AppendMove(ctx, g.ID, seq, d, st); err != nil {
				t.Fatal(err)
			}
		}
		n := trips.count()
		again, err := s.LoadOrCreateGame(ctx, p.ID, 8, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		if again.ID != g.ID || again.Engine.Moves() != moves || again.Engine.Board() != g.Engine.Board() ||
			again.Engine.Score() != g.Engine.Score() || again.Seed != g.Seed || again.Fence <= g.Fence {
			t.Errorf("%d moves: loaded game %d, %d moves, score %d, fence %d; want game %d as played (%d, score %d), fence after %d",
				moves, again.ID, again.Engine.Moves(), again.Engine.Score(), again.Fence, g.ID, moves, g.Engine.Score(), g.Fence)
		}
		if sent := trips.since(n); len(sent) != 1 || !strings.Contains(sent[0][0], "move_chunks") {
			t.Errorf("%d moves: loading the game took %d round trips of the read pool, want one that reads the moves too:\n%q",
				moves, len(sent), sent)
		}
	}
}

// TestOpeningAGameTakesFewRoundTrips: opening a game to play is a write
// of the logins' writer, and on one machine a cluster's ramp is mostly
// its logins' round trips. A new game is found missing in one round trip
// (with its player's existence) and inserted with its claim in one more,
// then COMMIT; a game in progress is found, claimed and touched in one
// each, then COMMIT.
func TestOpeningAGameTakesFewRoundTrips(t *testing.T) {
	ctx := context.Background()
	trips := &roundTrips{}
	s := openTraced(t, postgres.WithWriterTracer(trips))
	p := newPlayer(t, s, "fewtrips")
	open := func(what string, want int) *store.SavedGame {
		t.Helper()
		n := trips.count()
		g, err := s.LoadOrCreateGame(ctx, p.ID, 4, store.KindHuman)
		if err != nil {
			t.Fatal(err)
		}
		if sent := trips.since(n); len(sent) != want {
			t.Errorf("%s: %d round trips of the writers, want %d:\n%q", what, len(sent), want, sent)
		}
		return g
	}
	first := open("a new game", 3)
	again := open("the game in progress, held here", 4)
	if err := s.Release(ctx, again.ID, again.Fence); err != nil {
		t.Fatal(err)
	}
	last := open("the game in progress, released", 4)
	if again.ID != first.ID || last.ID != first.ID || !(first.Fence < again.Fence && again.Fence < last.Fence) {
		t.Errorf("opened games %d, %d, %d with tokens %d, %d, %d: want one game, its tokens rising",
			first.ID, again.ID, last.ID, first.Fence, again.Fence, last.Fence)
	}
}
