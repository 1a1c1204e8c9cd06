package game

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/store"
)

// ErrInPlay: the game can still be played, so its record, which carries
// its seed, stays on the server until it ends.
var ErrInPlay = errors.New("game still in play: its record is kept secret until it ends")

// ErrNoGame: no game has that id.
var ErrNoGame = errors.New("no such game")

// fullGame reads game id from the store.
func (s *Service) fullGame(ctx context.Context, id int64) (store.FullGame, error) {
	g, err := s.store.FullGame(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.FullGame{}, fmt.Errorf("game %d: %w", id, ErrNoGame)
	}
	return g, err
}

// Record returns the record of game id, which must have ended.
func (s *Service) Record(ctx context.Context, id int64) (record.Record, error) {
	g, err := s.fullGame(ctx, id)
	if err != nil {
		return record.Record{}, err
	}
	if g.EndedAt == nil && strings.HasPrefix(g.Contest, "daily:") && g.Contest < dailyContest(s.Today()) {
		// A day that is over has ended its games, whether or not anyone
		// has opened a daily since to record it.
		if err := s.store.EndPastDailies(ctx, s.Today()); err != nil {
			return record.Record{}, err
		}
		if g, err = s.fullGame(ctx, id); err != nil {
			return record.Record{}, err
		}
	}
	// Today's daily first, ended or not: its player is told why it is
	// kept back (today's seed is everyone's today; even the record of a
	// game that has ended would tell the tiles to those yet to play),
	// not sent to watch or replay it, which refuse it too.
	if err := s.keptBack(g); err != nil {
		return record.Record{}, fmt.Errorf("game %d: %w", id, err)
	}
	if g.EndedAt == nil {
		return record.Record{}, fmt.Errorf("game %d: %w", id, ErrInPlay)
	}
	replayed, err := g.Generator.Replay(g.Size, g.Seed, g.Dirs)
	if err != nil {
		return record.Record{}, fmt.Errorf("game %d: replay: %w", id, err)
	}
	return record.Of(replayed, g.Dirs, record.Record{
		GameID: g.ID, Player: store.DisplayName(g.Player, g.Fingerprint), Key: store.ShortID(g.Fingerprint), Kind: string(g.Kind),
		Started: g.StartedAt, Ended: *g.EndedAt,
	}), nil
}

// Verify replays game id from its seed and moves and checks what the
// store says of it (score, largest tile, win, board): the server's answer
// to "is this score real?". A game still in play can be verified too; the
// answer tells nothing of its seed.
func (s *Service) Verify(ctx context.Context, id int64) (record.Verdict, error) {
	g, err := s.fullGame(ctx, id)
	if err != nil {
		return record.Verdict{}, err
	}
	board, err := engine.ParseBoard(g.Board)
	if err != nil {
		return record.Verdict{}, fmt.Errorf("game %d: stored board: %w", id, err)
	}
	claimed := record.Record{Size: g.Size, Generator: g.Generator, Seed: g.Seed, Moves: g.Dirs,
		Score: g.Score, MaxTile: g.MaxTile, Won: g.Won, Board: board}
	return record.Verify(claimed)
}

// Replay is a stored game move by move, for a replay screen: the boards
// are rebuilt on the server, so a game still in play can be replayed up to
// its last move without its seed leaving the server.
type Replay struct {
	GameID   int64
	PlayerID int64
	Player   string
	Key      string // the player's short id (store.ShortID)
	Size     int
	Kind     store.Kind
	Contest  string // "" for free play, else "daily:YYYY-MM-DD" or "race:ID"
	Ended    bool
	Dirs     []engine.Direction // Dirs[i] led from Boards[i] to Boards[i+1]
	Boards   []engine.Board     // Boards[i]: the board after i moves; len(Dirs)+1 of them
	Scores   []int              // Scores[i]: the score after i moves
}

// Replay rebuilds game id for watching it again. Those who ask for the
// same replay while someone holds it share it (liveReplays): it must not
// be changed.
func (s *Service) Replay(ctx context.Context, id int64) (*Replay, error) {
	g, err := s.fullGame(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := s.keptBack(g); err != nil {
		// Ended or not: its boards show the tiles that the day's (or the
		// race's) shared seed brings, and its moves, played again, would
		// give anyone its score on them.
		return nil, fmt.Errorf("game %d: %w", id, err)
	}
	name := store.DisplayName(g.Player, g.Fingerprint)
	return s.replays.get(replayKey{id: id, moves: len(g.Dirs), ended: g.EndedAt != nil, player: name}, func() (*Replay, error) {
		return newReplay(g, name)
	})
}

// newReplay rebuilds g's every board, for Replay.
func newReplay(g store.FullGame, name string) (*Replay, error) {
	id := g.ID
	eg, err := g.Generator.NewGame(g.Size, g.Seed)
	if err != nil {
		return nil, fmt.Errorf("game %d: %w", id, err)
	}
	r := &Replay{GameID: id, PlayerID: g.PlayerID, Player: name, Key: store.ShortID(g.Fingerprint),
		Size: g.Size, Kind: g.Kind, Contest: g.Contest, Ended: g.EndedAt != nil,
		Dirs: g.Dirs, Boards: make([]engine.Board, 1, len(g.Dirs)+1), Scores: make([]int, 1, len(g.Dirs)+1)}
	r.Boards[0] = eg.Board()
	for i, d := range g.Dirs {
		if !eg.Move(d).Moved {
			return nil, fmt.Errorf("game %d: stored move %d changes nothing on replay", id, i)
		}
		r.Boards = append(r.Boards, eg.Board())
		r.Scores = append(r.Scores, eg.Score())
	}
	return r, nil
}
