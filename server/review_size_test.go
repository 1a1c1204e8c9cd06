package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/servertest"
	gossh "golang.org/x/crypto/ssh"
)

// TestReplayReviewFitsItsDocumentedWindow: the README says the replay's
// review (`a`) needs two lines more than the game screen: 26×13 for a
// 3×3 board, 34×15 for 4×4. It said nothing of it (the replay's own
// 26×12 and 34×14), where `a` turned the replay into "Window too small".
func TestReplayReviewFitsItsDocumentedWindow(t *testing.T) {
	s := servertest.StartGames(t, t.TempDir(), "127.0.0.1:0", []game.Option{game.WithReviews(legalOnly{})}, noBotRate)
	ts := &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
	key := newKey(t)
	if r := run(t, ts.dial(t, "rev", key), "whoami", ""); r.code != 0 {
		t.Fatalf("whoami: %+v", r)
	}
	p, err := ts.store.FindPlayer(t.Context(), gossh.FingerprintSHA256(key.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ size, w, h int }{{3, 26, 13}, {4, 34, 15}} {
		t.Run(fmt.Sprintf("%d×%d", tc.size, tc.size), func(t *testing.T) {
			id := storedGame(t, ts.store, p.ID, tc.size, 40)
			rp := openScreen(t, ts.dial(t, "rev", key), fmt.Sprintf("replay %d", id), tc.w, tc.h)
			rp.waitText("the replay", "Move 0/")
			rp.send("a")
			screen := rp.waitUntil("the review made, or the window too small", func(s string) bool {
				return strings.Contains(s, "Accuracy") || strings.Contains(s, "too small")
			})
			if strings.Contains(screen, "too small") {
				t.Errorf("the review of a %d×%d replay at %d×%d:\n%s", tc.size, tc.size, tc.w, tc.h, screen)
			}
			rp.send("q")
			rp.wait()
		})
	}
}

// legalOnly is an AI that judges every legal move alike, at once: the
// review's layout is what is checked, not its judgement, and the real
// search of a 4×4 game's positions takes long under the race detector.
type legalOnly struct{}

func (legalOnly) Evaluate(_ context.Context, b engine.Board, _ int) (ai.Evaluation, error) {
	var e ai.Evaluation
	for _, d := range engine.Directions() {
		nb := b
		_, e.Legal[d] = nb.Move(d)
	}
	return e, nil
}
