package load

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Race mode: the sessions race in private rooms of RacePlayers, each
// through the race screen on a PTY. The first of each room (its host)
// (whoever joined first) waits until the whole room is in, shortens the
// race to one minute and starts it; once the countdown is over everyone
// plays at the rate asked.
//
// Besides key to frame, a race measures how long an opponent's move takes
// to reach the others' screens: from a racer's key to the first output
// each other racer of the room gets after it. So that this output can
// only be that move's, a room's keys take turns: one key at a time per
// room, the next no sooner than opponentWindow after it; output outside
// that window is not counted, and an opponent that gets none within it is
// counted as late (a window, not a wait: the rate holds, as a room's four
// racers at 2 keys/s send a key every 125 ms). The race clock redraws
// every second too, which can land in a window: it can make the odd
// sample too short, never too long.
const (
	// ModeRace plays races through the race screen (ssh -t HOST race --room WORD).
	ModeRace Mode = "race"
	// RacePlayers is the racers of one room.
	RacePlayers = 4
	// opponentWindow is each key's turn in its room: the opponents'
	// frames that arrive in it are that key's.
	opponentWindow = 100 * time.Millisecond
	// raceStartWait is how long the racers wait for the race screen
	// after the start: the room's countdown (race.RoomCountdown) and a
	// margin.
	raceStartWait = 15 * time.Second
	// raceMarker is on the race screen's first frame (its header).
	raceMarker = "Place "
	// clockRedraw is the most bytes of output taken for the race clock's
	// redraw, once a second, rather than a key's frame: a cursor move,
	// the pen and the second's new digit (4 bytes when the cursor was
	// left after the clock, "\x1b[D" and the digit; 14–15 when it has to
	// be moved there). A key's frame redraws tiles of the racer's own
	// large board: always bigger than that, most many times over. Without
	// it, a key that moved nothing took the clock's redraw in its turn for
	// its frame (any whose turn held the clock's tick), and its opponents,
	// with nothing to draw, were counted late. An opponent's frame may be
	// one small tile, hardly bigger than the clock's redraw: of the others'
	// output, only tinyRedraw or less is taken for the clock.
	clockRedraw = 16
	tinyRedraw  = 8
)

// raceRoom is what a room's racers share in the load generator.
type raceRoom struct {
	word    string
	members []*session

	mu   sync.Mutex
	in   int           // racers whose lobby is on screen
	all  chan struct{} // closed when every racer is in
	free time.Time     // the next key's turn
}

// turn reserves the room's next key turn at or after now, and returns
// when it is.
func (r *raceRoom) turn(now time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := later(now, r.free)
	r.free = at.Add(opponentWindow)
	return at
}

func (r *raceRoom) arrived() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.in++; r.in == len(r.members) {
		close(r.all)
	}
}

// raceRooms puts the sessions in rooms of RacePlayers (the last room
// takes the rest, or joins the one before if it would race alone).
func raceRooms(prefix string, sessions []*session) []*raceRoom {
	var rooms []*raceRoom
	for i := 0; i < len(sessions); i += RacePlayers {
		members := sessions[i:min(i+RacePlayers, len(sessions))]
		if len(members) == 1 && len(rooms) > 0 {
			last := rooms[len(rooms)-1]
			last.members = append(last.members, members[0])
			members[0].room = last
			continue
		}
		word := strings.ToLower(strings.Trim(prefix, "-")) + fmt.Sprintf("-r%d", len(rooms)+1)
		r := &raceRoom{word: word, members: slices.Clone(members), all: make(chan struct{})}
		for _, s := range members {
			s.room = r
		}
		rooms = append(rooms, r)
	}
	return rooms
}

// playRace opens the race screen in the session's room, waits for the
// room and the start, then plays as playKeys does.
func (s *session) playRace(ctx context.Context, client *gossh.Client, stop <-chan struct{}) error {
	sess, in, out, err := openSession(client)
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := sess.RequestPty(termName, termHeight, termWidth, gossh.TerminalModes{}); err != nil {
		return &kindError{errSession, err}
	}
	if err := sess.Start("race --room " + s.room.word); err != nil {
		return &kindError{errSession, err}
	}
	chunks := make(chan chunk, 64)
	done := make(chan struct{})
	defer close(done)
	go readChunks(out, chunks, done, raceMarker, nil)
	if err := s.firstFrame(ctx, chunks); err != nil {
		return err
	}
	s.room.arrived()

	// Wait for the whole room.
	raceOn := make(chan struct{})
	drain := func(until <-chan struct{}, timeout time.Duration) error {
		t := time.NewTimer(timeout)
		defer t.Stop()
		for {
			select {
			case c := <-chunks:
				s.account(c)
				if c.err != nil {
					return closedError(c.err)
				}
				if c.mark {
					close(raceOn)
				}
			case <-until:
				return nil
			case <-t.C:
				if until == nil {
					return nil
				}
				return failf(errFirstFrame, "the room did not fill or start in %v", timeout)
			case <-stop:
				return failf(errFirstFrame, "the run ended before the race started")
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	wait := 2 * s.cfg.ConnectTimeout * time.Duration(1+len(s.room.members))
	if err := drain(s.room.all, wait); err != nil {
		return err
	}
	// The room's host (whoever joined first) shortens the race to one
	// minute ("-" twice from three) and starts it; every racer sends the
	// same keys, which the others' lobbies ignore.
	for _, k := range []string{"-", "-", "\r"} {
		if _, err := in.Write([]byte(k)); err != nil {
			return &kindError{errWrite, err}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := drain(raceOn, raceStartWait); err != nil {
		return err
	}
	s.playing = time.Now()
	defer func() { s.played = time.Since(s.playing) }()
	return s.playKeys(ctx, chunks, in, stop)
}

// opponentLatencies matches every answered key of a room with the first
// output each opponent got in its window: the time its move took to
// reach the others' screens. late counts the opponents that got nothing
// in the window.
func opponentLatencies(rooms []*raceRoom) (samples []int64, late int) {
	for _, r := range rooms {
		type keyAt struct {
			who      *session
			at       time.Time
			answered bool
		}
		var keys []keyAt
		for _, s := range r.members {
			for _, k := range s.raceKeys {
				keys = append(keys, keyAt{s, k.at, k.answered})
			}
		}
		slices.SortFunc(keys, func(a, b keyAt) int { return a.at.Compare(b.at) })
		for i, k := range keys {
			if !k.answered {
				continue // no move, no change for the others to see
			}
			end := k.at.Add(opponentWindow)
			if i+1 < len(keys) && keys[i+1].at.Before(end) {
				end = keys[i+1].at
			}
			for _, o := range r.members {
				if o == k.who || !o.connected || (!o.outputUntil.IsZero() && o.outputUntil.Before(end)) {
					continue // the opponent stopped reading before the key's turn was over
				}
				j, _ := slices.BinarySearchFunc(o.outputAt, k.at, func(a, b time.Time) int { return a.Compare(b) })
				if j < len(o.outputAt) && o.outputAt[j].Before(end) {
					samples = append(samples, int64(o.outputAt[j].Sub(k.at)))
				} else {
					late++
				}
			}
		}
	}
	return samples, late
}

// raceKey is one key a racer sent, and whether it got a frame.
type raceKey struct {
	at       time.Time
	answered bool
}

// percentiles summarises latencies in nanoseconds; nil for none.
func percentiles(samples []int64) *Percentiles {
	if len(samples) == 0 {
		return &Percentiles{}
	}
	slices.Sort(samples)
	var sum int64
	for _, v := range samples {
		sum += v
	}
	return &Percentiles{
		Count:  len(samples),
		MeanMS: ms(time.Duration(sum / int64(len(samples)))),
		P50MS:  ms(time.Duration(percentile(samples, 50))),
		P95MS:  ms(time.Duration(percentile(samples, 95))),
		P99MS:  ms(time.Duration(percentile(samples, 99))),
		MaxMS:  ms(time.Duration(samples[len(samples)-1])),
	}
}
