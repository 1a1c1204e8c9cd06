package render

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/charmbracelet/colorprofile"
)

// TestSharedFrameBytes: screens in step (the same views, one string
// each, after the same views) write what a renderer of their own writes,
// whether they copy the bytes another worked out or work them out; so
// does a screen that joins late, out of step, and one whose views are
// other strings of the same text.
func TestSharedFrameBytes(t *testing.T) {
	for seed := range uint64(20) {
		checkShared(t, seed, 6, 5, 30)
	}
	diffs.Lock()
	n := len(diffs.m)
	diffs.Unlock()
	if n == 0 {
		t.Error("no frame was shared")
	}
}

// FuzzSharedFrame: for any sequence of views, a renderer that shares its
// frames with others in step writes the bytes a renderer of its own
// writes for the same views.
func FuzzSharedFrame(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(2), uint8(20))
	f.Add(uint64(7), uint8(6), uint8(5), uint8(40))
	f.Fuzz(func(t *testing.T, seed uint64, screens, late, views uint8) {
		checkShared(t, seed, 2+int(screens%7), int(late%8), 1+int(views%64))
	})
}

// checkShared draws n views made from seed on screens in step, each with
// a twin that draws the same views with Frame, and fails if any writes
// other bytes than its twin. The next to last screen joins at view late;
// the last has views of its own strings, of the same text.
func checkShared(t *testing.T, seed uint64, screens, late, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	g := &genFrame{rng: rng}
	const w, h = 40, 8
	views := []string{g.frame(h)}
	for range n {
		next := g.mutate(views[len(views)-1], h)
		if rng.IntN(6) == 0 {
			next = g.frame(h)
		}
		views = append(views, next)
	}
	type screen struct {
		r, twin *Renderer // twin draws the same with Frame
		last    ViewID
		from    int // the first view it draws
		copy    bool
	}
	var ss []*screen
	for i := range screens {
		s := &screen{r: newRenderer(colorprofile.ANSI256, w, h), twin: newRenderer(colorprofile.ANSI256, w, h)}
		switch i {
		case screens - 2:
			s.from = late
		case screens - 1:
			s.copy = true
		}
		ss = append(ss, s)
	}
	var want, got bytes.Buffer
	for k, v := range views {
		for i, s := range ss {
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

// TestSharedFrameKeepsViewsAlive guards what shared frames rest on: an
// entry is found by the identity of its views (where their text lives,
// and its length), which is the identity of another string once a view
// is collected and its memory reused. So an entry must keep both its
// views alive for as long as it can be found. The views here are left to
// the entry alone; a collection must not free them until the table lets
// the entry go.
func TestSharedFrameKeepsViewsAlive(t *testing.T) {
	const w, h = 33, 5 // a size no other test uses: the entry is this test's
	r1, r2 := newRenderer(colorprofile.ANSI, w, h), newRenderer(colorprofile.ANSI, w, h)
	freed := make(chan string, 2)
	var last1, last2 ViewID
	draw := func(view string) {
		var b bytes.Buffer
		last1 = r1.SharedFrame(&b, view, last1)
		last2 = r2.SharedFrame(&b, view, last2)
	}
	func() {
		from, to := strings.Clone(strings.Repeat("from\n", h)), strings.Clone(strings.Repeat("to\n", h))
		runtime.AddCleanup(unsafeData(from), func(s string) { freed <- s }, "the entry's last view")
		runtime.AddCleanup(unsafeData(to), func(s string) { freed <- s }, "the entry's new view")
		draw(from)
		draw(to) // r2 keeps the frame from→to for the others
	}()
	if e := findEntry(w, h); e == nil {
		t.Fatal("the second screen in step did not keep its frame")
	}
	// Both screens move on: their lines no longer hold the two views.
	draw(strings.Clone(strings.Repeat("next\n", h)))
	draw(strings.Clone(strings.Repeat("last\n", h)))
	for range 3 {
		collect()
	}
	select {
	case s := <-freed:
		t.Fatalf("%s was collected while its entry could be found by its identity", s)
	default:
	}
	// The test can see them go: once the entry is gone, they do.
	dropEntries(w, h)
	for gone := 0; gone < 2; {
		collect()
		select {
		case <-freed:
			gone++
		default:
		}
	}
}

// collect runs collections until the cleanup of a string that nothing
// holds has run: those of other objects found unreachable with it have
// been queued by then.
func collect() {
	done := make(chan struct{})
	func() {
		s := strings.Clone(strings.Repeat("x", 64))
		runtime.AddCleanup(unsafeData(s), func(chan struct{}) { close(done) }, done)
	}()
	for {
		runtime.GC()
		select {
		case <-done:
			return
		default:
			runtime.Gosched()
		}
	}
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }

// findEntry is the table's entry for a w×h screen, if there is one.
func findEntry(w, h int) *diffEntry {
	diffs.Lock()
	defer diffs.Unlock()
	for k, e := range diffs.m {
		if k.width == w && k.height == h {
			return e
		}
	}
	return nil
}

// dropEntries removes the table's entries for w×h screens.
func dropEntries(w, h int) {
	diffs.Lock()
	defer diffs.Unlock()
	for k := range diffs.m {
		if k.width == w && k.height == h {
			delete(diffs.m, k)
		}
	}
}
