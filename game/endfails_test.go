package game

import (
	"context"
	"errors"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// endFails is a store whose EndGame fails, as a full disk makes it fail
// after the move before it committed.
type endFails struct{ store.Store }

func (endFails) EndGame(context.Context, int64, store.MoveState) error {
	return errors.New("disk I/O error")
}

// TestLastMoveSavedWhenItsEndIsNot: the move that ends a game commits,
// then writing that the game is over fails. The move was saved, so it
// is answered as saved (the player used to be told it was not, and the
// screen reloaded the game); the game is ended the next time it is
// opened, as after a server stop between the two writes.
func TestLastMoveSavedWhenItsEndIsNot(t *testing.T) {
	st := openSQLite(t)
	svc := New(endFails{st}, nil)
	ctx := context.Background()
	play := openPlay(t, svc, "ann", 3)
	for !play.Over() {
		moveUntilMoved(t, play) // fails the test on an error
	}
	g, err := st.FullGame(ctx, play.ID())
	if err != nil || len(g.Dirs) != play.Moves() {
		t.Fatalf("the stored game: %d moves, %v; want the %d played, the last included", len(g.Dirs), err, play.Moves())
	}
	again, err := New(st, nil).Seat(identify(t, svc, "ann"), nil).Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() == play.ID() {
		t.Fatal("the game over was opened again to play")
	}
	if g, err := st.FullGame(ctx, play.ID()); err != nil || g.EndedAt == nil {
		t.Fatalf("the game over after it was opened again: ended %v, %v; want it ended", g.EndedAt, err)
	}
}
