package blog

import (
	"errors"
	"net/http"

	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// formRefusal is why the console shows a form again instead of saving it:
// the status of the answer, the sentence above the form, and the field to
// mark (aria-invalid), in the API's names.
type formRefusal struct {
	Status int
	Msg    string
	Field  string
}

// refusal turns a refused write into what its form shows, as the API
// answers the same write (httpError): 422 for a value, 409 for a taken slug
// or URL. ok is false for any other error, which the console's error page
// answers.
func refusal(err error) (formRefusal, bool) {
	var fe *fieldError
	var se *sqlstore.FieldError
	switch {
	case errors.As(err, &fe):
		return formRefusal{http.StatusUnprocessableEntity, "Not saved: " + fe.Field + " " + fe.Msg + ".", fe.Field}, true
	case errors.As(err, &se):
		return formRefusal{http.StatusUnprocessableEntity, "Not saved. " + settingLabel(se.Key) + ": " + se.Msg + ".", se.Key}, true
	case errors.Is(err, errDuplicateSlug):
		return formRefusal{http.StatusConflict, "Not saved: that slug is already taken.", "slug"}, true
	case errors.Is(err, errDuplicateURL):
		return formRefusal{http.StatusConflict, "Not saved: a friend link with that URL already exists.", "url"}, true
	}
	return formRefusal{}, false
}

// consoleNotFound is the console's 404 for an id that names nothing.
func consoleNotFound(what string) error {
	return httpx.E(http.StatusNotFound, "There is no such "+what+".")
}

// consoleID reads the {id} of a console path; a malformed one is a 404
// naming what.
func consoleID(r *http.Request, what string) (string, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return "", consoleNotFound(what)
	}
	return id, nil
}

// notFoundAs is err, or the console's 404 naming what when err says the
// row does not exist.
func notFoundAs(err error, what string) error {
	if errors.Is(err, sqlstore.ErrNotFound) {
		return consoleNotFound(what)
	}
	return err
}

// countOf is "1 comment", "3 comments" (templates.Plural, as the pages
// say it).
func countOf(n int, noun string) string { return templates.Plural(int64(n), noun) }

// settingLabels names the settings of the blog's console pages (Blog
// settings, Federation) as their forms label them, so that a refusal
// names the field a person sees, not the key the API uses. A function, not
// a package variable: no package-level state (docs/design.md).
func settingLabels() map[string]string {
	return map[string]string{
		"site.site_name":               "Site name",
		"site.site_url":                "Site URL",
		"site.keywords":                "Keywords",
		"site.favicon":                 "Favicon URL",
		"site.logo":                    "Logo URL",
		"site.icp":                     "ICP licence number",
		"site.description":             "Description",
		"site.footer":                  "Footer",
		"post.posts_per_page":          "Posts per page",
		"post.summary_length":          "Summary length",
		"post.revisions_kept":          "Revisions kept",
		"post.default_cover_url":       "Default cover image URL",
		"post.enable_comment":          "Readers may comment",
		"post.enable_toc":              "Show a table of contents on posts",
		"render.render_mode":           "Render mode",
		"render.api_prefix":            "API prefix",
		"render.enable_cors":           "Let any site read the public API",
		"ai.enabled":                   "Use an AI provider",
		"ai.provider":                  "Provider",
		"ai.base_url":                  "Base URL",
		"ai.model":                     "Model",
		"ai.api_key":                   "API key",
		"ai.auto_summary":              "Write a summary for posts saved without one",
		"ai.auto_tag":                  "Tag posts saved without tags",
		"federation.enabled":           "The blog can be followed from the fediverse",
		"federation.username":          "Username",
		"federation.approve_followers": "Approve each new follower",
		"federation.authorized_fetch":  "Answer posts' fediverse documents only to signed requests",
	}
}

// settingLabel is the label of a setting's field, or its key for a
// setting no blog page shows.
func settingLabel(key string) string {
	if l, ok := settingLabels()[key]; ok {
		return l
	}
	return key
}
