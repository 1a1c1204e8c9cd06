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
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/tui"
	gossh "golang.org/x/crypto/ssh"
)

func runPlay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("play", `usage: ssh2048 play [flags]

Plays in this terminal, against the same data directory as the server. You
play as the owner of your SSH public key, so a game started here continues
over SSH and the other way round.`, stderr)
	size := fs.Int("size", 0, "board size, 3 to 8 (default: the size you played last, else 4)")
	data := fs.String("data", env("SSH2048_DATA", stateDirectory()), "directory holding the database [$SSH2048_DATA, else $STATE_DIRECTORY, else ./data]")
	keyPath := fs.String("key", "", "your SSH public key (default: the first of ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *size != 0 && (*size < engine.MinSize || *size > engine.MaxSize) {
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

func play(data string, size int, lp server.LocalPlayer, log *slog.Logger) error {
	ctx := context.Background()
	store, err := db.Open(ctx, data, db.WithLogger(log))
	if err != nil {
		return err
	}
	defer store.Close()
	pool := ai.NewPool(0)
	defer pool.Close()
	opts, release, err := server.LocalScreen(ctx, store, pool, lp, log)
	if err != nil {
		return err
	}
	defer release()
	if size != 0 {
		opts.Size = size
	}
	return tui.Run(opts)
}

// localPlayer names the player at this terminal by their SSH public key:
// the one given, or the first default key that exists. Without any key the
// player is this user on this host, known only to local play.
func localPlayer(keyPath string) (server.LocalPlayer, error) {
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
			return server.LocalPlayer{}, fmt.Errorf("read key: %w", err)
		}
		key, _, _, _, err := gossh.ParseAuthorizedKey(raw)
		if err != nil {
			return server.LocalPlayer{}, fmt.Errorf("%s: not an SSH public key: %w", p, err)
		}
		return server.LocalPlayer{Fingerprint: gossh.FingerprintSHA256(key), KeyType: key.Type(), Name: name}, nil
	}
	host, _ := os.Hostname()
	return server.LocalPlayer{Fingerprint: "local:" + name + "@" + host, KeyType: "local", Name: name}, nil
}
