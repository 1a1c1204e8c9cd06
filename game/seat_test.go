package game

import (
	"context"
	"testing"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// countingStore counts the store's reads of a player's games.
type countingStore struct {
	*sqlite.Store
	playerGames int
}

func (s *countingStore) PlayerGames(ctx context.Context, playerID int64, limit int) ([]store.GameSummary, error) {
	s.playerGames++
	return s.Store.PlayerGames(ctx, playerID, limit)
}

// A login reads the player's games once for LastSize and the Resume that
// follows it, and resumes the assisted game it finds; a later Resume reads
// them again.
func TestLoginReadsGamesOnce(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	counted := &countingStore{Store: st}
	svc := New(counted, nil)
	ann := identify(t, svc, "ann")

	first := svc.Seat(ann, nil)
	p, err := first.Open(ctx, 5, store.KindAssisted, false)
	if err != nil {
		t.Fatal(err)
	}
	moveUntilMoved(t, p)
	first.Close()

	seat := svc.Seat(ann, nil)
	counted.playerGames = 0
	size := seat.LastSize(ctx)
	p, err = seat.Resume(ctx, size, false)
	if err != nil {
		t.Fatal(err)
	}
	if size != 5 || p.Kind() != store.KindAssisted || counted.playerGames != 1 {
		t.Errorf("login: size %d, kind %s, %d reads of the games; want 5, %s, 1", size, p.Kind(), counted.playerGames, store.KindAssisted)
	}
	p.Close()

	if _, err := seat.Resume(ctx, 5, false); err != nil {
		t.Fatal(err)
	}
	if counted.playerGames != 2 {
		t.Errorf("a second Resume read the games %d times in all, want 2 (its own read)", counted.playerGames)
	}
	seat.Close()
}
