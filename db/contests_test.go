package db

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestContestGames(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	ann, bob := addPlayer(t, s, "ann"), addPlayer(t, s, "bob")
	const day = "daily:2026-11-23"

	free, err := s.LoadOrCreateGame(ctx, ann.ID, 4, KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.OpenContestGame(ctx, ann.ID, 4, KindHuman, day, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.OpenContestGame(ctx, bob.ID, 4, KindHuman, day, 42)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == free.ID || a.Seed != 42 || b.Seed != 42 || a.Engine.Board() != b.Engine.Board() {
		t.Fatalf("daily games: free %d, ann %+v, bob %+v", free.ID, a, b)
	}
	again, err := s.OpenContestGame(ctx, ann.ID, 4, KindHuman, day, 42)
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
		if err := playMove(ctx, s, b, rng); err != nil {
			t.Fatal(err)
		}
	}
	// The contest ranks its own games; the all-time board never sees them.
	board, err := s.ContestBoard(ctx, day, 4, 10)
	if err != nil || len(board) != 2 || board[0].Score < board[1].Score || board[0].Rank != 1 {
		t.Fatalf("daily board %+v, %v", board, err)
	}
	if all, err := s.Leaderboard(ctx, 4, KindHuman, 10); err != nil || len(all) != 0 {
		t.Fatalf("all-time board %+v, %v: contest games must not rank there", all, err)
	}
	// The free game is still there, untouched.
	if g, err := s.LoadOrCreateGame(ctx, ann.ID, 4, KindHuman); err != nil || g.ID != free.ID {
		t.Fatalf("free game after the daily: %v %d, want %d", err, g.ID, free.ID)
	}
	// One attempt: once ended, the day's game is not handed out again.
	if err := s.EndContest(ctx, day); err != nil {
		t.Fatal(err)
	}
	done, err := s.OpenContestGame(ctx, ann.ID, 4, KindHuman, day, 42)
	if !errors.Is(err, ErrContestPlayed) || done.ID != a.ID {
		t.Fatalf("second attempt: %v, game %+v", err, done)
	}
	if days, err := s.ContestsPlayed(ctx, ann.ID, "daily:", 10); err != nil || len(days) != 1 || days[0] != day {
		t.Fatalf("days played %v, %v", days, err)
	}
}

func TestSecretIsKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Secret(ctx, "daily")
	if err != nil || len(first) != 32 {
		t.Fatalf("secret %x, %v", first, err)
	}
	other, _ := s.Secret(ctx, "other")
	if bytes.Equal(first, other) {
		t.Fatal("two secrets are equal")
	}
	s.Close()
	s, err = Open(ctx, dir, WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if again, err := s.Secret(ctx, "daily"); err != nil || !bytes.Equal(again, first) {
		t.Fatalf("after reopening: %x, %v; want %x", again, err, first)
	}
}
