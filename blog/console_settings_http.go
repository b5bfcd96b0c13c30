package blog

import (
	"net/http"
	"strconv"
	"strings"

	"folio/blog/ai"
	"folio/sqlstore"
)

// settingsForm is the blog settings page: the settings as typed (numbers
// as text, so that a refused one comes back as it was), where the API key
// stands, and the field a refusal names. The API key itself is never in
// it.
type settingsForm struct {
	Settings
	PostsPerPage  string
	SummaryLength string
	RevisionsKept string
	// KeyEnding is the stored key's last four characters, "" when the
	// key is too short to show any; HasKey whether a key is stored.
	HasKey    bool
	KeyEnding string
	Providers []string
	Field     string
}

func newSettingsForm(s Settings) settingsForm {
	f := settingsForm{Settings: s, PostsPerPage: strconv.Itoa(s.Post.PostsPerPage),
		SummaryLength: strconv.Itoa(s.Post.SummaryLength), RevisionsKept: strconv.Itoa(s.Post.RevisionsKept), Providers: []string{ai.ProviderOpenAI, ai.ProviderOllama}}
	f.HasKey = s.AI.APIKey != ""
	f.KeyEnding = strings.TrimPrefix(maskKey(s.AI.APIKey), maskPrefix)
	f.AI.APIKey = ""
	return f
}

// handleConsoleSettings is GET /console/blog/settings.
func (b consoleHandlers) handleConsoleSettings(w http.ResponseWriter, r *http.Request) error {
	return b.renderSettings(w, r, http.StatusOK, newSettingsForm(b.settings.Get(r.Context())), "")
}

func (b consoleHandlers) renderSettings(w http.ResponseWriter, r *http.Request, status int, f settingsForm, problem string) error {
	v := b.console.View(w, r, "Blog settings", "blog-settings")
	v.Error = problem
	v.Data = f
	b.console.Render(w, r, status, "blog-settings", v)
	return nil
}

// handleConsoleSaveSettings is POST /console/blog/settings: every field of
// the four groups is set from the form (an unticked box is off), checked
// and stored as PUT /api/v1/admin/settings does, all or nothing. The API
// key changes only when one is typed, and goes when remove_api_key is
// ticked; render.api_prefix is not the form's to change.
func (b consoleHandlers) handleConsoleSaveSettings(w http.ResponseWriter, r *http.Request) error {
	cur := b.settings.Get(r.Context())
	v := func(k string) string { return r.PostFormValue(k) }
	on := func(k string) bool { return r.PostFormValue(k) != "" }
	next := Settings{
		Site: SiteSettings{SiteName: strings.TrimSpace(v("site.site_name")), SiteURL: strings.TrimSpace(v("site.site_url")),
			Description: v("site.description"), Keywords: v("site.keywords"), Favicon: strings.TrimSpace(v("site.favicon")),
			Logo: strings.TrimSpace(v("site.logo")), ICP: v("site.icp"), Footer: v("site.footer")},
		Post: PostSettings{EnableComment: on("post.enable_comment"), EnableTOC: on("post.enable_toc"),
			DefaultCoverURL: strings.TrimSpace(v("post.default_cover_url"))},
		Render: RenderSettings{RenderMode: v("render.render_mode"), APIPrefix: cur.Render.APIPrefix, EnableCORS: on("render.enable_cors")},
		AI: ai.Settings{Enabled: on("ai.enabled"), Provider: v("ai.provider"), Model: strings.TrimSpace(v("ai.model")),
			BaseURL: strings.TrimSpace(v("ai.base_url")), AutoSummary: on("ai.auto_summary"), AutoTag: on("ai.auto_tag"),
			APIKey: cur.AI.APIKey},
		// Federation has its own page (console_federation_http.go).
		Federation: cur.Federation,
	}
	switch key := strings.TrimSpace(v("ai.api_key")); {
	case on("remove_api_key"):
		next.AI.APIKey = ""
	case key != "":
		next.AI.APIKey = key
	}
	form := newSettingsForm(next)
	form.PostsPerPage, form.SummaryLength = strings.TrimSpace(v("post.posts_per_page")), strings.TrimSpace(v("post.summary_length"))
	form.RevisionsKept = strings.TrimSpace(v("post.revisions_kept"))
	// The key as stored before: a refused form changes nothing.
	form.HasKey = cur.AI.APIKey != ""
	form.KeyEnding = strings.TrimPrefix(maskKey(cur.AI.APIKey), maskPrefix)
	var err error
	if next.Post.PostsPerPage, err = strconv.Atoi(form.PostsPerPage); err != nil {
		err = &sqlstore.FieldError{Key: "post.posts_per_page", Msg: "must be a whole number"}
	} else if next.Post.SummaryLength, err = strconv.Atoi(form.SummaryLength); err != nil {
		err = &sqlstore.FieldError{Key: "post.summary_length", Msg: "must be a whole number"}
	} else if next.Post.RevisionsKept, err = strconv.Atoi(form.RevisionsKept); err != nil {
		err = &sqlstore.FieldError{Key: "post.revisions_kept", Msg: "must be a whole number"}
	} else {
		err = b.settings.Put(r.Context(), next)
	}
	if f, ok := refusal(err); ok {
		form.Field = f.Field
		return b.renderSettings(w, r, f.Status, form, f.Msg)
	}
	if err != nil {
		return err
	}
	b.console.Redirect(w, r, "/console/blog/settings", "Settings saved.")
	return nil
}
