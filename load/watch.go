package load

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// A spectator run (Config.Spectators > 0, tui mode) plays in two halves of
// Duration each, from when every player has its first screen: first the
// players alone, then with the spectators watching session 1 (`watch
// NAME` on a PTY). Between them the players
// hold their keys while the spectators connect and draw their first
// screen (a spectator's arrival redraws the player's header, which must
// not pass for a key's frame). The report compares the watched player's
// key-to-frame time in the two halves, times each spectator's frame
// against the player's frame of the same key, and, given the server's
// process id, reads the server's RSS before the players connect, after,
// and after the spectators (see serverProbe).

// Phases of a spectator run.
const (
	phaseAlone    int32 = iota // the players play unwatched
	phaseArriving              // the spectators connect; the players hold their keys
	phaseWatched               // the players play, watched
)

// settleWatched is the pause between the spectators' last first screen
// and the watched half: the redraws their arrival caused are over.
const settleWatched = time.Second

// maxSpectatorChunks bounds the output arrivals one spectator keeps.
const maxSpectatorChunks = 1 << 16

// holdPoll is how often a player holding its keys looks whether it may
// go on.
const holdPoll = 50 * time.Millisecond

// maxKeyFrames bounds the key and frame times the watched player keeps.
const maxKeyFrames = 1 << 20

// holding reports whether the player must hold its keys: the spectators
// are arriving.
func (s *session) holding() bool { return s.phase != nil && s.phase.Load() == phaseArriving }

// byPhase files the latency of a key sent at sent and framed at framed
// under the half it was sent in.
func (s *session) byPhase(sent, framed time.Time) {
	if s.phase == nil {
		return
	}
	switch s.sentPhase {
	case phaseAlone:
		s.alone.add(int64(framed.Sub(sent)), s.rng)
	case phaseWatched:
		s.watchedLat.add(int64(framed.Sub(sent)), s.rng)
		if s.recordKeys && len(s.keyFrames) < maxKeyFrames {
			s.keyFrames = append(s.keyFrames, keyFrame{sent, framed})
		}
	}
}

// keyFrame is when the watched player sent a key and when its frame came.
type keyFrame struct{ sent, framed time.Time }

// spectator is one simulated spectator of session 1.
type spectator struct {
	s       *session // its name, key, handshake and first screen
	target  string
	arrived []time.Time // output arrivals during the watched half
	dropped int         // arrivals past maxSpectatorChunks
	bytes   int64       // output during the watched half
}

// run connects, watches, and receives until stop, then quits with q and
// expects status 0.
func (sp *spectator) run(ctx context.Context, slots chan struct{}, rampDone func(), phase *atomic.Int32, stop <-chan struct{}) {
	s := sp.s
	client, err := s.connect(ctx, slots)
	if err != nil {
		rampDone()
		s.err = err
		return
	}
	s.connected = true
	defer client.Close()
	unhook := context.AfterFunc(ctx, func() { client.Close() })
	defer unhook()
	err = sp.watch(ctx, client, rampDone, phase, stop)
	if err != nil && ctx.Err() != nil {
		err = &kindError{kind: errCancelled, err: ctx.Err()}
	}
	s.err = err
}

func (sp *spectator) watch(ctx context.Context, client *gossh.Client, rampDone func(), phase *atomic.Int32, stop <-chan struct{}) error {
	s := sp.s
	ramped := false
	defer func() {
		if !ramped {
			rampDone()
		}
	}()
	sess, in, out, err := openSession(client)
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := sess.RequestPty(termName, termHeight, termWidth, gossh.TerminalModes{}); err != nil {
		return &kindError{errSession, err}
	}
	stderr := &capped{max: 512}
	sess.Stderr = stderr
	if err := sess.Start("watch " + sp.target); err != nil {
		return &kindError{errSession, err}
	}
	chunks := make(chan chunk, 64)
	done := make(chan struct{})
	defer close(done)
	go readChunks(out, chunks, done, "", nil)
	if err := s.firstFrame(ctx, chunks); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return failf(errFirstFrame, "%v: %s", err, msg)
		}
		return err
	}
	ramped = true
	rampDone()
	s.playing = time.Now()
	defer func() { s.played = time.Since(s.playing) }()
	for {
		select {
		case c := <-chunks:
			if c.n > 0 && phase.Load() == phaseWatched {
				sp.bytes += int64(c.n)
				if len(sp.arrived) < maxSpectatorChunks {
					sp.arrived = append(sp.arrived, c.at)
				} else {
					sp.dropped++
				}
			}
			if c.err != nil {
				return closedError(c.err)
			}
		case <-stop:
			return sp.quit(sess, in, chunks)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// quit presses q and waits for the screen's goodbye and status 0.
func (sp *spectator) quit(sess *gossh.Session, in interface{ Write([]byte) (int, error) }, chunks <-chan chunk) error {
	if _, err := in.Write([]byte("q")); err != nil {
		return &kindError{errWrite, err}
	}
	waited := make(chan error, 1)
	go func() { waited <- sess.Wait() }()
	timeout := time.After(sp.s.cfg.ConnectTimeout)
	for {
		select {
		case <-chunks: // the goodbye
		case err := <-waited:
			if err != nil {
				return &kindError{errExit, err}
			}
			return nil
		case <-timeout:
			return failf(errExit, "no exit status within %v of q", sp.s.cfg.ConnectTimeout)
		}
	}
}

// WatchReport is what a spectator run measured. Durations in
// milliseconds.
type WatchReport struct {
	Spectators int    `json:"spectators"`
	Watched    string `json:"watched"` // the player they watch (session 1)
	Connected  int    `json:"connected"`
	Completed  int    `json:"completed"` // watched to the end and quit with status 0
	// The watched player's key to frame, alone and watched, and every
	// player's when there are more.
	PlayerAlone   Percentiles `json:"player_alone"`
	PlayerWatched Percentiles `json:"player_watched"`
	AllAlone      Percentiles `json:"all_alone"`
	AllWatched    Percentiles `json:"all_watched"`
	// Spectator frames: from the player's key to the spectator's frame,
	// and that less the player's own frame of the key (negative when the
	// spectator's came first).
	SpectatorFrame Percentiles `json:"spectator_frame"`
	BehindPlayer   Signed      `json:"behind_player"`
	// Missed: the player's framed keys of the watched half for which a
	// spectator got no frame before the next key (summed over
	// spectators).
	Missed         int     `json:"missed"`
	SpectatorBytes float64 `json:"spectator_bytes_per_frame"`
	// Server CPU time in each half, per second of it (Config.ServerPID).
	CPUAlone   float64 `json:"cpu_alone"`
	CPUWatched float64 `json:"cpu_watched"`
}

// Signed summarises differences that may be negative.
type Signed struct {
	Count int     `json:"count"`
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
	MinMS float64 `json:"min_ms"`
}

// watchRun is the spectators' side of a run.
type watchRun struct {
	cfg        *Config
	phase      atomic.Int32
	spectators []*spectator
	probe      *serverProbe     // nil without Config.ServerPID
	cpu        [4]time.Duration // at the start and the end of each half
	lasted     [2]time.Duration // how long each half lasted
	stop       chan struct{}    // closed after the players are done
	wg         sync.WaitGroup
}

func newWatchRun(cfg *Config, target string, probe *serverProbe) *watchRun {
	w := &watchRun{cfg: cfg, stop: make(chan struct{}), probe: probe}
	digits := len(strconv.Itoa(cfg.Spectators))
	room := sessionRoom(cfg.Sessions + cfg.Spectators)
	for i := range cfg.Spectators {
		s := &session{cfg: cfg, name: fmt.Sprintf("%sw%0*d", cfg.NamePrefix, max(digits, 4), i+1),
			latencies: newSample[int64](room), frameBytes: newSample[int](room)}
		w.spectators = append(w.spectators, &spectator{s: s, target: target})
	}
	return w
}

// halves runs the two halves once the players play, and closes
// playStop at the end of the watched half, or when every player is done
// before it (playersDone).
func (w *watchRun) halves(ctx context.Context, slots chan struct{}, playStop chan struct{}, playersDone <-chan struct{}) {
	defer close(playStop)
	w.probe.readCPU(&w.cpu[0])
	t0 := time.Now()
	if !sleepUntil(ctx, t0.Add(w.cfg.Duration), playersDone) {
		return
	}
	w.lasted[0] = time.Since(t0)
	w.probe.readCPU(&w.cpu[1])
	w.probe.markPlayers()
	// A key in flight gets its frame, or gives up on it, before the
	// first spectator's arrival redraws the player's screen.
	w.phase.Store(phaseArriving)
	if !sleepUntil(ctx, time.Now().Add(w.cfg.FrameTimeout), playersDone) {
		return
	}
	var ramp sync.WaitGroup
	ramp.Add(len(w.spectators))
	w.wg.Add(len(w.spectators))
	for _, sp := range w.spectators {
		go func() {
			defer w.wg.Done()
			sp.run(ctx, slots, ramp.Done, &w.phase, w.stop)
		}()
	}
	ramp.Wait()
	if !sleepUntil(ctx, time.Now().Add(settleWatched), playersDone) {
		return
	}
	w.probe.markSpectators()
	w.probe.readCPU(&w.cpu[2])
	w.phase.Store(phaseWatched)
	t1 := time.Now()
	sleepUntil(ctx, t1.Add(w.cfg.Duration), playersDone)
	w.lasted[1] = time.Since(t1)
	w.probe.readCPU(&w.cpu[3])
}

// finish stops the spectators, once the players are done, and waits
// for them.
func (w *watchRun) finish() {
	close(w.stop)
	w.wg.Wait()
}

// report puts together what the run measured; player is session 1.
func (w *watchRun) report(sessions []*session) *WatchReport {
	r := &WatchReport{Spectators: len(w.spectators), Watched: sessions[0].name}
	var bytes int64
	for _, sp := range w.spectators {
		if sp.s.connected {
			r.Connected++
		}
		if sp.s.connected && sp.s.err == nil {
			r.Completed++
		}
		bytes += sp.bytes
	}
	player := sessions[0]
	r.PlayerAlone = percentilesOf(player.alone.vals, player.alone)
	r.PlayerWatched = percentilesOf(player.watchedLat.vals, player.watchedLat)
	var alone, watched []int64
	var aloneS, watchedS sample[int64]
	for _, s := range sessions {
		alone = append(alone, s.alone.vals...)
		watched = append(watched, s.watchedLat.vals...)
		aloneS = merge(aloneS, s.alone)
		watchedS = merge(watchedS, s.watchedLat)
	}
	r.AllAlone = percentilesOf(alone, aloneS)
	r.AllWatched = percentilesOf(watched, watchedS)

	// Each spectator's first arrival after each key of the player, before
	// the next key: its frame of that move.
	keys := player.keyFrames
	var fromKey []int64
	var fromKeyS sample[int64]
	var behind []time.Duration
	for _, sp := range w.spectators {
		for i, k := range keys {
			j := sort.Search(len(sp.arrived), func(j int) bool { return !sp.arrived[j].Before(k.sent) })
			if j == len(sp.arrived) || (i+1 < len(keys) && !sp.arrived[j].Before(keys[i+1].sent)) {
				r.Missed++
				continue
			}
			d := int64(sp.arrived[j].Sub(k.sent))
			fromKey = append(fromKey, d)
			fromKeyS.n++
			fromKeyS.sum += d
			fromKeyS.max = max(fromKeyS.max, d)
			behind = append(behind, sp.arrived[j].Sub(k.framed))
		}
	}
	r.SpectatorFrame = percentilesOf(fromKey, fromKeyS)
	if len(behind) > 0 {
		slices.Sort(behind)
		r.BehindPlayer = Signed{Count: len(behind), P50MS: ms(percentile(behind, 50)), P99MS: ms(percentile(behind, 99)),
			MaxMS: ms(behind[len(behind)-1]), MinMS: ms(behind[0])}
	}
	if matched := len(fromKey); matched > 0 {
		r.SpectatorBytes = float64(bytes) / float64(matched)
	}

	if w.probe.ok() {
		if w.lasted[0] > 0 {
			r.CPUAlone = float64(w.cpu[1]-w.cpu[0]) / float64(w.lasted[0])
		}
		if w.lasted[1] > 0 {
			r.CPUWatched = float64(w.cpu[3]-w.cpu[2]) / float64(w.lasted[1])
		}
	}
	return r
}

func merge(a, b sample[int64]) sample[int64] {
	a.n += b.n
	a.sum += b.sum
	a.max = max(a.max, b.max)
	return a
}

// percentilesOf summarises vals (sorted here), with the exact count, sum
// and maximum of s.
func percentilesOf(vals []int64, s sample[int64]) Percentiles {
	var p Percentiles
	if s.n == 0 {
		return p
	}
	vals = slices.Clone(vals)
	slices.Sort(vals)
	p.Count = s.n
	p.MeanMS = ms(time.Duration(s.sum / int64(s.n)))
	p.P50MS = ms(time.Duration(percentile(vals, 50)))
	p.P95MS = ms(time.Duration(percentile(vals, 95)))
	p.P99MS = ms(time.Duration(percentile(vals, 99)))
	p.MaxMS = ms(time.Duration(s.max))
	return p
}

// writeWatch writes the spectator lines of the report.
func writeWatch(b *strings.Builder, r *WatchReport) {
	f := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	pct := func(p Percentiles) string {
		return fmt.Sprintf("p50 %.2f ms, p99 %.2f ms, max %.2f ms (n=%d)", p.P50MS, p.P99MS, p.MaxMS, p.Count)
	}
	f("  %-12s %d watching %s: %d connected, %d watched to the end\n", "spectators", r.Spectators, r.Watched, r.Connected, r.Completed)
	f("  %-12s alone   %s\n", "player", pct(r.PlayerAlone))
	f("  %-12s watched %s; p99 %+.2f ms\n", "", pct(r.PlayerWatched), r.PlayerWatched.P99MS-r.PlayerAlone.P99MS)
	if r.AllAlone.Count != r.PlayerAlone.Count {
		f("  %-12s alone %s; watched %s\n", "all players", pct(r.AllAlone), pct(r.AllWatched))
	}
	f("  %-12s from the player's key %s\n", "spectator", pct(r.SpectatorFrame))
	f("  %-12s behind the player's frame p50 %.2f ms, p99 %.2f ms, max %.2f ms, min %.2f ms (n=%d); %d frames missed; %.0f bytes a frame\n",
		"", r.BehindPlayer.P50MS, r.BehindPlayer.P99MS, r.BehindPlayer.MaxMS, r.BehindPlayer.MinMS, r.BehindPlayer.Count, r.Missed, r.SpectatorBytes)
	if r.CPUAlone > 0 || r.CPUWatched > 0 {
		f("  %-12s server %.1f %% of a core alone, %.1f %% watched\n", "cpu", 100*r.CPUAlone, 100*r.CPUWatched)
	}
}
