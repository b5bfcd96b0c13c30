package blog

import (
	"context"
	"time"

	"folio/sqlstore"
)

// PostPageQuery returns the query of one page of a post list and its
// arguments, as listPosts runs it from the list's start, for the tests of
// its plan.
func (b *Blog) PostPageQuery(public bool, status, categoryID, tagID string, limit, offset int) (string, []any) {
	f := postFilter{Public: public, Status: status, CategoryID: categoryID, TagID: tagID}
	return postPage(b.postWhere(f, b.now(), nil), public, span{limit: limit, offset: offset}, nil)
}

// AnchoredPostPageQuery is PostPageQuery for the page offset posts after
// the post anchorID, as listPosts runs it with an anchor cached at
// version.
func (b *Blog) AnchoredPostPageQuery(ctx context.Context, public bool, status, categoryID, tagID, anchorID, version string,
	limit, offset int) (string, []any, error) {
	var k postKey
	if err := b.db.QueryRow(ctx, "SELECT published_at, created_at, id FROM posts WHERE id = $1", anchorID).
		Scan(&k.published, &k.created, &k.id); err != nil {
		return "", nil, err
	}
	f := postFilter{Public: public, Status: status, CategoryID: categoryID, TagID: tagID}
	q, args := postPage(b.postWhere(f, b.now(), &k), public, span{limit: limit, offset: offset}, &version)
	return q, args, nil
}

// PostsVersion is the version the post lists' cache is valid for.
func (b *Blog) PostsVersion(ctx context.Context) string {
	var v string
	_ = b.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", postsVersionKey).Scan(&v)
	return v
}

// SetAnchorEvery spaces the anchors of the post lists every n posts, so
// that tests reach them with a few posts. Call it before the first list.
func (b *Blog) SetAnchorEvery(n int) { b.anchorEvery = n }

// SetImportLimit makes imports refuse files larger than n bytes, so that
// tests reach the limit with small files.
func (b *Blog) SetImportLimit(n int64) { b.importLimit = n }

// SetImportTimeout bounds the work of an import over HTTP to d.
func (b *Blog) SetImportTimeout(d time.Duration) { b.importTimeout = d }

// SetMediaLimits bounds what an import brings home to files downloads of
// at most fileSize bytes each, all within total, so that tests reach the
// bounds with small files.
func (b *Blog) SetMediaLimits(files int, fileSize int64, total time.Duration) {
	b.mediaLimits.files, b.mediaLimits.fileSize, b.mediaLimits.total = files, fileSize, total
	b.fetch = b.mediaLimits.client(b.fetchAllow)
}

// SettingLabels is the labels the console's refusals name settings by.
func SettingLabels() map[string]string { return settingLabels() }

// IdleJobs starts the AI and federation dispatchers of a blog built with
// EnqueueOnly, each waiting on a ticker of its own that tick drives (it
// returns once every dispatcher took its tick, so is done with the one
// before) and on clock for its sweeps; claims counts the claim statements
// they sent, submit queues an AI job as saving a post does.
func (b *Blog) IdleJobs(clock func() time.Time) (tick func(), claims func() int64, submit func(postID string)) {
	ws := []*sqlstore.JobWaiter{b.ai.waiter, b.fed.post.waiter, b.fed.fanout.waiter, b.fed.deliver.waiter}
	ticks := make([]chan time.Time, len(ws))
	for i, w := range ws {
		ticks[i] = make(chan time.Time)
		w.Tick, w.Clock = ticks[i], clock
	}
	b.ai.start(b.runAIJob)
	b.fed.start(func(ctx context.Context) { <-ctx.Done() })
	tick = func() {
		for _, c := range ticks {
			c <- clock()
		}
	}
	claims = func() int64 {
		return b.ai.jobs.Claims() + b.fed.post.jobs.Claims() + b.fed.fanout.jobs.Claims() + b.fed.deliver.jobs.Claims()
	}
	return tick, claims, func(id string) { b.ai.submit(context.Background(), id) }
}
