package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
)

// heldReplays is Games whose Replay tells entered of each call and waits
// for release.
type heldReplays struct {
	Games
	entered chan int64
	release chan struct{}
}

func (g *heldReplays) Replay(ctx context.Context, id int64) (*game.Replay, error) {
	g.entered <- id
	<-g.release
	return g.Games.Replay(ctx, id)
}

// TestReplayBuiltOnceForThoseWhoAskTogether: visitors who ask at once for
// a replay not cached yet (a link to a long game that just ended, shared
// widely) share one read and one build, each of which costs a replay of
// every move and the boards' bytes; and the first visitor's leaving does
// not fail the others.
func TestReplayBuiltOnceForThoseWhoAskTogether(t *testing.T) {
	w := newWorld(t)
	ended := w.play(t, w.player(t, "ann"), 4, store.KindHuman, 0)
	held := &heldReplays{Games: w.svc, entered: make(chan int64, 16), release: make(chan struct{})}
	ts := w.site(t, Config{Games: held})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(held.release) }) }
	t.Cleanup(let) // before the server's Close, which waits for its handlers
	path := fmt.Sprintf("%s/api/game/%d", ts.URL, ended)

	first, leave := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(first, http.MethodGet, path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		firstDone <- err
	}()
	<-held.entered
	const others = 8
	var wg sync.WaitGroup
	codes := make([]int, others)
	for i := range others {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(path)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		}()
	}
	select {
	case <-held.entered:
		t.Fatal("a second request read the replay while the first's read was under way")
	case <-time.After(300 * time.Millisecond):
	}
	leave()
	<-firstDone
	let()
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK {
			t.Errorf("request %d: status %d, want 200", i, code)
		}
	}
}
