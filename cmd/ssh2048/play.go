package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/charmbracelet/x/term"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server/command"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/postgres"
	"github.com/ssh2048/ssh2048/store/sqlite"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

func runPlay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("play", `usage: ssh2048 play [flags]

Plays in this terminal, against the same data directory as the server. You
play as the owner of your SSH public key, so a game started here continues
over SSH and the other way round.`, stdout, stderr)
	size := fs.Int("size", 0, "board size, 3 to 8 (default: the size you played last, else 4)")
	data := fs.String("data", stateDirectory(), "directory holding the database (default $STATE_DIRECTORY, else ./data)")
	database := fs.String("database", os.Getenv("SSH2048_DATABASE_URL"),
		"PostgreSQL URL of the servers' shared database, instead of --data (default $SSH2048_DATABASE_URL)")
	keyPath := fs.String("key", "", "your SSH key: its .pub, or the private key you give ssh -i (default: the first of ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *size != 0 && (*size < engine.MinSize || *size > engine.MaxSize) {
		fmt.Fprintf(stderr, "ssh2048 play: --size %d: want %d to %d\n", *size, engine.MinSize, engine.MaxSize)
		return 2
	}
	if err := checkDatabaseURL(*database); err != nil {
		fmt.Fprintf(stderr, "ssh2048 play: %v\n", err)
		return 2
	}
	// The theme of this terminal, as SetEnv gives one to an SSH session:
	// over the player's kept one.
	theme := os.Getenv(session.EnvName(store.SettingTheme))
	if _, _, err := store.CheckSetting(store.SettingTheme, theme); err != nil {
		fmt.Fprintf(stderr, "ssh2048 play: %s: %v\n", session.EnvName(store.SettingTheme), err)
		return 2
	}
	lp, err := localPlayer(*keyPath)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 play: %v\n", err)
		return 2
	}
	// Run from elsewhere, play would start a database of its own in a
	// ./data made for it, and the player would find none of their games.
	// A directory named on purpose (--data, the environment) may be new.
	named := os.Getenv("SSH2048_DATA") != "" || os.Getenv("STATE_DIRECTORY") != ""
	fs.Visit(func(f *flag.Flag) { named = named || f.Name == "data" })
	if _, err := os.Stat(filepath.Join(*data, sqlite.FileName)); *database == "" && !named && errors.Is(err, iofs.ErrNotExist) {
		dir := *data
		if !filepath.IsAbs(dir) {
			dir = "./" + filepath.Clean(dir)
		}
		fmt.Fprintf(stderr, "ssh2048 play: no games here: no %s in %s. Run play where the server keeps its data, or name the directory with --data DIR (a new one starts a new database).\n", sqlite.FileName, dir)
		return 2
	}
	// The screen needs a terminal, as Bubble Tea finds one (stdin, else
	// the controlling terminal): without one (cron, a script, ssh without
	// -t), play says so before it makes a data directory or a database.
	if !term.IsTerminal(os.Stdin.Fd()) {
		in, out, err := tea.OpenTTY()
		if err != nil {
			fmt.Fprintln(stderr, "ssh2048 play: the game needs a terminal, and there is none here (run it in one; over ssh, with -t)")
			return 2
		}
		in.Close()
		out.Close()
	}
	// The screen owns the terminal; anything logged meanwhile is shown
	// after it closes.
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// The player's window title is saved on the terminal's title stack
	// and put back after: the program blanks the title when it ends.
	fmt.Fprint(stdout, ansi.WindowOp(22, 0))
	err = play(*data, *database, *size, theme, lp, log)
	fmt.Fprint(stdout, ansi.WindowOp(23, 0))
	io.Copy(stderr, &logs)
	if errors.Is(err, errTakenOver) {
		return wire.ExitTakenOver // the screen's last line said why
	}
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 play: %v\n", err)
		return 1
	}
	return 0
}

// errTakenOver ends play when another session, over SSH or another
// `ssh2048 play`, opened the game on screen: it exits with the status an
// SSH session gets then.
var errTakenOver = errors.New("the game was taken over by a newer session")

// play runs the game screen for lp against the data directory or the
// database until the player quits or another session takes the game
// over; progOpts go to the Bubble Tea program (tests give it pipes).
func play(data, database string, size int, theme string, lp localKey, log *slog.Logger, progOpts ...tea.ProgramOption) error {
	ctx := context.Background()
	var (
		st   servedStore
		opts []game.Option
		err  error
	)
	if database != "" {
		// One more node on the servers' database: its takeovers reach
		// their sessions and theirs this one.
		var shared *postgres.Store
		if shared, err = postgres.Open(ctx, database, postgres.WithLogger(log)); err == nil {
			st, opts = shared, []game.Option{game.WithBus(shared.Bus())}
		}
	} else {
		st, err = sqlite.Open(ctx, data, sqlite.WithLogger(log))
	}
	if err != nil {
		return err
	}
	defer st.Close()
	pool := ai.NewPool(0)
	defer pool.Close()
	// Only this process's seats share the service's one-writer rule;
	// with a server on the same file the store keeps it (fencing tokens,
	// and takeover notices each process polls for: store.TakeoverNotifier),
	// so a game opened here ends the server's session of it at once.
	games := game.New(st, log, append(opts, game.WithReviews(pool))...)
	player, err := games.Identify(ctx, lp.fingerprint, lp.keyType, lp.name)
	if err != nil {
		return err
	}
	// A session elsewhere that opens the game on screen ends this one at
	// once, as it does an SSH session, not at the player's next key.
	var prog atomic.Pointer[tea.Program]
	var taken atomic.Bool
	seat := games.Seat(player, func(why error) {
		taken.Store(true)
		if p := prog.Load(); p != nil {
			var msg tea.Msg = event.TakenOverMsg{}
			if errors.Is(why, game.ErrMovedAccount) || errors.Is(why, game.ErrAccountGone) {
				msg = event.EndMsg{Text: session.MovedText}
			}
			go p.Send(msg)
		}
	})
	defer seat.Close()
	if size == 0 {
		size = seat.LastSize(ctx)
	}
	settings, err := games.Settings(ctx, player)
	if err != nil && !errors.Is(err, game.ErrNoSettings) {
		log.Warn("settings", "err", err) // the defaults, then
	}
	if theme != "" {
		settings[store.SettingTheme] = theme
	}
	m := tui.New(tui.Options{
		Store:   tui.SeatStore(games, seat),
		Hinter:  pool,
		Player:  player.Name,
		Size:    size,
		Context: ctx,
		Games:   games, // replays and the history; only this process's games can be watched
		Self:    player,
		Theme:   command.ThemeOf(settings),
	})
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx)}, progOpts...)...)
	prog.Store(p)
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("run tui: %w", err)
	}
	if taken.Load() {
		return errTakenOver
	}
	return nil
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
		key, err := publicKey(p, raw)
		if err != nil {
			return localKey{}, err
		}
		return localKey{gossh.FingerprintSHA256(key), key.Type(), name}, nil
	}
	host, _ := os.Hostname()
	return localKey{"local:" + name + "@" + host, "local", name}, nil
}

// publicKey is the public key of the key file at path (read into raw):
// a public key as ssh-keygen writes it, or a private key, whose public
// half is the identity (players give --key the file they give ssh -i).
func publicKey(path string, raw []byte) (gossh.PublicKey, error) {
	if key, _, _, _, err := gossh.ParseAuthorizedKey(raw); err == nil {
		return key, nil
	}
	priv, err := gossh.ParseRawPrivateKey(raw)
	var missing *gossh.PassphraseMissingError
	switch {
	case err == nil:
		signer, err := gossh.NewSignerFromKey(priv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return signer.PublicKey(), nil
	case errors.As(err, &missing) && missing.PublicKey != nil:
		// A key with a passphrase: OpenSSH's format holds the public
		// half in the clear.
		return missing.PublicKey, nil
	}
	if pub, rerr := os.ReadFile(path + ".pub"); rerr == nil {
		if key, _, _, _, err := gossh.ParseAuthorizedKey(pub); err == nil {
			return key, nil
		}
	}
	return nil, fmt.Errorf("%s is neither an SSH public key nor a private key whose public half can be read; give the .pub file", path)
}
