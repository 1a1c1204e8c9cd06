package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// moveStatement runs the statements nearly every group is made of, a
// move's insert into the log (appendMoveSQL) and a game's fold (foldSQL),
// and the offer of a logged game to the bests (offerLogged),
// on the writer's connection directly, not through database/sql, whose
// Exec makes a fresh argument list a call and converts each argument:
// that was a large share of what a move allocated and of the writer's
// time (the commit that brought this in has the figures). It is used only
// inside a group, on the writer's goroutine: the group's transaction then
// holds the one write connection, so nothing else can be using it.
type moveStatement struct {
	mu   sync.Mutex          // guards conn
	conn *sqlite3.SQLiteConn // the write connection, set by its connect hook

	// The writer goroutine's alone:
	on    *sqlite3.SQLiteConn    // the connection stmts are prepared on
	stmts [3]*sqlite3.SQLiteStmt // appendMoveSQL, foldSQL, offerLogged
	args  [11]driver.NamedValue
}

// The statements a moveStatement runs.
const (
	logMove = iota
	foldMoves
	offerLoggedGame
)

// connected is the write connection's connect hook's part.
func (m *moveStatement) connected(c *sqlite3.SQLiteConn) {
	m.mu.Lock()
	m.conn = c
	m.mu.Unlock()
}

// exec runs statement which (logMove or foldMoves) with vals and returns
// how many rows it changed.
func (m *moveStatement) exec(which int, vals ...driver.Value) (int64, error) {
	m.mu.Lock()
	c := m.conn
	m.mu.Unlock()
	if m.on != c {
		// A new connection. database/sql replaces the write connection
		// only once it is closed (the driver reports a connection bad
		// only then), or when told a lifetime (tests): the statements of
		// the old one can no longer be finalized, and go with it.
		m.close()
		for i, q := range [...]string{appendMoveSQL, foldSQL, offerLogged} {
			s, err := c.Prepare(q)
			if err != nil {
				m.close()
				return 0, fmt.Errorf("prepare the moves' statements: %w", err)
			}
			m.stmts[i] = s.(*sqlite3.SQLiteStmt)
		}
		m.on = c
	}
	for i, v := range vals {
		m.args[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	res, err := m.stmts[which].ExecContext(context.Background(), m.args[:len(vals)])
	clear(m.args[:len(vals)]) // a board's text is not kept past its fold
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// close finalizes the statements (the writer has stopped, or its
// connection is gone).
func (m *moveStatement) close() {
	for i, s := range m.stmts {
		if s != nil {
			s.Close()
			m.stmts[i] = nil
		}
	}
	m.on = nil
}
