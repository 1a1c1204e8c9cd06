package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/internal/accounts"
	"github.com/ssh2048/ssh2048/store/internal/ranks"
)

// querier is what reads need: the pool, or a read transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// LoadOrCreateGame returns the player's game in progress for (size,
// kind), starting one if there is none; see store.Store.LoadOrCreateGame.
func (s *Store) LoadOrCreateGame(ctx context.Context, playerID int64, size int, kind store.Kind) (*store.SavedGame, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("load game: %w", err)
	}
	for range 2 {
		id, token, err := s.createGame(ctx, gameSpec{playerID: playerID, size: size, kind: kind})
		if err != nil {
			return nil, fmt.Errorf("load game of player %d (%d×%d %s): %w", playerID, size, size, kind, err)
		}
		g, err := s.loadGame(ctx, id, token)
		if !errors.Is(err, store.ErrReplayDiverged) {
			return g, err
		}
		if err := s.endAsStored(ctx, id); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("load game of player %d: %w", playerID, store.ErrReplayDiverged)
}

// NewGame ends the player's game in progress for (size, kind), if any,
// and starts a new one.
func (s *Store) NewGame(ctx context.Context, playerID int64, size int, kind store.Kind) (*store.SavedGame, error) {
	if err := store.CheckGame(size, kind); err != nil {
		return nil, fmt.Errorf("new game: %w", err)
	}
	id, token, err := s.createGame(ctx, gameSpec{playerID: playerID, size: size, kind: kind, replace: true})
	if err != nil {
		return nil, fmt.Errorf("new game for player %d (%d×%d %s): %w", playerID, size, size, kind, err)
	}
	return s.loadGame(ctx, id, token)
}

// gameSpec says which game createGame finds or starts.
type gameSpec struct {
	playerID int64
	size     int
	kind     store.Kind
	contest  string
	seed     uint64
	replace  bool
	// once: the contest takes one game of the player and size, its
	// first (the daily: games_daily_once); an ended one refuses another
	// with store.ErrContestPlayed (and its id).
	once bool
}

// createGame returns the id of the game in progress for (player, size,
// kind, contest), creating it if there is none or if replace is set, and
// claims it for this node (see holders.go): the token is the claim's.
// Two nodes creating the same game at once meet on the games_in_progress
// index: the second insert does nothing and finds the first one's game.
//
// Every login opens a game so, on the logins' writer, where each round
// trip is time the logins behind it wait: the player and the game in
// progress are looked up in one, a new game is inserted with its claim
// in one, and a game found is claimed in one (claim).
func (s *Store) createGame(ctx context.Context, spec gameSpec) (id, token int64, err error) {
	seed, gen := spec.seed, engine.Current
	if spec.contest == "" {
		seed = s.newSeed()
	}
	eg, err := gen.NewGame(spec.size, seed)
	if err != nil {
		return 0, 0, err
	}
	board, maxTile := eg.Board().String(), eg.MaxTile()
	var at int64
	err = s.logins.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		at = now
		found, err := s.findGame(ctx, tx, spec, now, &id)
		if err != nil {
			return err
		}
		if !found {
			err = tx.QueryRow(ctx, insertClaimedSQL, spec.playerID, spec.size, string(spec.kind), int64(seed), int16(gen),
				maxTile, board, now, spec.contest, s.node, now+s.lease.Microseconds()).Scan(&id, &token)
			if !noRows(err) {
				return err // a game just inserted has its time and its claim
			}
			// Another node's insert came first: that game is in progress,
			// or, for a contest of one game, it may have ended since.
			if spec.once {
				if err := s.onceGame(ctx, tx, spec, &id); err != nil {
					return err
				}
			} else if err := s.inProgress(ctx, tx, spec, &id); err != nil {
				return err
			}
		}
		if token, err = s.claim(ctx, tx, id, now); err != nil {
			return err
		}
		// Opened to play counts as played: the size a player switched
		// to is the one a new session opens. After the claim, not
		// before: a move locks the game's holder row, then its games
		// row (the holder CTE of AppendMove), so a claim that took them
		// the other way round deadlocks with the move it takes over
		// from.
		_, err = tx.Exec(ctx, `UPDATE games SET updated_at = $2 WHERE id = $1 AND updated_at < $2`, id, now)
		return err
	})
	if err == nil {
		s.claimed(id, token)
		if spec.replace && spec.contest == "" {
			s.ranks.Replaced(spec.playerID, ranks.Board{Size: spec.size, Kind: spec.kind}, at)
		}
	}
	return id, token, err
}

// insertClaimedSQL inserts a game and its holder row, this node's with
// the first token, and returns both; nothing if a game of the same
// (player, size, kind, contest) is in progress (another node's insert
// committed since the statement's snapshot), nor if the player has the
// day's daily already, in progress or ended (games_daily_once).
//
// ON CONFLICT names no index, so that it covers both. Naming
// games_in_progress left a conflict on games_daily_once an error (23505,
// which spoils the logins' group transaction): met by an attempt that
// ended after the caller's check, and by two nodes' first inserts of one
// daily at once, where the one past ON CONFLICT's check second waits on
// games_daily_once for the other to commit and then fails (PostgreSQL
// checks an index that is no arbiter as a plain insert does).
const insertClaimedSQL = `
	WITH g AS (
		INSERT INTO games (player_id, size, kind, seed, generator, max_tile, board, started_at, updated_at, reached_at, contest)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $8, $9)
		ON CONFLICT DO NOTHING
		RETURNING id),
	h AS (
		INSERT INTO game_holders (game_id, node, token, lease_until) SELECT id, $10, 1, $11 FROM g
		RETURNING game_id, token)
	SELECT game_id, token FROM h`

// findGame is createGame's first statement: it checks that the player
// exists and finds their game in progress (found), or, when spec
// replaces it, ends it.
func (s *Store) findGame(ctx context.Context, tx pgx.Tx, spec gameSpec, now int64, id *int64) (found bool, err error) {
	var exists bool
	var inProgress *int64
	if spec.replace {
		err = tx.QueryRow(ctx, `
			WITH ended AS (
				UPDATE games SET ended_at = $4, updated_at = $4
				WHERE player_id = $1 AND size = $2 AND kind = $3 AND contest = $5 AND ended_at IS NULL)
			SELECT EXISTS (SELECT 1 FROM players WHERE id = $1)`,
			spec.playerID, spec.size, string(spec.kind), now, spec.contest).Scan(&exists)
	} else {
		err = tx.QueryRow(ctx, `
			SELECT EXISTS (SELECT 1 FROM players WHERE id = $1),
			       (SELECT id FROM games WHERE player_id = $1 AND size = $2 AND kind = $3 AND contest = $4 AND ended_at IS NULL)`,
			spec.playerID, spec.size, string(spec.kind), spec.contest).Scan(&exists, &inProgress)
	}
	if err != nil {
		return false, err
	}
	if !exists {
		return false, reject(fmt.Errorf("player %d: %w", spec.playerID, store.ErrNotFound))
	}
	if inProgress != nil {
		*id = *inProgress
	}
	return inProgress != nil, nil
}

// inProgress finds the id of the game in progress of spec, or pgx.ErrNoRows.
func (s *Store) inProgress(ctx context.Context, tx pgx.Tx, spec gameSpec, id *int64) error {
	return tx.QueryRow(ctx, `
		SELECT id FROM games WHERE player_id = $1 AND size = $2 AND kind = $3 AND contest = $4 AND ended_at IS NULL`,
		spec.playerID, spec.size, string(spec.kind), spec.contest).Scan(id)
}

// onceGame finds the id of the player's game of spec's contest of one
// game (spec.once), which the insert just met: in progress, to claim, or
// ended, a rejection with store.ErrContestPlayed (the insert wrote
// nothing).
func (s *Store) onceGame(ctx context.Context, tx pgx.Tx, spec gameSpec, id *int64) error {
	var ended *int64
	if err := tx.QueryRow(ctx, `
		SELECT id, ended_at FROM games WHERE player_id = $1 AND size = $2 AND contest = $3`,
		spec.playerID, spec.size, spec.contest).Scan(id, &ended); err != nil {
		return err
	}
	if ended != nil {
		return reject(store.ErrContestPlayed)
	}
	return nil
}

// readOnly is a snapshot for reads that span several statements.
var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// loadGame reads game id and rebuilds it. One statement reads the row
// and its moves: one snapshot, so that a concurrent append cannot slip
// between them, and one round trip, which a transaction around two reads
// took four of (every login loads a game).
func (s *Store) loadGame(ctx context.Context, id, token int64) (*store.SavedGame, error) {
	g := &store.SavedGame{ID: id, Fence: token}
	var (
		kind, contest, tail    string
		seed, started, reached int64
		gen                    int16
		stored                 store.MoveState
		firsts                 []int64
		chunks                 []string
	)
	err := s.pool.QueryRow(ctx, `
		SELECT player_id, size, kind, seed, generator, started_at, score, max_tile, moves, won, board, contest, reached_at, hidden,
			ARRAY(SELECT first_seq FROM move_chunks c WHERE c.game_id = g.id ORDER BY first_seq),
			ARRAY(SELECT dirs FROM move_chunks c WHERE c.game_id = g.id ORDER BY first_seq),
			tail
		FROM games g WHERE id = $1`, id,
	).Scan(&g.PlayerID, &g.Size, &kind, &seed, &gen, &started, &stored.Score, &stored.MaxTile, &stored.Moves, &stored.Won, &stored.Board,
		&contest, &reached, &g.Hidden, &firsts, &chunks, &tail)
	if noRows(err) {
		return nil, fmt.Errorf("load game %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load game %d: %w", id, err)
	}
	g.Kind, g.Seed, g.StartedAt = store.Kind(kind), uint64(seed), time.UnixMicro(started)
	dirs, err := chunkedMoves(firsts, chunks, tail)
	if err != nil {
		return nil, fmt.Errorf("load game %d: %w", id, err)
	}
	if err := store.Rebuild(s.log, g, engine.Generator(gen), dirs, stored); err != nil {
		return nil, err
	}
	// Its moves will come to the ranks as they commit. Marked: a node
	// that played it before may have stopped without offering it.
	s.marked.Mark(id)
	s.ranks.Opened(id, g.PlayerID, ranks.Board{Size: g.Size, Kind: g.Kind}, contest, stored, reached, g.Hidden)
	return g, nil
}

// chunkedMoves is a game's moves from its chunks (each chunk's first move
// and digits, in order) and its tail, as readMoves's rows give them to
// store.ScanMoveChunks: a chunk that does not start where the moves
// before it end is an error.
func chunkedMoves(firsts []int64, chunks []string, tail string) ([]engine.Direction, error) {
	rows := &chunkRows{firsts: append(firsts, int64(store.ChunkLen*len(chunks))), chunks: append(chunks, tail), at: -1}
	return store.ScanMoveChunks(rows)
}

// chunkRows are a game's chunks and tail as store.MoveRows.
type chunkRows struct {
	firsts []int64
	chunks []string
	at     int
}

func (r *chunkRows) Next() bool { r.at++; return r.at < len(r.chunks) }
func (r *chunkRows) Err() error { return nil }

func (r *chunkRows) Scan(dest ...any) error {
	*dest[0].(*int64), *dest[1].(*string) = r.firsts[r.at], r.chunks[r.at]
	return nil
}

// readMoves reads game id's moves for store.Rebuild: its chunks and, last,
// its tail, in one statement (one snapshot: no append slips between
// them).
func readMoves(ctx context.Context, q querier, id int64) ([]engine.Direction, error) {
	rows, err := q.Query(ctx, `
		SELECT first_seq, dirs FROM move_chunks WHERE game_id = $1
		UNION ALL
		SELECT 64 * (SELECT count(*) FROM move_chunks WHERE game_id = $1), tail FROM games WHERE id = $1
		ORDER BY 1`, id)
	if err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	defer rows.Close()
	return store.ScanMoveChunks(rows)
}

// gameRow is what a write needs to know about a game before changing it.
type gameRow struct {
	playerID int64
	size     int
	kind     store.Kind
	moves    int
	score    int
}

// liveGame reads game id for a write, failing with store.ErrNotFound or,
// if it has ended, store.ErrGameEnded.
func liveGame(ctx context.Context, tx rowQuerier, id int64) (gameRow, error) {
	var r gameRow
	var kind string
	var ended *int64
	err := tx.QueryRow(ctx, `SELECT player_id, size, kind, moves, score, ended_at FROM games WHERE id = $1`, id).
		Scan(&r.playerID, &r.size, &kind, &r.moves, &r.score, &ended)
	if noRows(err) {
		return r, reject(store.ErrNotFound)
	}
	r.kind = store.Kind(kind)
	if err == nil && ended != nil {
		err = reject(store.ErrGameEnded)
	}
	return r, err
}

// AppendMove stores move seq of game gameID with the state the caller's
// engine reached, as store.Store.AppendMove does: it returns once the move is
// committed, and a stale writer gets store.ErrConflict.
func (s *Store) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	if err := store.CheckMove(seq, d, st); err != nil {
		return fmt.Errorf("append move %d to game %d: %w", seq, gameID, err)
	}
	var at int64
	err := s.w.pipelined(ctx, func(_ *pgx.Batch, _ pgx.Tx, now int64) func(context.Context) error {
		at = now
		// One statement: the guarded snapshot update, which appends the
		// move's digit, and, only if it matched and filled a chunk, the
		// chunk's row (appendMoveSQL); sent with the group's other moves
		// (writer.queueMove), as one statement when it can be, and COMMIT
		// with it when it is the group's last (writer.go). A refused move, which wrote nothing,
		// asks why outside the group's transaction, which may have
		// committed by then.
		applied := s.w.queueMove(gameID, seq, int16(d), st, now)
		return func(ctx context.Context) error {
			if !*applied {
				return whyRefused(ctx, s.pool, gameID, seq, st)
			}
			return nil
		}
	})
	if err != nil {
		return fmt.Errorf("append move %d to game %d: %w", seq, gameID, err)
	}
	s.marked.Mark(gameID)
	s.ranks.Moved(gameID, st, at)
	s.obs.MoveStored()
	return nil
}

// updateSnapshot writes a MoveState ($2..$6) at time $7 into a game; the
// caller adds the WHERE clause.
const updateSnapshot = `
	UPDATE games
	SET score = $2, max_tile = $3, moves = $4, won = $5, board = $6, updated_at = $7,
	    reached_at = CASE WHEN score = $2 THEN reached_at ELSE $7 END`

// holds(n) locks game $1's holder row if its token is $n (the writer's
// fence; 0 asks for no check), and fenceHolds(n) is true if it did: a
// claim in progress elsewhere (which locks the row FOR UPDATE) makes the
// write wait for it, then see the new token. FOR KEY SHARE, not FOR
// SHARE: the lease renewals' UPDATEs must not queue behind the writes,
// or the two deadlock (measured: a one-second stall, PostgreSQL's
// deadlock_timeout, every renewal under load).
func holds(n int) string {
	return fmt.Sprintf(`holder AS (SELECT 1 FROM game_holders WHERE game_id = $1 AND token = $%d FOR KEY SHARE)`, n)
}

func fenceHolds(n int) string {
	return fmt.Sprintf(`($%d::bigint = 0 OR EXISTS (SELECT 1 FROM holder))`, n)
}

// The fenced statements, built once.
var (
	// appendMoveSQL stores a move: the guarded snapshot update appends
	// its digit to the game's tail ($9, package store's MoveDigit of a
	// direction) or, for the move that fills a chunk, moves the tail and
	// the move into move_chunks and empties it. It returns the game's id
	// if it applied the move. chunk reads the game's row as the
	// statement's snapshot has it (a statement does not see its own
	// updates); if the update matched, no other move of the game came
	// between (the guard on moves, and the fence against another node),
	// so that is the tail the update replaced.
	appendMoveSQL = `
		WITH ` + holds(10) + `, snap AS (` + updateSnapshot + `, tail = CASE WHEN $8 % 64 = 63 THEN '' ELSE tail || $9::smallint::text END
			WHERE id = $1 AND ended_at IS NULL AND moves = $8 AND score <= $2 AND ` + fenceHolds(10) + `
			RETURNING id),
		chunk AS (
			INSERT INTO move_chunks (game_id, first_seq, dirs)
			SELECT g.id, $8 - 63, g.tail || $9::smallint::text FROM snap JOIN games g ON g.id = snap.id WHERE $8 % 64 = 63)
		SELECT id FROM snap`
	// appendMovesSQL is appendMoveSQL for moves of distinct games at
	// once, one array a column, in the same order ($1 the game ids, $8
	// the sequence numbers, $10 the fences); it returns the ids of the
	// games whose move was applied. "Not ended" is written so that it
	// matches no partial index: with ended_at IS NULL the planner read
	// every game in progress from games_in_progress for each group. The
	// writer's connection leaves the planner nested loops over the
	// primary keys only (writerPlanner).
	appendMovesSQL = `
		WITH m AS (
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::boolean[], $6::text[],
			                     $7::bigint[], $8::int[], $9::smallint[], $10::bigint[])
			AS m(id, score, max_tile, moves, won, board, now, seq, dir, fence)),
		holder AS (SELECT h.game_id FROM game_holders h JOIN m ON h.game_id = m.id AND h.token = m.fence FOR KEY SHARE OF h),
		snap AS (
			UPDATE games g
			SET score = m.score, max_tile = m.max_tile, moves = m.moves, won = m.won, board = m.board, updated_at = m.now,
			    reached_at = CASE WHEN g.score = m.score THEN g.reached_at ELSE m.now END,
			    tail = CASE WHEN m.seq % 64 = 63 THEN '' ELSE g.tail || m.dir::text END
			FROM m
			WHERE g.id = m.id AND coalesce(g.ended_at, -1) < 0 AND g.moves = m.seq AND g.score <= m.score
			  AND (m.fence = 0 OR g.id IN (SELECT game_id FROM holder))
			RETURNING g.id, m.seq, m.dir),
		chunk AS (
			INSERT INTO move_chunks (game_id, first_seq, dirs)
			SELECT g.id, snap.seq - 63, g.tail || snap.dir::text FROM snap JOIN games g ON g.id = snap.id WHERE snap.seq % 64 = 63)
		SELECT id FROM snap`
	endGameSQL = `WITH ` + holds(8) + updateSnapshot + `, ended_at = $7
		WHERE id = $1 AND ended_at IS NULL AND moves = $4 AND score <= $2 AND ` + fenceHolds(8)
)

// whyRefused explains a guarded update that matched no row, as a
// rejection.
func whyRefused(ctx context.Context, tx rowQuerier, id int64, count int, st store.MoveState) error {
	if err := fenced(ctx, tx, id, st.Fence); err != nil {
		return err
	}
	g, err := liveGame(ctx, tx, id)
	switch {
	case err != nil:
		return err
	case g.moves != count:
		return reject(fmt.Errorf("%w: stored game has %d moves, not %d", store.ErrConflict, g.moves, count))
	case st.Score < g.score:
		return reject(fmt.Errorf("%w: score would go down from %d to %d", store.ErrInvalid, g.score, st.Score))
	}
	return fmt.Errorf("update of game %d matched nothing for no known reason", id)
}

// EndGame ends game gameID with its final state st; see store.Store.EndGame.
func (s *Store) EndGame(ctx context.Context, gameID int64, st store.MoveState) error {
	if err := store.CheckState(st); err != nil {
		return fmt.Errorf("end game %d: %w", gameID, err)
	}
	var at int64
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		at = now
		tag, err := tx.Exec(ctx, endGameSQL, gameID, st.Score, st.MaxTile, st.Moves, st.Won, st.Board, now, st.Fence)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return whyRefused(ctx, tx, gameID, st.Moves, st)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("end game %d: %w", gameID, err)
	}
	s.ranks.Ended(gameID, &st, at)
	return nil
}

// endAsStored ends a game without touching its snapshot.
func (s *Store) endAsStored(ctx context.Context, id int64) error {
	var at int64
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		at = now
		_, err := tx.Exec(ctx, `UPDATE games SET ended_at = $2, updated_at = $2 WHERE id = $1 AND ended_at IS NULL`, id, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("end diverged game %d: %w", id, err)
	}
	s.ranks.Ended(id, nil, at)
	return nil
}

// MarkAssisted turns a human game into an assisted one; see
// store.Store.MarkAssisted.
func (s *Store) MarkAssisted(ctx context.Context, gameID int64) error {
	var marked bool
	err := s.w.do(ctx, func(ctx context.Context, tx pgx.Tx, now int64) error {
		g, err := liveGame(ctx, tx, gameID)
		switch {
		case err != nil:
			return err
		case g.kind != store.KindHuman:
			return nil
		}
		marked = true
		if _, err := tx.Exec(ctx, `
			UPDATE games SET ended_at = $3, updated_at = $3
			WHERE player_id = $1 AND size = $2 AND kind = 'assisted' AND contest = '' AND ended_at IS NULL`,
			g.playerID, g.size, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE games SET kind = 'assisted', updated_at = $2 WHERE id = $1`, gameID, now); err != nil {
			return err
		}
		if g.moves == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `
			DELETE FROM player_bests WHERE player_id = $1 AND size = $2 AND kind = 'human' AND game_id = $3`,
			g.playerID, g.size, gameID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
			SELECT player_id, size, kind, id, score, reached_at FROM games
			WHERE player_id = $1 AND size = $2 AND kind = 'human' AND contest = '' AND NOT hidden AND moves > 0
			ORDER BY score DESC, reached_at, id LIMIT 1`,
			g.playerID, g.size)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark game %d assisted: %w", gameID, err)
	}
	if marked {
		s.ranks.Assisted(gameID)
	}
	return nil
}

// PlayerGames lists the player's games, newest first.
func (s *Store) PlayerGames(ctx context.Context, playerID int64, limit int) ([]store.GameSummary, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.pool.Query(ctx, `
		SELECT id, size, kind, score, max_tile, moves, won, contest, started_at, updated_at, ended_at, hidden
		FROM games WHERE player_id = $1 ORDER BY id DESC LIMIT $2`, playerID, limit)
	if err != nil {
		return nil, fmt.Errorf("games of player %d: %w", playerID, err)
	}
	defer rows.Close()
	var out []store.GameSummary
	for rows.Next() {
		var g store.GameSummary
		var kind string
		var started, updated int64
		var ended *int64
		if err := rows.Scan(&g.ID, &g.Size, &kind, &g.Score, &g.MaxTile, &g.Moves, &g.Won, &g.Contest, &started, &updated, &ended, &g.Hidden); err != nil {
			return nil, fmt.Errorf("games of player %d: %w", playerID, err)
		}
		g.Kind, g.StartedAt, g.UpdatedAt, g.EndedAt = store.Kind(kind), time.UnixMicro(started), time.UnixMicro(updated), timePtr(ended)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("games of player %d: %w", playerID, err)
	}
	return out, nil
}

func timePtr(us *int64) *time.Time {
	if us == nil {
		return nil
	}
	t := time.UnixMicro(*us)
	return &t
}

// FullGame reads game id, its player and its moves in one snapshot.
func (s *Store) FullGame(ctx context.Context, id int64) (store.FullGame, error) {
	tx, err := s.pool.BeginTx(ctx, readOnly)
	if err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	defer tx.Rollback(context.Background())
	g := store.FullGame{GameSummary: store.GameSummary{ID: id}}
	var (
		kind             string
		seed             int64
		gen              int16
		started, updated int64
		ended            *int64
	)
	err = tx.QueryRow(ctx, `
		SELECT g.player_id, p.name, p.fingerprint, g.size, g.kind, g.generator, g.seed,
		       g.score, g.max_tile, g.moves, g.won, g.board, g.contest, g.started_at, g.updated_at, g.ended_at
		FROM games g JOIN players p ON p.id = g.player_id WHERE g.id = $1`, id,
	).Scan(&g.PlayerID, &g.Player, &g.Fingerprint, &g.Size, &kind, &gen, &seed,
		&g.Score, &g.MaxTile, &g.Moves, &g.Won, &g.Board, &g.Contest, &started, &updated, &ended)
	if noRows(err) {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	g.Kind, g.Generator, g.Seed = store.Kind(kind), engine.Generator(gen), uint64(seed)
	g.StartedAt, g.UpdatedAt, g.EndedAt = time.UnixMicro(started), time.UnixMicro(updated), timePtr(ended)
	if g.Dirs, err = readMoves(ctx, tx, id); err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	return g, nil
}

// PlayerByID returns the player with that id, or store.ErrNotFound.
func (s *Store) PlayerByID(ctx context.Context, id int64) (store.Player, error) {
	var p store.Player
	var first, last int64
	err := s.pool.QueryRow(ctx, `
		SELECT id, fingerprint, key_type, name, first_seen, `+accounts.LastSeen+` FROM players p WHERE id = $1`, id,
	).Scan(&p.ID, &p.Fingerprint, &p.KeyType, &p.Name, &first, &last)
	if noRows(err) {
		return store.Player{}, fmt.Errorf("player %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.Player{}, fmt.Errorf("player %d: %w", id, err)
	}
	p.FirstSeen, p.LastSeen = time.UnixMicro(first), time.UnixMicro(last)
	return p, nil
}

// HiddenGames says which of the games ids are hidden (store.Moderator).
func (s *Store) HiddenGames(ctx context.Context, ids []int64) (map[int64]bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM games WHERE hidden AND id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("hidden games: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("hidden games: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}
