package web

import (
	"bytes"
	"net/http"
	"sync"
	"time"
)

// pageTTL is how long a rendered leaderboard stays served as it is. A
// board changes with every move somewhere, but a page a second old is
// as good to its reader, and a page read a hundred times a second (a
// link shared widely, a scraper) then costs one query and one render a
// second instead of a hundred, which would otherwise be CPU taken from
// the players' moves and frames.
const pageTTL = time.Second

// maxCachedPages and maxCachedBytes bound the cache: the key includes
// the query string, which a client may vary at will (a board's longest
// pages are far larger than its first); past either bound the cache
// starts afresh.
//
// The key includes the host the footer names (sshHost of the request's
// Host), so that a page asked for by one name is not served to those who
// came by another.
const (
	maxCachedPages = 256
	maxCachedBytes = 8 << 20
)

type cachedPage struct {
	at          time.Time
	contentType string
	body        []byte
}

type pageCache struct {
	mu    sync.Mutex
	pages map[string]cachedPage
	bytes int // of the pages' bodies
}

func newPageCache() *pageCache { return &pageCache{pages: make(map[string]cachedPage)} }

// cached serves h's 200 answers from the cache for pageTTL.
func (c *pageCache) cached(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := sshHost(r.Host) + " " + r.URL.Path + "?" + r.URL.RawQuery
		now := time.Now()
		c.mu.Lock()
		p, ok := c.pages[key]
		c.mu.Unlock()
		if ok && now.Sub(p.at) < pageTTL {
			w.Header().Set("Content-Type", p.contentType)
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(p.body)
			return
		}
		rec := &bodyRecorder{ResponseWriter: w, code: http.StatusOK}
		h(rec, r)
		if rec.code != http.StatusOK {
			return
		}
		body := rec.body.Bytes()
		if len(body) > maxCachedBytes {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if old, ok := c.pages[key]; ok {
			c.bytes -= len(old.body)
			delete(c.pages, key)
		}
		if len(c.pages) >= maxCachedPages || c.bytes+len(body) > maxCachedBytes {
			clear(c.pages)
			c.bytes = 0
		}
		c.pages[key] = cachedPage{at: now, contentType: w.Header().Get("Content-Type"), body: body}
		c.bytes += len(body)
	}
}

// bodyRecorder passes the answer on and keeps a copy of it.
type bodyRecorder struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (r *bodyRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *bodyRecorder) Write(p []byte) (int, error) {
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}
