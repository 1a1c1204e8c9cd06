package render

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// TestSharedFrameBytes: screens in step (the same views, one string
// each, after the same views) write what a renderer of their own writes,
// whether they copy the bytes another worked out or work them out; so
// does a screen that joins late, out of step, and one whose views are
// other strings of the same text.
func TestSharedFrameBytes(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		g := &genFrame{rng: rng}
		const w, h = 40, 8
		views := []string{g.frame(h)}
		for range 30 {
			next := g.mutate(views[len(views)-1], h)
			if rng.IntN(6) == 0 {
				next = g.frame(h)
			}
			views = append(views, next)
		}
		type screen struct {
			r, twin *Renderer // twin draws the same with frame
			last    ViewID
			from    int // the first view it draws
			copy    bool
		}
		var screens []*screen
		for i := range 6 {
			s := &screen{r: newRenderer(colorprofile.ANSI256, w, h), twin: newRenderer(colorprofile.ANSI256, w, h)}
			switch i {
			case 4:
				s.from = 5 // joins late
			case 5:
				s.copy = true // its own strings
			}
			screens = append(screens, s)
		}
		var want, got bytes.Buffer
		for k, v := range views {
			for i, s := range screens {
				if k < s.from {
					continue
				}
				view := v
				if s.copy {
					view = strings.Clone(v)
				}
				if k == s.from && s.from > 0 {
					// Out of step: it drew the view before on its own.
					var skip bytes.Buffer
					s.last = s.r.SharedFrame(&skip, views[k-1], s.last)
					s.twin.Frame(&skip, views[k-1])
				}
				got.Reset()
				s.last = s.r.SharedFrame(&got, view, s.last)
				want.Reset()
				s.twin.Frame(&want, view)
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("seed %d, view %d, screen %d: wrote %q, want %q", seed, k, i, got.Bytes(), want.Bytes())
				}
			}
		}
	}
	diffs.Lock()
	n := len(diffs.m)
	diffs.Unlock()
	if n == 0 {
		t.Error("no frame was shared")
	}
}
