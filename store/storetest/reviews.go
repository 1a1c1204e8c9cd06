package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
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

// testPlayerReviews: a player's reviews, for moderators, are those of
// review.Version of their ended games played by hand, hidden ones too,
// oldest first; the games counted are those games, reviewed or not; the
// games of other kinds, in play, or of other players are neither.
func testPlayerReviews(t *testing.T, b Backend) {
	ctx := context.Background()
	s := b.open(t)
	p, other := addPlayer(t, s, "watched"), addPlayer(t, s, "bystander")
	rng := rand.New(rand.NewPCG(35, 14))
	// game plays a few moves of a new game, ends it unless it is to stay
	// in play, and keeps the review text for it (none if empty).
	game := func(p store.Player, kind store.Kind, end bool, version int, text string) int64 {
		t.Helper()
		g, err := s.NewGame(ctx, p.ID, 3, kind)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := playMove(ctx, s, g, rng); err != nil {
				t.Fatal(err)
			}
		}
		if end {
			if err := s.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
				t.Fatal(err)
			}
		}
		if text != "" {
			if err := s.SaveGameReview(ctx, g.ID, version, []byte(text)); err != nil {
				t.Fatal(err)
			}
		}
		return g.ID
	}
	const v = review.Version
	first := game(p, store.KindHuman, true, v, `{"accuracy":80}`)
	game(p, store.KindHuman, true, 0, "")
	game(p, store.KindHuman, true, v+1, `{"accuracy":1}`) // another version's: not reviewed
	hidden := game(p, store.KindHuman, true, v, `{"accuracy":90}`)
	game(p, store.KindBot, true, v, `{"accuracy":2}`)
	game(p, store.KindAssisted, true, v, `{"accuracy":3}`)
	game(other, store.KindHuman, true, v, `{"accuracy":4}`)
	game(p, store.KindHuman, false, 0, "") // in play
	if err := s.HideGame(ctx, store.Action{Actor: "console:test", Reason: "looked at"}, hidden); err != nil {
		t.Fatal(err)
	}

	type seen struct {
		id     int64
		review string
	}
	var got []seen
	games, err := s.PlayerReviews(ctx, p.ID, v, func(id int64, b []byte) error {
		got = append(got, seen{id, string(b)})
		return nil
	})
	want := []seen{{first, `{"accuracy":80}`}, {hidden, `{"accuracy":90}`}}
	if err != nil || games != 4 || !slices.Equal(got, want) {
		t.Fatalf("PlayerReviews = %d games, %v, reviews %v; want 4 games, reviews %v", games, err, got, want)
	}

	stop := errors.New("stop")
	calls := 0
	if _, err := s.PlayerReviews(ctx, p.ID, v, func(int64, []byte) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("PlayerReviews whose each fails: %v after %d calls, want stop after 1", err, calls)
	}
	none := addPlayer(t, s, "newcomer")
	if games, err := s.PlayerReviews(ctx, none.ID, v, func(int64, []byte) error {
		t.Error("a review of a player without games")
		return nil
	}); err != nil || games != 0 {
		t.Errorf("PlayerReviews of a player without games: %d, %v", games, err)
	}
}
