package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ssh2048/ssh2048/store"
)

// One writer per game across nodes (migration 00006): loading a game to
// play it claims it, in the same transaction that finds or creates it,
// before the load reads its moves. The claim takes the game's holder row
// (node, fencing token + 1, lease) and, when another node held it, sends
// that node a takeover notice (NOTIFY, delivered at COMMIT) so that its
// session ends at once. Every move and end carries the token its game was
// loaded with (store.MoveState.Fence) and locks the holder row (FOR KEY
// SHARE, which a claim's FOR UPDATE waits for) to check it: a claim waits for a group already writing that game, and
// a write after a claim sees the new token and is refused (store.ErrFenced),
// so a move is never applied by two nodes nor lost between them.

// TopicTakeover is the bus topic of takeover notices: "GAME TOKEN NODE",
// the game claimed, its new token and the node that held it before.
const TopicTakeover = "takeover"

// claim makes this node the holder of game id and returns the new token;
// it runs inside a write job. A game has its holder row from its insert
// on (insertClaimedSQL; Release keeps it), so a claim is one statement:
// the update, with the row as it was before it, locked first (FOR
// UPDATE) so that a claim committed meanwhile elsewhere is the one seen.
// A game without one (released before Release kept rows) has it
// inserted.
func (s *Store) claim(ctx context.Context, tx pgx.Tx, id, now int64) (int64, error) {
	lease := now + s.lease.Microseconds()
	var token int64
	var before string
	err := tx.QueryRow(ctx, `
		UPDATE game_holders h SET node = $2, token = h.token + 1, lease_until = $3
		FROM (SELECT game_id, node FROM game_holders WHERE game_id = $1 FOR UPDATE) old
		WHERE h.game_id = old.game_id
		RETURNING h.token, old.node`, id, s.node, lease).Scan(&token, &before)
	if noRows(err) {
		err = tx.QueryRow(ctx, `
			INSERT INTO game_holders (game_id, node, token, lease_until) VALUES ($1, $2, 1, $3)
			ON CONFLICT (game_id) DO UPDATE SET node = $2, token = game_holders.token + 1, lease_until = $3
			RETURNING token`, id, s.node, lease).Scan(&token)
	}
	if err != nil {
		return 0, fmt.Errorf("claim game %d: %w", id, err)
	}
	if before != "" && before != s.node {
		msg := fmt.Sprintf("%d %d %s", id, token, before)
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, TopicTakeover+" "+msg); err != nil {
			return 0, fmt.Errorf("claim game %d: notify: %w", id, err)
		}
	}
	return token, nil
}

// claimed records a claim that committed, for lease renewal.
func (s *Store) claimed(id, token int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token > s.held[id] {
		s.held[id] = token
	}
}

// ParseTakeover reads a takeover notice.
func ParseTakeover(payload string) (game, token int64, node string, err error) {
	f := strings.SplitN(payload, " ", 3)
	if len(f) == 3 {
		game, err = strconv.ParseInt(f[0], 10, 64)
		if err == nil {
			token, err = strconv.ParseInt(f[1], 10, 64)
		}
		if err == nil {
			return game, token, f[2], nil
		}
	}
	return 0, 0, "", fmt.Errorf("takeover notice %q: want GAME TOKEN NODE", payload)
}

// Release gives up this node's hold on game id if token is still its
// own: the game's session ended here. A newer claim, here or on another
// node, is left alone. The row stays, held by no node, with the token
// moved on: deleted, the next claim would start the tokens again at 1,
// and a node cut off since it held token 1 would have its writes taken.
func (s *Store) Release(ctx context.Context, id, token int64) error {
	s.mu.Lock()
	if s.held[id] == token {
		delete(s.held, id)
	}
	s.mu.Unlock()
	_, err := s.pool.Exec(ctx, `
		UPDATE game_holders SET node = '', token = token + 1, lease_until = 0
		WHERE game_id = $1 AND token = $2 AND node = $3`, id, token, s.node)
	if err != nil {
		return fmt.Errorf("release game %d: %w", id, err)
	}
	return nil
}

// renewLeases extends the leases of the games this node holds, three
// times per lease, until Close.
func (s *Store) renewLeases() {
	defer close(s.stopped)
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.renewRaces()
		s.mu.Lock()
		ids := make([]int64, 0, len(s.held))
		for id := range s.held {
			ids = append(ids, id)
		}
		s.mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
		_, err := s.pool.Exec(ctx, `UPDATE game_holders SET lease_until = $1 WHERE node = $2 AND game_id = ANY($3)`,
			time.Now().Add(s.lease).UnixMicro(), s.node, ids)
		cancel()
		if err != nil {
			s.log.Warn("db: renew game leases", "games", len(ids), "err", err)
		}
	}
}

// Holder says which node holds game id and whether its lease is current.
func (s *Store) Holder(ctx context.Context, id int64) (node string, token int64, live bool, err error) {
	var lease int64
	err = s.pool.QueryRow(ctx, `SELECT node, token, lease_until FROM game_holders WHERE game_id = $1`, id).Scan(&node, &token, &lease)
	if noRows(err) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("holder of game %d: %w", id, err)
	}
	return node, token, lease > time.Now().UnixMicro(), nil
}

// Node is this node's name in game_holders.
func (s *Store) Node() string { return s.node }

// fenced explains a fenced write that matched no row: a token that is no
// longer the game's is store.ErrFenced; else nil, and the caller looks
// further.
func fenced(ctx context.Context, tx rowQuerier, id, fence int64) error {
	if fence == 0 {
		return nil
	}
	var token int64
	err := tx.QueryRow(ctx, `SELECT token FROM game_holders WHERE game_id = $1`, id).Scan(&token)
	if noRows(err) || err == nil && token != fence {
		return reject(fmt.Errorf("%w: token %d, the game's is %d", store.ErrFenced, fence, token))
	}
	return err
}

// LiveGames lists the games held right now, by a node whose lease is
// current, of one size (0: every size), or the one game id when id is
// not 0; at most 1000, oldest first.
func (s *Store) LiveGames(ctx context.Context, size int, id int64) ([]store.LiveGame, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT g.id, p.name, p.fingerprint, g.size, g.kind, g.board, g.score, g.moves, g.won, h.node, g.contest
		FROM game_holders h JOIN games g ON g.id = h.game_id JOIN players p ON p.id = g.player_id
		WHERE h.lease_until > $1 AND g.ended_at IS NULL AND NOT g.hidden AND ($2 = 0 OR g.size = $2) AND ($3 = 0 OR g.id = $3)
		ORDER BY g.id LIMIT 1000`, time.Now().UnixMicro(), size, id)
	if err != nil {
		return nil, fmt.Errorf("live games: %w", err)
	}
	defer rows.Close()
	var out []store.LiveGame
	for rows.Next() {
		var g store.LiveGame
		var kind string
		if err := rows.Scan(&g.GameID, &g.Player, &g.Fingerprint, &g.Size, &kind, &g.Board, &g.Score, &g.Moves, &g.Won, &g.Node, &g.Contest); err != nil {
			return nil, fmt.Errorf("live games: %w", err)
		}
		g.Kind = store.Kind(kind)
		out = append(out, g)
	}
	return out, rows.Err()
}
