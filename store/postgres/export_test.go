package postgres

import (
	"context"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
)

// SetNewSeed makes s start its free games on the seeds next returns.
func SetNewSeed(s *Store, next func() uint64) { s.newSeed = next }

// Write runs fn as one job of s's group-commit writer.
func Write(s *Store, ctx context.Context, fn func(ctx context.Context, tx pgx.Tx, now int64) error) error {
	return s.w.do(ctx, fn)
}

// Commits is the number of group commits s's writer has made.
func Commits(s *Store) int64 { return s.w.Commits() }

// WithWriterTracer has t see every round trip of the writer's connection.
func WithWriterTracer(t pgx.QueryTracer) Option { return func(o *options) { o.writerTracer = t } }

// WithReadTracer has t see every round trip of the read pool's
// connections.
func WithReadTracer(t pgx.QueryTracer) Option { return func(o *options) { o.readTracer = t } }

// AppendMovesSQL is the statement of a group's moves of distinct games.
var AppendMovesSQL = appendMovesSQL

// WithRanksEvery sets how often the store offers its marked games to the
// bests and tells the other nodes of its ranks.
func WithRanksEvery(d time.Duration) Option { return func(o *options) { o.ranksEvery = d } }

// AppendMoveSQL is the statement of one move.
var AppendMoveSQL = appendMoveSQL

// WithDelay has every connection of the store wait d before each write
// to the server: each round trip takes d longer, as across a network.
func WithDelay(d time.Duration) Option {
	return func(o *options) {
		o.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return delayedConn{c, d}, nil
		}
	}
}

type delayedConn struct {
	net.Conn
	delay time.Duration
}

func (c delayedConn) Write(p []byte) (int, error) {
	time.Sleep(c.delay)
	return c.Conn.Write(p)
}
