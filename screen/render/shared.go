package render

import (
	"bytes"
	"slices"
	"sync"
	"unsafe"

	"github.com/charmbracelet/colorprofile"
)

// Screens in step share their frames' bytes. Hundreds of spectators of
// one game are shown the same frame after the same frame (their views
// come from one string, drawn once for all of them), on terminals of the
// same size and profile: each of their renderers would find the same
// changes and write the same bytes. The first two work them out; the
// others copy them, with the renderer's state after them (its lines,
// cursor and pen), which is the same for all.
//
// A frame's bytes are looked up by the identity of the last view and the
// new one (where their text lives, and its length), not their text: a
// renderer whose last view is the one string many others had last
// is in step with them. An entry keeps both views alive, so that no
// other string can take their place in memory while it is there; a
// screen keeps only its last view's identity (ViewID), and its
// renderer's lines, which are pieces of that view, keep the view alive
// for as long as the identity is used (a renderer that forgets its
// lines redraws, and looks nothing up).
//
// What Frame writes depends on nothing but the fields of diffKey; a
// change to the renderer that makes it depend on more must add it there.
// FuzzSharedFrame holds the two to the same bytes, and
// TestSharedFrameKeepsViewsAlive holds an entry to keeping its views.

// diffKey is everything frame's output and the renderer's state after it
// depend on.
type diffKey struct {
	from, to      ViewID // the last view and the new
	width, height int
	profile       colorprofile.Profile
	ech, lf       bool
	x, y          int
	pen           *style
}

// diffEntry is a frame's bytes and the renderer's state after them.
type diffEntry struct {
	from  []string // the lines of the last view: they keep it alive
	to    string
	out   []byte
	lines []string // copied in and out: renderers do not share it
	x, y  int
	pen   *style
}

// maxDiffs bounds the frames kept; the table is emptied when full. A
// game's spectators need one entry a move (two, for those a frame behind).
const maxDiffs = 64

var diffs = struct {
	sync.Mutex
	m    map[diffKey]*diffEntry
	seen map[diffKey]struct{} // worked out once: the next to ask keeps it
}{m: make(map[diffKey]*diffEntry), seen: make(map[diffKey]struct{})}

// ViewID is where a view's text lives, and its length: equal for two
// views that are the same string, while it is alive.
type ViewID struct {
	p uintptr
	n int
}

func idOf(s string) ViewID { return ViewID{uintptr(unsafe.Pointer(unsafe.StringData(s))), len(s)} }

// sharedFrame is frame (out gets what turns the screen into view), with
// the bytes shared among screens in step; last is the view of the
// renderer's last frame, and the new one is returned for the next call.
// Only screens that say they are in step (Options.InStep) come here: a
// frame nobody else draws would cost a lookup under the table's lock and
// an entry that pushes the others' out.
func (r *Renderer) SharedFrame(out *bytes.Buffer, view string, last ViewID) ViewID {
	to := idOf(view)
	if r.redraw || last.n == 0 || view == "" || len(r.lines) == 0 {
		r.Frame(out, view)
		return to
	}
	k := diffKey{from: last, to: to,
		width: r.width, height: r.height, profile: r.profile, ech: r.ech, lf: r.lf, x: r.x, y: r.y, pen: r.pen}
	diffs.Lock()
	e := diffs.m[k]
	_, seen := diffs.seen[k]
	if e == nil && !seen {
		if len(diffs.seen) >= maxDiffs {
			clear(diffs.seen)
		}
		diffs.seen[k] = struct{}{}
	}
	diffs.Unlock()
	if e != nil {
		out.Write(e.out)
		// A copy: a renderer may reuse its lines' array for its next
		// frame.
		r.lines, r.x, r.y, r.pen = slices.Clone(e.lines), e.x, e.y, e.pen
		r.hold(nil)
		return to
	}
	var from []string
	if seen {
		from = slices.Clone(r.lines) // frame may reuse r.lines' array
	}
	start := out.Len()
	r.Frame(out, view)
	if seen {
		// Another screen drew the same change a moment ago: more are
		// likely to, and this one keeps it for them.
		e = &diffEntry{from: from, to: view, out: bytes.Clone(out.Bytes()[start:]), lines: slices.Clone(r.lines), x: r.x, y: r.y, pen: r.pen}
		diffs.Lock()
		if len(diffs.m) >= maxDiffs {
			clear(diffs.m)
		}
		diffs.m[k] = e
		delete(diffs.seen, k)
		diffs.Unlock()
	}
	return to
}
