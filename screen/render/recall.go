package screen

import (
	"hash/maphash"
	"unsafe"
)

// A screen compares each frame with the last to write only what changed,
// and so keeps the last frame's text until the next: a few kilobytes a
// player, for as long as they play. A model that can write the frame it
// last returned again, from what it keeps anyway (ViewRedrawer), spares
// its screen that: once drawn, the frame's buffer goes back (viewTexts),
// and before the next frame the screen asks the model for the last one
// again. A race screen, with three more boards than a game's and drawn at
// every racer's move, kept 5.4 KB a racer this way; it now costs a second
// drawing of the last frame, about 2 µs, for each frame.
//
// The screen trusts the copy only if it is the same text: its length and
// hash are noted when the buffer goes back. A copy that differs (a model
// that drew from something it did not keep) makes the next frame a full
// redraw, which costs bytes but shows the right screen.

// ViewRedrawer is a ViewAppender that can write the view AppendView last
// returned again. LastRedrawable reports whether it can, for the view
// AppendView has just returned; AppendLastView appends that view's text
// to dst, the same bytes AppendView wrote, until AppendView is next
// called.
type ViewRedrawer interface {
	ViewAppender
	LastRedrawable() bool
	AppendLastView(dst []byte) []byte
}

// lentFrame is the last frame's text, given back to viewTexts (letGo):
// what its copy must be (recall).
type lentFrame struct {
	lent bool
	n    int
	sum  uint64
}

// frameSeed hashes the frames given back, for the whole process.
var frameSeed = maphash.MakeSeed()

// letGo gives the buffer of the last frame's text back to viewTexts, and
// notes what it held, for recall to check the model's copy against. The
// renderer has no lines until then.
func (r *renderer) letGo() {
	if r.text == nil || r.redraw {
		return
	}
	t := *r.text
	r.lent = lentFrame{lent: true, n: len(t), sum: maphash.Bytes(frameSeed, t)}
	clear(r.lines)
	r.lines = r.lines[:0]
	r.hold(nil)
}

// recall makes the model's copy of the last frame, given back by letGo,
// the renderer's lines again; or, if the copy is not the same text, makes
// the next frame a full redraw.
func (r *renderer) recall(vr ViewRedrawer) {
	lent := r.lent
	r.lent = lentFrame{}
	if !lent.lent || r.redraw {
		return
	}
	t := r.takeTextFor(lent.n)
	*t = vr.AppendLastView((*t)[:0])
	if len(*t) != lent.n || maphash.Bytes(frameSeed, *t) != lent.sum {
		viewTexts.Put(t)
		r.redraw = true
		return
	}
	r.lines = splitLines(r.lines[:0], unsafe.String(unsafe.SliceData(*t), len(*t)), r.height)
	r.hold(t)
}
