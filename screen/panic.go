package screen

import (
	"fmt"
	"runtime/debug"
)

// PanicError is how a screen ends when its model panics: in Init, Update
// or View, in a command, or in the screen's own code running on the
// model's behalf (the input reader and decoder, the frame timer, the
// renderer). The screen runs these on goroutines of its own, where no
// recover of the caller's can reach: without this, one model's panic would
// end the process and every other screen with it. The model is not called
// again; the terminal is given back (main screen, cursor shown) and the
// caller decides what to tell the user and what to log.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string { return fmt.Sprintf("screen: the model panicked: %v", e.Value) }

// Unwrap returns the panic's value when it is an error, for errors.As.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// contain is deferred first on every goroutine of the screen that calls
// into the model, and on every method that does so for a caller (Send),
// so that it runs after the deferred unlock of s.mu: a panic there ends
// this screen only.
func (s *Screen) contain() {
	v := recover()
	if v == nil {
		return
	}
	s.panicked(v, debug.Stack())
}

// panicked ends the screen after a panic; only the first is kept.
func (s *Screen) panicked(v any, stack []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		// The last frame may have been cut short; reset the pen too.
		s.write([]byte(s.restore()))
	}
	s.errMu.Lock()
	if s.panic == nil {
		s.panic = &PanicError{Value: v, Stack: stack}
	}
	s.errMu.Unlock()
	s.end()
}

// writeErr is the write that failed, if one did.
func (s *Screen) writeErr() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}
