package tui

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/screen/render"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// BenchmarkMotion is a move's frames at 80×24 with motion off (the board
// at rest) and on (the slides, the pop, then the board at rest), each
// built by the model and turned into bytes by the renderer as package
// screen does: an op is one key that moves the board. bytes/key is over
// a fixed, seeded run of 10 games of 300 moves, the same on every run;
// the time is the frames' build and render per key, with the key's
// Update, in CPU time (cpu-µs/key) and on the wall clock.
//
//	go test -run '^$' -bench Motion -benchmem ./tui/
func BenchmarkMotion(b *testing.B) {
	for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ASCII} {
		for _, on := range []bool{false, true} {
			name := p.String() + "/motion=off"
			if on {
				name = p.String() + "/motion=on"
			}
			b.Run(name, func(b *testing.B) {
				total, keys := 0, 0
				for seed := range uint64(10) {
					mp := newMotionPlayer(b, p, on, seed)
					for range 300 {
						total += mp.key()
						keys++
					}
				}
				mp := newMotionPlayer(b, p, on, 99)
				b.ReportAllocs()
				b.ResetTimer()
				cpu0, n := cpuTime(b), 0
				for b.Loop() {
					mp.key()
					n++
				}
				b.StopTimer()
				b.ReportMetric(float64(total)/float64(keys), "bytes/key")
				// CPU time rather than the wall clock: on a shared machine
				// the wall clock is mostly waiting for a core.
				b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(n), "cpu-µs/key")
			})
		}
	}
}

// motionPlayer plays a guest's game on a model and renders its frames.
type motionPlayer struct {
	h   *harness
	r   *render.Renderer
	buf bytes.Buffer
	rng *rand.Rand
	on  bool
	now time.Time
}

func newMotionPlayer(b *testing.B, p colorprofile.Profile, on bool, seed uint64) *motionPlayer {
	h := newHarness(&testing.T{}, Options{Store: NewGuestStore(nil, func() uint64 { return seed }), Profile: p, Motion: on}, 80, 24)
	mp := &motionPlayer{h: h, r: render.New(p, 80, 24, "xterm-256color", true), rng: rand.New(rand.NewPCG(seed, 2)), on: on, now: time.Unix(1, 0)}
	mp.frame() // the first screen
	return mp
}

// frame renders the model's view and returns its bytes.
func (mp *motionPlayer) frame() int {
	mp.buf.Reset()
	text := mp.r.TakeText()
	_, *text = mp.h.m.AppendView((*text)[:0])
	mp.r.FrameText(&mp.buf, text)
	return mp.buf.Len()
}

// key plays a random move that changes the board (n when none does) and
// draws its frames, as a screen would with motion allowed or not.
func (mp *motionPlayer) key() int {
	b := mp.h.m.game.Board()
	var moves []engine.Direction
	for _, d := range engine.Directions() {
		if c := b; func() bool { _, m := c.Move(d); return m }() {
			moves = append(moves, d)
		}
	}
	k := "n"
	if len(moves) > 0 {
		k = [...]string{engine.Up: "up", engine.Right: "right", engine.Down: "down", engine.Left: "left"}[moves[mp.rng.IntN(len(moves))]]
	}
	mp.h.send(tuitest.KeyPress(k))
	if k == "n" && mp.h.m.screen == screenConfirmNew {
		mp.h.send(tuitest.KeyPress("y"))
	}
	bytes := 0
	for {
		mp.now = mp.now.Add(draw.MotionStep)
		next := mp.h.m.Animate(mp.now, mp.on)
		bytes += mp.frame()
		if next == 0 {
			break
		}
	}
	return bytes
}
