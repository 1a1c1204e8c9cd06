package server_test

import (
	"fmt"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestReplayReviewFitsItsDocumentedWindow: the README says the replay's
// review (`a`) needs two lines more than the game screen: 26×13 for a
// 3×3 board, 34×15 for 4×4. It said nothing of it (the replay's own
// 26×12 and 34×14), where `a` turned the replay into "Window too small".
func TestReplayReviewFitsItsDocumentedWindow(t *testing.T) {
	ts := startReviewing(t)
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
			// A short game: its review is made within moments, under the
			// race detector too.
			id := storedGame(t, ts.store, p.ID, tc.size, 12)
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
