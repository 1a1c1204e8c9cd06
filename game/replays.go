package game

import (
	"runtime"
	"strconv"
	"sync"
	"weak"

	"golang.org/x/sync/singleflight"
)

// liveReplays are the replays someone holds now (a replay screen, a
// page being built), by what makes one: those who open the same replay
// share it for as long as any of them holds it, and it goes when the last
// lets go. A replay is every board and score of its game, tens of bytes a
// move, and a client may open one on every session it may hold: without
// sharing, each screen of one long game held a copy of its own. A Replay
// is never changed once built, and one of a game in play is keyed by its
// length, so it is shared only with those who asked at the same move.
type liveReplays struct {
	mu     sync.Mutex
	held   map[replayKey]weak.Pointer[Replay]
	builds singleflight.Group // by replayKey, for those who ask together
}

// replayKey is what a Replay is made from: its game's moves (a game only
// ever grows), whether it has ended, and its player's name then.
type replayKey struct {
	id     int64
	moves  int
	ended  bool
	player string
}

func (k replayKey) String() string {
	return strconv.FormatInt(k.id, 10) + "/" + strconv.Itoa(k.moves) + "/" + strconv.FormatBool(k.ended) + "/" + k.player
}

// get returns the replay of k someone holds, or the one build makes and
// keeps it for the others.
func (l *liveReplays) get(k replayKey, build func() (*Replay, error)) (*Replay, error) {
	if r := l.held1(k); r != nil {
		return r, nil
	}
	v, err, _ := l.builds.Do(k.String(), func() (any, error) {
		if r := l.held1(k); r != nil {
			return r, nil
		}
		r, err := build()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.held == nil {
			l.held = make(map[replayKey]weak.Pointer[Replay])
		}
		l.held[k] = weak.Make(r)
		l.mu.Unlock()
		runtime.AddCleanup(r, l.forget, k)
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Replay), nil
}

// held1 is the replay of k someone holds, or nil.
func (l *liveReplays) held1(k replayKey) *Replay {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[k].Value()
}

// forget drops k once its replay is gone, unless a newer one took its
// place.
func (l *liveReplays) forget(k replayKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[k].Value() == nil {
		delete(l.held, k)
	}
}

// len is how many replays are kept track of, for tests.
func (l *liveReplays) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}
