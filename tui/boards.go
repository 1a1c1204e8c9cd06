package tui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
)

// Board is one of the leaderboards the leaderboard screen switches
// between with left and right.
type Board int

const (
	BoardAllTime Board = iota // each player's best game of the size
	BoardDaily                // today's daily challenge of the size
	BoardRaces                // the race ratings
	numBoards
)

// boardNames are the boards' names on the leaderboard screen.
var boardNames = [numBoards]string{"all time", "today's daily", "races"}

// boardShortNames are the same in a narrow window.
var boardShortNames = [numBoards]string{"all", "daily", "races"}

// Boards is a Store that ranks on other boards than its own (Standings):
// the leaderboard screen offers them with left and right. For the races
// board, a Standing's Score is the rating and its MaxTile the races run.
type Boards interface {
	BoardStandings(ctx context.Context, b Board, size, limit int) (top []Standing, me *Standing, err error)
}

// ratingScan is how many ratings are read to find the player's own rank:
// the ratings board has no rank query of its own.
const ratingScan = 1000

// boardStandings reads board b for the seat's player.
func boardStandings(ctx context.Context, svc *game.Service, seat *game.Seat, b Board, size, limit int) ([]Standing, *Standing, error) {
	switch b {
	case BoardDaily:
		return dailyStandings(ctx, svc, seat, svc.Today(), size, limit)
	case BoardRaces:
		return ratingStandings(ctx, svc, seat, limit)
	}
	return seatStore{svc: svc, seat: seat}.Standings(ctx, size, limit)
}

// dailyStandings ranks a day's challenge of one size; the player's own
// row as DailyRank has it.
func dailyStandings(ctx context.Context, svc *game.Service, seat *game.Seat, day string, size, limit int) ([]Standing, *Standing, error) {
	var rows []store.Entry
	if limit > 0 {
		var err error
		if rows, err = svc.DailyBoard(ctx, day, size, limit); err != nil {
			return nil, nil, err
		}
	}
	e, _, err := svc.DailyRank(ctx, seat.Player(), day, size)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return standingsOf(rows), nil, nil
	case err != nil:
		return nil, nil, err
	}
	all := standingsOf(append(rows, e))
	return all[:len(rows)], &all[len(rows)], nil
}

// ratingStandings is the race ratings board as Standings: the rating
// (rounded) as the score, the races run as the tile.
func ratingStandings(ctx context.Context, svc *game.Service, seat *game.Seat, limit int) ([]Standing, *Standing, error) {
	rows, err := svc.RatingBoard(ctx, max(limit, ratingScan))
	if err != nil {
		return nil, nil, err
	}
	entries := make([]store.Entry, len(rows))
	mine := -1
	for i, r := range rows {
		entries[i] = store.Entry{Rank: r.Rank, PlayerID: r.PlayerID, Name: r.Name, Fingerprint: r.Fingerprint,
			Score: int(math.Round(r.Rating.Rating)), MaxTile: r.Races}
		if p := seat.Player(); !p.Guest && r.PlayerID == p.ID {
			mine = i
		}
	}
	all := standingsOf(entries)
	var me *Standing
	if mine >= 0 {
		me = &all[mine]
	}
	return all[:min(limit, len(all))], me, nil
}

func (s seatStore) BoardStandings(ctx context.Context, b Board, size, limit int) ([]Standing, *Standing, error) {
	return boardStandings(ctx, s.svc, s.seat, b, size, limit)
}

// Daily makes the game screen today's daily challenge (Options.Daily):
// everyone's tiles are the same (a guest's are a practice board's), one
// attempt a day, no AI, no new game, the size fixed.
type Daily struct {
	Day    string // "YYYY-MM-DD", UTC
	Streak int    // days in a row played, as Service.Streak said when the screen opened
	// Now is the clock that says how long until the next challenge; nil
	// means time.Now.
	Now func() time.Time
}

// DailyStore is the daily challenge's Store: Open opens the seat's
// attempt at today's challenge (fresh is never asked for: there is one
// attempt), Standings ranks the day.
func DailyStore(svc *game.Service, seat *game.Seat, day string) Store {
	return dailyStore{svc: svc, seat: seat, day: day}
}

type dailyStore struct {
	svc  *game.Service
	seat *game.Seat
	day  string
}

func (s dailyStore) Open(ctx context.Context, size int, _ bool) (Play, error) {
	p, err := s.seat.OpenDaily(ctx, size)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (s dailyStore) Standings(ctx context.Context, size, limit int) ([]Standing, *Standing, error) {
	return dailyStandings(ctx, s.svc, s.seat, s.day, size, limit)
}

func (s dailyStore) BoardStandings(ctx context.Context, b Board, size, limit int) ([]Standing, *Standing, error) {
	if b == BoardDaily {
		return s.Standings(ctx, size, limit)
	}
	return boardStandings(ctx, s.svc, s.seat, b, size, limit)
}

// otherBoard are the rows of a board other than the screen's home board.
type otherBoard struct {
	board Board
	size  int // 0: nothing read yet
	top   []Standing
	me    *Standing
	err   error
}

// boards lists the boards the leaderboard screen offers: all of them
// when the Store has them, else its own.
func (m *Model) boards() []Board {
	if _, ok := m.opts.Store.(Boards); !ok {
		return []Board{m.home}
	}
	return []Board{BoardAllTime, BoardDaily, BoardRaces}
}

// shownRows are the rows of the board on the leaderboard screen; loaded
// is false while they are being read.
func (m *Model) shownRows() (top []Standing, me *Standing, loaded bool, err error) {
	if m.board == m.home {
		return m.top, m.me, m.topFor == m.size, m.standingsErr
	}
	o := m.other
	return o.top, o.me, o.board == m.board && o.size == m.size, o.err
}

// switchBoard shows the board step places along the list, round.
func (m *Model) switchBoard(step int) tea.Cmd {
	bs := m.boards()
	i := 0
	for j, b := range bs {
		if b == m.board {
			i = j
		}
	}
	m.board = bs[(i+step+len(bs))%len(bs)]
	return m.refreshBoard()
}

// refreshBoard reads the board on the leaderboard screen in a tea.Cmd.
func (m *Model) refreshBoard() tea.Cmd {
	if m.board == m.home {
		return m.refreshStandings()
	}
	bs, ok := m.opts.Store.(Boards)
	if !ok {
		return nil
	}
	ctx, b, size := m.ctx, m.board, m.size
	return func() tea.Msg {
		top, me, err := bs.BoardStandings(ctx, b, size, leaderboardRows)
		return standingsMsg{board: b, size: size, top: top, me: me, err: err}
	}
}

// streak is the player's streak of days as the daily screen shows it:
// today counts once its game has a move.
func (m *Model) streak() int {
	n := m.opts.Daily.Streak
	if m.game != nil && m.movesAtOpen == 0 && m.shown().Moves() > 0 {
		n++
	}
	return n
}

// untilNext is how long until the next daily challenge, "5 h 12 min".
func (m *Model) untilNext() string {
	now := time.Now
	if m.opts.Daily.Now != nil {
		now = m.opts.Daily.Now
	}
	t := now().UTC()
	left := t.Truncate(24 * time.Hour).Add(24 * time.Hour).Sub(t)
	h, min := int(left.Hours()), int(left.Minutes())%60
	if h == 0 {
		return fmt.Sprintf("%d min", max(min, 1))
	}
	return fmt.Sprintf("%d h %d min", h, min)
}
