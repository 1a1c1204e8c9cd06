package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
)

// seededReviewSHA256 is the SHA-256 of the review's JSON of the game
// testReviews plays: every store must give the game that gives this very
// review. It changes only with review.Version.
const seededReviewSHA256 = "4671b272d165c789768024807c01ad282eaebd47924e14083c51db64f0535785"

// testReviews: a review is kept per game and version, read back byte for
// byte, replaced by a newer version's; and the game a store keeps (seed,
// generator, moves) gives the same review in every store.
func testReviews(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	b.SetSeeds(s, func() uint64 { return 2048 })
	p := addPlayer(t, s, "judged")
	// A small board played at random to its end: a short game, and
	// short playouts.
	g, err := s.NewGame(ctx, p.ID, 3, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(35, 35))
	for !g.Engine.Over() {
		if err := playMove(ctx, s, g, rng); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
		t.Fatal(err)
	}
	full, err := s.FullGame(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.Make(ctx, ai.NewSearcher(), review.Game{Size: full.Size, Generator: full.Generator, Seed: full.Seed, Dirs: full.Dirs, Ended: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	made, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(made); hex.EncodeToString(sum[:]) != seededReviewSHA256 {
		t.Errorf("the seeded game's review has SHA-256 %x, want %s:\n%s", sum, seededReviewSHA256, made)
	}

	if _, err := s.GameReview(ctx, g.ID, review.Version); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("review of a game never reviewed: %v, want ErrNotFound", err)
	}
	if err := s.SaveGameReview(ctx, g.ID, 1, made); err != nil {
		t.Fatal(err)
	}
	got, err := s.GameReview(ctx, g.ID, 1)
	if err != nil || !bytes.Equal(got, made) {
		t.Fatalf("review read back: %v, %d bytes of %d", err, len(got), len(made))
	}
	if _, err := s.GameReview(ctx, g.ID, 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("review of another version: %v, want ErrNotFound", err)
	}
	if err := s.SaveGameReview(ctx, g.ID, 2, []byte(`{"version":2}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GameReview(ctx, g.ID, 2); err != nil || string(got) != `{"version":2}` {
		t.Fatalf("the newer review: %q, %v", got, err)
	}
	if _, err := s.GameReview(ctx, g.ID, 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the replaced review: %v, want ErrNotFound", err)
	}
	if err := s.SaveGameReview(ctx, g.ID+1000, 1, made); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("review of no game: %v, want ErrNotFound", err)
	}
}
