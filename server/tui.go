package server

import (
	"context"
	"errors"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/charmbracelet/colorprofile"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/server/admission"
	"github.com/ssh2048/ssh2048/server/command"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/reader"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TUIEnv is what the game screen gets for one session.
type TUIEnv struct {
	// Seat opens the player's games with the one-writer rule; a game
	// taken over by a newer session ends this session.
	Seat *game.Seat
	// Size is the board size the player asked for (`play --size N`); 0
	// for the screen's own choice (game.Seat.LastSize).
	Size int
	// Settings are the session's (session.Session.Settings): the
	// player's kept settings, with the session's environment over them.
	Settings map[string]string
}

// TUIFunc builds the game screen for a session with a PTY. The model runs
// with the session as its terminal (see package screen). When the session
// must end, the server sends it event.TakenOverMsg or event.ShutdownMsg and
// stops it NoticeGrace later if it has not quit by itself.
type TUIFunc func(sess ssh.Session, env TUIEnv) tea.Model

// NoticeGrace is how long the TUI may take to show a notice and quit.
const NoticeGrace = session.NoticeGrace

// answerWait is how long the first frame waits for the terminal to say
// whether it shows true colour (see package screen): a round trip on any
// network a game is played over, and short enough not to be noticed where
// nothing answers.
const answerWait = 250 * time.Millisecond

// runTUI runs the game screen until it ends and returns the session's
// exit status: 0 when the player quit, or the status of the notice that
// ended it, or wire.ExitError when a game could not be loaded or saved.
func (s *Server) runTUI(sess *session.Session) int {
	return s.runOpened(sess, func() command.Screen {
		if code, ok := s.commands.SessionSettings(sess); !ok {
			return command.Screen{Code: code}
		}
		return s.commands.OpenGame(sess, 0)
	})
}

// runOpened is command.Config.RunScreen: it runs open, a command's setup
// (its flags, the database, the model), on a stack of its own, then the
// screen it opened. The setup is deep work; the handler then waits,
// shallow, for as long as the screen lasts (see session.OnFreshStack).
// Done on the handler's stack, it left each racer's and each spectator's
// handler with a stack larger than waiting needs for the whole session
// (the commits that moved it off that stack have the figures).
// open closes what it made (a seat) on its every way out without a model,
// a panic too.
func (s *Server) runOpened(sess *session.Session, open func() command.Screen) int {
	var o command.Screen
	session.OnFreshStack(func() { o = open() })
	if o.Model == nil {
		return o.Code
	}
	if o.Close != nil {
		defer o.Close()
	}
	return s.runScreen(sess, o.Model, o.Text, o.Seat)
}

// runScreen runs model on the session's terminal (a PTY is required) until
// it ends, passing window changes and the session's notices on, and
// returns the session's exit status as runTUI says; text is what the
// player is told when the server ends the session. Every screen a command
// opens (the game, spectating, replays, races) runs here, through
// runOpened. seat, if not nil, is the seat whose games the screen plays:
// once a key's frame is written, the seat is told (game.Seat.Shown), and
// those who watch the move (spectators, a race's opponents) are woken
// then, after the player's own frame rather than with it.
func (s *Server) runScreen(sess *session.Session, model tea.Model, text func(session.Notice) string, seat *game.Seat) int {
	_, winch, _ := sess.Pty()
	var scr *screen.Screen
	// The first frame's work (the model's Init and first Updates, a
	// write through the connection's cipher) is deep; the handler then
	// waits, shallow, for as long as the screen lasts (see
	// session.OnFreshStack).
	session.OnFreshStack(func() { scr = s.startScreen(sess, model, seat) })
	defer scr.Stop()
	waker, _ := model.(event.Waker)
	w := &screenWatch{ctx: sess.Context(), scr: scr, winch: winch, notices: sess.Notices, pokes: sess.Pokes, waker: waker, text: sess.Worded(text)}
	w.reqs, w.serveReq, w.reqsDone, _ = admission.ServesRequests(sess.Context())
	told := w.run()
	return s.screenEnded(sess, scr, model, told)
}

// screenEnded is the exit status of the session whose screen ended, told
// the notice it was told, if any. Apart from runScreen, whose frame is
// under the screen's loop for as long as the session lasts: its logging
// would make that frame larger.
func (s *Server) screenEnded(sess *session.Session, scr *screen.Screen, model tea.Model, told session.Notice) int {
	var pe *screen.PanicError
	if errors.As(scr.Err(), &pe) {
		return s.panicked(sess, pe.Value, pe.Stack)
	}
	if err := scr.Err(); err != nil && sess.Context().Err() == nil {
		s.log.Debug("game screen", "err", err, "remote", sess.RemoteAddr().String())
	}
	// The session's input ends when the handler returns and the channel
	// closes; the screen's reader is not waited for here, it ends then.
	if told == 0 {
		// The screen may have ended on a notice before the watch loop
		// saw it: a move that found its game taken over.
		select {
		case told = <-sess.Notices:
		default:
		}
	}
	if told != 0 {
		return told.ExitStatus()
	}
	if f, ok := model.(interface{ Failed() bool }); ok && f.Failed() {
		return wire.ExitError
	}
	return wire.ExitOK
}

// startScreen starts model on the session's terminal.
func (s *Server) startScreen(sess *session.Session, model tea.Model, seat *game.Seat) *screen.Screen {
	pty, _, _ := sess.Pty()
	width, height := clampWindow(pty.Window)
	// The screen runs on package screen rather than tea.Program: a program
	// holds cell buffers of the whole terminal for its renderer and a key
	// table of its own, which with many sessions is most of the server's
	// memory, and draws on a ticker, which makes every key wait for the
	// next tick (see package screen; docs/performance.md, "How the game
	// screen is drawn", has the figures).
	keyToFrame := s.cfg.Observer.KeyToFrame
	if seat != nil {
		keyToFrame = func(took time.Duration) {
			seat.Shown()
			s.cfg.Observer.KeyToFrame(took)
		}
	}
	out, raw := screenOutput(sess)
	scr := screen.New(model, out, screen.Options{
		Width:       width,
		Height:      height,
		Profile:     colorprofile.Env(append(sess.Environ(), "TERM="+pty.Term)),
		Term:        pty.Term,
		RawLineFeed: raw,
		// A screen with no seat of its own shows others' games: the
		// spectators of one game draw the same frames in turn.
		InStep: seat == nil,
		// Without a limit a client can send keys as fast as its link
		// allows, and each is a move: a database commit and a frame.
		KeyRate:     s.lim.KeyRate,
		Unsupported: s.unsupportedOnce,
		AnswerWait:  answerWait,
		KeyToFrame:  keyToFrame,
		Motion:      motionOf(s.motion, seat),
	})
	scr.Start(sess)
	return scr
}

// motionOf is the motion gate of a screen: the server's for a player's
// own screen (one with a seat), none for a spectator's, whose frames are
// shared in step with the others' and would be drawn once per spectator
// and frame.
func motionOf(g *screen.MotionGate, seat *game.Seat) *screen.MotionGate {
	if seat == nil {
		return nil
	}
	return g
}

// screenOutput is where a screen writes: the session's channel itself
// when there is one (raw is true), else the session. The session's Write
// goes through the SSH library's emulated PTY, which copies every write
// twice to turn each LF into CR LF, as a terminal's ONLCR would; the
// client's terminal is in raw mode and takes a line feed as a move down
// a row, which the renderer can use (screen.Options.RawLineFeed), and
// writes its own CR LF where it means a new line.
//
// Writes go out in pieces of at most maxScreenWrite bytes: the SSH
// library keeps, for each channel and for each connection's cipher, a
// buffer as large as the largest packet written so far, for as long as
// the session lasts; the first screen, a whole frame, would set it.
func screenOutput(sess *session.Session) (out io.Writer, raw bool) {
	if ch := admission.Channel(sess.Context()); ch != nil {
		return pieces{ch}, true
	}
	return pieces{sess}, false
}

// maxScreenWrite is the largest write of a screen to its session: a
// move's frame, which draws only what changed, usually goes in one, and
// the two buffers stay this small for every session held. A whole frame
// (the first, a resize) takes a few more packets than in larger pieces,
// each with its own framing; whole frames are rare, so that costs little
// (the commit that brought this in has the figures).
const maxScreenWrite = 512

// pieces writes to w in writes of at most maxScreenWrite bytes.
type pieces struct{ w io.Writer }

func (p pieces) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		k, err := p.w.Write(b[:min(len(b), maxScreenWrite)])
		n += k
		switch {
		case err != nil:
			return n, err
		case k == 0:
			return n, io.ErrShortWrite
		}
		b = b[k:]
	}
	return n, nil
}

// unsupportedOnce logs, once for the server, each thing a game screen
// asked for that package screen does not do: a model that relies on one
// is broken for every player, and the log must say so without saying it
// for every session. The names are package screen's, never a client's,
// so the set stays small.
func (s *Server) unsupportedOnce(what string) {
	if _, seen := s.unsupported.LoadOrStore(what, true); !seen {
		s.log.Warn("game screen asked for what the screen does not do", "what", what)
	}
}

// Terminal sizes the game screen is told at most: a fullscreen terminal
// on a common monitor, whose screens draw themselves for the whole
// window (larger tiles, the side panel, the race's boards side by side);
// larger terminals get it in their top left corner. The bound keeps what
// a client's claimed size costs small: the lines of a frame and the
// cells of a changed line (1000 × 1000 would be a megabyte-sized frame
// on every resize).
const (
	maxScreenWidth  = 240
	maxScreenHeight = 80
)

// resizeEvery is the shortest time between two window sizes sent to the
// screen: every size means a redraw of the whole screen, and a client
// sending hundreds of window changes a second would otherwise keep a CPU
// busy redrawing. The last size always arrives.
const resizeEvery = 50 * time.Millisecond

func clampWindow(w ssh.Window) (int, int) {
	return min(max(w.Width, 1), maxScreenWidth), min(max(w.Height, 1), maxScreenHeight)
}

// screenWatch is the loop that runs on the session's own goroutine until
// its screen ends (run), and what it keeps between events: one method per
// event. It passes window changes on, clamped and at most one per
// resizeEvery; on a notice it has the screen tell the player why the
// session ends (text words it), and stops it NoticeGrace later if it has
// not quit by itself; on a poke (spectators came or went) it has the
// screen drawn again; for a screen that watches a game or races (a
// event.Waker), it waits for the game's or the race's news and wakes the
// screen; it stops the screen when the connection drops; for a game
// screen, it serves the session channel's requests (see
// admission.ServesRequests) and ends when they do. One loop rather than a
// goroutine for each: every goroutine holds a stack of its own for as
// long as it waits, and a goroutine per event would be several more
// stacks for every session held.
type screenWatch struct {
	ctx     context.Context
	scr     *screen.Screen
	winch   <-chan ssh.Window // nil once closed
	notices <-chan session.Notice
	pokes   <-chan struct{}
	waker   event.Waker // nil for a screen that waits on nothing
	text    func(session.Notice) string
	// The session channel's requests, for a screen whose loop serves
	// them; reqs is nil for any other, and once they end.
	reqs     <-chan *gossh.Request
	serveReq func(*gossh.Request)
	reqsDone func() // the requests ended

	told  session.Notice   // the notice passed on, if any
	grace <-chan time.Time // runs from the notice

	pending, sent ssh.Window
	havePending   bool
	throttle      *time.Timer
	throttled     bool
	// At most one poke is on its way to the screen (Send waits while a
	// client that reads nothing holds the screen's writes); pokes
	// meanwhile make one more after it.
	poking, pokeAgain bool
	// Likewise at most one wake: the screen reads the newest snapshot
	// when it handles it, and the next wait starts after.
	waking bool
	// And at most one window size: a resize is a whole frame drawn, deep
	// work that would grow this goroutine's stack for as long as the
	// session lasts (see session.OnFreshStack), so it is drawn on a
	// goroutine of its own, and sizes meanwhile wait as pending.
	resizing bool
	// Each of the three says here when it is handled: one channel rather
	// than three, as every channel the loop waits on holds a waiter
	// record for as long as it waits, which for an idle screen is its
	// whole life.
	handled chan sentKind
	// A race's screen is woken at every racer's move: its sender is made
	// once, as every one made in the loop would be an allocation on this
	// goroutine's stack, and one that assists the collector runs deep
	// enough to double that stack for the rest of the session. The
	// poke's likewise.
	wakeOff, pokeOff func()
}

// run waits for the screen's events, handles each, and returns the
// notice it passed on, if any, once the screen ends.
func (w *screenWatch) run() session.Notice {
	w.handled = make(chan sentKind, 3)
	w.wakeOff, w.pokeOff = w.sendWake, w.sendPoke
	w.throttle = time.NewTimer(time.Hour)
	w.throttle.Stop()
	defer w.throttle.Stop()
	defer w.drainWinch()
	for {
		var news, moved <-chan struct{}
		if w.waker != nil && !w.waking {
			news, moved = w.waker.Wake()
		}
		var throttleC <-chan time.Time // waited on only while it runs
		if w.throttled {
			throttleC = w.throttle.C
		}
		select {
		case <-news:
			w.news()
		case <-moved: // the screen waits on something else now
		case kind := <-w.handled:
			w.sentHandled(kind)
		case <-w.scr.Done():
			return w.told
		case <-w.ctx.Done():
			return w.told
		case n := <-w.notices:
			w.notice(n)
		case <-w.grace:
			// The screen did not quit by itself (its model waits for a
			// slow store, say): the terminal is given back all the same,
			// with the notice's line.
			w.scr.Abandon(w.text(w.told))
			return w.told
		case <-w.pokes:
			w.poked()
		case req, ok := <-w.reqs:
			w.request(req, ok)
		case win, ok := <-w.winch:
			w.window(win, ok)
		case <-throttleC:
			w.throttleOver()
		}
	}
}

// drainWinch: the session closes winch when it ends, after the handler
// returns; until then a window change must not block its request loop.
func (w *screenWatch) drainWinch() {
	if w.winch != nil {
		go func(winch <-chan ssh.Window) {
			for range winch { //nolint:revive // drained, not used
			}
		}(w.winch)
	}
}

// news: the game or race the screen waits on has news; the screen is
// woken.
func (w *screenWatch) news() {
	w.waking = true
	go w.wakeOff()
}

func (w *screenWatch) sendWake() {
	w.scr.Send(event.WakeMsg{})
	w.handled <- sentWake
}

func (w *screenWatch) sendPoke() {
	w.scr.Send(tui.WatchersMsg{})
	w.handled <- sentPoke
}

// sentHandled: the screen handled what was sent it of kind.
func (w *screenWatch) sentHandled(kind sentKind) {
	switch kind {
	case sentWake:
		w.waking = false
	case sentPoke:
		w.poking = false
		if w.pokeAgain {
			w.pokeAgain = false
			w.poke()
		}
	case sentResize:
		w.resizing = false
		if w.havePending && !w.throttled {
			w.havePending = false
			w.resize(w.pending)
		}
	}
}

// notice: the session must end; the screen tells the player why, and
// has NoticeGrace to quit.
func (w *screenWatch) notice(n session.Notice) {
	w.notices, w.told = nil, n
	w.grace = time.After(NoticeGrace)
	tell(w.scr, n, w.text)
}

// poked: spectators came or went; the screen is drawn again.
func (w *screenWatch) poked() {
	if w.poking {
		w.pokeAgain = true
	} else {
		w.poke()
	}
}

func (w *screenWatch) poke() {
	w.poking = true
	go w.pokeOff()
}

// request serves one of the session channel's requests; !ok: they ended
// (the channel closed), and so does ctx.
func (w *screenWatch) request(req *gossh.Request, ok bool) {
	if !ok {
		w.reqs = nil
		w.reqsDone()
		return
	}
	w.serveReq(req)
}

// window: the client's window changed (!ok: no more changes come).
func (w *screenWatch) window(win ssh.Window, ok bool) {
	if !ok {
		w.winch = nil
		return
	}
	width, height := clampWindow(win)
	if win = (ssh.Window{Width: width, Height: height}); win == w.sent && !w.havePending {
		return
	}
	if w.throttled || w.resizing {
		w.pending, w.havePending = win, true
		return
	}
	w.resize(win)
}

// throttleOver: resizeEvery has passed since the last size sent.
func (w *screenWatch) throttleOver() {
	w.throttled = false
	if w.havePending && !w.resizing {
		w.havePending = false
		w.resize(w.pending)
	}
}

// resize sends the screen the window size win.
func (w *screenWatch) resize(win ssh.Window) {
	w.sent = win
	w.resizing = true
	w.sendOff(sentResize, tea.WindowSizeMsg{Width: win.Width, Height: win.Height})
	w.throttled = true
	w.throttle.Reset(resizeEvery)
}

// sendOff sends msg on a goroutine of its own, and says so on handled
// when the screen has it.
func (w *screenWatch) sendOff(kind sentKind, msg tea.Msg) {
	go func() {
		w.scr.Send(msg)
		w.handled <- kind
	}()
}

// tell shows notice n on the screen, worded by text.
func tell(scr *screen.Screen, n session.Notice, text func(session.Notice) string) {
	var msg tea.Msg
	switch n {
	case session.TakenOver:
		// The screen words it itself: it knows which game.
		msg = event.TakenOverMsg{}
	case session.Shutdown:
		msg = event.ShutdownMsg{Text: text(n)}
	default:
		msg = event.EndMsg{Text: text(n)}
	}
	// Not on the caller's goroutine: a client that reads nothing blocks
	// the screen's writes, and with them Send, and the grace must still
	// run out.
	go scr.Send(msg)
}

// sentKind is what screenWatch sent the screen, told back when handled.
type sentKind uint8

const (
	sentPoke sentKind = iota + 1
	sentWake
	sentResize
)

// gameScreen is the default TUIFunc: package tui's game screen over the
// session's seat, with hints and autoplay from h when h is not nil; or,
// for a session whose settings ask for it (command.ReaderOf), the screen for
// screen readers over the same seat.
func gameScreen(svc *game.Service, h tui.Hinter) TUIFunc {
	if h != nil {
		h = sessionHinter{h} // an AI search's panic ends the session that asked
	}
	return func(sess ssh.Session, env TUIEnv) tea.Model {
		size := env.Size
		if size == 0 {
			size = env.Seat.LastSize(sess.Context())
		}
		if command.ReaderOf(env.Settings) {
			var rh reader.Hinter
			if h != nil {
				rh = h
			}
			return reader.New(reader.Options{
				Store:   command.ReaderStore(tui.SeatStore(svc, env.Seat)),
				Hinter:  rh,
				Size:    size,
				Guest:   env.Seat.Player().Guest,
				Context: sess.Context(),
			})
		}
		return tui.New(tui.Options{
			Store:       tui.SeatStore(svc, env.Seat),
			Hinter:      h,
			Player:      env.Seat.Player().Name,
			Guest:       env.Seat.Player().Guest,
			GuestNotice: command.GuestHint,
			Size:        size,
			Context:     sess.Context(),
			Games:       svc,
			Self:        env.Seat.Player(),
			From:        session.RemoteIP(sess.RemoteAddr()),
			Theme:       command.ThemeOf(env.Settings),
			Woken:       true, // runScreen's loop waits for what a spectator opened over the game watches
			// Motion where the settings leave it on and the screen's gate
			// allows (Config.Motion).
			Motion: command.MotionOf(env.Settings),
		})
	}
}
