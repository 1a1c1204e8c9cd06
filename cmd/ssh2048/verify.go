package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// runVerify is `ssh2048 verify FILE`: it checks a record that `export`
// printed, with no server: the moves are replayed with the rules from the
// record's size, generator and seed, and each claim is confirmed or
// refuted. The exit statuses are the server's (package wire).
func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify", `usage: ssh2048 verify FILE

Replays the moves of a game record (ssh HOST export GAME > FILE; - reads
standard input) and checks its score, largest tile, win and final board.
Exit status: 0 confirmed, 5 refuted, 2 not a record (malformed or
truncated), 8 a record from a newer ssh2048, 1 the file cannot be read.`, stdout, stderr)
	if code, ok := parseWithArgs(fs, args, 1); !ok {
		return code
	}
	name := fs.Arg(0)
	in := io.Reader(os.Stdin)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "ssh2048 verify: %v\n", err)
			return wire.ExitError
		}
		defer f.Close()
		in = f
	}
	rec, err := record.Parse(in)
	switch {
	case errors.Is(err, record.ErrNewer):
		fmt.Fprintf(stderr, "ssh2048 verify: %s: %v; a newer ssh2048 can check it\n", name, err)
		return wire.ExitNewer
	case err != nil:
		fmt.Fprintf(stderr, "ssh2048 verify: %s: %v\n", name, err)
		return wire.ExitUsage
	}
	v, err := record.Verify(rec)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 verify: %s: %v\n", name, err)
		return wire.ExitUsage
	}
	// A record is anyone's file, and its name and key are text: cleaned,
	// or a record could clear the screen of whoever checks it.
	who := fmt.Sprintf("game %d by %s (%s), %d×%d", rec.GameID, store.SanitizeName(rec.Player), store.CleanText(rec.Key), rec.Size, rec.Size)
	if !v.Confirmed() {
		fmt.Fprintf(stdout, "refuted: %s: %s\n", who, strings.Join(v.Mismatches, "; "))
		return wire.ExitRefuted
	}
	won := ""
	if rec.Won {
		won = ", won"
	}
	fmt.Fprintf(stdout, "confirmed: %s: score %d, max tile %d, %s%s\n", who, rec.Score, rec.MaxTile, count(len(rec.Moves), "move"), won)
	return wire.ExitOK
}
