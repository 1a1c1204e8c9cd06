package server

import (
	"io"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// keyLimiter passes a game screen's input at most rate keys a second
// (one second's worth at once) and drops the keys over it, whole: a key is
// a byte, a UTF-8 character or an escape sequence, so an arrow key is
// never cut into an Escape and two letters. Without it a client can send
// keys as fast as the link allows (a paste, a script, a stuck key
// repeat): each key is a move, each move a database commit and a frame,
// and one session could take the disk and CPU that hundreds of players
// share, or queue minutes of moves. Dropped rather than delayed, so what
// the player sees stays current. The bot protocol needs no such limit:
// it answers one line at a time, after its commit.
type keyLimiter struct {
	r     io.Reader
	limit *rate.Limiter
	now   func() time.Time

	buf    []byte // read from r, not yet filtered
	out    []byte // filtered, not yet returned
	keep   bool   // the last key was passed on
	inRune bool   // the last byte began or continued a UTF-8 character
	seq    []byte // an escape sequence being collected, decided when complete
}

// Longest escape sequence taken as one key; a longer one is passed or
// dropped as one at that length, so a hostile client cannot make the
// limiter hold more.
const maxSeqLen = 256

func newKeyLimiter(r io.Reader, keysPerSecond float64) *keyLimiter {
	limit := rate.NewLimiter(rate.Limit(keysPerSecond), max(int(keysPerSecond), 1))
	return &keyLimiter{r: r, limit: limit, now: time.Now, buf: make([]byte, 512)}
}

// Read is called by one goroutine, the screen's input reader.
func (k *keyLimiter) Read(p []byte) (int, error) {
	for len(k.out) == 0 {
		n, err := k.r.Read(k.buf)
		k.filter(k.buf[:n])
		if err != nil && len(k.seq) > 0 { // the input ended inside a sequence
			k.decide(k.now())
		}
		if err != nil && len(k.out) == 0 {
			return 0, err
		}
	}
	n := copy(p, k.out)
	k.out = k.out[n:]
	return n, nil
}

// filter appends to out the keys of p that get a token.
func (k *keyLimiter) filter(p []byte) {
	now := k.now()
	for _, b := range p {
		if len(k.seq) > 0 {
			k.sequence(b, now)
			continue
		}
		switch {
		case b == 0x1b:
			k.seq = append(k.seq, b)
			k.inRune = false
		case b >= 0x80 && b < 0xc0 && k.inRune:
			// A UTF-8 continuation byte goes with the character it
			// continues.
			if k.keep {
				k.out = append(k.out, b)
			}
		default:
			k.keep = k.limit.AllowN(now, 1)
			k.inRune = b >= 0xc0
			if k.keep {
				k.out = append(k.out, b)
			}
		}
	}
	// A lone ESC at the end of the input is the Escape key: pass it now
	// rather than hold it until the next key.
	if len(k.seq) == 1 {
		k.decide(now)
	}
}

// sequence adds b to the escape sequence being collected.
func (k *keyLimiter) sequence(b byte, now time.Time) {
	if len(k.seq) == 1 && b == 0x1b { // Escape, then another key
		k.decide(now)
		k.seq = append(k.seq, b)
		return
	}
	k.seq = append(k.seq, b)
	complete := false
	switch intro := k.seq[1]; {
	case len(k.seq) == 2:
		complete = !strings.ContainsRune("[O]P_^X", rune(b)) // Alt+key
	case intro == '[':
		complete = b >= 0x40 && b <= 0x7e
	case intro == 'O':
		complete = true
	default: // a string: OSC, DCS, APC, PM, SOS, up to BEL or ST
		complete = b == 0x07 || (b == '\\' && k.seq[len(k.seq)-2] == 0x1b)
	}
	if complete || len(k.seq) >= maxSeqLen {
		k.decide(now)
	}
}

// decide passes or drops the escape sequence collected. The bracketed
// paste markers always pass: dropping the end marker would leave the
// screen taking every later key for pasted text.
func (k *keyLimiter) decide(now time.Time) {
	s := string(k.seq)
	k.keep = s == "\x1b[200~" || s == "\x1b[201~" || k.limit.AllowN(now, 1)
	if k.keep {
		k.out = append(k.out, k.seq...)
	}
	k.seq = k.seq[:0]
}
