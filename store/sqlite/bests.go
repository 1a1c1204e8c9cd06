package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A player's best of a board (player_bests) is offered the games moved
// together (package store/internal/bests says why): a move marks its
// game, and the marked games are offered in one statement in these cases:
//
//   - before this process reads player_bests (Leaderboard, a board's load
//     for the ranks), so that it reads every move committed before;
//   - at least once a bestsEvery, for other processes that read the file
//     (`ssh2048 scores` beside the server);
//   - on Close.
//
// A game's end and a change of its kind still offer it at once (the
// trigger games_offer_best). After a crash, the games in play are offered
// again when the file is next opened (offerGamesInPlay), so no best stays
// behind its game. Offering a game twice, or an older state after a newer,
// changes nothing: the rule keeps the better score, or the same score
// reached earlier, and a game's score never goes down.
const bestsEvery = time.Second

// offerBestsOf offers the games that match a condition on games (%s) to
// their players' bests.
const offerBestsOf = `
	INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
	SELECT player_id, size, kind, id, score, reached_at FROM games
	WHERE (%s) AND contest = '' AND hidden = 0 AND moves > 0
	ON CONFLICT (player_id, size, kind) DO UPDATE
	SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
	WHERE excluded.score > player_bests.score
	   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at)`

var offerInPlay = fmt.Sprintf(offerBestsOf, `ended_at IS NULL`)

var (
	// offerMarked offers the marked games ?1 (a JSON array of ids) that
	// have no logged moves (movelog.go) as their rows have them.
	offerMarked = fmt.Sprintf(offerBestsOf, `id IN (SELECT value FROM json_each(?))`)
	// offerLogged offers game ?1, whose logged moves reached score ?2,
	// first at ?3: its row does not have them yet. As in the fold,
	// reached_at stays when the score did not change.
	offerLogged = `
	INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
	SELECT player_id, size, kind, id, ?2, CASE WHEN score = ?2 THEN reached_at ELSE ?3 END FROM games
	WHERE id = ?1 AND contest = '' AND hidden = 0
	ON CONFLICT (player_id, size, kind) DO UPDATE
	SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
	WHERE excluded.score > player_bests.score
	   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at)`
)

// offerChunk is how many games one write of an offer takes: an offer of
// every game in play at once held the writer, and the moves queued behind
// it, for as long as it took.
const offerChunk = 256

// offerMarkedBests offers the marked games to the bests, in the writer's
// next groups, a chunk a write, and returns once they have committed:
// every move committed before the call is then in player_bests
// (bests.Marked.Offer). Its reads may have contexts of their own, so the
// writes run on none of theirs: a read that gives up does not fail the
// others.
func (s *Store) offerMarkedBests(ctx context.Context) error {
	return s.marked.Offer(ctx, func(take func() []int64) error {
		var ids []int64
		err := s.w.do(context.Background(), func(ctx context.Context, tx *sql.Tx, _ int64) error {
			ids = take()
			return s.mlog.offer(ctx, tx, ids[:min(len(ids), offerChunk)])
		})
		for err == nil && len(ids) > offerChunk {
			ids = ids[offerChunk:]
			chunk := ids[:min(len(ids), offerChunk)]
			err = s.w.do(context.Background(), func(ctx context.Context, tx *sql.Tx, _ int64) error {
				return s.mlog.offer(ctx, tx, chunk)
			})
		}
		return err
	})
}

// offerBestsLoop offers the marked games every period, until Close.
func (s *Store) offerBestsLoop(period time.Duration) {
	defer close(s.bestsDone)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-s.stopBests:
			return
		case <-t.C:
		}
		if err := s.offerMarkedBests(context.Background()); err != nil {
			s.log.Warn("db: offering games to the bests failed", "err", err)
			s.obs.Failed("bests")
		}
	}
}

// offerGamesInPlay offers every game in play to the bests: what a process
// that stopped without Close had marked and not offered.
func offerGamesInPlay(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, offerInPlay); err != nil {
		return fmt.Errorf("offer the games in play to the bests: %w", err)
	}
	return nil
}
