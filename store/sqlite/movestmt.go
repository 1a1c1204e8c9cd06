package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/ssh2048/ssh2048/store"
)

// moveStatement runs a move's guarded update (AppendMove) on the
// writer's connection directly, not through database/sql, whose Exec
// makes a fresh argument list a call and converts each argument: for the
// statement nearly every group is made of, that was a large share of
// what a move allocated and of the writer's time (the commit that
// brought this in has the figures). It is used only inside a group, on
// the writer's goroutine:
// the group's transaction then holds the one write connection, so nothing
// else can be using it.
type moveStatement struct {
	mu   sync.Mutex          // guards conn
	conn *sqlite3.SQLiteConn // the write connection, set by its connect hook

	// The writer goroutine's alone:
	stmt *sqlite3.SQLiteStmt // prepared on on
	on   *sqlite3.SQLiteConn
	args [10]driver.NamedValue
}

// connected is the write connection's connect hook's part.
func (m *moveStatement) connected(c *sqlite3.SQLiteConn) {
	m.mu.Lock()
	m.conn = c
	m.mu.Unlock()
}

// exec runs the update of game gameID to st, its move seq (digit d) at
// now, and returns how many rows it changed (0 or 1).
func (m *moveStatement) exec(gameID int64, seq int, digit string, st store.MoveState, now int64) (int64, error) {
	m.mu.Lock()
	c := m.conn
	m.mu.Unlock()
	if m.on != c {
		// A new connection. database/sql replaces the write connection
		// only once it is closed (the driver reports a connection bad
		// only then), or when told a lifetime (tests): the statement of
		// the old one can no longer be finalized, and goes with it.
		m.close()
		s, err := c.Prepare(appendMoveSQL)
		if err != nil {
			return 0, fmt.Errorf("prepare the move's statement: %w", err)
		}
		m.stmt, m.on = s.(*sqlite3.SQLiteStmt), c
	}
	for i, v := range [...]driver.Value{gameID, int64(st.Score), int64(st.MaxTile), int64(st.Moves), st.Won, st.Board, now, int64(seq), st.Fence, digit} {
		m.args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	res, err := m.stmt.ExecContext(context.Background(), m.args[:])
	clear(m.args[:]) // the board's text is not kept past the move
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// close finalizes the statement (the writer has stopped, or its
// connection is gone).
func (m *moveStatement) close() {
	if m.stmt != nil {
		m.stmt.Close()
		m.stmt, m.on = nil, nil
	}
}
