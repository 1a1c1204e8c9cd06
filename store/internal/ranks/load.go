package ranks

// BoardQuery selects a board's rows as ScanRows reads them, from the
// tables both stores share; the store adds `WHERE b.size = … AND b.kind =
// …` in its own placeholders.
const BoardQuery = `
	SELECT b.player_id, p.name, p.fingerprint, b.score, b.reached_at, b.game_id, g.max_tile, g.moves, g.won, g.ended_at
	FROM player_bests b
	JOIN games g ON g.id = b.game_id
	JOIN players p ON p.id = b.player_id`

// ContestQuery is BoardQuery for a contest's board: every game of it;
// the store adds `WHERE g.contest = … AND g.size = …`.
const ContestQuery = `
	SELECT g.player_id, p.name, p.fingerprint, g.score, g.reached_at, g.id, g.max_tile, g.moves, g.won, g.ended_at
	FROM games g
	JOIN players p ON p.id = g.player_id`

// Rows is what ScanRows reads: *sql.Rows or pgx.Rows.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanRows reads the rows of BoardQuery or ContestQuery.
func ScanRows(rows Rows) ([]Row, error) {
	var out []Row
	for rows.Next() {
		var r Row
		var ended *int64
		if err := rows.Scan(&r.PlayerID, &r.Name, &r.Fingerprint, &r.Key.Score, &r.Key.Reached, &r.Key.Game,
			&r.MaxTile, &r.Moves, &r.Won, &ended); err != nil {
			return nil, err
		}
		if ended != nil {
			r.Ended = *ended
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
