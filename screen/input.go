package screen

import (
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/internal/workers"
)

// escWait is how long the start of an escape sequence waits for the rest
// before it counts as what it is so far (a lone Escape key, say).
const escWait = 50 * time.Millisecond

// maxPending bounds the bytes kept while a sequence is incomplete; a
// client that never finishes one gets it decoded as it is.
const maxPending = 256

// maxPaste bounds the text kept of a bracketed paste; the rest of a
// longer paste is dropped.
const maxPaste = 4 << 10

// input decodes a terminal's bytes into Bubble Tea messages with
// ultraviolet's decoder, the one Bubble Tea uses, but without the lookup
// table of key sequences Bubble Tea's reader builds for every program,
// large beside the rest of a session (docs/performance.md has the
// figures): the decoder alone knows the sequences of the terminals SSH
// clients run in.
type input struct {
	mu      sync.Mutex
	dec     uv.EventDecoder
	pending []byte      // the start of a sequence, waiting for its end
	timer   *time.Timer // decodes pending once escWait has passed
	deliver func([]tea.Msg)
	contain func() // deferred on each goroutine that decodes (see Screen.contain)

	// pasting is set between the bracketed paste markers; paste is the
	// text so far.
	pasting bool
	paste   []byte
}

// readInput decodes r until it ends, handing each read's messages to
// deliver in order.
func readInput(r io.Reader, deliver func([]tea.Msg)) {
	readInputContained(r, deliver, func() {})
}

// readInputContained is readInput with contain deferred on the reading
// goroutine and on the timer that decodes a lone escape: a panic in the
// reader or the decoder ends the screen, not the process.
//
// Each read is handled on another goroutine (a worker: internal/workers), which
// the reader waits for. The reader waits for the client's next bytes for
// most of its life, shallow; handling a read is deep (the model's update,
// the frame written through the connection's cipher; a race screen's
// deepest of all). A goroutine's stack stays as large as the deepest call
// it made until a collection finds it mostly unused, and then only
// halves, so a reader that handled its reads itself held a stack grown
// that deep for each screen, all the time (the commit that brought this
// in has the figures); a worker's stack serves every screen.
// (The server does the same with its handlers' setup: server's stack.go.)
func readInputContained(r io.Reader, deliver func([]tea.Msg), contain func()) {
	defer contain()
	in := &input{deliver: deliver, contain: contain}
	buf := make([]byte, 512)
	handled := make(chan struct{})
	var n int
	handle := func() {
		defer func() { handled <- struct{}{} }()
		defer contain()
		in.feed(buf[:n])
	}
	for {
		var err error
		n, err = r.Read(buf)
		if n > 0 {
			workers.Go(handle)
			<-handled
		}
		if err != nil {
			in.flush()
			return
		}
	}
}

func (in *input) feed(p []byte) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.timer != nil {
		in.timer.Stop()
	}
	in.pending = append(in.pending, p...)
	in.decode(len(in.pending) > maxPending)
	if len(in.pending) > 0 {
		if in.timer == nil {
			in.timer = time.AfterFunc(escWait, func() {
				defer in.contain()
				in.flush()
			})
		} else {
			in.timer.Reset(escWait)
		}
	}
}

// flush decodes whatever is pending as it is.
func (in *input) flush() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.decode(true)
}

// decode delivers the messages in pending; unless expired, it keeps an
// escape sequence that may not have arrived whole.
func (in *input) decode(expired bool) {
	var msgs []tea.Msg
	buf := in.pending
	for len(buf) > 0 {
		if !expired && buf[0] >= utf8.RuneSelf && !utf8.FullRune(buf) {
			break // the first bytes of a character
		}
		n, ev := in.decodeEvent(buf)
		if n == 0 {
			break
		}
		_, unknown := ev.(uv.UnknownEvent)
		if !expired && buf[0] == ansi.ESC && n == len(buf) && (unknown || n <= 2) {
			break // maybe the first part of a longer sequence
		}
		if in.pasting {
			msgs = in.pasted(msgs, ev, buf[:n])
		} else {
			msgs = in.appendMsgs(msgs, ev)
		}
		buf = buf[n:]
	}
	in.pending = append(in.pending[:0], buf...)
	if len(msgs) > 0 {
		in.deliver(msgs)
	}
}

// decodeEvent is in.dec.Decode, but for an X10 mouse report after an
// 8-bit CSI (0x9b 'M' and three bytes): ultraviolet reads its three bytes
// as if the CSI were the two bytes ESC '[', one past the report, which
// panics when the report ends the buffer's capacity, at a client's will.
// That report is decoded as the same one after ESC '['.
func (in *input) decodeEvent(buf []byte) (int, uv.Event) {
	if len(buf) >= 5 && buf[0] == ansi.CSI && buf[1] == 'M' {
		n, ev := in.dec.Decode(append([]byte{ansi.ESC, '[', 'M'}, buf[2:5]...))
		return n - 1, ev
	}
	return in.dec.Decode(buf)
}

// appendMsgs appends the Bubble Tea messages for an input event: keys,
// pastes, and the terminal's answers to queries a screen may make.
// Anything else (mouse reports nobody asked for, unknown sequences) is
// dropped.
func (in *input) appendMsgs(msgs []tea.Msg, ev uv.Event) []tea.Msg {
	switch ev := ev.(type) {
	case uv.MultiEvent:
		for _, e := range ev {
			msgs = in.appendMsgs(msgs, e)
		}
	case uv.PasteStartEvent:
		in.pasting = true
		msgs = append(msgs, tea.PasteStartMsg{})
	case uv.PasteEndEvent: // without a start: passed on, as Bubble Tea does
		msgs = append(msgs, tea.PasteEndMsg{})
	case uv.KeyPressEvent:
		msgs = append(msgs, tea.KeyPressMsg(ev))
	case uv.KeyReleaseEvent:
		msgs = append(msgs, tea.KeyReleaseMsg(ev))
	// An answer without a colour (a malformed one, "ESC ] 11 A BEL") is
	// dropped: the message's String method would panic on it.
	case uv.BackgroundColorEvent:
		if ev.Color != nil {
			msgs = append(msgs, tea.BackgroundColorMsg(ev))
		}
	case uv.ForegroundColorEvent:
		if ev.Color != nil {
			msgs = append(msgs, tea.ForegroundColorMsg(ev))
		}
	case uv.CursorPositionEvent:
		msgs = append(msgs, tea.CursorPositionMsg(ev))
	case uv.FocusEvent:
		msgs = append(msgs, tea.FocusMsg(ev))
	case uv.BlurEvent:
		msgs = append(msgs, tea.BlurMsg(ev))
	// The answers to the screen's own queries (probe.go).
	case uv.PrimaryDeviceAttributesEvent:
		msgs = append(msgs, answeredMsg{})
	case uv.CapabilityEvent:
		if termcapSaysTrueColour(ev.Content) {
			msgs = append(msgs, trueColourMsg{})
		}
	case uv.UnknownDcsEvent:
		if decrqssSaysTrueColour(string(ev)) {
			msgs = append(msgs, trueColourMsg{})
		}
	}
	return msgs
}

// pasted adds an event between the bracketed paste markers to the paste,
// as Bubble Tea's reader does: a key's text, or a key without text (such
// as Enter) as the bytes it came as; other events are dropped. At the end
// marker, the paste is delivered: tea.PasteMsg, then tea.PasteEndMsg.
func (in *input) pasted(msgs []tea.Msg, ev uv.Event, raw []byte) []tea.Msg {
	switch ev := ev.(type) {
	case uv.PasteEndEvent:
		msgs = append(msgs, tea.PasteMsg{Content: strings.ToValidUTF8(string(in.paste), "")}, tea.PasteEndMsg{})
		in.pasting, in.paste = false, nil
	case uv.KeyPressEvent:
		text := ev.Text
		if text == "" {
			text = string(raw)
		}
		if len(in.paste)+len(text) <= maxPaste {
			in.paste = append(in.paste, text...)
		}
	}
	return msgs
}
