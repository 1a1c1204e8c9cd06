package racing

import (
	"sync"
	"time"
)

// alarmAt returns a channel closed at t (rounded up to alarmGrain), the
// same channel for everyone who asks for the same instant: the race
// screens of one race redraw their clock at the same instants, and a
// hundred races cost a hundred timers a second, not a goroutine for
// each racer. Nothing waits once it has fired.
func alarmAt(t time.Time) <-chan struct{} {
	k := (t.UnixNano() + int64(alarmGrain) - 1) / int64(alarmGrain)
	alarms.Lock()
	defer alarms.Unlock()
	if c, ok := alarms.m[k]; ok {
		return c
	}
	c := make(chan struct{})
	alarms.m[k] = c
	time.AfterFunc(time.Until(time.Unix(0, k*int64(alarmGrain))), func() {
		alarms.Lock()
		delete(alarms.m, k)
		alarms.Unlock()
		close(c)
	})
	return c
}

// alarmGrain is how close two instants are to share an alarm.
const alarmGrain = 10 * time.Millisecond

// alarms are the channels of instants to come: at most one a grain in
// the next second or so, as long as no one asks for later ones.
var alarms = struct {
	sync.Mutex
	m map[int64]chan struct{}
}{m: make(map[int64]chan struct{})}
