// Package screen runs a Bubble Tea model on any byte stream: an SSH
// session's channel, a pipe, anything with no terminal device behind it.
// It does what tea.Program does for such a screen (decodes keys, calls Update in order,
// runs commands, draws the View) with a fraction of the memory and CPU,
// for servers that hold hundreds of these at once.
//
// What it does differently:
//   - A frame is drawn as soon as a message has been handled (all the
//     keys of one read, in order, count as one), unless the last frame was
//     less than a frame interval ago (then at the end of that interval),
//     rather than on a ticker: a keystroke's frame leaves within a
//     millisecond or two of the key, and an idle screen costs no CPU.
//   - The renderer keeps the last frame's text and writes the cells that
//     changed; Bubble Tea's keeps two grids of cells, about 460 KB for an
//     80×24 screen. It compares lines as text, reading only where they
//     differ (spans.go), and writes the changes in an order that needs
//     few pen changes and cursor moves, erasing runs of coloured spaces
//     where the terminal allows (emit.go): a game's move frame is about
//     half the bytes of writing the changed cells line by line.
//   - The screen is always drawn on the alternate screen with the cursor
//     hidden. When the model quits, a last view that is not an AltScreen
//     view is printed on the main screen, where it stays after the
//     session ends.
//
// Only the parts of tea.View a game screen uses are honoured: Content,
// AltScreen (as above) and WindowTitle. Commands run as with tea.Program,
// each in its own goroutine; tea.Batch and tea.Quit are understood,
// tea.Sequence and Bubble Tea's terminal-control commands are not.
package screen

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

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
}

// Screen is one model running on one terminal. Create it with New, start
// it with Run; Send and Stop may be called from any goroutine.
type Screen struct {
	out      io.Writer
	interval time.Duration

	mu        sync.Mutex // guards everything below, and writes to out
	model     tea.Model
	r         *renderer
	title     string
	lastFrame time.Time
	timer     *time.Timer // draws the next frame when the interval is up
	timed     bool        // timer is set
	started   bool
	early     []tea.Msg // sent before Start, delivered after its first messages
	changed   bool      // a message was handled since the last frame
	ended     bool

	// err is the write that failed, if one did. It has a lock of its own:
	// mu may be held by a write that waits on a client that reads nothing.
	errMu sync.Mutex
	err   error

	done     chan struct{}
	doneOnce sync.Once
}

// New returns a screen that draws model on out.
func New(model tea.Model, out io.Writer, opts Options) *Screen {
	fps := opts.FPS
	if fps <= 0 {
		fps = 60
	}
	width, height := max(opts.Width, 1), max(opts.Height, 1)
	r := newRenderer(opts.Profile, width, height)
	r.ech = erasesWithBackground(opts.Term)
	return &Screen{
		out:      out,
		interval: time.Second / time.Duration(fps),
		model:    model,
		r:        r,
		done:     make(chan struct{}),
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
// ends; it returns at once. Done tells when the screen has ended. The
// reader is not waited for: it stops at the first read after in ends (an
// SSH session's input ends when the session closes).
func (s *Screen) Start(in io.Reader) {
	s.mu.Lock()
	// Every model that picks colours wants to know whether the background
	// is dark; the answer comes back as a tea.BackgroundColorMsg.
	s.write([]byte(ansi.SetModeAltScreenSaveCursor + ansi.HideCursor + ansi.RequestBackgroundColor))
	s.exec(s.model.Init())
	s.dispatch(tea.WindowSizeMsg{Width: s.r.width, Height: s.r.height})
	s.dispatch(tea.ColorProfileMsg{Profile: s.r.profile})
	s.started = true
	for _, msg := range s.early {
		if s.ended || s.stopped() {
			break
		}
		s.dispatch(msg)
	}
	s.early = nil
	s.scheduleFrame()
	s.mu.Unlock()
	go readInput(in, s.sendAll)
}

// Done is closed when the screen has ended.
func (s *Screen) Done() <-chan struct{} { return s.done }

// Err is the write to the terminal that failed, if one did.
func (s *Screen) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// Send delivers msg to the model, as tea.Program.Send does: before Start,
// once Start has given the model its first messages; after the screen has
// ended, not at all.
func (s *Screen) Send(msg tea.Msg) { s.sendAll([]tea.Msg{msg}) }

// sendAll delivers msgs in order and draws once after them all: keys
// typed faster than frames are all applied, each against the board the
// one before left, and the frame shows where they ended up.
func (s *Screen) sendAll(msgs []tea.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
	s.scheduleFrame()
}

// Stop ends Run at once, without a last frame: for a model that did not
// quit when asked, or a terminal that is gone. It does not wait for a
// write in progress (to a client that reads nothing, it could wait
// forever); the write fails once the session is closed.
func (s *Screen) Stop() {
	s.doneOnce.Do(func() { close(s.done) })
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
	case tea.QuitMsg:
		s.quit()
		return
	case tea.BatchMsg:
		for _, cmd := range msg {
			s.exec(cmd)
		}
		return
	case tea.WindowSizeMsg:
		s.r.resize(max(msg.Width, 1), max(msg.Height, 1))
	}
	model, cmd := s.model.Update(msg)
	s.model = model
	s.exec(cmd)
	s.changed = true
}

// exec runs cmd in its own goroutine and delivers its message.
func (s *Screen) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { s.Send(cmd()) }()
}

// scheduleFrame draws now if the last frame is a frame interval old, or
// else sets the timer to draw when it is; s.mu is held.
func (s *Screen) scheduleFrame() {
	if !s.changed || s.ended || s.stopped() {
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
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timed = false
	if !s.ended && !s.stopped() {
		s.draw()
	}
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// draw writes the model's view; s.mu is held.
func (s *Screen) draw() {
	s.changed = false
	s.lastFrame = time.Now()
	v := s.model.View()
	b := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(b)
	b.Reset()
	if v.WindowTitle != s.title {
		s.title = v.WindowTitle
		b.WriteString(ansi.SetWindowTitle(s.title))
	}
	s.r.frame(b, v.Content)
	s.write(b.Bytes())
}

// quit draws the model's last view and gives the terminal back as it
// was; s.mu is held.
func (s *Screen) quit() {
	if s.ended {
		return
	}
	v := s.model.View()
	var b strings.Builder
	b.WriteString(ansi.ResetStyle + ansi.ResetModeAltScreenSaveCursor + ansi.ShowCursor)
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
	s.Stop()
}

// write sends p to the terminal; the first failure ends the screen (the
// session is gone). s.mu is held.
func (s *Screen) write(p []byte) {
	if len(p) == 0 || s.Err() != nil {
		return
	}
	if _, err := s.out.Write(p); err != nil {
		s.errMu.Lock()
		s.err = err
		s.errMu.Unlock()
		s.end()
	}
}
