package blog

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"folio/blog/ai"
	"folio/httpx"
)

// aiRequestTimeout bounds an on-demand call: an editor is waiting for it,
// and the client's own retries fit inside.
const aiRequestTimeout = 60 * time.Second

// aiTask is one on-demand call to the provider.
type aiTask func(ctx context.Context, c *ai.Client, s Settings, title, markdown string) (any, error)

// aiInput names the post to work on: a saved post, or the text an editor
// has not saved yet.
type aiInput struct {
	PostID          string `json:"post_id"`
	Title           string `json:"title"`
	ContentMarkdown string `json:"content_markdown"`
}

// validate normalises the post id and asks for something to work on.
func (in *aiInput) validate() error {
	in.PostID = strings.ToLower(strings.TrimSpace(in.PostID))
	if in.PostID == "" && strings.TrimSpace(in.Title) == "" && strings.TrimSpace(in.ContentMarkdown) == "" {
		return invalid("post_id", "give post_id, or title and content_markdown")
	}
	return nil
}

// handleAISummary answers {summary} for a post without saving it.
func (b *Blog) handleAISummary(w http.ResponseWriter, r *http.Request) error {
	return b.runAITask(w, r, func(ctx context.Context, c *ai.Client, s Settings, title, markdown string) (any, error) {
		summary, err := b.ai.summarize(ctx, c, title, markdown, s.Post.SummaryLength)
		if err != nil {
			return nil, err
		}
		return struct {
			Summary string `json:"summary"`
		}{summary}, nil
	})
}

// handleAITags answers {tags} for a post without attaching them.
func (b *Blog) handleAITags(w http.ResponseWriter, r *http.Request) error {
	return b.runAITask(w, r, func(ctx context.Context, c *ai.Client, _ Settings, title, markdown string) (any, error) {
		existing, err := b.tagNames(ctx)
		if err != nil {
			return nil, err
		}
		names, err := b.ai.suggestTags(ctx, c, title, markdown, existing)
		if err != nil {
			return nil, err
		}
		return struct {
			Tags []string `json:"tags"`
		}{names}, nil
	})
}

// runAITask checks the body and the settings, finds the text and runs task
// on it. Provider failures, a timeout included, are 502 with the provider's
// name and status; the ai package has removed the key from them.
func (b *Blog) runAITask(w http.ResponseWriter, r *http.Request, task aiTask) error {
	var in aiInput
	if err := httpx.DecodeJSON(w, r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return httpError(err)
	}
	s := b.settings.Get(r.Context())
	if !s.AI.Enabled {
		return httpx.Unprocessable("ai", "AI is disabled")
	}
	c, err := ai.NewFromSettings(s.AI, b.ai.http)
	if err != nil {
		return httpx.E(http.StatusUnprocessableEntity, err.Error())
	}
	title, markdown := in.Title, in.ContentMarkdown
	if in.PostID != "" {
		p, err := b.postBy(r.Context(), "id", in.PostID, false)
		if err != nil {
			return httpError(err)
		}
		title, markdown = p.Title, p.ContentMarkdown
	}
	ctx, cancel := context.WithTimeout(r.Context(), aiRequestTimeout)
	defer cancel()
	out, err := task(ctx, c, s, title, markdown)
	if err != nil {
		return aiFailure(err)
	}
	httpx.BlogAPI.OK(w, http.StatusOK, out)
	return nil
}

// aiFailure turns a provider failure into a client error; anything else
// (a database error listing tags) stays internal.
func aiFailure(err error) error {
	var ae *ai.Error
	if !errors.As(err, &ae) {
		return err
	}
	return &httpx.Error{Status: http.StatusBadGateway, Msg: ae.Error(), Err: err}
}
