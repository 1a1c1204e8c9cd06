package screen

import (
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/time/rate"
)

// keyLimiter passes a screen's keys at most rate a second (one second's
// worth at once) and drops the keys over it. Without it a client can
// send keys as fast as its link allows (a paste, a script, a stuck key
// repeat): in a game each key is a move, each move a database commit and
// a frame, and one session could take the disk and CPU that hundreds of
// players share, or queue minutes of moves. Dropped rather than delayed,
// so that what the player sees stays current.
//
// It limits decoded messages, so a key is always whole: an arrow's
// escape sequence, a character of several bytes. A key press, a key
// release and a paste each take a token. The bracketed paste markers
// always pass (a model that saw the start of a paste and not its end
// would wait for it forever), and so does what is not typed: the
// terminal's answers to queries, focus reports.
type keyLimiter struct {
	limit *rate.Limiter
	now   func() time.Time
}

// newKeyLimiter returns a limiter of keysPerSecond, or nil (no limit)
// for 0.
func newKeyLimiter(keysPerSecond float64) *keyLimiter {
	if keysPerSecond <= 0 {
		return nil
	}
	burst := max(int(keysPerSecond), 1)
	return &keyLimiter{limit: rate.NewLimiter(rate.Limit(keysPerSecond), burst), now: time.Now}
}

// filter removes from msgs, in place, the keys over the rate; a nil
// limiter passes everything.
func (k *keyLimiter) filter(msgs []tea.Msg) []tea.Msg {
	if k == nil {
		return msgs
	}
	now := k.now()
	kept := msgs[:0]
	for _, msg := range msgs {
		switch msg.(type) {
		case tea.KeyPressMsg, tea.KeyReleaseMsg, tea.PasteMsg:
			if !k.limit.AllowN(now, 1) {
				continue
			}
		}
		kept = append(kept, msg)
	}
	clear(msgs[len(kept):]) // let the dropped messages go
	return kept
}
