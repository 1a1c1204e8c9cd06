package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestReplayReviewFitsItsDocumentedWindow: the README says the replay's
// review (`a`) needs two lines more than the game screen: 26×13 for a
// 3×3 board, 34×15 for 4×4. It said nothing of it (the replay's own
// 26×12 and 34×14), where `a` turned the replay into "Window too small".
func TestReplayReviewFitsItsDocumentedWindow(t *testing.T) {
	ts := startReviewing(t)
	c := ts.dial(t, "rev", newKey(t))
	for _, tc := range []struct{ size, w, h int }{{3, 26, 13}, {4, 34, 15}} {
		t.Run(fmt.Sprintf("%d×%d", tc.size, tc.size), func(t *testing.T) {
			_, id := endedBotGame(t, c, tc.size)
			rp := openScreen(t, c, "replay "+id, tc.w, tc.h)
			rp.waitText("the replay", "Move 0/")
			rp.send("a")
			// The review's lines are there from its first progress on
			// (a 4×4 game's review takes long under the race detector).
			screen := rp.waitUntil("the review, or the window too small", func(s string) bool {
				return strings.Contains(s, "Reviewing") || strings.Contains(s, "Accuracy") || strings.Contains(s, "too small")
			})
			if strings.Contains(screen, "too small") {
				t.Errorf("the review of a %d×%d replay at %d×%d:\n%s", tc.size, tc.size, tc.w, tc.h, screen)
			}
			if tc.size == 3 { // and once made
				screen = rp.waitUntil("the review made", func(s string) bool {
					return strings.Contains(s, "Accuracy") || strings.Contains(s, "too small")
				})
				if strings.Contains(screen, "too small") {
					t.Errorf("the review of a 3×3 replay, made, at %d×%d:\n%s", tc.w, tc.h, screen)
				}
			}
			rp.send("q")
			rp.wait()
		})
	}
}
