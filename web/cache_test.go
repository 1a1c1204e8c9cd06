package web

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestPageCacheBounds: a client varying the query string cannot make the
// cache hold more than its bounds, in pages or in bytes, whatever the
// size of the pages it asks for; a page is cached again when it expires.
func TestPageCacheBounds(t *testing.T) {
	for _, size := range []int{100, 64 << 10, maxCachedBytes + 1} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			c := newPageCache()
			page := strings.Repeat("x", size)
			h := c.cached(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(page)) })
			n := 2 * maxCachedPages
			if size > maxCachedBytes {
				n = 3
			}
			for i := range n {
				rec := httptest.NewRecorder()
				h(rec, httptest.NewRequest(http.MethodGet, "/scores/4/human?limit="+strconv.Itoa(i), nil))
				if rec.Body.Len() != size {
					t.Fatalf("request %d answered %d bytes, want %d", i, rec.Body.Len(), size)
				}
				held := 0
				for _, p := range c.pages {
					held += len(p.body)
				}
				if len(c.pages) > maxCachedPages || held > maxCachedBytes || held != c.bytes {
					t.Fatalf("after %d pages of %d bytes the cache holds %d pages, %d bytes (counted %d); bounds %d pages, %d bytes",
						i+1, size, len(c.pages), held, c.bytes, maxCachedPages, maxCachedBytes)
				}
			}
		})
	}
}
