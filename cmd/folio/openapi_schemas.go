package main

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"folio/auth"
)

// The building blocks of the OpenAPI document: JSON Schema helpers, the
// three envelopes and the resources as the handlers encode them (the JSON
// tags of blog, filehost and auth; docs/api.md).

func ref(name string) schema { return schema{"$ref": "#/components/schemas/" + name} }

func stringOf(desc string) schema {
	s := schema{"type": "string"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func integer(desc string) schema {
	s := schema{"type": "integer"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func boolean(desc string) schema {
	s := schema{"type": "boolean"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func dateTime(desc string) schema {
	s := schema{"type": "string", "format": "date-time"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func enum(desc string, values ...string) schema {
	s := stringOf(desc)
	s["enum"] = values
	return s
}

func array(items schema) schema { return schema{"type": "array", "items": items} }

func nullSchema() schema { return schema{"type": "null"} }

// nullable lets s be null too, as a Go pointer encodes.
func nullable(s schema) schema {
	if t, ok := s["type"].(string); ok {
		out := maps.Clone(s)
		out["type"] = []string{t, "null"}
		return out
	}
	return schema{"anyOf": []schema{s, nullSchema()}}
}

// object is an object whose every property is required, as encoding/json
// writes every field, except those named optional (omitempty fields, and
// every field of a request body where the handler takes any subset).
func object(props map[string]schema, optional ...string) schema {
	s := schema{"type": "object", "properties": props}
	var req []string
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if !slices.Contains(optional, k) {
			req = append(req, k)
		}
	}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

// patch is an object of which any subset may be sent.
func patch(props map[string]schema) schema { return schema{"type": "object", "properties": props} }

// extend adds props to a copy of base's properties, all required.
func extend(base map[string]schema, props map[string]schema) map[string]schema {
	out := maps.Clone(base)
	maps.Copy(out, props)
	return out
}

// withData is an envelope whose data is data.
func withData(envelope string, data schema) schema {
	return schema{"allOf": []schema{ref(envelope), {"type": "object", "properties": schema{"data": data}}}}
}

// pageB is envelope B's paged data of item.
func pageB(item string) schema {
	return schema{"allOf": []schema{ref("PageB"), {"type": "object", "properties": schema{"items": array(ref(item))}}}}
}

// pageA is envelope A's paged data of item.
func pageA(item string) schema {
	return schema{"allOf": []schema{ref("PageA"), {"type": "object", "properties": schema{"items": array(ref(item))}}}}
}

func jsonContent(s schema) map[string]schema { return map[string]schema{"application/json": s} }

// okB, okA and okLsky are a success in envelope B, envelope A and the Lsky
// shape.
func okB(status int, data schema) response {
	return response{status: status, description: successText(status), content: jsonContent(withData("EnvelopeB", data))}
}

func okA(status int, data schema) response {
	return response{status: status, description: successText(status), content: jsonContent(withData("EnvelopeA", data))}
}

func okLsky(data schema) response {
	return response{status: http.StatusOK, description: "Success.", content: jsonContent(withData("LskyEnvelope", data))}
}

func successText(status int) string {
	if status == http.StatusCreated {
		return "Created."
	}
	return "Success."
}

// errsB, errsA and errsLsky are failures in one envelope.
func errsB(statuses ...int) []response    { return errs("ErrorB", statuses) }
func errsA(statuses ...int) []response    { return errs("ErrorA", statuses) }
func errsLsky(statuses ...int) []response { return errs("LskyError", statuses) }

func errs(name string, statuses []int) []response {
	out := make([]response, len(statuses))
	for i, st := range statuses {
		out[i] = response{status: st, description: errorText(st), content: jsonContent(ref(name)), headers: errorHeaders(st), ref: name + strconv.Itoa(st)}
	}
	return out
}

// errorText says when a status happens (docs/api.md#errors).
// auditActions are the actions of audit entries (docs/observability.md#audit-log).
func auditActions() []string {
	return []string{auth.AuditWrite, auth.AuditLogin, auth.AuditLoginFailed, auth.AuditLogout, auth.AuditCommand,
		auth.AuditFactorLocked, auth.AuditFactorUnlocked}
}

// factorLimitText is the per-account limit of second-factor codes.
func factorLimitText() string {
	return fmt.Sprintf("with two-factor sign-in on, %d wrong codes or recovery codes for an account within %d minutes, "+
		"from any address and on any sign-in path, refuse every code (a right one too) with 429 and `Retry-After` for %d minutes; "+
		"a wrong password is still 401.", auth.FactorMaxFailures, int(auth.FactorWindow.Minutes()), int(auth.FactorLockTime.Minutes()))
}

func errorText(status int) string {
	switch status {
	case 400:
		return "Bad request: a malformed body, query parameter or form; the message says which."
	case 401:
		return "Missing, expired, revoked or malformed credentials, or wrong sign-in details."
	case 403:
		return "Forbidden: not an administrator, a cross-origin cookie request, or a switch that is off."
	case 404:
		return "Not found, or not visible to the caller."
	case 409:
		return "Conflict with a live resource (a duplicate slug, URL, username or email)."
	case 413:
		return "The body or the file is too large."
	case 415:
		return "The file type is not allowed."
	case 422:
		return "A field fails validation; the message names it."
	case 429:
		return "Too many requests; `Retry-After` says when to try again."
	case 502:
		return "The AI provider failed or timed out."
	case 503:
		return "The database does not answer."
	case 507:
		return "The user's storage quota would be exceeded."
	}
	return http.StatusText(status) + "."
}

func errorHeaders(status int) map[string]any {
	if status != http.StatusTooManyRequests {
		return nil
	}
	return map[string]any{"Retry-After": schema{"description": "Seconds until a request is allowed again.", "schema": integer("")}}
}

// responses joins responses and lists of them.
func responses(parts ...any) []response {
	var out []response
	for _, p := range parts {
		switch v := p.(type) {
		case response:
			out = append(out, v)
		case []response:
			out = append(out, v...)
		}
	}
	slices.SortFunc(out, func(a, b response) int { return a.status - b.status })
	return out
}

// Responses of pages and files.

func htmlSchema() schema { return schema{"type": "string", "description": "An HTML page."} }

func htmlPage(status int, description string) response {
	return response{status: status, description: description, content: map[string]schema{"text/html": htmlSchema()}}
}

// redirect is a 3xx with its Location.
func redirect(status int, description string) response {
	return response{status: status, description: description,
		headers: map[string]any{"Location": schema{"description": "Where to go.", "schema": stringOf("")}}}
}

// pageOrJSON is an error that pages show as HTML and that API clients
// (or, in headless mode, everyone) get as JSON in envelope.
func pageOrJSON(status int, description, errorSchema string) response {
	return response{status: status, description: description,
		content: map[string]schema{"text/html": htmlSchema(), "application/json": ref(errorSchema)}}
}

func bytesOf(status int, description string) response {
	return response{status: status, description: description,
		content: map[string]schema{"*/*": schema{"type": "string", "contentMediaType": "application/octet-stream"}}}
}

func textOf(status int, mediaType, description string) response {
	return response{status: status, description: description, content: map[string]schema{mediaType: stringOf("")}}
}

func noContent(description string) response {
	return response{status: http.StatusNoContent, description: description,
		headers: map[string]any{"Allow": schema{"description": "`GET, HEAD, OPTIONS`.", "schema": stringOf("")}}}
}

// Request bodies.

func jsonBody(s schema) *requestBody {
	return &requestBody{mediaType: "application/json", schema: s, required: true}
}

// form is an HTML form's fields, all text.
func formBody(fields ...string) *requestBody {
	props := map[string]schema{}
	for _, f := range fields {
		props[f] = stringOf("")
	}
	return &requestBody{mediaType: "application/x-www-form-urlencoded", schema: patch(props), required: true}
}

// Query parameters.

func queryParam(name string, s schema, description string) schema {
	return schema{"name": name, "in": "query", "required": false, "description": description, "schema": s}
}

func pageParam() schema {
	return queryParam("page", integer(""), "The page, from 1 (below 1 is 1; at most 1,000,000).")
}

func pageSizeParam(def int) schema {
	return queryParam("page_size", integer(""), "Items a page: at most 100, default "+strconv.Itoa(def)+".")
}

func sizeParam() schema {
	return queryParam("size", integer(""), "Items a page: at most 100, default 20.")
}

func keywordParam() schema { return queryParam("keyword", stringOf(""), "Text to search for.") }

// components holds the security schemes, every named schema and the
// shared responses.
func components(responses map[string]schema) schema {
	return schema{
		"responses": responses,
		"securitySchemes": schema{
			"bearerToken": schema{"type": "http", "scheme": "bearer",
				"description": "An access token (`fa1.…`, 2 hours, from `POST /api/v1/auth/login`) or an API token (`folio_…`, from `POST /api/v1/tokens`). " +
					"The bare value without `Bearer ` is accepted too. Admin routes need a user with role `admin`."},
			"sessionCookie": schema{"type": "apiKey", "in": "cookie", "name": "folio_session",
				"description": "The session cookie set by `POST /api/v1/admin/auth/login` or the console's sign-in. Unsafe methods need a same-origin `Origin` or `Referer`."},
			"accessTokenCookie": schema{"type": "apiKey", "in": "cookie", "name": "access_token",
				"description": "The access token as the cookie `POST /api/v1/auth/login` sets. Unsafe methods need a same-origin `Origin` or `Referer`."},
		},
		"schemas": componentSchemas(),
	}
}

func componentSchemas() schema {
	termRef := map[string]schema{"id": stringOf(""), "name": stringOf(""), "slug": stringOf("")}
	postItem := map[string]schema{
		"id": stringOf(""), "title": stringOf(""), "slug": stringOf(""), "summary": stringOf(""),
		"status":        enum("", "draft", "published", "archived"),
		"cover_image":   stringOf(""),
		"published_at":  nullable(dateTime("")),
		"show_comments": boolean(""),
		"category_id":   stringOf("Empty when the post has no category."),
		"category":      nullable(ref("TermRef")),
		"tags":          array(ref("TermRef")),
		"created_at":    dateTime(""), "updated_at": dateTime(""),
	}
	post := extend(postItem, map[string]schema{
		"content_markdown": stringOf(""), "content_html": stringOf("Rendered from the Markdown."),
		"toc": schema{"type": "array", "items": ref("TOCEntry"), "description": "Left out while `post.enable_toc` is off."},
	})
	postInput := map[string]schema{
		"title": stringOf("Required, at most 300 characters."), "slug": stringOf("Empty: derived from the title, the next free `-2`, `-3`... when taken; on update, a post once published keeps its slug (docs/blog-api.md#slugs). An explicit slug that is taken: 409."),
		"summary": stringOf("At most 5000 characters; empty: derived."), "content_markdown": stringOf(""),
		"status":        enum("Default `draft`.", "draft", "published", "archived"),
		"cover_image":   stringOf("An http(s) URL or a site path."),
		"published_at":  nullable(dateTime("")),
		"show_comments": boolean("Default true."),
		"category_id":   stringOf("`\"\"` for none."),
		"tag_ids":       schema{"type": "array", "items": stringOf(""), "maxItems": 50},
	}
	page := map[string]schema{
		"id": stringOf(""), "title": stringOf(""), "slug": stringOf(""), "content_markdown": stringOf(""), "content_html": stringOf(""),
		"status": enum("", "draft", "published", "archived"), "sort_order": integer(""), "show_in_nav": boolean(""),
		"published_at": nullable(dateTime("")), "template": stringOf(""), "config": stringOf("A JSON object in a string."),
		"created_at": dateTime(""), "updated_at": dateTime(""),
	}
	pageInput := map[string]schema{
		"title": stringOf("Required, at most 300 characters."), "slug": stringOf("As a post's: empty is derived from the title, and a page once published keeps its slug."), "content_markdown": stringOf(""),
		"status": enum("", "draft", "published", "archived"), "sort_order": integer(""), "show_in_nav": boolean(""),
		"template": stringOf("Default `default`."), "config": stringOf("A JSON object in a string."),
	}
	publicComment := map[string]schema{"id": stringOf(""), "author": stringOf(""), "content": stringOf(""), "created_at": dateTime(""),
		"author_handle": stringOf("A fediverse author's handle, user@host; empty for the site's own comments."),
		"author_url":    stringOf("A fediverse author's profile page; empty for the site's own comments."),
		"fediverse":     boolean("The comment is a reply from the fediverse or the administrator's reply to one."),
		"reply_to":      stringOf("The id of the comment this one answers; empty for none.")}
	link := map[string]schema{
		"id": stringOf(""), "name": stringOf(""), "url": stringOf(""), "description": stringOf(""), "logo": stringOf(""), "sort": integer(""),
		"status": enum("", "active", "pending", "down"), "is_active": boolean(""),
		"created_at": dateTime(""), "updated_at": dateTime(""),
	}
	linkInput := map[string]schema{
		"name": stringOf("Required, at most 100 characters."), "url": stringOf("An absolute http(s) URL."),
		"description": stringOf("At most 500 characters."), "logo": stringOf(""), "sort": integer(""),
		"status": enum("", "active", "pending", "down"), "is_active": boolean(""),
	}
	profile := map[string]schema{"display_name": stringOf(""), "email": stringOf(""), "bio": stringOf(""), "avatar": stringOf(""), "website": stringOf(""), "location": stringOf("")}
	settings := map[string]schema{
		"site": object(map[string]schema{"site_name": stringOf(""), "site_url": stringOf(""), "description": stringOf(""), "keywords": stringOf(""),
			"favicon": stringOf(""), "logo": stringOf(""), "icp": stringOf(""), "footer": stringOf("")}),
		"post": object(map[string]schema{"posts_per_page": integer(""), "enable_comment": boolean(""), "enable_toc": boolean(""),
			"summary_length": integer(""), "default_cover_url": stringOf(""), "revisions_kept": integer("0-1000; 0 keeps none.")}),
		"render": object(map[string]schema{"render_mode": enum("", "classic", "headless"), "api_prefix": stringOf(""), "enable_cors": boolean("")}),
		"ai": object(map[string]schema{"enabled": boolean(""), "provider": enum("", "openai", "ollama"), "api_key": stringOf("Masked: `****` and the last four characters."),
			"model": stringOf(""), "base_url": stringOf(""), "auto_summary": boolean(""), "auto_tag": boolean("")}),
		"federation": object(map[string]schema{"enabled": boolean("The blog can be followed from the fediverse (docs/federation.md)."),
			"username":          stringOf("The actor's handle, `@{username}@{host}`: 1-30 lowercase letters, digits or underscores."),
			"approve_followers": boolean("New followers wait for the administrator's approval."),
			"authorized_fetch":  boolean("Posts' ActivityStreams documents only to signed requests of servers not blocked.")}),
		"upload": object(map[string]schema{"allow_guest_upload": boolean(""), "allow_duplicate": boolean(""), "allow_register": boolean(""),
			"max_file_size": integer("Bytes."), "forbidden_exts": stringOf("A comma-separated list."), "allowed_types": stringOf("A comma-separated list."),
			"path_pattern": stringOf(""), "default_quota_bytes": integer(""), "strip_metadata": boolean("")}),
	}
	settingsPatch := map[string]schema{}
	for k, v := range settings {
		settingsPatch[k] = schema{"type": "object", "properties": v["properties"]}
	}
	// Lists are accepted as one comma-separated string or as an array.
	list := schema{"anyOf": []schema{stringOf("Comma-separated."), array(stringOf(""))}}
	uploadPatch := maps.Clone(settings["upload"]["properties"].(map[string]schema))
	uploadPatch["forbidden_exts"], uploadPatch["allowed_types"] = list, list
	settingsPatch["upload"] = schema{"type": "object", "properties": uploadPatch}
	visibility := enum("`public`: listed in the plaza; `unlisted`: served to anyone with the link, listed nowhere; "+
		"`restricted`: served only to its owner's session or token and through its share links, to anyone else its links answer as a missing file.",
		"public", "unlisted", "restricted")
	links := map[string]schema{"url": stringOf("The short link."), "thumbnail_url": stringOf(""), "markdown": stringOf(""), "html": stringOf(""),
		"bbcode": stringOf(""), "delete_url": stringOf(""), "markdown_with_link": stringOf("")}
	file := map[string]schema{
		"id": stringOf(""), "key": stringOf("The storage key."), "name": stringOf(""), "origin_name": stringOf("The uploaded name, cleaned."),
		"size": integer("Bytes."), "mimetype": stringOf(""), "extension": stringOf(""), "md5": stringOf(""),
		"file_type": enum("", "image", "video", "audio", "file"), "width": integer(""), "height": integer(""),
		"album_id": stringOf("Empty when in no album."), "visibility": visibility,
		"is_public": boolean("`visibility` is `public`, for older clients."), "links": ref("FileLinks"),
		"created_at": dateTime(""), "expires_at": nullable(dateTime("Null: kept until deleted.")),
	}
	upload := map[string]schema{
		"id": stringOf(""), "key": stringOf("The storage key."), "name": stringOf("The key's base name."), "pathname": stringOf("The same as key."),
		"origin_name": stringOf(""), "size": integer(""), "mimetype": stringOf(""), "extension": stringOf(""), "md5": stringOf(""),
		"links": ref("FileLinks"), "expires_at": nullable(dateTime("")),
	}
	token := map[string]schema{"id": stringOf(""), "name": stringOf(""), "created_at": dateTime(""),
		"expires_at": nullable(dateTime("")), "last_used_at": nullable(dateTime(""))}
	userProps := map[string]schema{"id": stringOf(""), "username": stringOf(""), "email": stringOf(""), "role": enum("`guest` owns guest uploads.", "admin", "user", "guest"),
		"status": enum("", "active", "disabled"), "quota_bytes": integer("0: no quota."), "used_bytes": integer(""),
		"file_count": integer(""), "default_visibility": enum("The visibility of uploads that ask for none (`unlisted` unless changed).", "public", "unlisted", "restricted"),
		"created_at": dateTime("")}

	return schema{
		"EnvelopeB":    object(map[string]schema{"code": integer("The HTTP status."), "data": schema{}, "msg": stringOf("`ok`, `created` for 201, `moved permanently` for 301.")}),
		"ErrorB":       object(map[string]schema{"code": integer("The HTTP status."), "data": nullSchema(), "msg": stringOf("What went wrong, safe to show.")}),
		"EnvelopeA":    object(map[string]schema{"code": schema{"const": 0}, "message": schema{"const": "success"}, "data": schema{}}),
		"ErrorA":       object(map[string]schema{"code": integer("The HTTP status × 100."), "message": stringOf("What went wrong, safe to show."), "data": nullSchema()}),
		"LskyEnvelope": object(map[string]schema{"status": schema{"const": true}, "message": schema{"const": "success"}, "data": schema{}}),
		"LskyError": object(map[string]schema{"status": schema{"const": false}, "message": stringOf("What went wrong, safe to show."),
			"data": nullSchema(), "code": integer("The HTTP status × 100.")}),
		"PageB": object(map[string]schema{"items": array(schema{}), "pagination": object(map[string]schema{
			"page": integer(""), "page_size": integer(""), "total": integer("")})}),
		"PageA": object(map[string]schema{"items": array(schema{}), "total": integer(""), "page": integer(""), "size": integer("")}),

		"Health":       object(map[string]schema{"status": enum("", "ok", "unavailable"), "render_mode": enum("", "classic", "headless")}),
		"AdminLogin":   object(map[string]schema{"username": stringOf(""), "password": stringOf(""), "otp": stringOf("A TOTP or recovery code, with two-factor sign-in on.")}, "otp"),
		"AdminProfile": object(profile),
		"AdminSession": object(map[string]schema{"logged_in": boolean(""), "username": stringOf(""), "role": stringOf(""), "profile": ref("AdminProfile"), "expires_at": dateTime("Only in the login answer.")}, "expires_at"),
		"TermRef":      object(termRef),
		"TOCEntry":     object(map[string]schema{"level": integer(""), "text": stringOf(""), "id": stringOf("")}),
		"PostItem":     object(postItem),
		"Post":         object(post, "toc"),
		"PostInput":    object(postInput, "slug", "summary", "content_markdown", "status", "cover_image", "published_at", "show_comments", "category_id", "tag_ids"),
		"PostPatch":    patch(postInput),
		"Page":         object(page),
		"RevisionItem": object(map[string]schema{"id": stringOf(""), "title": stringOf("The title of that version."),
			"created_at": dateTime("When a save replaced it."), "size": integer("Bytes of its Markdown.")}),
		"PostRevision": object(map[string]schema{"id": stringOf(""), "created_at": dateTime(""), "title": stringOf(""), "slug": stringOf(""),
			"summary": stringOf(""), "summary_source": enum("Where the summary came from: a restore derives an `auto` one again.", "manual", "auto", "ai"),
			"content_markdown": stringOf(""), "status": enum("", "draft", "published", "archived"), "published_at": nullable(dateTime("")),
			"category_id": stringOf(""), "tag_ids": array(stringOf("")), "cover_image": stringOf(""), "show_comments": boolean("")}),
		"PageRevision": object(map[string]schema{"id": stringOf(""), "created_at": dateTime(""), "title": stringOf(""), "slug": stringOf(""),
			"content_markdown": stringOf(""), "status": enum("", "draft", "published", "archived"), "sort_order": integer(""),
			"show_in_nav": boolean(""), "published_at": nullable(dateTime("Shown, not restored.")), "template": stringOf(""), "config": stringOf("")}),
		"Moved":           object(map[string]schema{"id": stringOf(""), "slug": stringOf("The current slug."), "location": stringOf("The same as the `Location` header.")}),
		"PageInput":       object(pageInput, "slug", "content_markdown", "status", "sort_order", "show_in_nav", "template", "config"),
		"PagePatch":       patch(pageInput),
		"Term":            object(extend(termRef, map[string]schema{"created_at": dateTime(""), "updated_at": dateTime("")})),
		"TermInput":       object(map[string]schema{"name": stringOf("Required, at most 100 characters."), "slug": stringOf("")}, "slug"),
		"TermPatch":       patch(map[string]schema{"name": stringOf(""), "slug": stringOf("")}),
		"PublicComment":   object(publicComment),
		"AdminComment":    object(extend(publicComment, map[string]schema{"email": stringOf(""), "ip": stringOf(""), "user_agent": stringOf(""), "post_id": stringOf(""), "post_title": stringOf(""), "status": enum("", "pending", "approved", "spam")})),
		"CommentInput":    object(map[string]schema{"author": stringOf("1-50 characters."), "email": stringOf("A plain address."), "content": stringOf("1-5000 characters.")}),
		"CommentReceipt":  object(map[string]schema{"id": stringOf(""), "status": enum("", "pending"), "created_at": dateTime("")}),
		"CommentReview":   object(map[string]schema{"status": enum("", "approved", "pending", "spam")}),
		"CommentStats":    object(map[string]schema{"total": integer(""), "approved": integer(""), "pending": integer(""), "spam": integer("")}),
		"FriendLink":      object(link),
		"FriendLinkInput": object(linkInput, "description", "logo", "sort", "status", "is_active"),
		"FriendLinkPatch": patch(linkInput),
		"Settings":        object(settings),
		"SettingsPatch":   patch(settingsPatch),
		"AIInput":         patch(map[string]schema{"post_id": stringOf("A post whose text to use."), "title": stringOf(""), "content_markdown": stringOf("")}),
		"AISummary":       object(map[string]schema{"summary": stringOf("")}),
		"AITags":          object(map[string]schema{"tags": schema{"type": "array", "items": stringOf(""), "maxItems": 5}}),

		"ImportForm": object(map[string]schema{
			"file":   schema{"type": "string", "contentMediaType": "application/octet-stream", "description": "The export."},
			"format": enum("Empty: recognised from the file. `markdown` is a Hugo or Jekyll site, in an archive.", "", "folio", "ghost", "wxr", "markdown"),
			"media":  enum("Bring the images home: `1`, `true` or `on`; empty, `0`, `false` or `off` (the default) leaves them at the old site.", "", "0", "1", "true", "false", "on", "off"),
			"from":   stringOf("The old site's address, an http(s) URL (`https://old.example`), for exports that do not say it (Ghost, Hugo)."),
		}, "format", "media", "from"),
		"ImportCount": object(map[string]schema{"created": integer("Added by the import."), "skipped": integer("Already there (matched), or, for media, already brought home."),
			"changed": integer("Of the created, those not exactly as the export had them (a warning says how); for media, left at the old address.")}),
		"ImportResult": object(map[string]schema{"format": enum("", "folio", "ghost", "wxr", "markdown"),
			"posts": ref("ImportCount"), "pages": ref("ImportCount"), "categories": ref("ImportCount"), "tags": ref("ImportCount"),
			"comments": ref("ImportCount"), "friend_links": ref("ImportCount"),
			"redirects": ref("ImportCount"), "media": ref("ImportCount"),
			"settings": object(map[string]schema{"updated": integer(""), "skipped": integer("")}),
			"losses": schema{"type": "object", "additionalProperties": integer(""),
				"description": "What the content's conversion could not keep as it was, by kind (a short phrase), with how many times."},
			"warnings": array(stringOf("What was left out or changed, naming the item."))}),
		"AuditEntry": object(map[string]schema{"id": stringOf(""), "at": dateTime(""), "user_id": stringOf(""), "username": stringOf(""),
			"via": stringOf(""), "action": enum("", auditActions()...), "method": stringOf(""),
			"route": stringOf("The matched route pattern's path."), "path": stringOf(""),
			"resource_id": stringOf("The last wildcard of the route; for `factor_locked` and `factor_unlocked`, the end of the lock (RFC 3339)."),
			"status":      integer(""), "client_ip": stringOf("")}),
		"FileLinks": object(links),
		"File":      object(file),
		"AdminFile": object(extend(file, map[string]schema{"user_id": stringOf(""), "username": stringOf("")})),
		"PlazaFile": object(extend(file, map[string]schema{"username": stringOf("")})),
		"FilePatch": patch(map[string]schema{"origin_name": stringOf(""), "album_id": stringOf("`\"\"` takes the file out of its album."), "visibility": visibility,
			"is_public": boolean("For older clients: `true` is `public`, `false` `unlisted`; sent with `visibility`, the two must agree.")}),
		"MePatch":     patch(map[string]schema{"default_visibility": enum("The visibility of uploads that ask for none.", "public", "unlisted", "restricted")}),
		"BatchDelete": object(map[string]schema{"ids": schema{"type": "array", "items": stringOf(""), "minItems": 1, "maxItems": 1000}}),
		"Deleted":     object(map[string]schema{"deleted": integer("How many of the caller's files were deleted.")}),
		"UploadForm": object(map[string]schema{
			"file":        schema{"type": "string", "contentMediaType": "application/octet-stream", "description": "The file."},
			"album_id":    stringOf("One of the caller's albums."),
			"permission":  enum("Lsky Pro's: `0` unlisted, `1` public. With neither it nor `visibility`, the caller's `default_visibility`.", "0", "1"),
			"visibility":  enum("`public`, `unlisted` or `restricted` (not for guests); sent with `permission`, the two must agree.", "public", "unlisted", "restricted"),
			"expires_in":  stringOf("Seconds, 1 to 316224000."),
			"expires_at":  stringOf("RFC 3339, in the future, at most ten years ahead; not with expires_in."),
			"strategy_id": stringOf("Ignored (Lsky Pro compatibility)."),
			"ssl":         stringOf("Ignored (Lsky Pro compatibility)."),
		}, "album_id", "permission", "visibility", "expires_in", "expires_at", "strategy_id", "ssl"),
		"UploadResult":   object(upload),
		"LskyImage":      object(extend(upload, map[string]schema{"width": integer(""), "height": integer(""), "date": stringOf("")})),
		"LskyImagePage":  object(map[string]schema{"current_page": integer(""), "last_page": integer(""), "per_page": integer(""), "total": integer(""), "data": array(ref("LskyImage"))}),
		"LskyProfile":    object(map[string]schema{"name": stringOf(""), "email": stringOf(""), "capacity": schema{"type": "number", "description": "KB."}, "used_capacity": schema{"type": "number", "description": "KB."}, "image_num": integer(""), "album_num": integer("")}),
		"LskyStrategies": object(map[string]schema{"strategies": array(object(map[string]schema{"id": integer(""), "name": stringOf("")}))}),
		"Share":          object(map[string]schema{"id": stringOf(""), "url": stringOf("`{base_url}/s/{token}`."), "expires_at": nullable(dateTime("")), "max_views": nullable(integer("")), "views": integer(""), "has_password": boolean(""), "created_at": dateTime("")}),
		"ShareInput":     patch(map[string]schema{"expires_at": nullable(dateTime("In the future.")), "max_views": nullable(integer("1 to 1000000000.")), "password": nullable(stringOf("At least 8 characters (Unicode code points), at most 72 bytes."))}),
		"Album":          object(map[string]schema{"id": stringOf(""), "name": stringOf(""), "description": stringOf(""), "is_public": boolean(""), "file_count": integer(""), "created_at": dateTime(""), "updated_at": dateTime("")}),
		"AlbumInput":     object(map[string]schema{"name": stringOf("1-100 characters."), "description": stringOf("At most 1000 characters."), "is_public": boolean("")}, "description", "is_public"),
		"AlbumPatch":     patch(map[string]schema{"name": stringOf(""), "description": stringOf(""), "is_public": boolean("")}),
		"Token":          object(token),
		"NewToken":       object(extend(token, map[string]schema{"token": stringOf("The value (`folio_…`), shown only here.")})),
		"TokenInput":     object(map[string]schema{"name": stringOf("1-100 characters."), "expires_at": nullable(dateTime("In the future."))}, "expires_at"),
		"User":           object(userProps),
		"RegisterInput":  object(map[string]schema{"username": stringOf("3-32 of `A-Z a-z 0-9 _ -`."), "email": stringOf(""), "password": stringOf("8-72 bytes.")}),
		"LoginInput":     object(map[string]schema{"username": stringOf("The username or the email."), "email": stringOf("Accepted in place of username."), "password": stringOf(""), "otp": stringOf("With two-factor sign-in on.")}, "username", "email", "otp"),
		"TokenPair":      object(map[string]schema{"access_token": stringOf(""), "refresh_token": stringOf(""), "token_type": schema{"const": "Bearer"}, "expires_in": integer("Seconds (7200)."), "user": ref("User")}),
		"RefreshInput":   object(map[string]schema{"refresh_token": stringOf("")}),
		"LogoutInput":    patch(map[string]schema{"refresh_token": stringOf("")}),
		"PublicStats":    object(map[string]schema{"files": integer(""), "users": integer(""), "storage_bytes": integer(""), "images": integer(""), "today_uploads": integer("")}),
		"AdminStats": object(map[string]schema{"users": integer(""), "files": integer(""), "objects": integer(""), "albums": integer(""),
			"record_bytes": integer(""), "storage_bytes": integer(""), "dedup_savings_bytes": integer(""), "variant_bytes": integer("The image sizes stored besides the uploads (docs/filehost.md#sizes)."),
			"by_type":   array(object(map[string]schema{"file_type": stringOf(""), "files": integer(""), "bytes": integer("")})),
			"top_users": array(object(map[string]schema{"user_id": stringOf(""), "username": stringOf(""), "role": stringOf(""), "files": integer(""), "bytes": integer("")}))}),
		"AdminUserInput": object(map[string]schema{"username": stringOf(""), "email": stringOf(""), "password": stringOf(""), "role": enum("Default `user`.", "admin", "user"), "quota_bytes": integer("Omitted: `upload.default_quota_bytes`.")}, "role", "quota_bytes"),
		"AdminUserPatch": patch(map[string]schema{"status": enum("", "active", "disabled"), "role": enum("", "admin", "user"), "quota_bytes": integer(""), "password": stringOf("")}),
	}
}
