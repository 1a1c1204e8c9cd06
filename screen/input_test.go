package screen

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// inputLog collects what readInput delivers, from whichever goroutine
// delivers it (the reader's, or the escape timer's).
type inputLog struct {
	mu    sync.Mutex
	msgs  []tea.Msg
	calls int
}

func (l *inputLog) deliver(msgs []tea.Msg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msgs...)
	l.calls++
}

// strings is the messages so far as msgString has them.
func (l *inputLog) strings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := make([]string, len(l.msgs))
	for i, m := range l.msgs {
		s[i] = msgString(m)
	}
	return s
}

func (l *inputLog) deliveries() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

// msgString names a message for comparison: a key press by its String
// ("up", "ctrl+c", "a"), anything else by its type and value.
func msgString(m tea.Msg) string {
	switch m := m.(type) {
	case tea.KeyPressMsg:
		return m.String()
	case tea.BackgroundColorMsg:
		return "bg " + m.String()
	case tea.PasteStartMsg:
		return "paste start"
	case tea.PasteMsg:
		return fmt.Sprintf("paste %q", m.Content)
	case tea.PasteEndMsg:
		return "paste end"
	}
	return fmt.Sprintf("%T %v", m, m)
}

// chunkReader returns its chunks one a Read, then err (io.EOF if nil).
type chunkReader struct {
	chunks []string
	err    error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	if n < len(r.chunks[0]) {
		r.chunks[0] = r.chunks[0][n:]
	} else {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

// readAll runs readInput on r to its end and returns what it delivered.
// The end of input decodes what is pending, so nothing comes later.
func readAll(t *testing.T, r io.Reader) *inputLog {
	t.Helper()
	l := &inputLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		readInput(r, l.deliver)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("readInput did not return at the end of its input")
	}
	return l
}

func TestReadInput(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"arrows", []string{"\x1b[A\x1b[B\x1b[C\x1b[D"}, []string{"up", "down", "right", "left"}},
		{"SS3 arrows", []string{"\x1bOA\x1bOB\x1bOC\x1bOD"}, []string{"up", "down", "right", "left"}},
		{"letters", []string{"abc"}, []string{"a", "b", "c"}},
		{"capital", []string{"A"}, []string{"A"}},
		{"ctrl+c", []string{"\x03"}, []string{"ctrl+c"}},
		{"tab", []string{"\t"}, []string{"tab"}},
		{"enter", []string{"\r"}, []string{"enter"}},
		{"backspace", []string{"\x7f"}, []string{"backspace"}},
		{"space", []string{" "}, []string{"space"}},
		{"UTF-8 runes", []string{"字é"}, []string{"字", "é"}},
		{"ctrl+up", []string{"\x1b[1;5A"}, []string{"ctrl+up"}},
		{"alt+a", []string{"\x1ba"}, []string{"alt+a"}},
		{"several keys in one read", []string{"a\x1b[Bq\r\x1bOD"}, []string{"a", "down", "q", "enter", "left"}},
		{"keys in many reads", []string{"a", "\x1b[B", "q", "\r"}, []string{"a", "down", "q", "enter"}},
		{"arrow split after ESC [", []string{"\x1b[", "A"}, []string{"up"}},
		{"arrow split after ESC", []string{"\x1b", "[A"}, []string{"up"}},
		{"SS3 arrow split", []string{"\x1bO", "A"}, []string{"up"}},
		{"modified arrow split", []string{"x\x1b[1;", "5A"}, []string{"x", "ctrl+up"}},
		{"lone escape at the end", []string{"\x1b"}, []string{"esc"}},
		{"escape then key in one read", []string{"\x1b\x1b[A"}, []string{"alt+up"}},
		{"background colour", []string{"\x1b]11;rgb:0000/0000/0000\x07"}, []string{"bg #000000"}},
		{"background colour among keys", []string{"a\x1b]11;rgb:ffff/ffff/ffff\x1b\\b"}, []string{"a", "bg #ffffff", "b"}},
		{"background colour split", []string{"\x1b]11;rgb:ff", "ff/0000/", "0000\x07"}, []string{"bg #ff0000"}},
		{"UTF-8 rune split across reads", []string{"\xe5\xad", "\x97"}, []string{"字"}},
		{"emoji split three ways", []string{"a\xf0", "\x9f\x99", "\x82b"}, []string{"a", "🙂", "b"}},
		{"invalid byte", []string{"\xff", "a\xe5", "b"}, []string{"a", "b"}},
		{"mouse report dropped", []string{"\x1b[<0;1;1Mx"}, []string{"x"}},
		{"X10 mouse report after an 8-bit CSI dropped", []string{"abc\x9bM !!", "\x9bM !!x"}, []string{"a", "b", "c", "x"}},
		{"unknown sequence dropped", []string{"\x1b[99;99zx"}, []string{"x"}},
		{"bracketed paste", []string{"a\x1b[200~hello, 字\x1b[201~b"}, []string{"a", "paste start", `paste "hello, 字"`, "paste end", "b"}},
		{"paste across reads", []string{"\x1b[20", "0~he", "llo\x1b[2", "01~"}, []string{"paste start", `paste "hello"`, "paste end"}},
		{"paste of keys without text", []string{"\x1b[200~a\rb\tc\x1b[A\x1b[201~"}, []string{"paste start", `paste "a\rb\tc\x1b[A"`, "paste end"}},
		{"paste of invalid UTF-8", []string{"\x1b[200~a\xffb\x1b[201~"}, []string{"paste start", `paste "ab"`, "paste end"}},
		{"paste end alone", []string{"a\x1b[201~b"}, []string{"a", "paste end", "b"}},
		{"paste never ended", []string{"\x1b[200~abc"}, []string{"paste start"}},
		{"colour answer without a colour", []string{"\x1b]11A\x07\x1b]10A\x07x"}, []string{"x"}},
		{"nothing", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := readAll(t, &chunkReader{chunks: slices.Clone(tt.chunks)})
			if got := l.strings(); !slices.Equal(got, tt.want) {
				t.Errorf("reads %q: got %q, want %q", tt.chunks, got, tt.want)
			}
		})
	}
}

// TestReadInputOneDeliveryPerRead: a read's messages arrive together,
// so that the screen applies them all before it draws.
func TestReadInputOneDeliveryPerRead(t *testing.T) {
	l := readAll(t, &chunkReader{chunks: []string{"abc\x1b[A", "de"}})
	if got := l.deliveries(); got != 2 {
		t.Errorf("two reads were delivered in %d calls, want 2: %q", got, l.strings())
	}
}

// TestReadInputReadError: a read error ends readInput like the end of
// input, after what was read.
func TestReadInputReadError(t *testing.T) {
	l := readAll(t, &chunkReader{chunks: []string{"ab\x1b"}, err: errors.New("connection reset")})
	if got, want := l.strings(), []string{"a", "b", "esc"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// pipeInput runs readInput on a pipe until the test ends; keys written
// to the pipe are logged.
func pipeInput(t *testing.T) (*io.PipeWriter, *inputLog) {
	t.Helper()
	pr, pw := io.Pipe()
	l := &inputLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		readInput(pr, l.deliver)
	}()
	t.Cleanup(func() {
		pw.Close()
		<-done
	})
	return pw, l
}

// TestReadInputLoneEscape: an escape with nothing after it arrives as
// the Escape key once the wait is over, while the input is still open,
// and does not swallow the key typed after it.
func TestReadInputLoneEscape(t *testing.T) {
	pw, l := pipeInput(t)
	if _, err := pw.Write([]byte("\x1b")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the escape key", func() bool { return len(l.strings()) > 0 })
	if _, err := pw.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the key after it", func() bool { return len(l.strings()) > 1 })
	if got, want := l.strings(), []string{"esc", "a"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestReadInputIncompleteSequence: a sequence that never ends is given
// up on once it is long, and the keys after it arrive.
func TestReadInputIncompleteSequence(t *testing.T) {
	for _, start := range []string{"\x1b]11;", "\x1b[", "\x1bP", "\x1b_"} {
		t.Run(fmt.Sprintf("%q", start), func(t *testing.T) {
			pw, l := pipeInput(t)
			if _, err := pw.Write([]byte(start + strings.Repeat("1", 600))); err != nil {
				t.Fatal(err)
			}
			if _, err := pw.Write([]byte("\x1b[A")); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the key after the sequence", func() bool {
				got := l.strings()
				return len(got) > 0 && got[len(got)-1] == "up"
			})
		})
	}
}

// TestReadInputRandomBytes: garbage neither panics nor blocks, and
// whatever it decodes to is a message the screen knows.
func TestReadInputRandomBytes(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		data := make([]byte, rng.IntN(2000))
		for i := range data {
			switch rng.IntN(4) {
			case 0:
				data[i] = 0x1b
			case 1:
				data[i] = "[O];:0123456789ABCDm~\x07\\"[rng.IntN(21)]
			default:
				data[i] = byte(rng.Uint32())
			}
		}
		checkInput(t, data, rng.IntN(50))
	}
}

// checkInput feeds data to readInput in reads of split bytes (all at
// once if 0) and checks it returns with messages of the kinds it hands
// on.
func checkInput(t *testing.T, data []byte, split int) {
	t.Helper()
	var chunks []string
	for rest := string(data); len(rest) > 0; {
		n := len(rest)
		if split > 0 {
			n = min(n, split)
		}
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
	}
	l := readAll(t, &chunkReader{chunks: chunks})
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		switch m.(type) {
		case tea.KeyPressMsg, tea.KeyReleaseMsg, tea.PasteStartMsg, tea.PasteMsg, tea.PasteEndMsg, tea.BackgroundColorMsg,
			tea.ForegroundColorMsg, tea.CursorPositionMsg, tea.FocusMsg, tea.BlurMsg:
		default:
			t.Fatalf("input %q split every %d bytes: unexpected message %T %v", data, split, m, m)
		}
	}
}

// FuzzInput: any bytes, in any reads, decode without a panic, and
// readInput returns when its reader ends.
func FuzzInput(f *testing.F) {
	f.Add([]byte("\x1b[A\x1bOBabc\x03\t\r字"), uint8(0))
	f.Add([]byte("\x1b[1;5A\x1b"), uint8(3))
	f.Add([]byte("\x1b]11;rgb:0000/0000/0000\x07"), uint8(5))
	f.Add([]byte("\x1b[<0;1;1M\x1b[I\x1b[O\x1b[200~paste\x1b[201~"), uint8(1))
	f.Add([]byte("\x1bP1$r0m\x1b\\\x1b_Gi=1\x1b\\\xe5\xad\x97"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		checkInput(t, data, int(split))
	})
}

// TestReadInputLongPaste: a paste keeps its first maxPaste bytes, and the
// keys after it arrive.
func TestReadInputLongPaste(t *testing.T) {
	long := strings.Repeat("x", maxPaste+1000)
	l := readAll(t, &chunkReader{chunks: []string{"\x1b[200~" + long + "\x1b[201~q"}})
	want := []string{"paste start", fmt.Sprintf("paste %q", long[:maxPaste]), "paste end", "q"}
	if got := l.strings(); !slices.Equal(got, want) {
		t.Errorf("got %.200q, want %.200q", got, want)
	}
}
