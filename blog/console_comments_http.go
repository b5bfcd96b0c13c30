package blog

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"folio/httpx"
	"folio/sqlstore"
)

// commentsPageSize is how many comments the moderation page lists at once.
const commentsPageSize = 20

// maxBatchComments bounds one batch action, as the file host's batch
// delete does.
const maxBatchComments = 1000

// commentTab is one status tab of the moderation page.
type commentTab struct {
	Status, Label string
	Count         int
	Current       bool
}

type commentsView struct {
	Status   string // the tab shown: pending, approved, spam or all
	Page     int
	Tabs     []commentTab
	Comments []consoleComment
	PrevURL  string
	NextURL  string
	Pages    int
	// FedOn: fediverse comments take a reply (federation is on).
	FedOn bool
	// A refused reply's comment and text, shown again.
	ReplyFor, ReplyText string
}

// commentsURL is the moderation page of a tab and page.
func commentsURL(status string, page int) string {
	q := url.Values{}
	if status != CommentPending {
		q.Set("status", status)
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	if len(q) == 0 {
		return "/console/blog/comments"
	}
	return "/console/blog/comments?" + q.Encode()
}

// commentTabStatus reads the tab asked for; pending is the default.
func commentTabStatus(s string) (string, bool) {
	switch s {
	case "":
		return CommentPending, true
	case CommentPending, CommentApproved, CommentSpam, "all":
		return s, true
	}
	return "", false
}

// handleConsoleComments is GET /console/blog/comments: the moderation
// queue. The pending tab lists the oldest first, as a queue is worked
// through; the others the newest first (docs/console.md#comments).
func (b consoleHandlers) handleConsoleComments(w http.ResponseWriter, r *http.Request) error {
	return b.renderComments(w, r, http.StatusOK, "")
}

func (b consoleHandlers) renderComments(w http.ResponseWriter, r *http.Request, status int, problem string) error {
	return b.renderCommentsWith(w, r, status, problem, commentsView{})
}

// renderCommentsWith renders the moderation page; keep holds what a
// refused form sends back (the reply typed).
func (b consoleHandlers) renderCommentsWith(w http.ResponseWriter, r *http.Request, status int, problem string, keep commentsView) error {
	tab, ok := commentTabStatus(r.URL.Query().Get("status"))
	if !ok {
		return httpx.BadRequest("status must be pending, approved, spam or all")
	}
	pg, err := httpx.ParsePaging(r, "size", commentsPageSize, 100)
	if err != nil {
		return err
	}
	ctx := r.Context()
	stats, err := b.commentStats(ctx)
	if err != nil {
		return err
	}
	f := commentFilter{Status: tab, Oldest: tab == CommentPending}
	if tab == "all" {
		f.Status = ""
	}
	items, total, err := b.listComments(ctx, f, spanOf(pg))
	if err != nil {
		return err
	}
	d := commentsView{Status: tab, Page: pg.Page, Pages: max(1, (total+pg.Size-1)/pg.Size), FedOn: b.fedSettings(ctx).Enabled,
		ReplyFor: keep.ReplyFor, ReplyText: keep.ReplyText}
	if d.Comments, err = b.consoleComments(ctx, items); err != nil {
		return err
	}
	for _, t := range []commentTab{{CommentPending, "Pending", stats.Pending, false}, {CommentApproved, "Approved", stats.Approved, false},
		{CommentSpam, "Spam", stats.Spam, false}, {"all", "All", stats.Total, false}} {
		t.Current = t.Status == tab
		d.Tabs = append(d.Tabs, t)
	}
	if pg.Page > 1 {
		d.PrevURL = commentsURL(tab, pg.Page-1)
	}
	if pg.Page < d.Pages {
		d.NextURL = commentsURL(tab, pg.Page+1)
	}
	title := "Comments"
	for _, t := range d.Tabs {
		if t.Current {
			title = "Comments: " + t.Label
		}
	}
	v := b.console.View(w, r, title, "blog-comments")
	v.Error = problem
	v.Data = d
	b.console.Render(w, r, status, "blog-comments", v)
	return nil
}

// commentAction is what a batch does to each comment: a status to set, or
// "" to delete, and the confirmation for n comments.
func commentAction(action string) (status string, done func(n int) string, ok bool) {
	say := func(before, after string) func(int) string {
		return func(n int) string { return before + " " + countOf(n, "comment") + after + "." }
	}
	switch action {
	case "approve":
		return CommentApproved, say("Approved", ""), true
	case "spam":
		return CommentSpam, say("Marked", " as spam"), true
	case "pending":
		return CommentPending, say("Moved", " back to pending"), true
	case "delete":
		return "", say("Deleted", ""), true
	}
	return "", nil, false
}

// handleConsoleCommentsBatch is POST /console/blog/comments/batch: fields
// ids (repeated), action (approve, spam, pending or delete), and the view
// to go back to (status, page). Each comment goes through the same store
// functions as PATCH and DELETE /api/v1/admin/comments/{id}; ids that name
// no comment (gone meanwhile, say) are skipped, and the confirmation
// counts those done.
func (b consoleHandlers) handleConsoleCommentsBatch(w http.ResponseWriter, r *http.Request) error {
	tab, page := commentsFormPlace(r)
	back := commentsURL(tab, page)
	status, said, ok := commentAction(r.PostFormValue("action"))
	if !ok {
		return httpx.E(http.StatusUnprocessableEntity, "action must be approve, spam, pending or delete")
	}
	ids := r.PostForm["ids"]
	if len(ids) == 0 || len(ids) > maxBatchComments {
		// Shown on the page the form came from.
		q := r.URL.Query()
		q.Set("status", tab)
		q.Set("page", strconv.Itoa(page))
		r.URL.RawQuery = q.Encode()
		msg := "Tick at least one comment first."
		if len(ids) > 0 {
			msg = "Tick at most " + strconv.Itoa(maxBatchComments) + " comments at once."
		}
		return b.renderComments(w, r, http.StatusUnprocessableEntity, msg)
	}
	done := 0
	for _, id := range ids {
		if !sqlstore.ValidID(id) {
			continue
		}
		var err error
		if status == "" {
			err = b.deleteComment(r.Context(), id)
		} else {
			_, err = b.reviewComment(r.Context(), id, status)
		}
		switch {
		case err == nil:
			done++
		case !errors.Is(err, sqlstore.ErrNotFound):
			return err
		}
	}
	b.console.Redirect(w, r, back, said(done))
	return nil
}

// handleConsoleReply is POST /console/blog/comments/{id}/reply: field
// content, and the view to go back to (status, page). The reply to an
// approved fediverse comment is an approved comment of the site's name on
// the same post, shown as a reply under it, and a Note delivered to the
// comment's author (docs/federation.md#moderation). The reply stands when
// the author's server cannot be told: the delivery is retried, or, when
// the blog does not know the author's account, not made (the flash says
// so).
func (b consoleHandlers) handleConsoleReply(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	tab, page := commentsFormPlace(r)
	id, err := consoleID(r, "comment")
	if err != nil {
		return err
	}
	text := strings.TrimSpace(r.PostFormValue("content"))
	refuse := func(status int, msg string) error {
		q := r.URL.Query()
		q.Set("status", tab)
		q.Set("page", strconv.Itoa(page))
		r.URL.RawQuery = q.Encode()
		return b.renderCommentsWith(w, r, status, msg, commentsView{ReplyFor: id, ReplyText: r.PostFormValue("content")})
	}
	if !b.fedSettings(ctx).Enabled {
		return refuse(http.StatusConflict, "Federation is off: turn it on to reply on the fediverse.")
	}
	c, err := b.adminComment(ctx, id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return refuse(http.StatusNotFound, "There is no such comment.")
	}
	if err != nil {
		return err
	}
	switch {
	case !c.Fediverse || c.ownReply():
		return refuse(http.StatusUnprocessableEntity, "Only comments from the fediverse take a reply here.")
	case c.Status != CommentApproved:
		return refuse(http.StatusConflict, "Approve the comment first: the reply shows under the post with it.")
	}
	if err := checkText("content", text, true, 5000); err != nil {
		f, _ := refusal(err)
		return refuse(f.Status, "Not sent: the reply "+strings.TrimPrefix(f.Msg, "Not saved: content "))
	}
	author, delivered, err := b.replyToComment(ctx, c, text)
	if err != nil {
		return err
	}
	msg := "Replied to " + c.Author + "."
	if !delivered {
		msg = "Replied to " + c.Author + " on the site; the blog does not know their account, so the reply was not sent to them."
	} else if author != "" {
		msg = "Replied to " + c.Author + " (@" + author + ")."
	}
	b.console.Redirect(w, r, commentsURL(tab, page), msg)
	return nil
}

// replyToComment stores the administrator's reply to the fediverse
// comment c and queues its Create{Note} to c's author. delivered is false
// when the blog has no stored actor for c's author; author is the handle
// it went to.
func (b *Blog) replyToComment(ctx context.Context, c AdminComment, text string) (author string, delivered bool, err error) {
	origin, err := b.fedOrigin(ctx)
	if err != nil {
		return "", false, err
	}
	p, err := b.postBy(ctx, "id", c.PostID, false)
	if err != nil {
		return "", false, err
	}
	name := strings.TrimSpace(b.settings.Site.Get(ctx).SiteName)
	if name == "" {
		name = b.fedSettings(ctx).Username
	}
	reply := AdminComment{PublicComment: PublicComment{ID: sqlstore.NewID(), Author: name, Content: text,
		CreatedAt: sqlstore.Time(sqlstore.FromTime(b.now())), ReplyTo: c.ID}, PostID: c.PostID}
	reply.apID = replyIRI(origin, reply.ID)
	if err := b.insertReply(ctx, reply, reply.apID); err != nil {
		return "", false, err
	}
	actor, err := b.commentAuthor(ctx, c.PublicComment)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	note := replyNote(origin, p.Slug, reply.PublicComment, c.PublicComment, actor)
	// To its author, cc the blog's followers, as the Note is addressed.
	if inbox := actor.deliveryInbox(); inbox != "" {
		if err := b.deliverWithFollowers(ctx, createNote(origin, note), []string{inbox}); err != nil {
			// The reply is on the site; its delivery is the queue's to
			// retry, and a failure to queue is logged.
			b.logger.Error("blog: federation: deliver a reply", "comment", reply.ID, "to", actor.ID, "err", err)
		}
	}
	return actor.Handle, true, nil
}

// commentsFormPlace is the tab and page of the queue a form was posted
// from, where its confirmation leads back to.
func commentsFormPlace(r *http.Request) (tab string, page int) {
	tab, ok := commentTabStatus(r.PostFormValue("status"))
	if !ok {
		tab = CommentPending
	}
	page, err := strconv.Atoi(r.PostFormValue("page"))
	if err != nil || page < 1 {
		page = 1
	}
	return tab, page
}
