package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ssh2048/ssh2048/internal/callbacks"
)

// channel is the one LISTEN/NOTIFY channel of ssh2048; a notification's
// payload is its topic, a space, and the message.
const channel = "ssh2048"

// Bus carries events between the nodes on one database with LISTEN and
// NOTIFY: the game service's events (spectators, races, takeovers) go
// through it whichever node the players are on. It implements game.Bus.
//
// Delivery is PostgreSQL's: a notification reaches every node listening
// when it commits, in commit order, the sender included; a node whose
// listening connection is down misses what is sent meanwhile (it
// reconnects by itself, once a second), so events carry state, never
// deltas: the next one makes up for a lost one. What is told as a delta
// (a merge, store.MergeWatcher) is made up for by its subscriber each
// time the bus listens again (OnListening).
type Bus struct {
	cfg  *pgx.ConnConfig
	pool *pgxpool.Pool
	log  *slog.Logger

	mu        sync.Mutex
	subs      map[string]map[int]func([]byte)
	relisten  callbacks.Set[func()] // OnListening's
	next      int
	listening chan struct{} // closed once LISTEN has run, replaced while reconnecting

	cancel context.CancelFunc
	done   chan struct{}
}

// maxPayload is PostgreSQL's limit on a notification's payload, less the
// room a topic takes.
const maxPayload = 7900

func newBus(cfg *pgx.ConnConfig, pool *pgxpool.Pool, log *slog.Logger) *Bus {
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bus{cfg: cfg.Copy(), pool: pool, log: log, subs: map[string]map[int]func([]byte){},
		listening: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go b.loop(ctx)
	return b
}

// Bus is the store's event bus.
func (s *Store) Bus() *Bus { return s.bus }

// Publish sends payload on topic to every node, this one included.
func (b *Bus) Publish(ctx context.Context, topic string, payload []byte) error {
	if len(payload) > maxPayload {
		return fmt.Errorf("publish %s: %d bytes, at most %d", topic, len(payload), maxPayload)
	}
	if _, err := b.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, topic+" "+string(payload)); err != nil {
		return fmt.Errorf("publish %s: %w", topic, err)
	}
	return nil
}

// Subscribe calls fn with the payload of every event on topic, from the
// bus's one goroutine, in order: fn must not block.
func (b *Bus) Subscribe(topic string, fn func(payload []byte)) (unsubscribe func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[topic] == nil {
		b.subs[topic] = map[int]func([]byte){}
	}
	id := b.next
	b.next++
	b.subs[topic][id] = fn
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs[topic], id)
	}
}

// OnListening calls fn each time the bus starts listening, the first
// time and after every reconnect, from the bus's one goroutine and
// before any event it then hears: fn must not block. What was sent
// while the bus did not listen never reaches this node; fn is where a
// subscriber makes up for it.
func (b *Bus) OnListening(fn func()) (stop func()) { return b.relisten.Add(fn) }

// Listening returns a channel closed once the bus listens (again, after a
// reconnect): events published before then may not reach this node.
func (b *Bus) Listening() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.listening
}

func (b *Bus) close() {
	b.cancel()
	<-b.done
}

// loop listens until the bus closes, reconnecting after every failure.
func (b *Bus) loop(ctx context.Context) {
	defer close(b.done)
	for ctx.Err() == nil {
		err := b.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		b.mu.Lock()
		select {
		case <-b.listening:
			b.listening = make(chan struct{})
		default:
		}
		b.mu.Unlock()
		b.log.Warn("db: event bus lost its connection; reconnecting", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// listen holds one connection: LISTEN, then every notification.
func (b *Bus) listen(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, b.cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	b.mu.Lock()
	select {
	case <-b.listening:
	default:
		close(b.listening)
	}
	b.mu.Unlock()
	b.relisten.Each(func(fn func()) { fn() })
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		topic, payload, _ := strings.Cut(n.Payload, " ")
		b.mu.Lock()
		fns := make([]func([]byte), 0, len(b.subs[topic]))
		for _, fn := range b.subs[topic] {
			fns = append(fns, fn)
		}
		b.mu.Unlock()
		for _, fn := range fns {
			fn([]byte(payload))
		}
	}
}
