package ranks

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// TestTreeCountsLikeASortedList: random inserts and removes, with many
// equal scores and equal times; after each, the keys ahead of every key
// (and of keys not in the tree) are what a sorted list says.
func TestTreeCountsLikeASortedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tr tree
	var keys []Key
	sorted := func() []Key {
		s := slices.Clone(keys)
		slices.SortFunc(s, func(a, b Key) int {
			switch {
			case a.ahead(b):
				return -1
			case b.ahead(a):
				return 1
			}
			return 0
		})
		return s
	}
	randomKey := func(game int64) Key {
		return Key{Score: rng.IntN(8) * 4, Reached: int64(rng.IntN(5)), Game: game}
	}
	for step := range 2000 {
		if len(keys) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(keys))
			tr.remove(keys[i])
			keys = slices.Delete(keys, i, i+1)
		} else {
			k := randomKey(int64(step))
			tr.insert(k)
			keys = append(keys, k)
		}
		if tr.len() != len(keys) {
			t.Fatalf("step %d: %d keys in the tree, %d inserted", step, tr.len(), len(keys))
		}
		s := sorted()
		for i, k := range s {
			if got := tr.countAhead(k); got != i {
				t.Fatalf("step %d: %d keys ahead of %+v, want %d", step, got, k, i)
			}
		}
		probe := randomKey(int64(rng.IntN(step + 1)))
		want, _ := slices.BinarySearchFunc(s, probe, func(a, b Key) int {
			if a.ahead(b) {
				return -1
			}
			return 1
		})
		if got := tr.countAhead(probe); got != want {
			t.Fatalf("step %d: %d keys ahead of %+v (not in the tree), want %d", step, got, probe, want)
		}
	}
}

// TestWritesDuringALoadAreKept: a move that commits after a load has read
// the board but before the load is in place still shows once it is; an
// older state offered again after a newer one changes nothing.
func TestWritesDuringALoadAreKept(t *testing.T) {
	b := Board{Size: 4, Kind: store.KindHuman}
	read, release := make(chan struct{}), make(chan struct{})
	loads := 0
	ix := New(func(ctx context.Context, _ Board) ([]Row, error) {
		loads++
		if loads == 1 {
			close(read)
			<-release
		}
		return []Row{
			{PlayerID: 1, Name: "one", Key: Key{Score: 100, Reached: 10, Game: 11}, Moves: 5},
			{PlayerID: 2, Name: "two", Key: Key{Score: 50, Reached: 20, Game: 22}, Moves: 3},
		}, nil
	})
	ix.Opened(22, 2, b, "", store.MoveState{Score: 50, Moves: 3}, 20)
	done := make(chan error)
	go func() {
		_, err := ix.Rank(context.Background(), 2, b)
		done <- err
	}()
	<-read
	ix.Moved(22, store.MoveState{Score: 200, Moves: 4, MaxTile: 64}, 30) // after the load's read
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	e, err := ix.Rank(context.Background(), 2, b)
	if err != nil || e.Rank != 1 || e.Score != 200 || e.Moves != 4 || e.MaxTile != 64 || e.Name != "two" {
		t.Fatalf("after the load: %+v, %v; want rank 1 with the move's 200", e, err)
	}
	if e, _ := ix.Rank(context.Background(), 1, b); e.Rank != 2 {
		t.Errorf("the other player: %+v, want rank 2", e)
	}
	if loads != 1 {
		t.Errorf("%d loads, want 1", loads)
	}
}

// TestUnknownGameLoadsAgain: a move of a game the index never saw opened
// (it cannot tell whose it is) makes the next rank load the board.
func TestUnknownGameLoadsAgain(t *testing.T) {
	b := Board{Size: 4, Kind: store.KindHuman}
	score := 10
	ix := New(func(context.Context, Board) ([]Row, error) {
		return []Row{{PlayerID: 1, Key: Key{Score: score, Game: 1}, Moves: 1}}, nil
	})
	if _, err := ix.Rank(context.Background(), 2, b); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a player with no best: %v, want store.ErrNotFound", err)
	}
	score = 30
	ix.Moved(1, store.MoveState{Score: 30, Moves: 2}, 5)
	if e, err := ix.Rank(context.Background(), 1, b); err != nil || e.Score != 30 {
		t.Fatalf("after a move of an unknown game: %+v, %v; want the score loaded again", e, err)
	}
}

// TestStaleBoardAnswersWhileItLoads: a board others changed (Invalidate)
// answers at once as it was, loads again in the background, and then
// answers with what that load read.
func TestStaleBoardAnswersWhileItLoads(t *testing.T) {
	b := Board{Size: 4, Kind: store.KindHuman}
	release := make(chan struct{})
	loads := make(chan int, 2)
	n := 0
	ix := New(func(context.Context, Board) ([]Row, error) {
		n++
		loads <- n
		if n == 1 {
			return []Row{{PlayerID: 1, Key: Key{Score: 10, Game: 1}, Moves: 1}}, nil
		}
		<-release
		return []Row{{PlayerID: 1, Key: Key{Score: 10, Game: 1}, Moves: 1}, {PlayerID: 2, Key: Key{Score: 20, Game: 2}, Moves: 1}}, nil
	})
	ctx := context.Background()
	if e, err := ix.Rank(ctx, 1, b); err != nil || e.Rank != 1 {
		t.Fatalf("first: %+v, %v", e, err)
	}
	<-loads
	ix.Invalidate()
	ix.mu.Lock()
	ix.boards[b].loadedAt = time.Now().Add(-time.Hour) // past the gap between loads
	ix.mu.Unlock()
	if e, err := ix.Rank(ctx, 1, b); err != nil || e.Rank != 1 {
		t.Fatalf("while the board loads again: %+v, %v; want the rank as it was", e, err)
	}
	<-loads // the background load has begun
	close(release)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if e, err := ix.Rank(ctx, 1, b); err == nil && e.Rank == 2 {
			return
		}
	}
	t.Error("the background load never took the other process's best in")
}
