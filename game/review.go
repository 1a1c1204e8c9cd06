package game

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"sync"

	"github.com/ssh2048/ssh2048/internal/network"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
)

// Errors of Service.Review.
var (
	// ErrNoReviews: the server runs no AI, so it makes no reviews (a
	// review already stored is still served).
	ErrNoReviews = errors.New("the AI is off on this server: no new reviews")
	// ErrReviewBusy: the player has a review being made already; one at
	// a time each (every guest shares one).
	ErrReviewBusy = errors.New("a review you asked for is still being made")
	// ErrNotYours: a game in play is reviewed only for its own player,
	// and only in free play (in the daily or a race the review would be
	// the AI's help while it counts).
	ErrNotYours = errors.New("a game in play is reviewed only for its player, in free play")
	// ErrNotReviewed: StoredReview found no review of the game.
	ErrNotReviewed = errors.New("the game has not been reviewed")
	// ErrReviewsHere: the asker's network (network.Of) has
	// ReviewsPerNetwork reviews being made already.
	ErrReviewsHere = errors.New("too many reviews asked for from your address are still being made")
	// ErrTooManyReviews: the server has MaxReviews being made already.
	ErrTooManyReviews = errors.New("too many reviews are being made")
)

// The bounds on the reviews being made at once. A review of an ended game
// goes on after its asker leaves, for minutes (hours for a long game) at
// the AI's lowest priority, holding its game's moves and its review as it
// grows; and the one a player that ErrReviewBusy allows binds no one,
// since a key is free to make and each guest is a new player. Asking for
// a game whose review is being made waits for it and counts against
// neither.
const (
	ReviewsPerNetwork = 5
	MaxReviews        = 32
)

// WithReviews has the service make reviews with ev (the server's AI pool:
// its Review priority runs them behind every hint and autoplay). Without
// it only reviews already stored are served.
func WithReviews(ev review.Evaluator) Option { return func(s *Service) { s.reviewer = ev } }

// Reviewed is a game's review as Service.Review gives it.
type Reviewed struct {
	GameID int64
	Player string // display name (store.DisplayName)
	Ended  bool
	JSON   []byte // the review's JSON (docs/review.md)
	Cached bool   // read from the store, not made for this request
}

// Parse reads the review from its JSON.
func (r Reviewed) Parse() (*review.Review, error) { return review.Parse(r.JSON) }

// reviews is what the service keeps of the reviews being made.
type reviews struct {
	mu        sync.Mutex
	byGame    map[int64]*reviewFlight // an ended game's review being made
	byPlayer  map[int64]bool          // players with a review being made (guests: 0)
	byNetwork map[netip.Prefix]int    // reviews being made by their askers' networks
	making    int                     // reviews being made
}

// reviewFlight is one review being made, which others asking for the same
// game wait for rather than make it again.
type reviewFlight struct {
	done      chan struct{}
	json      []byte
	err       error
	mu        sync.Mutex
	listeners map[int]func(float64) // by the number listen gave them
	last      int                   // the last number given
	at        float64
}

func (f *reviewFlight) progress(done float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.at = done
	for _, l := range f.listeners {
		l(done)
	}
}

// listen tells l how far the review is, now and at every step, until
// the returned function is called: when its asker stops waiting. A review
// of a long game runs for minutes, and anyone may ask for it again and
// again: the askers who left must not pile up on it.
func (f *reviewFlight) listen(l func(float64)) (stop func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.listeners == nil {
		f.listeners = make(map[int]func(float64))
	}
	f.last++
	n := f.last
	f.listeners[n] = l
	l(f.at)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.listeners, n)
	}
}

// Review returns the AI's review of game id for who (package review): a
// stored one if there is one of review.Version, else one made now on the
// service's AI, stored once the game has ended. progress (nil: none) is
// told how far a review being made is, from 0 to 1, from the
// goroutine making it.
//
// Who may see what is export's rule (an ended game, by anyone; today's
// daily by no one, ErrDailyOn) with one more case: a game in play is
// reviewed for its own player in free play (else ErrNotYours), move by
// move only (its tiles to come stay secret) and not stored. A review of an
// ended game goes on when its asker leaves, to be stored for the next;
// until it is made its asker may not start another (ErrReviewBusy), nor
// may more than ReviewsPerNetwork be made for from's network
// (ErrReviewsHere), nor more than MaxReviews in all (ErrTooManyReviews).
// from is the asker's IP address (the invalid Addr when it has none: not
// counted against any network).
func (s *Service) Review(ctx context.Context, id int64, who Player, from netip.Addr, progress func(float64)) (Reviewed, error) {
	if progress == nil {
		progress = func(float64) {}
	}
	return s.review(ctx, id, asker{who, network.Of(from)}, progress)
}

// StoredReview is game id's stored review, for a screen that shows it if
// there is one (ErrNotReviewed if not) without making one.
func (s *Service) StoredReview(ctx context.Context, id int64) (Reviewed, error) {
	return s.review(ctx, id, asker{}, nil)
}

// asker is who asks for a review, and from which network.
type asker struct {
	Player
	network netip.Prefix // network.Of the asker's address; invalid: none known
}

// review is Review, or StoredReview when progress is nil.
func (s *Service) review(ctx context.Context, id int64, who asker, progress func(float64)) (Reviewed, error) {
	g, err := s.fullGame(ctx, id)
	if err != nil {
		return Reviewed{}, err
	}
	if err := s.keptBack(g); err != nil {
		return Reviewed{}, fmt.Errorf("game %d: %w", id, err)
	}
	ended := g.EndedAt != nil
	out := Reviewed{GameID: id, Player: store.DisplayName(g.Player, g.Fingerprint), Ended: ended}
	if !ended && (who.Guest || who.ID != g.PlayerID || g.Contest != "") {
		return Reviewed{}, fmt.Errorf("game %d: %w", id, ErrNotYours)
	}
	rs, keeps := s.store.(store.ReviewStore)
	if ended && keeps {
		b, err := rs.GameReview(ctx, id, review.Version)
		if err == nil {
			out.JSON, out.Cached = b, true
			return out, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return Reviewed{}, err
		}
	}
	if progress == nil {
		return Reviewed{}, fmt.Errorf("game %d: %w", id, ErrNotReviewed)
	}
	if s.reviewer == nil {
		return Reviewed{}, fmt.Errorf("game %d: %w", id, ErrNoReviews)
	}
	game := review.Game{Size: g.Size, Generator: g.Generator, Seed: g.Seed, Dirs: g.Dirs, Ended: ended}

	s.reviews.mu.Lock()
	f := s.reviews.byGame[id]
	if f == nil {
		var busy error
		switch {
		case s.reviews.byPlayer[who.ID]:
			busy = ErrReviewBusy
		case who.network.IsValid() && s.reviews.byNetwork[who.network] >= ReviewsPerNetwork:
			busy = ErrReviewsHere
		case s.reviews.making >= MaxReviews:
			busy = ErrTooManyReviews
		}
		if busy != nil {
			s.reviews.mu.Unlock()
			return Reviewed{}, fmt.Errorf("game %d: %w", id, busy)
		}
		f = &reviewFlight{done: make(chan struct{})}
		s.reviews.byPlayer[who.ID] = true
		s.reviews.making++
		if who.network.IsValid() {
			s.reviews.byNetwork[who.network]++
		}
		if ended {
			s.reviews.byGame[id] = f
		}
		// An ended game's review outlives its asker's session: it is
		// stored for whoever asks next.
		runCtx := ctx
		if ended {
			runCtx = context.WithoutCancel(ctx)
		}
		go s.makeReview(runCtx, id, who, game, f, keeps && ended)
	}
	s.reviews.mu.Unlock()
	defer f.listen(progress)()

	select {
	case <-f.done:
	case <-ctx.Done():
		return Reviewed{}, fmt.Errorf("review game %d: %w", id, ctx.Err())
	}
	if f.err != nil {
		return Reviewed{}, f.err
	}
	out.JSON = f.json
	return out, nil
}

// makeReview makes game id's review into f, and stores it when keep.
func (s *Service) makeReview(ctx context.Context, id int64, who asker, g review.Game, f *reviewFlight, keep bool) {
	defer func() {
		s.reviews.mu.Lock()
		delete(s.reviews.byPlayer, who.ID)
		s.reviews.making--
		if who.network.IsValid() {
			if s.reviews.byNetwork[who.network]--; s.reviews.byNetwork[who.network] == 0 {
				delete(s.reviews.byNetwork, who.network)
			}
		}
		if s.reviews.byGame[id] == f {
			delete(s.reviews.byGame, id)
		}
		s.reviews.mu.Unlock()
		close(f.done)
	}()
	r, err := review.Make(ctx, s.reviewer, g, f.progress)
	if err != nil {
		f.err = fmt.Errorf("review game %d: %w", id, err)
		return
	}
	if f.json, err = jsonOf(r); err != nil {
		f.err = fmt.Errorf("review game %d: %w", id, err)
		return
	}
	if keep {
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		if err := s.store.(store.ReviewStore).SaveGameReview(wctx, id, review.Version, f.json); err != nil {
			// The review is served all the same; the next asker makes
			// it again.
			s.log.Error("store review", "game", id, "err", err)
		}
	}
}

// jsonOf is a review's JSON, as the service stores it.
func jsonOf(r *review.Review) ([]byte, error) { return json.Marshal(r) }
