// Package screen runs a Bubble Tea model on any byte stream: an SSH
// session's channel, a pipe, anything with no terminal device behind it.
// It does what tea.Program does for such a screen (decodes keys, calls Update in order,
// runs commands, draws the View) with a fraction of the memory and CPU,
// for servers that hold hundreds of these at once. This package is the
// runtime: input, the model's loop, commands, the key rate, idle screens,
// panics and the terminal's answers. Turning a view into bytes is package
// render's, which knows nothing of Bubble Tea's runtime.
//
// What it does differently:
//   - A frame is drawn as soon as a message has been handled (all the
//     keys of one read, in order, count as one), unless the last frame was
//     less than a frame interval ago (then at the end of that interval),
//     rather than on a ticker: a keystroke's frame does not wait for a
//     tick, and an idle screen costs no CPU. A key's frame is never held
//     for the interval (the key rate bounds those): a race's opponents or
//     a clock cannot make a player's key wait up to a frame interval for
//     its frame. A model whose keys take effect in a later message
//     (KeyWaiter: a move that waits for its commit) has nothing drawn
//     until that message comes, then at once.
//   - Frames are drawn by package render, which keeps the last frame's
//     text and writes the cells that changed; Bubble Tea's renderer keeps
//     two grids of cells the size of the terminal, many times the text of
//     a frame (docs/performance.md has the figures). A game's move frame
//     takes far fewer bytes than writing the changed cells line by line.
//     A model that can write its view into a buffer (ViewAppender) has
//     its frames' text kept in buffers the renderer reuses, rather than
//     made into a new string every frame; one that can also write its
//     last view again (ViewRedrawer) has none kept between frames.
//     Screens in step (Options.InStep) share their frames' bytes.
//   - The screen is always drawn on the alternate screen with the cursor
//     hidden, and the player's window title is saved on the terminal's
//     title stack. When the model quits, all of it is put back, and a
//     last view that is not an AltScreen view is printed on the main
//     screen, where it stays after the session ends. A model that speaks
//     in lines (Liner, for screen readers) has none of it: its lines are
//     written as they come, and the terminal is left as it was.
//   - A model whose view moves by itself for a moment (Animator: a move's
//     slide) has its frames drawn by the screen's frame timer while a
//     MotionGate shared by the server allows; keys are never held for it.
//   - It asks the terminal for its background colour and whether it
//     shows true colour, which an SSH session does not say (probe.go),
//     and holds the first frame for the answers, briefly.
//   - A panic in the model (Init, Update, View, a command) or in the
//     screen's own goroutines ends that screen only: the terminal is given
//     back and Err returns a *PanicError with the stack, for the caller to
//     log and explain.
//
// Commands run as with tea.Program, each on a goroutine of its own (a
// worker all screens share: internal/workers), and their messages reach Update
// as they do there; what the screen does with the messages of Bubble
// Tea's own commands:
//   - tea.Quit ends the screen as above; so does tea.Interrupt (there is
//     no process to interrupt).
//   - tea.Batch runs its commands concurrently, tea.Sequence one at a
//     time, in order.
//   - tea.RequestBackgroundColor, tea.RequestForegroundColor and
//     tea.RequestCursorPosition ask the terminal, and its answers come
//     back as messages (the background colour is asked once at the start
//     already, and not again while that answer is awaited).
//   - tea.RequestWindowSize is answered with the size the screen has; the
//     terminal is at the other end of a connection, which tells sizes
//     as they change. tea.ClearScreen redraws the whole screen.
//   - Everything else that asks something of the terminal is not done:
//     tea.Println and tea.Printf (there is no scrollback on the alternate
//     screen), tea.Raw (it would write behind the renderer's back),
//     tea.Exec and tea.Suspend (no local process or terminal), the
//     clipboard commands, tea.RequestCursorColor,
//     tea.RequestTerminalVersion, tea.RequestCapability, and any other
//     message of package tea's own that a newer Bubble Tea may add. Of
//     tea.View, only Content, AltScreen (as above) and WindowTitle are
//     honoured: no cursor, window colours, progress bar, focus reports,
//     mouse or keyboard enhancements. What is not done is told to
//     Options.Unsupported, once each, so that tests can fail on it and a
//     server log it; without it, it is dropped.
//
// Input is decoded into keys, bracketed pastes (tea.PasteStartMsg,
// tea.PasteMsg, tea.PasteEndMsg, as tea.Program delivers them), focus
// reports and the terminal's answers to queries; mouse reports and
// unknown sequences are dropped. The screen does not turn bracketed paste
// mode on, as tea.Program does: a paste mostly arrives as the keys it is
// made of, rate-limited as typing is (Options.KeyRate).
package screen

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/internal/workers"
	"github.com/ssh2048/ssh2048/screen/render"
)

// ViewAppender is a model that can write its view's text into a buffer
// the screen gives it, rather than make a string of it for each frame: a
// frame's text is most of what a session allocates a move, garbage as
// soon as the next frame is drawn. The screen keeps the buffer with the
// last frame's text in it, and reuses it for a later frame once the frame
// after it is drawn. AppendView returns what View would, but with Content
// empty and appended to dst instead.
type ViewAppender interface {
	AppendView(dst []byte) (tea.View, []byte)
}

// ViewRedrawer is a ViewAppender that can write the view AppendView last
// returned again, so that its screen keeps no frame text between frames
// (render.Renderer.LetGo and Recall). LastRedrawable reports whether it
// can, for the view AppendView has just returned; AppendLastView appends
// that view's text to dst, the same bytes AppendView wrote, until
// AppendView is next called.
type ViewRedrawer interface {
	ViewAppender
	LastRedrawable() bool
	AppendLastView(dst []byte) []byte
}

// KeyWaiter is a model whose keys can take effect after Update returns:
// the game screen commits a move in a command, so that the screen's lock
// is free while the commit waits, and holds the keys typed meanwhile
// until it returns. While KeysPending reports true the screen draws
// nothing: a frame would show the game without the move a key made, and
// what else changed meanwhile (a resize, a spectator's count) shows in
// the frame that shows the move. A message that carries keys' effect
// (KeysDone) is drawn at once, as a key is, even while more keys wait;
// the first frame drawn once KeysPending reports false is the keys'
// frame for Options.KeyToFrame, timed from the first of them.
type KeyWaiter interface {
	KeysPending() bool
}

// KeysDone is a message that carries the effect of keys a KeyWaiter was
// given: a move's commit returning.
type KeysDone interface {
	KeysDone()
}

// Options describe the terminal.
type Options struct {
	Width, Height int
	// Profile is the terminal's colour profile; colours in views are
	// converted to it.
	Profile colorprofile.Profile
	// FPS is the most frames a second; 0 means 60.
	FPS int
	// Term is the terminal's TERM. Where it names a terminal known to
	// erase with the pen's background colour (bce), runs of coloured
	// spaces are erased (ECH) rather than written, which takes fewer
	// bytes; elsewhere they are written.
	Term string
	// RawLineFeed tells that what the screen writes reaches the terminal
	// as written: a line feed moves the cursor down a row and keeps its
	// column, as it does on a terminal (and through OpenSSH's client,
	// which passes output on raw), so that the renderer may move down by
	// line feeds, a byte a row. Without it a line feed is only written
	// after a carriage return, where it does not matter whether something
	// on the way turns it into CR LF (the SSH library's emulated PTY
	// writer does).
	RawLineFeed bool
	// InStep tells that this screen is likely one of many drawing the
	// same views one after the other, as spectators of one game do: its
	// frames' bytes are then shared with the others (render.SharedFrame). A
	// player's own screen draws views no other screen draws, and leaves
	// the shared table alone.
	InStep bool
	// KeyRate is the most keys a second the model gets, one second's
	// worth at once; keys over it are dropped (see keyLimiter). 0 means
	// no limit.
	KeyRate float64
	// Unsupported, if set, is told what the model asked for that the
	// screen does not do (a command such as "tea.Println", a view field
	// such as "tea.View.MouseMode"), once for each the screen meets. It
	// is called with the screen's lock held: it must not call the
	// screen. Tests make it fail the test; servers log it.
	Unsupported func(what string)
	// AnswerWait is how long the first frame waits for the terminal's
	// answers to the queries the screen starts with (its background
	// colour, whether it has true colour; see probe.go); 0 draws at once.
	// Answers that come later still count.
	AnswerWait time.Duration
	// KeyToFrame, if set, is told for each frame that shows keys how long
	// after the first of them arrived its write ended: the latency a
	// player feels, as the server sees it. Keys that change nothing on
	// screen are not counted. It is called with the screen's lock held:
	// it must be quick and must not call the screen.
	KeyToFrame func(time.Duration)
	// Motion, if set, lets an Animator model draw motion while the gate
	// allows (see MotionGate); nil draws none: every frame is the
	// model's last state.
	Motion *MotionGate
}

// Screen is one model running on one terminal. Create it with New, start
// it with Run; Send and Stop may be called from any goroutine.
type Screen struct {
	out         io.Writer
	interval    time.Duration
	answerWait  time.Duration
	keys        *keyLimiter // nil: no limit
	unsupported func(what string)
	keyToFrame  func(time.Duration)

	mu          sync.Mutex // guards everything below, and writes to out
	model       tea.Model
	r           *render.Renderer
	inStep      bool          // Options.InStep
	lastView    render.ViewID // the last frame's view, for SharedFrame
	title       string
	lastFrame   time.Time
	timer       *time.Timer // draws the next frame when the interval is up
	forgetTimer *time.Timer // lets go of the last frame when the screen is idle (idle.go)
	timed       bool        // timer is set
	started     bool
	early       []tea.Msg // sent before Start, delivered after its first messages
	changed     bool      // a message was handled since the last frame
	keyAt       time.Time // when the first key not yet drawn arrived; zero if none
	keyed       bool      // a key was handled since the last frame: draw it at once
	ended       bool
	lineBuf     []byte // a Liner's lines, reused (lines.go)
	// Motion (motion.go): the gate, when the model's next motion frame
	// is due (zero: none), and how long the last frame's write took.
	motion    *MotionGate
	animDue   time.Time
	lastWrite time.Duration
	counted   atomic.Bool // counted among the gate's open screens

	backgroundAsked bool            // the terminal has not answered yet
	reported        map[string]bool // what was told to unsupported

	waiting     bool        // the first frame waits for the terminal's answers
	answerTimer *time.Timer // ends the wait

	// err is the write that failed, if one did, and panic the model's
	// panic, if it had one. They have a lock of their own: mu may be held
	// by a write that waits on a client that reads nothing.
	errMu sync.Mutex
	err   error
	panic *PanicError

	done     chan struct{}
	doneOnce sync.Once
}

// New returns a screen that draws model on out.
func New(model tea.Model, out io.Writer, opts Options) *Screen {
	fps := opts.FPS
	if fps <= 0 {
		fps = 60
	}
	r := render.New(opts.Profile, opts.Width, opts.Height, opts.Term, opts.RawLineFeed)
	return &Screen{
		out:             out,
		interval:        time.Second / time.Duration(fps),
		answerWait:      opts.AnswerWait,
		keys:            newKeyLimiter(opts.KeyRate),
		unsupported:     opts.Unsupported,
		keyToFrame:      opts.KeyToFrame,
		inStep:          opts.InStep,
		motion:          opts.Motion,
		model:           model,
		r:               r,
		backgroundAsked: true, // by Start
		done:            make(chan struct{}),
	}
}

// Run starts the screen (see Start) and returns when it has ended: the
// model quit, Stop was called or ctx is done.
func (s *Screen) Run(ctx context.Context, in io.Reader) error {
	s.Start(in)
	select {
	case <-s.done:
	case <-ctx.Done():
		s.Stop()
	}
	return s.Err()
}

// Start draws the model's first frame and decodes in as its keys until in
// ends; it returns at once. Done tells when the screen has ended. An in
// that pushes its input (inputPusher) hands it over; any other is read by
// a reader of the screen's, which is not waited for: it stops at the
// first read after in ends.
func (s *Screen) Start(in io.Reader) {
	s.start()
	if p, ok := in.(inputPusher); ok && p.PushInput(s.pushedInput()) {
		return
	}
	go readInputContained(in, s.sendInput, s.contain)
}

// inputPusher is an input that can hand its bytes over as they come, on a
// goroutine of its own that the screen may keep waiting, rather than be
// read (the server's SSH sessions: package session); PushInput reports
// false when it cannot. Each piece comes in order, then (nil, err) once
// the input ends. The screen then has no reader of its own: one goroutine,
// and its stack, fewer for every screen held.
type inputPusher interface {
	PushInput(deliver func(p []byte, err error)) bool
}

// pushedInput decodes pushed input, as readInputContained decodes what it
// reads.
func (s *Screen) pushedInput() func([]byte, error) {
	in := &input{deliver: s.sendInput, contain: s.contain}
	return func(p []byte, err error) {
		defer s.contain()
		if len(p) > 0 {
			in.feed(p)
		}
		if err != nil {
			in.flush()
		}
	}
}

func (s *Screen) start() {
	defer s.contain() // after the unlock below
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.motion != nil {
		s.motion.open.Add(1)
		s.counted.Store(true)
	}
	// Every model that picks colours wants to know whether the background
	// is dark; the answer comes back as a tea.BackgroundColorMsg. The
	// player's window title is saved, to be restored at the end.
	if s.liner() == nil {
		s.write([]byte(ansi.SetModeAltScreenSaveCursor + ansi.HideCursor + pushTitle + startQueries(s.r.Profile())))
		s.startAnswerWait(s.answerWait)
	} else {
		s.backgroundAsked = false // nothing was asked
	}
	s.exec(s.model.Init())
	w, h := s.r.Size()
	s.dispatch(tea.WindowSizeMsg{Width: w, Height: h})
	s.dispatch(tea.ColorProfileMsg{Profile: s.r.Profile()})
	s.started = true
	for _, msg := range s.early {
		if s.ended || s.stopped() {
			break
		}
		s.dispatch(msg)
	}
	s.early = nil
	s.scheduleFrame(false)
}

// Done is closed when the screen has ended.
func (s *Screen) Done() <-chan struct{} { return s.done }

// Err is why the screen ended other than by the model quitting or Stop:
// a *PanicError if the model (or the screen's own code on its behalf)
// panicked, else the write to the terminal that failed, if one did.
func (s *Screen) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.panic != nil {
		return s.panic
	}
	return s.err
}

// Send delivers msg to the model, as tea.Program.Send does: before Start,
// once Start has given the model its first messages; after the screen has
// ended, not at all.
func (s *Screen) Send(msg tea.Msg) { s.sendAll([]tea.Msg{msg}) }

// sendInput delivers the messages of one read of the input, less the
// keys over the rate.
func (s *Screen) sendInput(msgs []tea.Msg) {
	if msgs = s.keys.filter(msgs); len(msgs) > 0 {
		s.sendAll(msgs)
	}
}

// sendAll delivers msgs in order and draws once after them all: keys
// typed faster than frames are all applied, each against the board the
// one before left, and the frame shows where they ended up.
func (s *Screen) sendAll(msgs []tea.Msg) {
	defer s.contain() // after the unlock below
	var arrived time.Time
	if s.keyToFrame != nil {
		arrived = time.Now() // before the lock: waiting for it is part of the latency
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keyed, done := hasKey(msgs)
	if !arrived.IsZero() && s.keyAt.IsZero() && keyed {
		s.keyAt = arrived
	}
	if !s.started {
		s.early = append(s.early, msgs...)
		return
	}
	for _, msg := range msgs {
		if s.ended || s.stopped() {
			return
		}
		s.dispatch(msg)
	}
	s.keyed = s.keyed || keyed
	s.scheduleFrame(done)
}

// Stop ends Run at once, without a last frame and without giving the
// terminal back: for a terminal that is gone (Abandon is for a model that
// did not quit when asked). It does not wait for a
// write in progress (to a client that reads nothing, it could wait
// forever); the write fails once the session is closed.
func (s *Screen) Stop() {
	s.doneOnce.Do(func() {
		if s.counted.Swap(false) {
			s.motion.open.Add(-1)
		}
		close(s.done)
	})
}

// abandonWait bounds how long Abandon waits to write its line: a write
// under way to a client that reads nothing could hold the screen for as
// long as the session lasts.
const abandonWait = 500 * time.Millisecond

// Abandon ends Run as Stop does, for a model that did not quit when
// asked (one waiting for a slow store, say), but first gives the terminal
// back as quitting does and leaves line on it: why the session ends. The
// model's last view is not drawn. It waits at most abandonWait for its
// write; a client that reads nothing would see nothing anyway.
func (s *Screen) Abandon(line string) {
	written := make(chan struct{})
	go func() {
		defer close(written)
		defer s.contain()
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.ended || s.stopped() {
			return
		}
		var b strings.Builder
		if s.liner() == nil {
			b.WriteString(restoreTerminal)
		} // a Liner's lines each end their own: no blank line before this one
		b.WriteString(line)
		b.WriteString("\r\n")
		s.write([]byte(b.String()))
		s.end()
	}()
	select {
	case <-written:
	case <-time.After(abandonWait):
	}
	s.Stop()
}

func (s *Screen) stopped() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// dispatch handles one message; s.mu is held.
func (s *Screen) dispatch(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case answeredMsg:
		s.answered()
		return
	case trueColourMsg:
		s.upgradeToTrueColour()
		return
	case tea.QuitMsg, tea.InterruptMsg:
		s.quit()
		return
	case tea.BatchMsg:
		for _, cmd := range msg {
			s.exec(cmd)
		}
		return
	case tea.WindowSizeMsg:
		s.r.Resize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		// Most messages are keys: nothing for the terminal to do.
	case tea.BackgroundColorMsg:
		s.backgroundAsked = false
	default:
		if cmds, ok := sequenceOf(msg); ok {
			workers.Go(func() {
				defer s.contain()
				s.runSequence(cmds)
			})
			return
		}
		s.control(msg)
	}
	model, cmd := s.model.Update(msg)
	s.model = model
	s.exec(cmd)
	s.changed = true
}

// exec runs cmd on a goroutine of its own (a worker: internal/workers) and
// delivers its message.
func (s *Screen) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	workers.Go(func() {
		defer s.contain()
		s.Send(cmd())
	})
}

// scheduleFrame draws now if the last frame is a frame interval old, or
// else sets the timer to draw when it is; done says that the messages
// just handled carry keys' effect (KeysDone). s.mu is held.
func (s *Screen) scheduleFrame(done bool) {
	if !s.changed || s.ended || s.waiting || s.stopped() {
		return
	}
	if done {
		s.draw()
		return
	}
	if s.keysPending() {
		return // drawn with the keys' effect (KeyWaiter)
	}
	// A key's frame goes out at once, even within the interval of a
	// frame that something else asked for (an opponent's move, a rank
	// read, a clock): the player waits for it. Keys come at most at the
	// screen's key rate, so they cannot make frames unbounded; the
	// interval bounds the frames nobody typed for.
	if s.keyed {
		s.draw()
		return
	}
	if s.timed {
		return // a frame is coming, and will show this message's effect
	}
	wait := s.interval - time.Since(s.lastFrame)
	if wait <= 0 {
		s.draw()
		return
	}
	s.timed = true
	if s.timer == nil {
		s.timer = time.AfterFunc(wait, s.timedFrame)
	} else {
		s.timer.Reset(wait)
	}
}

func (s *Screen) timedFrame() {
	defer s.contain() // after the unlock below
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timed = false
	s.checkLate(time.Now())
	// A key's frame may have been drawn since the timer was set; keys
	// that wait (KeyWaiter) have the next frame drawn with their effect.
	if s.changed && !s.ended && !s.stopped() && !s.keysPending() {
		s.draw()
	}
}

// pushTitle saves the window and icon titles on the terminal's title
// stack; popTitle puts them back (XTWINOPS 22 and 23).
var (
	pushTitle = ansi.WindowOp(22, 0)
	popTitle  = ansi.WindowOp(23, 0)
)

// restoreTerminal undoes what the screen did to the terminal: the pen,
// the alternate screen, the hidden cursor and the window title.
var restoreTerminal = ansi.ResetStyle + ansi.ResetModeAltScreenSaveCursor + ansi.ShowCursor + popTitle

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// keysPending reports whether keys the model was given have yet to show
// (KeyWaiter); s.mu is held.
func (s *Screen) keysPending() bool {
	w, ok := s.model.(KeyWaiter)
	return ok && w.KeysPending()
}

// draw writes the model's view; s.mu is held.
func (s *Screen) draw() {
	// Keys still pending keep their claim on a frame of their own, and
	// their arrival, for the frame that shows them.
	pending := s.keyed && s.keysPending()
	s.changed = false
	if !pending {
		s.keyed = false
	}
	s.lastFrame = time.Now()
	due := s.animate(s.lastFrame)
	if l := s.liner(); l != nil {
		wrote := s.drawLines(l)
		if !pending && !s.keyAt.IsZero() && wrote {
			s.keyToFrame(time.Since(s.keyAt))
		}
		if !pending {
			s.keyAt = time.Time{}
		}
		return
	}
	var (
		v    tea.View
		text *[]byte // the view's text, if the model wrote it into a buffer of ours
	)
	// Screens in step share frames by their views' strings (SharedFrame):
	// they take views as strings.
	va, appends := s.model.(ViewAppender)
	vr, redraws := s.model.(ViewRedrawer)
	if appends && !s.inStep {
		if redraws {
			s.r.Recall(vr.AppendLastView)
		}
		text = s.r.TakeText()
		v, *text = va.AppendView((*text)[:0])
	} else {
		v = s.model.View()
	}
	s.checkView(&v)
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	b.Reset()
	// A view without a title leaves the title as it is: the player's
	// own comes back from the title stack when the screen ends, rather
	// than a blank one.
	if v.WindowTitle != s.title && v.WindowTitle != "" {
		s.title = v.WindowTitle
		b.WriteString(ansi.SetWindowTitle(s.title))
	}
	switch {
	case s.inStep:
		s.lastView = s.r.SharedFrame(b, v.Content, s.lastView)
	case text != nil:
		s.r.FrameText(b, text)
		if redraws && vr.LastRedrawable() {
			s.r.LetGo()
		}
	default:
		s.r.Frame(b, v.Content)
	}
	s.write(b.Bytes())
	s.lastWrite = time.Since(s.lastFrame)
	if !due.IsZero() && !s.ended {
		s.scheduleMotion(due)
	}
	s.armForget()
	// A key that changed nothing on screen (a move against a wall) has no
	// frame to wait for: it is not counted.
	if pending {
		return
	}
	if !s.keyAt.IsZero() && b.Len() > 0 {
		s.keyToFrame(time.Since(s.keyAt))
	}
	s.keyAt = time.Time{}
}

// hasKey reports whether msgs hold a key press, and whether they hold
// keys' effect (KeysDone).
func hasKey(msgs []tea.Msg) (key, done bool) {
	for _, m := range msgs {
		switch m.(type) {
		case tea.KeyPressMsg:
			key = true
		case KeysDone:
			done = true
		}
	}
	return key, done
}

// quit draws the model's last view and gives the terminal back as it
// was; s.mu is held.
func (s *Screen) quit() {
	if s.ended {
		return
	}
	if l := s.liner(); l != nil {
		s.drawLines(l)
		s.end()
		return
	}
	v := s.model.View()
	var b strings.Builder
	b.WriteString(restoreTerminal)
	if !v.AltScreen && v.Content != "" {
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(v.Content, "\r\n", "\n"), "\n", "\r\n"))
	}
	s.write([]byte(b.String()))
	s.end()
}

// end stops everything; s.mu is held.
func (s *Screen) end() {
	s.ended = true
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.forgetTimer != nil {
		s.forgetTimer.Stop()
	}
	if s.answerTimer != nil {
		s.answerTimer.Stop()
	}
	s.Stop()
}

// write sends p to the terminal; the first failure ends the screen (the
// session is gone). s.mu is held.
func (s *Screen) write(p []byte) {
	if len(p) == 0 || s.writeErr() != nil {
		return
	}
	if _, err := s.out.Write(p); err != nil {
		s.errMu.Lock()
		s.err = err
		s.errMu.Unlock()
		s.end()
	}
}
