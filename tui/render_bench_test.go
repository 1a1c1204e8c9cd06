package tui

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/screen/render"
)

// BenchmarkRenderGame is the renderer alone on the game screen's own
// frames at 80×24: a seeded run of 4 games of 300 moves (motion off) is
// recorded first, then an op turns one frame into bytes, the frames in the
// order played, on xterm-256color (which erases with the background
// colour). cpu-ns/op is the process's CPU time, which others on the
// machine sway less than the wall clock.
//
//	go test -run '^$' -bench RenderGame -benchmem ./tui/
func BenchmarkRenderGame(b *testing.B) {
	for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256} {
		b.Run(p.String(), func(b *testing.B) {
			var views []string
			for seed := range uint64(4) {
				mp := newMotionPlayer(b, p, false, seed)
				for range 300 {
					mp.key()
					_, text := mp.h.m.AppendView(nil)
					views = append(views, string(text))
				}
			}
			r := render.New(p, 80, 24, "xterm-256color", true)
			var out bytes.Buffer
			total, i := 0, 0
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				out.Reset()
				r.Frame(&out, views[i%len(views)])
				total += out.Len()
				i++
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(i), "cpu-ns/op")
			b.ReportMetric(float64(total)/float64(i), "bytes/frame")
		})
	}
}
