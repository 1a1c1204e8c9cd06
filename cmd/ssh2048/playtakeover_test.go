package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
)

// lockedBuffer is a bytes.Buffer safe for the program's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPlayTakenOverAtOnce: a game ssh2048 play holds, opened over SSH on
// the server of the same data directory, ends play at once, with the
// takeover line and no key pressed.
func TestPlayTakenOverAtOnce(t *testing.T) {
	dir := t.TempDir()
	srv := servertest.Start(t, dir, "127.0.0.1:0")
	key := servertest.NewKey(t)
	pub := filepath.Join(t.TempDir(), "id.pub")
	if err := os.WriteFile(pub, gossh.MarshalAuthorizedKey(key.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	lp, err := localPlayer(pub)
	if err != nil {
		t.Fatal(err)
	}
	in, keys := io.Pipe() // no key is ever pressed
	t.Cleanup(func() { keys.Close() })
	out := &lockedBuffer{}
	played := make(chan error, 1)
	go func() {
		played <- play(dir, "", 4, "", lp, slog.New(slog.DiscardHandler),
			tea.WithInput(in), tea.WithOutput(out), tea.WithWindowSize(80, 24))
	}()

	// Once play holds its 4×4 game, an SSH session opens it.
	ctx := context.Background()
	p, err := srv.Store.UpsertPlayer(ctx, lp.fingerprint, lp.keyType, lp.name)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		games, err := srv.Store.PlayerGames(ctx, p.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(games) > 0 && games[0].Size == 4 && games[0].Kind == store.KindHuman {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("play opened no game: %q", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	c, err := gossh.Dial("tcp", srv.Addr, &gossh.ClientConfig{User: "p", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	servertest.OpenScreen(t, c, "play --size 4", 80, 24)

	select {
	case err := <-played:
		// errTakenOver is what makes `ssh2048 play` exit 3, as an SSH
		// session that is taken over does.
		if !errors.Is(err, errTakenOver) || !strings.Contains(out.String(), "newer session") {
			t.Fatalf("play: %v (want errTakenOver), output %q", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("play still runs 10 s after an SSH session took its game over: %q", out.String())
	}
}
