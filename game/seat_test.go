package game

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
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
	st := openSQLite(t)
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

// failingStore fails every move once fail is set, as a full disk would.
type failingStore struct {
	*sqlite.Store
	fail bool
}

func (s *failingStore) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	if s.fail {
		return errors.New("disk I/O error: file too large")
	}
	return s.Store.AppendMove(ctx, gameID, seq, d, st)
}

// A move the store could not save is logged with its game and player,
// once: the Play refuses the moves after it without writing, and the
// player's screen says only that the move was not saved.
func TestUnsavedMoveIsLogged(t *testing.T) {
	ctx := context.Background()
	st := openSQLite(t)
	failing := &failingStore{Store: st}
	var logs bytes.Buffer
	svc := New(failing, slog.New(slog.NewTextHandler(&logs, nil)))
	ann := identify(t, svc, "ann")
	seat := svc.Seat(ann, nil)
	defer seat.Close()
	p, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	moveUntilMoved(t, p)
	failing.fail = true
	var failed error
	for _, d := range engine.Directions() {
		if _, failed = p.Move(ctx, d); failed != nil {
			break
		}
	}
	if failed == nil || !strings.Contains(failed.Error(), "file too large") {
		t.Fatalf("move error %v", failed)
	}
	for _, d := range engine.Directions() {
		if _, err := p.Move(ctx, d); !errors.Is(err, failed) {
			t.Fatalf("a move after the failure: %v, want %v", err, failed)
		}
	}
	want := fmt.Sprintf(`level=ERROR msg="game not saved" game=%d player=%d err="save move 1 of game %d: disk I/O error: file too large"`, p.ID(), ann.ID, p.ID())
	if got := logs.String(); strings.Count(got, "game not saved") != 1 || !strings.Contains(got, want) {
		t.Fatalf("log:\n%s\nwant one line with\n%s", got, want)
	}
}
