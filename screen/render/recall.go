package render

import (
	"hash/maphash"
	"unsafe"
)

// A renderer compares each frame with the last to write only what
// changed, and so keeps the last frame's text until the next: a few
// kilobytes a player, for as long as they play. A caller that can write
// the frame it last drew again, from what it keeps anyway (a model that
// is a screen.ViewRedrawer), spares the renderer that: once drawn, the
// frame's buffer goes back (LetGo), and before the next frame the
// renderer asks for the last one again (Recall). A race screen, with
// three more boards than a game's and drawn at every racer's move, keeps
// a whole frame's text less a racer this way (docs/performance.md has the
// measurement); it costs a second drawing of the last frame for each
// frame, small beside what the frame itself costs.
//
// The renderer trusts the copy only if it is the same text: its length
// and hash are noted when the buffer goes back. A copy that differs (a
// model that drew from something it did not keep) makes the next frame a
// full redraw, which costs bytes but shows the right screen.

// lentFrame is the last frame's text, given back to viewTexts (LetGo):
// what its copy must be (Recall).
type lentFrame struct {
	lent bool
	n    int
	sum  uint64
}

// frameSeed hashes the frames given back, for the whole process.
var frameSeed = maphash.MakeSeed()

// LetGo gives the buffer of the last frame's text (FrameText's) back to
// viewTexts, and notes what it held, for Recall to check the caller's
// copy against. The renderer has no lines until then.
func (r *Renderer) LetGo() {
	if r.text == nil || r.redraw {
		return
	}
	t := *r.text
	r.lent = lentFrame{lent: true, n: len(t), sum: maphash.Bytes(frameSeed, t)}
	clear(r.lines)
	r.lines = r.lines[:0]
	r.hold(nil)
}

// Recall makes the caller's copy of the last frame, given back by LetGo,
// the renderer's lines again; or, if the copy is not the same text, makes
// the next frame a full redraw. appendLast appends that copy to dst.
// Without a LetGo since the last frame it does nothing.
func (r *Renderer) Recall(appendLast func(dst []byte) []byte) {
	lent := r.lent
	r.lent = lentFrame{}
	if !lent.lent || r.redraw {
		return
	}
	t := r.takeTextFor(lent.n)
	*t = appendLast((*t)[:0])
	if len(*t) != lent.n || maphash.Bytes(frameSeed, *t) != lent.sum {
		viewTexts.Put(t)
		r.redraw = true
		return
	}
	r.lines = splitLines(r.lines[:0], unsafe.String(unsafe.SliceData(*t), len(*t)), r.height)
	r.hold(t)
}
