package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A player's best of a board (player_bests) is offered the games moved
// together, as in package sqlite (package store/internal/bests says why):
// a move marks its game, and so does a game this node opens for play (it
// may be another node's, left unoffered when that node stopped). The
// marked games are offered in one statement:
//
//   - before this node reads player_bests (Leaderboard, a board's load
//     for the ranks), so that it reads every move it committed before;
//   - every ranksEvery, just before this node tells the others that its
//     ranks changed (ranks.go), so that the bests they load again hold
//     the moves that changed them;
//   - on Close.
//
// A game's end and a change of its kind still offer it at once (the
// trigger games_offer_best, migration 00018), and a node that opens the
// database offers every game in play, which is what a node killed without
// Close leaves behind. Offering a game twice, or an older state after a
// newer, changes nothing: the rule keeps the better score, or the same
// score reached earlier, and a game's score never goes down. A statement
// may update a player's best once only, so of a player's games of one
// board it offers the best (DISTINCT ON).
//
// The games are read FOR SHARE: a transaction that changes one of them
// meanwhile (an account's merge on the logins' writer or on another
// node, which moves the games to the account they join and deletes the
// player; a hide) is waited for, and the game read as it left it. Read
// from the statement's snapshot instead, a game would be offered to the
// player the merge deletes, and the merge fail on the foreign key or the
// account lose the game's best; or a game hidden meanwhile get a best.
const offerBestsOf = `
	WITH offered AS (
		SELECT player_id, size, kind, id, score, reached_at FROM games
		WHERE (%s) AND contest = '' AND NOT hidden AND moves > 0
		FOR SHARE)
	INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
	SELECT DISTINCT ON (player_id, size, kind) player_id, size, kind, id, score, reached_at FROM offered
	ORDER BY player_id, size, kind, score DESC, reached_at, id
	ON CONFLICT (player_id, size, kind) DO UPDATE
	SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
	WHERE excluded.score > player_bests.score
	   OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at)`

var (
	offerMarked = fmt.Sprintf(offerBestsOf, `id = ANY($1::bigint[])`)
	offerInPlay = fmt.Sprintf(offerBestsOf, `ended_at IS NULL`)
)

// offerMarkedBests offers the marked games to the bests in the writer's
// next group, and returns once that has committed (bests.Marked.Offer).
// The write runs on no reader's context: a read that gives up does not
// fail the others waiting for the same offer.
func (s *Store) offerMarkedBests(ctx context.Context) error {
	return s.marked.Offer(ctx, func(take func() []int64) error {
		return s.w.do(context.Background(), func(ctx context.Context, tx pgx.Tx, _ int64) error {
			ids := take()
			if len(ids) == 0 {
				return nil
			}
			_, err := tx.Exec(ctx, offerMarked, ids)
			return err
		})
	})
}

// offerGamesInPlay offers every game in play to the bests: what a node
// that stopped without Close had marked and not offered.
func offerGamesInPlay(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, offerInPlay); err != nil {
		return fmt.Errorf("offer the games in play to the bests: %w", err)
	}
	return nil
}
