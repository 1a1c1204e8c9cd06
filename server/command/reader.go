package command

import (
	"context"

	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/tui/reader"
)

// ReaderOf reports whether settings (session.Session.Settings: the
// player's kept ones, the session's environment over them) ask for the
// screen for screen readers: `settings screen reader`, or
// SetEnv SSH2048_SCREEN=reader.
func ReaderOf(settings map[string]string) bool { return settings[store.SettingScreen] == "reader" }

// MotionOf reports whether settings leave motion on for the player's own
// screen (`settings motion off`, SSH2048_MOTION=off turn it off); the
// server's --motion and its gate decide the rest.
func MotionOf(settings map[string]string) bool { return settings[store.SettingMotion] != "off" }

// ReaderStore is the screen for screen readers' Store over the game
// screen's (tui.SeatStore, tui.DailyStore): the same games and the same
// leaderboard, so the two screens cannot differ on either.
func ReaderStore(s tui.Store) reader.Store { return readerStore{s} }

type readerStore struct{ s tui.Store }

func (r readerStore) Open(ctx context.Context, size int, fresh bool) (reader.Play, error) {
	p, err := r.s.Open(ctx, size, fresh)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (r readerStore) Standings(ctx context.Context, size, limit int) ([]reader.Row, *reader.Row, error) {
	top, me, err := r.s.Standings(ctx, size, limit)
	if err != nil {
		return nil, nil, err
	}
	rows := make([]reader.Row, len(top))
	for i, s := range top {
		rows[i] = readerRow(s)
	}
	if me == nil {
		return rows, nil, nil
	}
	mine := readerRow(*me)
	return rows, &mine, nil
}

// readerRow is a leaderboard row as the reader says it: a look-alike
// name's tag goes with it, as on the game screen.
func readerRow(s tui.Standing) reader.Row {
	name := s.Player
	if s.Tag != "" {
		name += " " + s.Tag
	}
	return reader.Row{Rank: s.Rank, Player: name, Score: s.Score}
}
