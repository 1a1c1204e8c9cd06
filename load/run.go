package load

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Error kinds, as the report counts them.
const (
	errKey        = "key"         // generating the session's key
	errDial       = "dial"        // TCP connect
	errHandshake  = "handshake"   // SSH handshake or authentication
	errSession    = "session"     // opening the channel, PTY, shell or command
	errFirstFrame = "first_frame" // no first frame (tui) or state line (bot) in time
	errWrite      = "write"       // sending a key or command
	errClosed     = "closed"      // the server ended the session while it was playing
	errReply      = "reply"       // bot: no reply in time, or a reply that is not a state
	errErrorLine  = "error_line"  // bot: the server answered with an error line
	errExit       = "exit"        // the session ended with a non-zero status or no status
	errCancelled  = "cancelled"   // the run was cancelled (signal or hard deadline)
)

// kindError is an error with the report's kind attached.
type kindError struct {
	kind string
	err  error
}

func (e *kindError) Error() string { return e.kind + ": " + e.err.Error() }
func (e *kindError) Unwrap() error { return e.err }

func failf(kind, format string, args ...any) error {
	return &kindError{kind: kind, err: fmt.Errorf(format, args...)}
}

// session is one simulated player and what it measured.
type session struct {
	cfg  *Config
	name string
	rng  *rand.Rand

	handshake time.Duration
	connected bool
	err       error // the error that ended the session, nil if it completed

	keys      int           // keys or commands sent
	answered  int           // keys that got a frame (tui) or reply (bot)
	moved     int           // bot: replies with moved=true
	latencies sample[int64] // nanoseconds, per answered key
	// steady is latencies of the keys sent once every session had
	// connected (rampEnd, Unix nanoseconds, is then set): what players
	// see with the handshakes of the ramp-up over.
	steady     sample[int64]
	rampEnd    *atomic.Int64
	frameBytes sample[int]   // per answered key
	frame      int           // bytes of the frame being received
	inFrame    bool          // a frame is being received
	strayBytes int64         // tui: bytes that arrived with no key waiting
	firstBytes int           // size of the first frame or state line
	playing    time.Time     // when the first frame or state line was in
	played     time.Duration // from then until the last key's answer

	// race: the session's room, its keys, and when each output arrived
	// (see opponentLatencies).
	room     *raceRoom
	raceKeys []raceKey
	outputAt []time.Time
	// outputUntil is when the session stopped recording output (the
	// run's end): an opponent's move after it is not counted.
	outputUntil time.Time

	// bot: the moves counter of the first and last state lines.
	firstMoves, lastMoves int
	gameOver              bool
	// tui: the move count the game screen showed at the end (see
	// readScreenMoves), if it could be read, with the run's terminals.
	screenMoves int
	screenRead  bool
	terms       *terminals

	// A spectator run's (see watch.go): its phase, the latencies of the
	// keys sent alone and watched, and for session 1, the one watched,
	// when each key went and its frame came in the watched half.
	phase      *atomic.Int32 // nil: no spectators
	sentPhase  int32
	alone      sample[int64]
	watchedLat sample[int64]
	recordKeys bool
	keyFrames  []keyFrame
	// ready, if not nil, is called once the session plays (its first
	// screen is in, at its size) or has ended without: the halves start
	// once every player's has been.
	ready func()
}

// Run performs one load run and returns its report. It returns an error
// only for a configuration it refuses; what goes wrong in sessions is in
// the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.NamePrefix == "" {
		tag := []byte{byte(rand.Uint32()), byte(rand.Uint32())}
		cfg.NamePrefix = "load-" + hex.EncodeToString(tag) + "-"
	}
	// A hard bound on the sessions, whatever the server does: the worst
	// ramp-up, the play time, the last key's answer, the screen's move
	// count and the goodbye. The check has a budget of its own.
	rounds := (cfg.Sessions + cfg.Handshakes - 1) / cfg.Handshakes
	hard := time.Duration(rounds+3)*cfg.ConnectTimeout + cfg.Duration + 2*cfg.FrameTimeout + 10*time.Second
	if cfg.Spectators > 0 {
		// The players' first screens and sizes, which the halves wait
		// for; the watched half, the spectators' ramp-up and their
		// goodbyes.
		rounds := (cfg.Spectators + cfg.Handshakes - 1) / cfg.Handshakes
		hard += cfg.Duration + time.Duration(rounds+4)*cfg.ConnectTimeout + cfg.FrameTimeout + settleWatched
	}
	playCtx, cancel := context.WithTimeout(ctx, hard)
	defer cancel()

	digits := len(fmt.Sprint(cfg.Sessions))
	room := sessionRoom(cfg.Sessions + cfg.Spectators)
	sessions := make([]*session, cfg.Sessions)
	var rampEnd atomic.Int64
	terms := newTerminals(maxTerminals)
	defer terms.close() // after every session has ended
	for i := range sessions {
		sessions[i] = &session{
			cfg:        &cfg,
			name:       fmt.Sprintf("%s%0*d", cfg.NamePrefix, max(digits, 4), i+1),
			rng:        rand.New(rand.NewPCG(rand.Uint64(), uint64(i))),
			latencies:  newSample[int64](room),
			steady:     newSample[int64](room),
			rampEnd:    &rampEnd,
			frameBytes: newSample[int](room),
			terms:      terms,
		}
	}

	probe := newServerProbe(cfg.ServerPID)
	probe.markBefore()
	var watch *watchRun
	var players sync.WaitGroup // the players of a spectator run that are not playing yet
	if cfg.Spectators > 0 {
		watch = newWatchRun(&cfg, sessions[0].name, probe)
		players.Add(len(sessions))
		for _, s := range sessions {
			s.phase = &watch.phase
			s.alone, s.watchedLat = newSample[int64](room), newSample[int64](room)
			s.ready = players.Done
		}
		sessions[0].recordKeys = true
	}
	var rooms []*raceRoom
	if cfg.Mode == ModeRace {
		rooms = raceRooms(cfg.NamePrefix, sessions)
		// Race games are contest games, on no all-time board: the check
		// through scores has nothing to count.
		cfg.Verify = false
	}

	// stop is closed Duration after the last handshake attempt: from then
	// on every session has had its chance to connect, and all that did
	// play together for Duration. (With spectators, after both halves:
	// see watchRun.halves.)
	stop := make(chan struct{})
	var rampWG, playWG sync.WaitGroup
	slots := make(chan struct{}, cfg.Handshakes)
	start := time.Now()
	rampWG.Add(len(sessions))
	playWG.Add(len(sessions))
	for _, s := range sessions {
		go func() {
			defer playWG.Done()
			s.run(playCtx, slots, rampWG.Done, stop)
		}()
	}
	rampWG.Wait()
	rampDone := time.Now()
	rampEnd.Store(rampDone.UnixNano())
	probe.markRamp()
	if watch != nil {
		playersDone, halvesDone := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(halvesDone)
			// The halves are of play: a first screen may come long after
			// its handshake on a busy server, and the watched game is
			// not there to watch until then. Every session's ready is
			// called by the time it ends, and it ends by playCtx.
			players.Wait()
			watch.halves(playCtx, slots, stop, playersDone)
		}()
		playWG.Wait()
		close(playersDone)
		<-halvesDone
		// The spectators leave once the players are done: a spectator
		// leaving redraws the player's header.
		watch.finish()
	} else {
		stopped := make(chan struct{})
		timer := time.AfterFunc(cfg.Duration, func() {
			defer close(stopped)
			probe.markPlayers()
			probe.markStop()
			close(stop)
		})
		playWG.Wait()
		if timer.Stop() { // everyone ended early (errors, games over, cancel)
			close(stop)
		} else {
			// The probe is the timer's until it is done with it: everyone
			// may have ended early just as it fired.
			<-stopped
		}
	}
	end := time.Now()
	probe.markEnd()

	rep := newReport(&cfg, sessions, rampDone.Sub(start), end.Sub(rampDone))
	rep.RSS = probe.report(cfg.Sessions, cfg.Spectators)
	playKeys := 0
	if rep.Steady != nil {
		playKeys = rep.Steady.Count
	}
	rep.Server = probe.serverReport(rep.Keys.Answered, playKeys)
	if watch != nil {
		rep.Watch = watch.report(sessions)
		for _, sp := range watch.spectators {
			rep.countError(sp.s, "spectator ")
		}
	}
	if cfg.Mode == ModeRace {
		samples, late := opponentLatencies(rooms)
		rep.Opponent = percentiles(samples)
		rep.OpponentLate = late
	}
	if cfg.Verify {
		vctx, cancel := context.WithTimeout(ctx, cfg.VerifyWait+5*cfg.ConnectTimeout)
		defer cancel()
		rep.Verify = verify(vctx, &cfg, sessions)
	} else {
		rep.Verify = VerifyReport{Note: "skipped (--no-verify)"}
		if cfg.Mode == ModeRace {
			rep.Verify.Note = "skipped: race games rank on no all-time board"
		}
	}
	return rep, nil
}

// run is one session from key to goodbye. rampDone is called once the
// handshake has been tried.
func (s *session) run(ctx context.Context, slots chan struct{}, rampDone func(), stop <-chan struct{}) {
	defer s.playsNow()
	client, err := s.connect(ctx, slots)
	rampDone()
	if err != nil {
		s.err = err
		return
	}
	s.connected = true
	defer client.Close()
	// Cancelling the run closes the connection, which ends every blocked
	// read and write of this session.
	unhook := context.AfterFunc(ctx, func() { client.Close() })
	defer unhook()

	switch s.cfg.Mode {
	case ModeBot:
		err = s.playBot(ctx, client, stop)
	case ModeRace:
		err = s.playRace(ctx, client, stop)
	default:
		err = s.playTUI(ctx, client, stop)
	}
	if err != nil && ctx.Err() != nil {
		err = &kindError{kind: errCancelled, err: ctx.Err()}
	}
	s.err = err
}

// playsNow calls the session's ready, once.
func (s *session) playsNow() {
	if s.ready != nil {
		s.ready()
		s.ready = nil
	}
}

// addLatency records the answer, at at, to a key sent at sent.
func (s *session) addLatency(sent, at time.Time) {
	d := int64(at.Sub(sent))
	s.latencies.add(d, s.rng)
	if s.rampEnd == nil { // not in a run's ramp-up (tests)
		return
	}
	if end := s.rampEnd.Load(); end != 0 && sent.UnixNano() >= end {
		s.steady.add(d, s.rng)
	}
}

// connect generates the session's key, waits for a handshake slot and
// connects. The handshake time runs from the TCP connect to the end of
// authentication.
func (s *session) connect(ctx context.Context, slots chan struct{}) (*gossh.Client, error) {
	signer, err := newSigner()
	if err != nil {
		return nil, &kindError{errKey, err}
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return nil, &kindError{errCancelled, ctx.Err()}
	}
	defer func() { <-slots }()
	t0 := time.Now()
	client, err := dial(ctx, s.cfg.Addr, s.name, signer, s.cfg.ConnectTimeout)
	s.handshake = time.Since(t0)
	return client, err
}

func newSigner() (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, fmt.Errorf("generate ed25519 key: %w", err)
	}
	return gossh.NewSignerFromKey(priv)
}

// dial connects and authenticates with the key, within timeout. The host
// key is not checked: the tool talks to the address its operator names,
// and a load test measures, it does not log in anywhere that matters.
func dial(ctx context.Context, addr, user string, key gossh.Signer, timeout time.Duration) (*gossh.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &kindError{errDial, err}
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stopWatch := context.AfterFunc(ctx, func() { conn.Close() })
	c, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{
		User:            user,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         timeout,
	})
	if !stopWatch() || err != nil {
		conn.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, &kindError{errHandshake, err}
	}
	_ = conn.SetDeadline(time.Time{})
	return gossh.NewClient(c, chans, reqs), nil
}

// pause returns the jittered pause between two keys.
func (s *session) pause() time.Duration {
	if s.cfg.Rate == 0 {
		return MaxDuration
	}
	base := float64(time.Second) / s.cfg.Rate
	f := 1 + s.cfg.Jitter*(2*s.rng.Float64()-1)
	return time.Duration(base * f)
}

// sleepUntil waits until t, stop or the end of ctx; it reports whether t
// was reached.
func sleepUntil(ctx context.Context, t time.Time, stop <-chan struct{}) bool {
	d := time.Until(t)
	if d <= 0 {
		select {
		case <-stop:
			return false
		case <-ctx.Done():
			return false
		default:
			return true
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// openSession opens a session with pipes for its input and output.
func openSession(client *gossh.Client) (*gossh.Session, io.WriteCloser, io.Reader, error) {
	sess, err := client.NewSession()
	if err != nil {
		return nil, nil, nil, &kindError{errSession, err}
	}
	in, err := sess.StdinPipe()
	if err != nil {
		sess.Close()
		return nil, nil, nil, &kindError{errSession, err}
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		sess.Close()
		return nil, nil, nil, &kindError{errSession, err}
	}
	return sess, in, out, nil
}

// send delivers v on out unless done is closed first.
func send[T any](out chan<- T, v T, done <-chan struct{}) bool {
	select {
	case out <- v:
		return true
	case <-done:
		return false
	}
}
