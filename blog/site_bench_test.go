package blog_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkSite measures the classic site end to end over loopback HTTP:
// 16 concurrent clients (SetParallelism(8) on 2 CPUs; more where GOMAXPROCS
// is higher) against a blog of 50 posts with tags, categories, a page and
// comments, each page both rendered and served from the page cache.
// Run: go test -run '^$' -bench BenchmarkSite -benchtime 5s ./blog/
func BenchmarkSite(b *testing.B) {
	e := newSiteEnv(b)
	e.seedSite()
	cat := e.createTerm("categories", "Bench")
	tag := e.createTerm("tags", "bench")
	for i := range 50 {
		e.publish(fmt.Sprintf("Benchmark post %d", i), "slug", fmt.Sprintf("bench-%d", i),
			"category_id", cat.ID, "tag_ids", []string{tag.ID},
			"content_markdown", "## One\n\nSome *text* with a [link](https://example.test).\n\n## Two\n\n```go\nfunc main() {}\n```\n")
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	for _, tc := range []struct {
		path   string
		cached bool
	}{{"/", false}, {"/posts/hello-world", false}, {"/", true}, {"/posts/hello-world", true}} {
		name := tc.path + " rendered"
		if tc.cached {
			name = tc.path + " cached"
		}
		path := tc.path
		b.Run(name, func(b *testing.B) {
			// Pages are cached only once the last change is 2 s old: a
			// change every half second keeps every request rendering.
			if tc.cached {
				e.clock.advance(3 * time.Second)
			} else {
				stop := make(chan struct{})
				done := make(chan struct{})
				// Runs on another goroutine too: errors, never Fatal.
				change := func() {
					body := fmt.Sprintf(`{"site":{"footer":"Footer %d"}}`, time.Now().UnixNano())
					req, _ := http.NewRequest("PUT", e.admin.Base+"/api/v1/admin/settings", strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := e.admin.HTTP.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Errorf("settings PUT: status %d", resp.StatusCode)
					}
				}
				change()
				go func() {
					defer close(done)
					t := time.NewTicker(500 * time.Millisecond)
					defer t.Stop()
					for {
						select {
						case <-stop:
							return
						case <-t.C:
							change()
						}
					}
				}()
				defer func() { close(stop); <-done }()
			}
			url := e.anon.Base + path
			b.SetParallelism(8)
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(url)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
