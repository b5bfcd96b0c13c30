package blog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"folio/blog/activitypub"
	"folio/sqlstore"
)

// Posts as Articles (docs/federation.md#what-is-sent). A post's federated
// state is reconciled with what it is now by a job (blog.ap.post) queued
// after every save and delete, and by a scan for scheduled posts whose
// time came: publishing never waits on the network.
const (
	// fedScanEvery is how often the scan for scheduled posts runs, in
	// the one process holding its lease.
	fedScanEvery = time.Minute
	fedScanLease = "blog.ap.scan"
	// fedScanWindow bounds how far back the scan looks: a scheduled post
	// whose time came while no process ran for longer is not sent.
	fedScanWindow = 7 * 24 * time.Hour
	fedScanBatch  = 100
	// fedOutboxPage is the outbox's page size.
	fedOutboxPage = 20
)

// fedSince is when federation was first turned on, recorded now when
// federation is on and nothing is recorded: turning it on through the
// settings records it at once (noteFedOrigin); turned on in the
// configuration file, the first scan of a process records it.
func (b *Blog) fedSince(ctx context.Context) (time.Time, error) {
	t, err := b.loadFedSince(ctx)
	if err != nil || !t.IsZero() || !b.fedSettings(ctx).Enabled {
		return t, err
	}
	if err := b.insertFedSince(ctx, b.now()); err != nil {
		return time.Time{}, err
	}
	return b.loadFedSince(ctx)
}

// queueFederatePost queues the reconciliation of a post that was saved or
// deleted, while federation is on.
func (b *Blog) queueFederatePost(id string) {
	ctx := context.Background()
	if !b.fedSettings(ctx).Enabled {
		return
	}
	if err := b.fed.post.jobs.Enqueue(ctx, id); err != nil {
		b.logger.Warn("federation: post left unfederated", "post_id", id, "err", err)
		return
	}
	b.fed.post.notify()
}

// runFederatePost is the job of queueFederatePost.
func (b *Blog) runFederatePost(ctx context.Context, job *sqlstore.Job) time.Time {
	if err := b.federatePost(ctx, job.Subject); err != nil {
		if ctx.Err() != nil {
			return time.Time{}
		}
		b.logger.Warn("federation: post not federated, will retry", "post_id", job.Subject, "err", err)
		return b.fed.now().Add(time.Minute)
	}
	return time.Time{}
}

// federatePost brings what the followers have of a post in line with the
// post: a visible post never sent (and published once federation was on)
// is sent as a Create; one sent whose Article changed, as an Update; one
// sent that is no longer visible (unpublished, deleted, made a draft,
// scheduled later), as a Delete; one deleted and visible again, as a new
// Create. The change of ap_posts and the queued activity are one
// transaction that only one process wins.
func (b *Blog) federatePost(ctx context.Context, postID string) error {
	if !b.fedSettings(ctx).Enabled {
		return nil
	}
	since, err := b.fedSince(ctx)
	if err != nil {
		return err
	}
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return err
	}
	row, have, err := b.loadAPPost(ctx, postID)
	if err != nil {
		return err
	}
	p, err := b.postBy(ctx, "id", postID, false)
	if err != nil && !errors.Is(err, sqlstore.ErrNotFound) {
		return err
	}
	now := b.now()
	visible := p != nil && p.Status == StatusPublished && p.PublishedAt != nil && !p.PublishedAt.After(now)
	var prev *apPost
	if have {
		prev = &row
	}
	var act *activitypub.Object
	var next apPost
	switch {
	case visible && (!have || row.State == apDeleted):
		if !have && p.PublishedAt.Before(since) {
			return nil // published before federation: not news
		}
		art, hash, err := b.article(ctx, origin, p, "")
		if err != nil {
			return err
		}
		act = wrapActivity(origin, "Create", now, &activitypub.Ref{Object: art})
		next = apPost{ObjectID: art.ID, State: apCreated, Hash: hash}
	case visible && row.State == apCreated:
		art, hash, err := b.article(ctx, origin, p, row.ObjectID)
		if err != nil {
			return err
		}
		if hash == row.Hash {
			return nil
		}
		art.Updated = fedTime(now)
		act = wrapActivity(origin, "Update", now, &activitypub.Ref{Object: art})
		next = apPost{ObjectID: row.ObjectID, State: apCreated, Hash: hash}
	case !visible && have && row.State == apCreated:
		act = wrapActivity(origin, "Delete", now, &activitypub.Ref{Object: &activitypub.Object{ID: row.ObjectID, Type: "Tombstone"}})
		next = apPost{ObjectID: row.ObjectID, State: apDeleted, Hash: ""}
	default:
		return nil
	}
	id, body, err := b.prepareActivity(ctx, act)
	if err != nil {
		return err
	}
	if next.State == apCreated {
		next.ActivityID = id
	}
	won := false
	err = b.db.Tx(ctx, func(tx *sqlstore.Tx) error {
		ok, err := saveAPPost(ctx, tx, postID, prev, next, now)
		if err != nil || !ok {
			return err
		}
		won = true
		return b.queueToFollowers(ctx, tx, id, body)
	})
	if err != nil {
		return err
	}
	if won {
		b.fed.fanout.notify()
		b.logger.Info("federation: post sent", "post_id", postID, "activity", act.Type, "id", act.ID)
	}
	return nil
}

// wrapActivity is an activity of the blog's actor about object, public
// and addressed to its followers.
func wrapActivity(origin, typ string, at time.Time, object *activitypub.Ref) *activitypub.Object {
	if object.Object != nil && object.Object.Context != nil {
		// The activity's context covers what it embeds.
		inner := *object.Object
		inner.Context = nil
		object = &activitypub.Ref{ID: object.ID, Object: &inner}
	}
	return &activitypub.Object{
		Context:   activitypub.Context(),
		ID:        origin + "/ap/activities/" + sqlstore.NewID(),
		Type:      typ,
		Actor:     activitypub.Ref{ID: actorIRI(origin)},
		Published: fedTime(at),
		To:        activitypub.Refs{{ID: activitypub.Public}},
		Cc:        activitypub.Refs{{ID: actorFollowers(origin)}},
		Object:    *object,
	}
}

// fedTime is a time as ActivityStreams dates are written: UTC, to the
// second.
func fedTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// article builds the Article of a post under origin, and the hash of what
// it says (its updated time left out), which tells whether an edit changed
// anything a follower sees. objectID, when not empty, is the id it was
// first sent under: the id of an Article never changes, even with its
// post's slug.
func (b *Blog) article(ctx context.Context, origin string, p *Post, objectID string) (*activitypub.Object, string, error) {
	canonical := postIRI(origin, p.Slug)
	if objectID == "" {
		objectID = canonical
	}
	content, images, err := b.federationHTML(origin, canonical, p.ContentMarkdown)
	if err != nil {
		return nil, "", err
	}
	art := &activitypub.Object{
		Context:      activitypub.Context(),
		ID:           objectID,
		Type:         "Article",
		AttributedTo: activitypub.Ref{ID: actorIRI(origin)},
		Name:         p.Title,
		Summary:      p.Summary,
		Content:      content,
		MediaType:    "text/html",
		URL:          activitypub.Ref{ID: canonical},
		To:           activitypub.Refs{{ID: activitypub.Public}},
		Cc:           activitypub.Refs{{ID: actorFollowers(origin)}},
	}
	if p.PublishedAt != nil {
		art.Published = fedTime(*p.PublishedAt)
	}
	for _, t := range p.Tags {
		name := strings.Join(strings.Fields(t.Name), "")
		if name == "" {
			continue
		}
		art.Tag = append(art.Tag, activitypub.Ref{Object: &activitypub.Object{Type: "Hashtag",
			Href: origin + "/tags/" + url.PathEscape(t.Slug), Name: "#" + name}})
	}
	host := activitypub.Host(origin)
	if p.CoverImage != "" {
		if u, ok := ownImageURL(origin, host, canonical, p.CoverImage); ok {
			images = append([]articleImage{{URL: u, Alt: p.Title}}, images...)
		}
	}
	seen := map[string]bool{}
	for _, im := range images {
		if seen[im.URL] {
			continue
		}
		seen[im.URL] = true
		art.Attachment = append(art.Attachment, activitypub.Ref{Object: &activitypub.Object{Type: "Image",
			MediaType: imageMediaType(im.URL), URL: activitypub.Ref{ID: im.URL}, Name: im.Alt}})
	}
	sum, err := json.Marshal(art)
	if err != nil {
		return nil, "", fmt.Errorf("blog: encode article: %w", err)
	}
	h := sha256.Sum256(sum)
	return art, hex.EncodeToString(h[:]), nil
}

// articleWithDates is the Article as GET answers it: under the id it was
// sent as while it is federated, with updated when the post was edited
// after it was published.
func (b *Blog) articleWithDates(ctx context.Context, origin string, p *Post) (*activitypub.Object, error) {
	objectID := ""
	if row, ok, err := b.loadAPPost(ctx, p.ID); err != nil {
		return nil, err
	} else if ok && row.State == apCreated {
		objectID = row.ObjectID
	}
	art, _, err := b.article(ctx, origin, p, objectID)
	if err != nil {
		return nil, err
	}
	if p.PublishedAt != nil && p.UpdatedAt.Sub(*p.PublishedAt) > time.Minute {
		art.Updated = fedTime(p.UpdatedAt)
	}
	return art, nil
}

// articleImage is an image of a post that becomes an attachment.
type articleImage struct{ URL, Alt string }

// federationHTML renders a post's Markdown for other servers' timelines:
// the site's HTML, but with every link and image absolute (resolved
// against the post's canonical URL), and the images of Folio's own file
// host (/i/ on the site's origin) listed for attachments. The renderer is
// the site's, so nothing it does not let through reaches anyone.
func (b *Blog) federationHTML(origin, canonical, markdown string) (string, []articleImage, error) {
	base, err := url.Parse(canonical)
	if err != nil {
		return "", nil, fmt.Errorf("blog: article URL %q: %w", canonical, err)
	}
	source := []byte(markdown)
	doc := b.md.Parser().Parse(text.NewReader(source))
	host := activitypub.Host(origin)
	var images []articleImage
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.Destination = absoluteDest(base, n.Destination)
		case *ast.Image:
			n.Destination = absoluteDest(base, n.Destination)
			if u, ok := ownImageURL(origin, host, canonical, string(n.Destination)); ok {
				images = append(images, articleImage{URL: u, Alt: collapseSpace(nodeText(n, source))})
			}
		}
		return ast.WalkContinue, nil
	})
	var buf bytes.Buffer
	if err := b.md.Renderer().Render(&buf, source, doc); err != nil {
		return "", nil, fmt.Errorf("blog: render article: %w", err)
	}
	return buf.String(), images, nil
}

// absoluteDest resolves a link's destination against base; one that is
// empty (the sanitizer emptied it) or does not parse stays as it is.
func absoluteDest(base *url.URL, dest []byte) []byte {
	if len(dest) == 0 {
		return dest
	}
	u, err := url.Parse(string(dest))
	if err != nil {
		return dest
	}
	return []byte(base.ResolveReference(u).String())
}

// ownImageURL is the absolute URL of an image of Folio's own file host
// (a short link /i/{key} on the site's origin), ok false for any other.
func ownImageURL(origin, host, canonical, src string) (string, bool) {
	base, err := url.Parse(canonical)
	if err != nil {
		return "", false
	}
	u, err := url.Parse(src)
	if err != nil {
		return "", false
	}
	abs := base.ResolveReference(u)
	if !activitypub.SameHost(abs.String(), origin) {
		return "", false
	}
	if _, ok := ownImageKey(abs.String(), []string{host}); !ok {
		return "", false
	}
	return abs.String(), true
}

// imageMediaType is the media type an image URL's extension names, ""
// when it names none (the file host's short links often have none; the
// other server then looks at what it fetches).
func imageMediaType(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	t := mime.TypeByExtension(strings.ToLower(path.Ext(p.Path)))
	if !strings.HasPrefix(t, "image/") {
		return ""
	}
	t, _, _ = strings.Cut(t, ";")
	return t
}

// runFederationScan queues the posts whose publication time came and
// that were never federated, and those federated that are no longer
// visible with no Delete sent, every fedScanEvery, in the one process
// that holds the scan's lease.
func (b *Blog) runFederationScan(ctx context.Context) {
	tick := time.NewTimer(0)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		tick.Reset(fedScanEvery)
		if err := b.scanDuePosts(ctx); err != nil && ctx.Err() == nil {
			b.logger.Warn("federation: scan for scheduled posts", "err", err)
		}
	}
}

// scanDuePosts is one scan of runFederationScan.
func (b *Blog) scanDuePosts(ctx context.Context) error {
	if !b.fedSettings(ctx).Enabled {
		return nil
	}
	since, err := b.fedSince(ctx)
	if err != nil {
		return err
	}
	ok, err := b.db.TryLease(ctx, fedScanLease, b.fed.instance, b.fed.now(), fedScanEvery+fedScanEvery/2)
	if err != nil || !ok {
		return err
	}
	now := b.now()
	from := since
	if w := now.Add(-fedScanWindow); w.After(from) {
		from = w
	}
	ids, err := b.duePosts(ctx, from, now, fedScanBatch)
	if err != nil {
		return err
	}
	gone, err := b.vanishedPosts(ctx, now, fedScanBatch)
	if err != nil {
		return err
	}
	ids = append(ids, gone...)
	for _, id := range ids {
		if err := b.fed.post.jobs.Enqueue(ctx, id); err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		b.fed.post.notify()
	}
	return nil
}
