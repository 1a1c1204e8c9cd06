package game

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

func TestRecordsOfEndedGamesOnly(t *testing.T) {
	svc := newTestService(t)
	ctx := context.Background()
	seat := svc.Seat(identify(t, svc, "eve"), nil)
	defer seat.Close()
	play, err := seat.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		moveUntilMoved(t, play)
	}
	if _, err := svc.Record(ctx, play.ID()); !errors.Is(err, ErrInPlay) {
		t.Fatalf("record of a game in play: %v, want ErrInPlay", err)
	}
	if v, err := svc.Verify(ctx, play.ID()); err != nil || !v.Confirmed() {
		t.Fatalf("verify of a game in play: %v %v", err, v.Mismatches)
	}
	rp, err := svc.Replay(ctx, play.ID())
	if err != nil || len(rp.Boards) != 6 || rp.Boards[5] != play.Board() || rp.Scores[5] != play.Score() || rp.Ended {
		t.Fatalf("replay of a game in play: %v %+v", err, rp)
	}
	for !play.Over() {
		moveUntilMoved(t, play)
	}
	rec, err := svc.Record(ctx, play.ID())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Player != "eve" || rec.Score != play.Score() || len(rec.Moves) != play.Moves() || rec.Key != store.ShortID(identify(t, svc, "eve").Fingerprint) {
		t.Fatalf("record %+v", rec)
	}
	var text bytes.Buffer
	if err := record.Write(&text, rec); err != nil {
		t.Fatal(err)
	}
	parsed, err := record.Parse(&text)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := record.Verify(parsed); err != nil || !v.Confirmed() {
		t.Fatalf("exported record does not verify: %v %v", err, v.Mismatches)
	}
	if _, err := svc.Record(ctx, play.ID()+100); !errors.Is(err, ErrNoGame) {
		t.Fatalf("record of no game: %v", err)
	}
}

// TestVerifyRefutesATamperedStore: a score changed in the database behind
// the server's back is caught by a replay.
func TestVerifyRefutesATamperedStore(t *testing.T) {
	st, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := New(st, nil)
	ctx := context.Background()
	seat := svc.Seat(identify(t, svc, "fox"), nil)
	defer seat.Close()
	play, err := seat.Open(ctx, 4, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		moveUntilMoved(t, play)
	}
	if err := st.AppendMove(ctx, play.ID(), play.Moves(), 0, store.MoveState{Score: 999999, MaxTile: 2048, Moves: play.Moves() + 1,
		Board: play.Board().String()}); err != nil {
		t.Fatal(err)
	}
	v, err := svc.Verify(ctx, play.ID())
	if err != nil {
		t.Fatal(err)
	}
	if v.Confirmed() {
		t.Fatal("a forged score was confirmed")
	}
}
