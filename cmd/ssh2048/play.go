package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui"
	gossh "golang.org/x/crypto/ssh"
)

func runPlay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("play", `usage: ssh2048 play [flags]

Plays in this terminal, against the same data directory as the server. You
play as the owner of your SSH public key, so a game started here continues
over SSH and the other way round.`, stderr)
	size := fs.Int("size", 4, "board size, 3 to 8")
	data := fs.String("data", stateDirectory(), "directory holding the database (default $STATE_DIRECTORY, else ./data)")
	keyPath := fs.String("key", "", "your SSH public key (default: the first of ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *size < engine.MinSize || *size > engine.MaxSize {
		fmt.Fprintf(stderr, "ssh2048 play: --size %d: want %d to %d\n", *size, engine.MinSize, engine.MaxSize)
		return 2
	}
	lp, err := localPlayer(*keyPath)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 play: %v\n", err)
		return 2
	}
	// The screen owns the terminal; anything logged meanwhile is shown
	// after it closes.
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	err = play(*data, *size, lp, log)
	io.Copy(stderr, &logs)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 play: %v\n", err)
		return 1
	}
	return 0
}

func play(data string, size int, lp localKey, log *slog.Logger) error {
	ctx := context.Background()
	store, err := db.Open(ctx, data, db.WithLogger(log))
	if err != nil {
		return err
	}
	defer store.Close()
	pool := ai.NewPool(0)
	defer pool.Close()
	// Only this process's seats share the service's one-writer rule; a
	// server playing the same game at the same time is kept out by the
	// store's own check (db.ErrConflict), which the screen reports as a
	// takeover.
	games := game.New(store, log)
	player, err := games.Identify(ctx, lp.fingerprint, lp.keyType, lp.name)
	if err != nil {
		return err
	}
	seat := games.Seat(player, nil)
	defer seat.Close()
	return tui.Run(tui.Options{
		Store:   tui.SeatStore(games, seat),
		Hinter:  pool,
		Player:  player.Name,
		Size:    size,
		Context: ctx,
	})
}

// localKey identifies someone playing in their own terminal rather than
// over SSH: by their SSH public key, so that local and SSH play are one
// player.
type localKey struct {
	fingerprint, keyType, name string
}

// localPlayer names the player at this terminal by their SSH public key:
// the one given, or the first default key that exists. Without any key the
// player is this user on this host, known only to local play.
func localPlayer(keyPath string) (localKey, error) {
	name := "player"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	paths := []string{keyPath}
	if keyPath == "" {
		home, _ := os.UserHomeDir()
		paths = nil
		for _, f := range []string{"id_ed25519.pub", "id_ecdsa.pub", "id_rsa.pub"} {
			paths = append(paths, filepath.Join(home, ".ssh", f))
		}
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if os.IsNotExist(err) && keyPath == "" {
			continue
		}
		if err != nil {
			return localKey{}, fmt.Errorf("read key: %w", err)
		}
		key, _, _, _, err := gossh.ParseAuthorizedKey(raw)
		if err != nil {
			return localKey{}, fmt.Errorf("%s: not an SSH public key: %w", p, err)
		}
		return localKey{gossh.FingerprintSHA256(key), key.Type(), name}, nil
	}
	host, _ := os.Hostname()
	return localKey{"local:" + name + "@" + host, "local", name}, nil
}
