package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Report is what a run measured. Its JSON form (WriteJSON) is for
// scripts; field names are a contract (docs/load-testing.md).
// Durations are in milliseconds.
type Report struct {
	Addr       string  `json:"addr"`
	Mode       Mode    `json:"mode"`
	Sessions   int     `json:"sessions"`
	Rate       float64 `json:"rate"` // keys or commands per second per session, as asked
	DurationMS float64 `json:"duration_ms"`
	NamePrefix string  `json:"name_prefix"`
	RampMS     float64 `json:"ramp_ms"` // from the first connect to the last handshake's end
	PlayMS     float64 `json:"play_ms"` // from then until the last session ended

	Handshakes HandshakeStats `json:"handshakes"`
	Keys       KeyStats       `json:"keys"`
	Latency    Percentiles    `json:"latency"` // key to frame (tui) or command to reply (bot)
	// Steady is Latency for the keys sent once every session had
	// connected, without the ramp-up's handshakes competing.
	Steady     *Percentiles `json:"steady,omitempty"`
	FrameBytes ByteStats    `json:"frame_bytes"`
	// Opponent (race mode): from a racer's key to the first output each
	// other racer of the room got within opponentWindow of it;
	// OpponentLate counts the opponents that got none by then.
	Opponent     *Percentiles `json:"opponent,omitempty"`
	OpponentLate int          `json:"opponent_late,omitempty"`

	Errors            map[string]int `json:"errors"`        // by kind
	ErrorSamples      []string       `json:"error_samples"` // the first few, one per kind
	SessionsCompleted int            `json:"sessions_completed"`
	GamesOver         int            `json:"games_over"` // bot: games that ended during the run

	Verify VerifyReport `json:"verify"`

	// Watch is what the spectators measured (--spectators).
	Watch *WatchReport `json:"watch,omitempty"`
	// RSS is the server's memory (--server-pid).
	RSS *RSSReport `json:"rss,omitempty"`
	// Server is the server's CPU time over the run, per key answered, and
	// its peak memory (--server-pid).
	Server *ServerReport `json:"server,omitempty"`
}

// HandshakeStats is about connecting: TCP connect, SSH handshake and
// public-key authentication.
type HandshakeStats struct {
	OK          int     `json:"ok"`
	Failed      int     `json:"failed"`
	Concurrency int     `json:"concurrency"`
	PerSecond   float64 `json:"per_second"` // successful handshakes over the ramp-up time
	P50MS       float64 `json:"p50_ms"`
	P99MS       float64 `json:"p99_ms"`
	MaxMS       float64 `json:"max_ms"`
}

// KeyStats counts keys (tui) or commands (bot).
type KeyStats struct {
	Sent     int `json:"sent"`
	Answered int `json:"answered"` // a frame (tui) or reply (bot) arrived
	// NoFrame: tui keys with no output within the frame timeout; on the
	// game screen these are the keys that did not change the board.
	NoFrame int `json:"no_frame"`
	// Moved: bot replies with moved=true (exact); tui: equal to Answered
	// (inferred, see NoFrame).
	Moved      int   `json:"moved"`
	StrayBytes int64 `json:"stray_bytes"` // tui: output that came with no key waiting
	// RatePerSession is the keys a session sent per second of play, on
	// average: below the rate asked when answers are slow (keys are sent
	// closed-loop) or, in tui mode, when keys without a frame wait out
	// the frame timeout.
	RatePerSession float64 `json:"rate_per_session"`
	// PerSecond and MovesPerSecond are the whole run's keys and moves
	// (answered keys in tui mode) per second of play.
	PerSecond      float64 `json:"per_second"`
	MovesPerSecond float64 `json:"moves_per_second"`
}

// Percentiles summarise latencies.
type Percentiles struct {
	Count  int     `json:"count"`
	MeanMS float64 `json:"mean_ms"`
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	MaxMS  float64 `json:"max_ms"`
}

// ByteStats summarise frame (tui) or reply line (bot) sizes.
type ByteStats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   int     `json:"p50"`
	Max   int     `json:"max"`
	First int     `json:"first"` // mean size of the first frame or state line
}

// OK reports a clean run: every session completed without error and the
// check found every move (or was skipped).
func (r *Report) OK() bool {
	return len(r.Errors) == 0 && r.SessionsCompleted == r.Sessions && r.Verify.OK()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile returns the nearest-rank p-th percentile of sorted values.
func percentile[T any](sorted []T, p float64) T {
	var zero T
	if len(sorted) == 0 {
		return zero
	}
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func newReport(cfg *Config, sessions []*session, ramp, play time.Duration) *Report {
	r := &Report{
		Addr: cfg.Addr, Mode: cfg.Mode, Sessions: cfg.Sessions, Rate: cfg.Rate,
		DurationMS: ms(cfg.Duration), NamePrefix: cfg.NamePrefix,
		RampMS: ms(ramp), PlayMS: ms(play),
		Errors: map[string]int{}, ErrorSamples: []string{},
	}
	var handshakes []time.Duration
	var latencies, steadyVals []int64
	var steady sample[int64]
	var frames []int
	var latencySum int64
	frameSum, frameCount := 0, 0
	var played time.Duration // session-seconds of play
	playing := 0             // sessions that played
	firstTotal, firstCount := 0, 0
	for _, s := range sessions {
		if s.connected {
			r.Handshakes.OK++
			handshakes = append(handshakes, s.handshake)
			firstTotal += s.firstBytes
			firstCount++
		} else {
			r.Handshakes.Failed++
		}
		r.Keys.Sent += s.keys
		if s.played > 0 {
			played += s.played
			playing++
		}
		r.Keys.Answered += s.answered
		r.Keys.StrayBytes += s.strayBytes
		if cfg.Mode == ModeBot {
			r.Keys.Moved += s.moved
		} else {
			r.Keys.Moved += s.answered
			r.Keys.NoFrame += s.keys - s.answered
		}
		if s.gameOver {
			r.GamesOver++
		}
		latencies = append(latencies, s.latencies.vals...)
		steadyVals = append(steadyVals, s.steady.vals...)
		steady = merge(steady, s.steady)
		latencySum += s.latencies.sum
		r.Latency.Count += s.latencies.n
		r.Latency.MaxMS = max(r.Latency.MaxMS, ms(time.Duration(s.latencies.max)))
		frames = append(frames, s.frameBytes.vals...)
		frameSum += s.frameBytes.sum
		frameCount += s.frameBytes.n
		r.FrameBytes.Max = max(r.FrameBytes.Max, s.frameBytes.max)
		if s.err == nil {
			r.SessionsCompleted++
			continue
		}
		r.countError(s, "")
	}
	if played > 0 {
		// Mean play time per session: the span over which the sessions
		// played together.
		span := played.Seconds() / float64(playing)
		r.Keys.RatePerSession = float64(r.Keys.Sent) / played.Seconds()
		r.Keys.PerSecond = float64(r.Keys.Sent) / span
		r.Keys.MovesPerSecond = float64(r.Keys.Moved) / span
	}
	r.Handshakes.Concurrency = cfg.Handshakes
	if ramp > 0 {
		r.Handshakes.PerSecond = float64(r.Handshakes.OK) / ramp.Seconds()
	}
	slices.Sort(handshakes)
	r.Handshakes.P50MS = ms(percentile(handshakes, 50))
	r.Handshakes.P99MS = ms(percentile(handshakes, 99))
	if n := len(handshakes); n > 0 {
		r.Handshakes.MaxMS = ms(handshakes[n-1])
	}

	// Percentiles from the sessions' samples (all values, unless a run
	// is long enough to fill maxSamples); counts, means and maxima exact.
	slices.Sort(latencies)
	if r.Latency.Count > 0 {
		r.Latency.MeanMS = ms(time.Duration(latencySum / int64(r.Latency.Count)))
		r.Latency.P50MS = ms(time.Duration(percentile(latencies, 50)))
		r.Latency.P95MS = ms(time.Duration(percentile(latencies, 95)))
		r.Latency.P99MS = ms(time.Duration(percentile(latencies, 99)))
	}
	if steady.n > 0 {
		p := percentilesOf(steadyVals, steady)
		r.Steady = &p
	}
	slices.Sort(frames)
	r.FrameBytes.Count = frameCount
	if frameCount > 0 {
		r.FrameBytes.Mean = float64(frameSum) / float64(frameCount)
		r.FrameBytes.P50 = percentile(frames, 50)
	}
	if firstCount > 0 {
		r.FrameBytes.First = firstTotal / firstCount
	}
	return r
}

// countError counts the error that ended s, if any, by its kind after
// prefix, and keeps the first of each kind as a sample.
func (r *Report) countError(s *session, prefix string) {
	if s.err == nil {
		return
	}
	kind := "other"
	var ke *kindError
	if errors.As(s.err, &ke) {
		kind = ke.kind
	}
	kind = prefix + kind
	if r.Errors[kind] == 0 {
		r.ErrorSamples = append(r.ErrorSamples, s.name+": "+s.err.Error())
	}
	r.Errors[kind]++
}

// WriteJSON writes the report as one JSON object and a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeKeys writes the lines about keys, latencies and frame sizes.
func (r *Report) writeKeys(b *strings.Builder, unit, answer string) {
	f := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	f("  %-12s %.2f/s per session (asked %g), %.1f/s in all, %.1f moves/s\n",
		"rate", r.Keys.RatePerSession, r.Rate, r.Keys.PerSecond, r.Keys.MovesPerSecond)
	if r.Mode == ModeBot {
		f("  %-12s %d sent, %d replied, %d moved the board\n", unit, r.Keys.Sent, r.Keys.Answered, r.Keys.Moved)
	} else {
		f("  %-12s %d sent, %d answered by a frame, %d without a frame (did not change the board)\n",
			unit, r.Keys.Sent, r.Keys.Answered, r.Keys.NoFrame)
		if r.Keys.Sent > 0 && r.Keys.Answered == 0 {
			f("  %-12s no key was answered: this screen does not redraw on arrow keys, so nothing was measured\n", "warning")
		}
	}
	f("  %-12s p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (mean %.2f ms, n=%d)\n",
		answer, r.Latency.P50MS, r.Latency.P95MS, r.Latency.P99MS, r.Latency.MaxMS, r.Latency.MeanMS, r.Latency.Count)
	if p := r.Steady; p != nil {
		f("  %-12s p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (mean %.2f ms, n=%d): the %s sent once all sessions were in\n",
			"  after ramp", p.P50MS, p.P95MS, p.P99MS, p.MaxMS, p.MeanMS, p.Count, unit)
	}
	what := "frame bytes"
	if r.Mode == ModeBot {
		what = "reply bytes"
	}
	f("  %-12s mean %.1f, p50 %d, max %d (first screen %d)", what, r.FrameBytes.Mean, r.FrameBytes.P50, r.FrameBytes.Max, r.FrameBytes.First)
	if r.Keys.StrayBytes > 0 {
		f("; %d bytes came with no key waiting", r.Keys.StrayBytes)
	}
	b.WriteString("\n")
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	unit, answer := "keys", "key→frame"
	if r.Mode == ModeBot {
		unit, answer = "commands", "cmd→reply"
	}
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	f("ssh2048 load: %d %s sessions at %s, %g %s/s each, for %v after the ramp-up (players %s*)\n",
		r.Sessions, r.Mode, r.Addr, r.Rate, unit, time.Duration(r.DurationMS*float64(time.Millisecond)), r.NamePrefix)
	f("  handshakes   %d ok, %d failed in %.0f ms: %.1f/s at concurrency %d; p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		r.Handshakes.OK, r.Handshakes.Failed, r.RampMS, r.Handshakes.PerSecond, r.Handshakes.Concurrency,
		r.Handshakes.P50MS, r.Handshakes.P99MS, r.Handshakes.MaxMS)
	if r.Rate == 0 {
		f("  %-12s none: idle sessions, held open for the duration (first screen %d bytes)\n", unit, r.FrameBytes.First)
	} else {
		r.writeKeys(&b, unit, answer)
	}
	if o := r.Opponent; o != nil {
		f("  opponent     key→their frame p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, max %.2f ms (mean %.2f ms, %d frames; %d not within 100 ms)\n",
			o.P50MS, o.P95MS, o.P99MS, o.MaxMS, o.MeanMS, o.Count, r.OpponentLate)
	}
	if len(r.Errors) == 0 {
		f("  errors       none\n")
	} else {
		kinds := make([]string, 0, len(r.Errors))
		for k := range r.Errors {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, r.Errors[k])
		}
		f("  errors       %s\n", strings.Join(parts, ", "))
		for _, s := range r.ErrorSamples {
			f("    e.g. %s\n", s)
		}
	}
	f("  sessions     %d of %d completed", r.SessionsCompleted, r.Sessions)
	if r.GamesOver > 0 {
		if r.GamesOver == 1 {
			f(" (1 game ended on the way)")
		} else {
			f(" (%d games ended on the way)", r.GamesOver)
		}
	}
	b.WriteString("\n")
	if r.Watch != nil {
		writeWatch(&b, r.Watch)
	}
	if r.RSS != nil {
		writeRSS(&b, r.RSS)
	}
	if r.Server != nil {
		writeServer(&b, r.Server, strings.TrimSuffix(unit, "s"))
	}
	writeVerify(&b, r.Verify)
	if r.OK() {
		b.WriteString("  result       OK\n")
	} else {
		b.WriteString("  result       FAILED\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeVerify(b *strings.Builder, v VerifyReport) {
	switch {
	case v.Error != "":
		fmt.Fprintf(b, "  verify       could not check: %s\n", v.Error)
		return
	case !v.Checked:
		fmt.Fprintf(b, "  verify       %s\n", v.Note)
		return
	}
	var basis string
	switch v.Basis {
	case "replies":
		basis = "the last reply's move count (exact)"
	case "screen":
		basis = "the move count their screen showed (exact)"
	case "framed_keys":
		basis = "keys answered by a frame (inferred)"
	default:
		basis = fmt.Sprintf("the move count their screen showed (exact; %d of them keys answered by a frame, inferred)", v.Players-v.ScreenRead)
	}
	fmt.Fprintf(b, "  verify       `%s`: %d of %d players match %s; %d listed",
		v.Command, v.Exact, v.Players, basis, v.Listed)
	if v.NotListed > 0 {
		fmt.Fprintf(b, ", %d not listed", v.NotListed)
	}
	if v.Ambiguous > 0 {
		fmt.Fprintf(b, ", %d names listed twice", v.Ambiguous)
	}
	fmt.Fprintf(b, "; moves seen %d, stored %d", v.Expected, v.Stored)
	if v.Lost > 0 || v.Extra > 0 {
		fmt.Fprintf(b, "; %d players with fewer stored, %d with more", v.Lost, v.Extra)
	}
	if v.Inexact > 0 {
		fmt.Fprintf(b, "; %d players not counted exactly, whose inferred count differs", v.Inexact)
	}
	b.WriteString("\n")
	if v.FramedOff > 0 {
		fmt.Fprintf(b, "    keys answered by a frame differ from the screen's count for %d players (late frames, or redraws taken for frames)\n", v.FramedOff)
	}
	for _, m := range v.Mismatches {
		if m.Stored < 0 {
			fmt.Fprintf(b, "    %s: saw %d moves, not listed\n", m.Name, m.Expected)
		} else {
			fmt.Fprintf(b, "    %s: saw %d moves, stored %d\n", m.Name, m.Expected, m.Stored)
		}
	}
	if v.Note != "" {
		fmt.Fprintf(b, "    note: %s\n", v.Note)
	}
}
