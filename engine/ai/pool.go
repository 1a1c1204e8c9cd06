package ai

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// Priority orders requests waiting for a Pool worker.
type Priority int

const (
	// Review is for the evaluations of a game's review (Evaluate): it
	// waits behind autoplay and hints, and a hint that finds every worker
	// busy stops one before it stops an autoplay search.
	Review Priority = iota
	// Autoplay is for moves the AI plays by itself; it waits behind hints.
	Autoplay
	// Hint is for a player waiting on a suggestion; it jumps the queue.
	Hint
)

// ErrClosed is returned by Suggest once the pool is closed.
var ErrClosed = errors.New("ai pool closed")

// Pool is the server-wide set of search workers. It runs at most one search
// per worker, never more workers than cores, so searches cannot crowd out
// the rest of the server. Hints are served before any queued autoplay, and a
// hint that finds every worker busy cuts one running autoplay search short
// (that autoplay move is then chosen from the levels its search completed).
// Every search is bounded by the pool's budget and the caller's context.
// A Pool is safe for concurrent use.
type Pool struct {
	budget  Budget
	search  func(*Searcher, context.Context, engine.Board, Budget) (Result, error) // (*Searcher).Search; tests replace it
	observe func(Priority, time.Duration)                                          // nil: no one is told; see WithSearchObserver

	mu      sync.Mutex
	ready   *sync.Cond // signalled when a request is queued or the pool closes
	queue   requestQueue
	idle    int // workers waiting for a request
	workers []*worker
	// reviews counts the workers evaluating for reviews, at most
	// reviewCap (half the workers, at least one): the other half is
	// always free for hints and autoplay, however many reviews wait.
	reviews, reviewCap int
	closed             bool
	running            sync.WaitGroup
}

// worker is one searcher's state as the pool sees it.
type worker struct {
	busy    bool     // guarded by Pool.mu
	prio    Priority // of the running search; guarded by Pool.mu
	preempt atomic.Bool
}

type request struct {
	ctx   context.Context
	board engine.Board
	prio  Priority
	depth int        // of an evaluation (prio Review)
	reply chan reply // buffered: a worker never blocks on a caller gone away
}

type reply struct {
	dir engine.Direction
	ev  Evaluation // of an evaluation (prio Review)
	err error
}

// requestQueue is a FIFO per priority; pop takes the oldest hint first.
type requestQueue struct {
	byPrio [Hint + 1][]*request
}

func (q *requestQueue) push(p Priority, r *request) { q.byPrio[p] = append(q.byPrio[p], r) }

// pushFront puts back a request whose search was stopped for a hint, so
// that it is the next of its priority to run.
func (q *requestQueue) pushFront(p Priority, r *request) {
	q.byPrio[p] = append([]*request{r}, q.byPrio[p]...)
}

// pop takes the oldest request of the highest priority, a review's only
// when reviews is set.
func (q *requestQueue) pop(reviews bool) (*request, bool) {
	lowest := Review
	if !reviews {
		lowest = Autoplay
	}
	for p := Hint; p >= lowest; p-- {
		if len(q.byPrio[p]) > 0 {
			r := q.byPrio[p][0]
			q.byPrio[p][0] = nil
			q.byPrio[p] = q.byPrio[p][1:]
			return r, true
		}
	}
	return nil, false
}

// PoolOption configures NewPool.
type PoolOption func(*Pool)

// WithBudget sets the budget of every search (default DefaultBudget()).
func WithBudget(b Budget) PoolOption { return func(p *Pool) { p.budget = b } }

// NewPool starts workers searchers; 0 or less means runtime.NumCPU(), and
// more than runtime.NumCPU() is capped to it. Close stops them.
func NewPool(workers int, opts ...PoolOption) *Pool {
	cores := runtime.NumCPU()
	if workers <= 0 || workers > cores {
		workers = cores
	}
	p := &Pool{budget: DefaultBudget(), search: (*Searcher).Search}
	for _, o := range opts {
		o(p)
	}
	p.ready = sync.NewCond(&p.mu)
	p.reviewCap = max(1, workers/2)
	for range workers {
		w := &worker{}
		p.workers = append(p.workers, w)
		p.running.Go(func() { p.work(w) })
	}
	return p
}

// Hint suggests a move to a player who is waiting for it: Suggest at Hint
// priority. With Autoplay it makes the pool the game screen's AI.
func (p *Pool) Hint(ctx context.Context, board engine.Board) (engine.Direction, error) {
	return p.Suggest(ctx, board, Hint)
}

// Autoplay picks the next move of a game the AI is playing: Suggest at
// Autoplay priority, behind every hint.
func (p *Pool) Autoplay(ctx context.Context, board engine.Board) (engine.Direction, error) {
	return p.Suggest(ctx, board, Autoplay)
}

// Evaluate scores every legal move from board at exactly depth
// (Searcher.Evaluate) on a worker, at Review priority: behind every hint
// and autoplay, and stopped and run again later when a hint needs its
// worker. It returns ErrNoMoves for a finished game and ErrClosed after
// Close.
func (p *Pool) Evaluate(ctx context.Context, board engine.Board, depth int) (Evaluation, error) {
	if board.Size() < engine.MinSize || board.Size() > engine.MaxSize {
		return Evaluation{}, fmt.Errorf("evaluate: board size %d: %w", board.Size(), engine.ErrSize)
	}
	if !board.CanMove() {
		return Evaluation{}, fmt.Errorf("evaluate %s: %w", board.String(), ErrNoMoves)
	}
	rep, err := p.enqueue(&request{ctx: ctx, board: board, prio: Review, depth: depth, reply: make(chan reply, 1)})
	if err != nil {
		return Evaluation{}, fmt.Errorf("evaluate: %w", err)
	}
	return rep.ev, rep.err
}

// Suggest returns the move the search recommends for board. It waits for a
// worker (hints before autoplay) and for the search, at most until ctx is
// done. It returns ErrNoMoves for a finished game and ErrClosed after Close.
func (p *Pool) Suggest(ctx context.Context, board engine.Board, prio Priority) (engine.Direction, error) {
	if prio != Hint && prio != Autoplay {
		return 0, fmt.Errorf("suggest: unknown priority %d", prio)
	}
	if board.Size() < engine.MinSize || board.Size() > engine.MaxSize {
		return 0, fmt.Errorf("suggest: board size %d: %w", board.Size(), engine.ErrSize)
	}
	if !board.CanMove() {
		return 0, fmt.Errorf("suggest %s: %w", board.String(), ErrNoMoves)
	}
	rep, err := p.enqueue(&request{ctx: ctx, board: board, prio: prio, reply: make(chan reply, 1)})
	if err != nil {
		return 0, fmt.Errorf("suggest: %w", err)
	}
	return rep.dir, rep.err
}

// enqueue queues r and waits for its reply, at most until r.ctx is done.
func (p *Pool) enqueue(r *request) (reply, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return reply{}, ErrClosed
	}
	p.queue.push(r.prio, r)
	if r.prio == Hint && p.idle == 0 {
		p.preemptAutoplay()
	}
	p.mu.Unlock()
	p.ready.Signal()

	select {
	case rep := <-r.reply:
		return rep, nil
	case <-r.ctx.Done():
		// The worker will see the context and skip or cut short the search.
		return reply{}, r.ctx.Err()
	}
}

// Close stops the workers after their current searches; queued requests fail
// with ErrClosed. Close is idempotent.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	for {
		r, ok := p.queue.pop(true)
		if !ok {
			break
		}
		r.reply <- reply{err: fmt.Errorf("suggest: %w", ErrClosed)}
	}
	p.mu.Unlock()
	p.ready.Broadcast()
	p.running.Wait()
}

// preemptAutoplay asks one worker running a review's evaluation, else one
// running an autoplay search, to stop it now. The caller holds p.mu.
func (p *Pool) preemptAutoplay() {
	for _, prio := range []Priority{Review, Autoplay} {
		for _, w := range p.workers {
			if w.busy && w.prio == prio && !w.preempt.Load() {
				w.preempt.Store(true)
				return
			}
		}
	}
}

func (p *Pool) work(w *worker) {
	s := NewSearcher()
	s.stop = &w.preempt
	for {
		p.mu.Lock()
		if w.busy && w.prio == Review {
			p.reviews--
		}
		w.busy = false
		r, ok := p.queue.pop(p.reviews < p.reviewCap)
		for !ok && !p.closed {
			p.idle++
			p.ready.Wait()
			p.idle--
			r, ok = p.queue.pop(p.reviews < p.reviewCap)
		}
		if ok {
			w.busy, w.prio = true, r.prio
			w.preempt.Store(false)
			if r.prio == Review {
				p.reviews++
			}
		}
		p.mu.Unlock()
		if !ok {
			return // closed and drained
		}
		if err := r.ctx.Err(); err != nil {
			r.reply <- reply{err: fmt.Errorf("suggest: %w", err)}
			continue
		}
		began := time.Now()
		res, ev, err := p.searchContained(s, r)
		if p.observe != nil {
			p.observe(r.prio, time.Since(began))
		}
		if errors.Is(err, errPreempted) {
			// An evaluation is exact or nothing: it runs again, first
			// of the reviews, once the hint has its worker.
			p.mu.Lock()
			if !p.closed {
				p.queue.pushFront(r.prio, r)
				p.mu.Unlock()
				continue
			}
			p.mu.Unlock()
			err = fmt.Errorf("evaluate: %w", ErrClosed)
		}
		var pe *PanicError
		if errors.As(err, &pe) {
			// Its tables may be half written: start afresh.
			s = NewSearcher()
			s.stop = &w.preempt
		}
		r.reply <- reply{dir: res.Dir, ev: ev, err: err}
		// The caller was readied on this worker's processor; without a
		// yield it would wait for the next search to end or for the
		// scheduler's 10 ms preemption, whichever comes first.
		runtime.Gosched()
	}
}

// PanicError is what Suggest returns when the search panicked: the worker
// recovers, replaces its searcher and goes on serving everyone else. A
// search runs on a worker's goroutine, where no recover of the caller's
// can reach, so without this one board that trips a bug would end the
// whole server. What to do with the session that asked is the caller's
// decision; Stack is for its log.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the worker's stack at the panic
}

func (e *PanicError) Error() string { return fmt.Sprintf("ai: the search panicked: %v", e.Value) }

// searchContained runs r's search or evaluation, turning a panic into a
// *PanicError.
func (p *Pool) searchContained(s *Searcher, r *request) (res Result, ev Evaluation, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, ev, err = Result{}, Evaluation{}, &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	if r.prio == Review {
		ev, err = s.Evaluate(r.ctx, r.board, r.depth)
		return res, ev, err
	}
	res, err = p.search(s, r.ctx, r.board, p.budget)
	return res, ev, err
}
