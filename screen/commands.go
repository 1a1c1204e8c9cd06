package screen

import (
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/internal/workers"
)

// control does what a command's message asks of the terminal, or
// reports that the screen does not. A message of package tea that the
// table does not know (one a newer Bubble Tea added) is reported too: it
// is a command tea.Program would act on. s.mu is held.
func (s *Screen) control(msg tea.Msg) {
	c, ok := controlOf(msg)
	if !ok {
		if name, ok := teaInternal(msg); ok {
			s.report(name)
		}
		return
	}
	switch c.act {
	case askBackgroundColor:
		s.requestBackgroundColor()
	case askForegroundColor:
		s.write([]byte(ansi.RequestForegroundColor))
	case askCursorPosition:
		s.write([]byte(ansi.RequestCursorPositionReport))
	case tellWindowSize:
		w, h := s.r.Size()
		size := tea.WindowSizeMsg{Width: w, Height: h}
		s.exec(func() tea.Msg { return size })
	case redraw:
		s.r.Redraw()
	default:
		s.report(c.command)
	}
}

// requestBackgroundColor asks the terminal for its background colour,
// unless a question is already waiting for its answer (Start asks
// first thing): the answer will reach the model all the same.
func (s *Screen) requestBackgroundColor() {
	if s.backgroundAsked {
		return
	}
	s.backgroundAsked = true
	s.write([]byte(ansi.RequestBackgroundColor))
}

// runSequence runs cmds one at a time, in order, each once the message
// of the one before has been handled, as tea.Program does.
func (s *Screen) runSequence(cmds []tea.Cmd) {
	for _, cmd := range cmds {
		if cmd == nil {
			continue
		}
		if s.stopped() {
			return
		}
		s.deliver(cmd())
	}
}

// deliver hands a command's message to the model and returns once it has
// been handled; a batch's commands are run concurrently and waited for,
// a sequence's in order.
func (s *Screen) deliver(msg tea.Msg) {
	if batch, ok := msg.(tea.BatchMsg); ok {
		var wg sync.WaitGroup
		for _, cmd := range batch {
			if cmd == nil {
				continue
			}
			wg.Add(1)
			workers.Go(func() {
				defer wg.Done()
				defer s.contain() // runs before Done: the screen has ended when the wait does
				s.deliver(cmd())
			})
		}
		wg.Wait()
		return
	}
	if cmds, ok := sequenceOf(msg); ok {
		s.runSequence(cmds)
		return
	}
	s.Send(msg)
}

// checkView reports the parts of a view the screen does not honour.
// s.mu is held.
func (s *Screen) checkView(v *tea.View) {
	if s.unsupported == nil {
		return
	}
	if v.Cursor != nil {
		s.report("tea.View.Cursor")
	}
	if v.BackgroundColor != nil {
		s.report("tea.View.BackgroundColor")
	}
	if v.ForegroundColor != nil {
		s.report("tea.View.ForegroundColor")
	}
	if v.ProgressBar != nil {
		s.report("tea.View.ProgressBar")
	}
	if v.ReportFocus {
		s.report("tea.View.ReportFocus")
	}
	if v.MouseMode != tea.MouseModeNone {
		s.report("tea.View.MouseMode")
	}
	if v.KeyboardEnhancements != (tea.KeyboardEnhancements{}) {
		s.report("tea.View.KeyboardEnhancements")
	}
}

// report tells Options.Unsupported about what, once for the screen.
// s.mu is held.
func (s *Screen) report(what string) {
	if s.unsupported == nil || s.reported[what] {
		return
	}
	if s.reported == nil {
		s.reported = make(map[string]bool)
	}
	s.reported[what] = true
	s.unsupported(what)
}
