package screen

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"
)

// TestScreenForgetsIdleFrame: a screen with no frame for forgetAfter lets
// go of its last frame, and draws the next one whole and right.
func TestScreenForgetsIdleFrame(t *testing.T) {
	was := forgetAfter
	forgetAfter = 50 * time.Millisecond
	t.Cleanup(func() { forgetAfter = was })
	m := &testModel{long: true}
	r := start(t, m, nil, Options{Width: 20, Height: 3, Profile: colorprofile.ANSI})
	waitFor(t, "the first frame", func() bool {
		return r.out.shows(t, colorprofile.ANSI, 20, 3, "count 0\nkeys \n"+longLine)
	})
	waitFor(t, "the idle screen to let go of its frame", func() bool {
		r.s.mu.Lock()
		defer r.s.mu.Unlock()
		return !r.s.r.HoldsFrame()
	})
	before := len(r.out.String())
	r.s.Send(countMsg{})
	view := fmt.Sprintf("count %d\nkeys \n%s", m.counted(), longLine)
	waitFor(t, "the next frame", func() bool { return r.out.shows(t, colorprofile.ANSI, 20, 3, view) })
	if next := r.out.String()[before:]; !strings.Contains(next, "\x1b[2J") {
		t.Errorf("the frame after the idle time is not a whole redraw: %q", next)
	}
}
