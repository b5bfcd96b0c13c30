package main

import (
	"maps"
	"net/http"
)

// openAPITags lists the document's tags, in the order readers meet them.
func openAPITags() []schema {
	tags := []struct{ name, desc string }{
		{"system", "The process: health and this document."},
		{"admin-session", "The administrator's sign-in for the blog API (envelope B)."},
		{"posts", "Blog posts (envelope B)."},
		{"pages", "Blog pages: standalone pages such as About (envelope B)."},
		{"categories", "Post categories (envelope B)."},
		{"tags", "Post tags (envelope B)."},
		{"comments", "Comments on posts (envelope B)."},
		{"friend-links", "Friend links (envelope B)."},
		{"settings", "Runtime settings (envelope B)."},
		{"revisions", "The versions of posts and pages that saves replaced (envelope B)."},
		{"ai", "AI summaries and tag suggestions (envelope B)."},
		{"export-import", "Blog export and import (envelope B)."},
		{"audit-log", "The audit log of administrator writes and sign-ins (envelope B)."},
		{"accounts", "File host accounts: register, sign in, refresh (envelope A)."},
		{"uploads", "Uploads, in the Lsky Pro shape."},
		{"files", "The caller's files (envelope A)."},
		{"share-links", "Share links of a file (envelope A)."},
		{"albums", "The caller's albums (envelope A)."},
		{"tokens", "The caller's API tokens (envelope A)."},
		{"public", "Public numbers and the public image plaza (envelope A)."},
		{"file-admin", "File host administration (envelope A)."},
		{"lsky", "Lsky Pro 2.x compatibility for PicGo, ShareX and similar clients."},
		{"site", "The classic site: server-rendered HTML, feeds and sitemap."},
		{"short-links", "Short links to stored files and thumbnails."},
		{"share-pages", "The pages behind a share link, for anyone who has it."},
		{"federation", "ActivityPub: discovery, the blog's actor, its collections and activities, and its inboxes (404 while federation is off)."},
		{"console", "The web console: server-rendered HTML pages for every account."},
	}
	out := make([]schema, len(tags))
	for i, t := range tags {
		out[i] = schema{"name": t.name, "description": t.desc}
	}
	return out
}

// operations is the table of every documented operation, keyed by
// "METHOD /path" as documentedOps writes registered patterns.
func operations() map[string]operation {
	// Blog API.
	listB := func(id, summary, tag, item string, auth authKind, params ...schema) operation {
		rs := responses(okB(200, pageB(item)), errsB(400))
		if auth == admin {
			rs = responses(okB(200, pageB(item)), errsB(400, 401, 403))
		}
		return operation{id: id, summary: summary, tag: tag, auth: auth, params: append([]schema{pageParam(), pageSizeParam(10)}, params...), responses: rs}
	}
	getB := func(id, summary, tag, item string, auth authKind) operation {
		rs := responses(okB(200, ref(item)), errsB(404))
		if auth == admin {
			rs = responses(okB(200, ref(item)), errsB(401, 403, 404))
		}
		return operation{id: id, summary: summary, tag: tag, auth: auth, responses: rs}
	}
	writeB := func(id, summary, tag, body, item string, status int, errs ...int) operation {
		return operation{id: id, summary: summary, tag: tag, auth: admin, body: jsonBody(ref(body)),
			responses: responses(okB(status, ref(item)), errsB(errs...))}
	}
	deleteB := func(id, summary, tag string) operation {
		return operation{id: id, summary: summary, tag: tag, auth: admin, responses: responses(okB(200, nullSchema()), errsB(401, 403, 404))}
	}
	preflight := func(id, tag string) operation {
		return operation{id: id, summary: "CORS preflight of a public read", tag: tag,
			description: "204 with `Allow: GET, HEAD, OPTIONS`; the CORS headers only while `render.enable_cors` is on.",
			responses:   responses(noContent("The methods allowed."))}
	}
	status := queryParam("status", enum("", "draft", "published", "archived"), "Only this status.")
	// A by-slug read of a slug a visible post or page gave up
	// (docs/blog-api.md#slug-changes).
	moved := func(op operation) operation {
		op.responses = responses(op.responses, response{status: 301, description: "The slug was given up: `Location` and the body name the new one.",
			content: jsonContent(withData("EnvelopeB", ref("Moved"))),
			headers: map[string]any{"Location": schema{"description": "The same route with the new slug.", "schema": stringOf("")}}})
		return op
	}
	// Revisions (docs/blog-api.md#revisions).
	listRevisions := func(id, what string) operation {
		op := listB(id, "The versions saves of a "+what+" replaced, newest first", "revisions", "RevisionItem", admin)
		op.responses = responses(op.responses, errsB(404))
		return op
	}
	getRevision := func(id, what, item string) operation {
		return getB(id, "One revision of a "+what+" in full", "revisions", item, admin)
	}
	restoreRevision := func(id, what, item string) operation {
		return operation{id: id, summary: "Save a revision as the " + what + "'s new state", tag: "revisions", auth: admin,
			description: "Through the normal save path, which keeps the replaced version as a revision too.",
			responses:   responses(okB(200, ref(item)), errsB(401, 403, 404, 409, 422))}
	}
	// File API.
	listA := func(id, summary, tag, item string, auth authKind, params ...schema) operation {
		rs := responses(okA(200, pageA(item)), errsA(400, 401))
		if auth == admin {
			rs = responses(okA(200, pageA(item)), errsA(400, 401, 403))
		} else if auth == public {
			rs = responses(okA(200, pageA(item)), errsA(400))
		}
		return operation{id: id, summary: summary, tag: tag, auth: auth, params: append([]schema{pageParam(), sizeParam()}, params...), responses: rs}
	}
	order := queryParam("order", enum("", "ASC", "DESC"), "The direction.")
	fileFilters := []schema{
		queryParam("order_by", enum("", "created_at", "size", "origin_name"), "The sort key."), order,
		queryParam("album_id", stringOf(""), "Only files of this album."),
		queryParam("file_type", enum("", "image", "video", "audio", "file"), "Only files of this type."),
		keywordParam(),
	}
	// Pages.
	site := func(id, summary string, params ...schema) operation {
		return operation{id: id, summary: summary, tag: "site", params: params,
			responses: responses(htmlPage(200, "The page."), response{status: 304, description: "Not modified since the ETag or date sent."},
				pageOrJSON(404, "Not found (the site's 404 page); in headless mode every site route answers the envelope-B 404.", "ErrorB"))}
	}
	// A post or page whose slug was given up: to the new one.
	movedPage := func(op operation) operation {
		op.responses = responses(op.responses, redirect(301, "The slug was given up while public: to the new one, the query kept."))
		return op
	}
	feed := func(id, summary, mediaType string) operation {
		return operation{id: id, summary: summary, tag: "site",
			responses: responses(textOf(200, mediaType, "The document."), response{status: 304, description: "Not modified."},
				pageOrJSON(404, "In headless mode: the envelope-B 404.", "ErrorB"))}
	}
	// negotiated adds the ActivityStreams answer of a page that gives one
	// while federation is on.
	negotiated := func(op operation, doc string) operation {
		for i, r := range op.responses {
			if r.status == 200 {
				c := maps.Clone(r.content)
				c["application/activity+json"] = schema{"type": "object", "description": doc + " While federation is on, to an `Accept` asking for ActivityStreams."}
				op.responses[i].content = c
			}
		}
		op.responses = responses(op.responses, response{status: 410, description: "A post sent to the fediverse and then deleted or unpublished: a `Tombstone`, while federation is on.",
			content: map[string]schema{"application/activity+json": {"type": "object"}}})
		return op
	}
	fedGet := func(id, summary, doc string, errs ...response) operation {
		return operation{id: id, summary: summary, tag: "federation",
			responses: responses(response{status: 200, description: doc, content: map[string]schema{"application/activity+json": {"type": "object"}}}, errsB(404), errs)}
	}
	fedInbox := func(id, summary string) operation {
		return operation{id: id, summary: summary, tag: "federation",
			description: "A signed activity (HTTP Signatures: `(request-target)`, `host`, `date`, `digest`).",
			body:        &requestBody{mediaType: "application/activity+json", schema: schema{"type": "object"}, required: true},
			responses:   responses(response{status: 202, description: "Accepted."}, errsB(400, 401, 403, 404, 413, 429))}
	}
	okJSON := func(status int, description string) response {
		return response{status: status, description: description, content: map[string]schema{"application/json": {"type": "object"}}}
	}
	tooManyMisses := pageOrJSON(429, "More than 60 misses of short links and share links a minute from this address: every link route is refused until the allowance grows back (`Retry-After`).", "ErrorA")
	shortLink := func(id, summary string) operation {
		return operation{id: id, summary: summary, tag: "short-links",
			description: "Carries `ETag`, `Last-Modified`, a year of immutable caching and `Content-Disposition`; answers byte ranges (206) and 304s. " +
				"A `restricted` file is served only to its owner's session or token (with `Cache-Control: private, no-cache`); to anyone else it answers exactly as a missing file.",
			responses: responses(bytesOf(200, "The file's bytes."), bytesOf(206, "A byte range."), response{status: 304, description: "Not modified."},
				pageOrJSON(404, "No such file (or a `restricted` one, to anyone but its owner): an HTML page to a browser, envelope A otherwise.", "ErrorA"), tooManyMisses)}
	}
	// sized adds /i/'s w: a narrower copy of a JPEG, PNG, GIF or WebP.
	sized := func(op operation) operation {
		op.params = append(op.params, queryParam("w", integer("One of 160, 320, 480, 640, 800, 960, 1280, 1600, 1920, 2560."),
			"A copy of the image this many pixels wide, upright, keeping its colour profile and nothing else of its metadata: JPEG for a JPEG or WebP, PNG for a PNG or GIF, with an `ETag` of its own. "+
				"The original is served when it is not wider, and for an animated GIF."))
		op.responses = responses(op.responses, pageOrJSON(400, "`w` is not one of the widths listed: an HTML page to a browser, envelope A otherwise.", "ErrorA"))
		return op
	}
	page := func(id, summary string, auth authKind, extra ...response) operation {
		rs := []any{htmlPage(200, "The page.")}
		if auth == console {
			rs = append(rs, redirect(303, "No console session: to `/console/login?next=…`."))
		}
		for _, e := range extra {
			rs = append(rs, e)
		}
		return operation{id: id, summary: summary, tag: "console", auth: auth, responses: responses(rs...)}
	}
	post := func(id, summary string, auth authKind, body *requestBody, ok response, errStatuses ...int) operation {
		rs := []any{ok, htmlPage(403, "The form was refused: another origin, no `Origin` or `Referer` naming the site, or a missing or stale form token.")}
		if auth == console && ok.status != 303 {
			rs = append(rs, redirect(303, "No console session: to the sign-in page."))
		}
		for _, st := range errStatuses {
			rs = append(rs, htmlPage(st, errorText(st)))
		}
		return operation{id: id, summary: summary, tag: "console", auth: auth, body: body, responses: responses(rs...)}
	}
	back := func(desc string) response { return redirect(303, desc) }
	with := func(op operation, params ...schema) operation {
		op.params = append(op.params, params...)
		return op
	}
	described := func(op operation, desc string) operation {
		op.description = desc
		return op
	}
	formToken := queryParam("form_token", stringOf(""), "The form token: multipart forms carry it here.")
	typeParam := queryParam("type", enum("", "image", "video", "audio", "file"), "Only files of this type.")
	qParam := queryParam("q", stringOf(""), "Text to search for.")
	forbiddenAdmin := htmlPage(403, "A `user` account: administrators only.")

	return map[string]operation{
		// System.
		"GET /api/v1/health": {id: "getHealth", summary: "Health check", tag: "system",
			responses: responses(okB(200, ref("Health")),
				response{status: 503, description: errorText(503), content: jsonContent(withData("EnvelopeB", ref("Health")))})},
		"OPTIONS /api/v1/health": preflight("preflightHealth", "system"),
		"GET /api/v1/openapi.json": {id: "getOpenAPI", summary: "This OpenAPI document", tag: "system",
			description: "Built at start-up from the route table; the same bytes until the binary changes. Carries an `ETag`; `If-None-Match` gives 304.",
			responses: responses(response{status: 200, description: "The document.", content: jsonContent(schema{"type": "object"}),
				headers: map[string]any{"ETag": schema{"description": "The document's version.", "schema": stringOf("")}}},
				response{status: 304, description: "Not modified since the ETag sent."})},
		"OPTIONS /api/v1/openapi.json": preflight("preflightOpenAPI", "system"),

		// Admin session.
		"POST /api/v1/admin/auth/login": {id: "adminLogin", summary: "Sign the administrator in", tag: "admin-session",
			description: "Sets the `folio_session` cookie. Rate limited: 20 a minute per address, and " + factorLimitText(),
			body:        jsonBody(ref("AdminLogin")),
			responses:   responses(okB(200, ref("AdminSession")), errsB(400, 401, 429))},
		"GET /api/v1/admin/auth/me":      getB("adminMe", "The signed-in administrator", "admin-session", "AdminSession", admin),
		"POST /api/v1/admin/auth/logout": {id: "adminLogout", summary: "Sign out: the session is revoked", tag: "admin-session", auth: admin, responses: responses(okB(200, nullSchema()), errsB(401, 403))},

		// Posts.
		"GET /api/v1/posts": listB("listPosts", "Public posts, newest publication first", "posts", "PostItem", public,
			keywordParam(), queryParam("tag_id", stringOf(""), "Only posts with this tag."), queryParam("category_id", stringOf(""), "Only posts in this category.")),
		"OPTIONS /api/v1/posts":               preflight("preflightPosts", "posts"),
		"GET /api/v1/posts/{id}":              getB("getPost", "A public post", "posts", "Post", public),
		"OPTIONS /api/v1/posts/{id}":          preflight("preflightPost", "posts"),
		"GET /api/v1/posts/slug/{slug}":       moved(getB("getPostBySlug", "A public post by slug", "posts", "Post", public)),
		"OPTIONS /api/v1/posts/slug/{slug}":   preflight("preflightPostBySlug", "posts"),
		"GET /api/v1/posts/{id}/comments":     listCommentsOp(),
		"OPTIONS /api/v1/posts/{id}/comments": preflight("preflightPostComments", "comments"),
		"GET /api/v1/admin/posts":             listB("adminListPosts", "Every post, newest created first", "posts", "PostItem", admin, keywordParam(), status, queryParam("tag_id", stringOf(""), "Only posts with this tag."), queryParam("category_id", stringOf(""), "Only posts in this category.")),
		"GET /api/v1/admin/posts/{id}":        getB("adminGetPost", "A post of any status", "posts", "Post", admin),
		"GET /api/v1/admin/posts/slug/{slug}": moved(getB("adminGetPostBySlug", "A post of any status by slug", "posts", "Post", admin)),
		"POST /api/v1/admin/posts":            writeB("createPost", "Create a post", "posts", "PostInput", "Post", 201, 400, 401, 403, 409, 413, 422),
		"PUT /api/v1/admin/posts/{id}":        writeB("replacePost", "Replace a post (omitted fields take their defaults)", "posts", "PostInput", "Post", 200, 400, 401, 403, 404, 409, 413, 422),
		"PATCH /api/v1/admin/posts/{id}":      writeB("updatePost", "Change some fields of a post", "posts", "PostPatch", "Post", 200, 400, 401, 403, 404, 409, 413, 422),
		"DELETE /api/v1/admin/posts/{id}":     deleteB("deletePost", "Delete a post (soft delete)", "posts"),
		"POST /api/v1/posts/{id}/comments":    {id: "submitComment", summary: "Submit a comment for moderation", tag: "comments", description: "Rate limited: 5 a minute per address, shared with the site's comment form.", body: jsonBody(ref("CommentInput")), responses: responses(okB(201, ref("CommentReceipt")), errsB(400, 403, 404, 413, 422, 429))},
		"GET /api/v1/admin/comments":          listB("adminListComments", "Every comment", "comments", "AdminComment", admin, queryParam("status", enum("", "approved", "pending", "spam"), "Only this status."), keywordParam(), queryParam("post_id", stringOf(""), "Only comments on this post.")),
		"GET /api/v1/admin/comments/stats":    {id: "commentStats", summary: "Comment counts by status", tag: "comments", auth: admin, responses: responses(okB(200, ref("CommentStats")), errsB(401, 403))},
		"PATCH /api/v1/admin/comments/{id}":   writeB("reviewComment", "Approve, hold or mark a comment as spam", "comments", "CommentReview", "AdminComment", 200, 400, 401, 403, 404, 422),
		"DELETE /api/v1/admin/comments/{id}":  deleteB("deleteComment", "Delete a comment for good", "comments"),
		"GET /api/v1/pages":                   listB("listPages", "Public pages", "pages", "Page", public),
		"OPTIONS /api/v1/pages":               preflight("preflightPages", "pages"),
		"GET /api/v1/pages/slug/{slug}":       moved(getB("getPageBySlug", "A public page by slug", "pages", "Page", public)),
		"OPTIONS /api/v1/pages/slug/{slug}":   preflight("preflightPageBySlug", "pages"),
		"GET /api/v1/admin/pages":             listB("adminListPages", "Every page", "pages", "Page", admin, status, keywordParam()),
		"GET /api/v1/admin/pages/{id}":        getB("adminGetPage", "A page of any status", "pages", "Page", admin),
		"POST /api/v1/admin/pages":            writeB("createPage", "Create a page", "pages", "PageInput", "Page", 201, 400, 401, 403, 409, 413, 422),
		"PUT /api/v1/admin/pages/{id}":        writeB("replacePage", "Replace a page", "pages", "PageInput", "Page", 200, 400, 401, 403, 404, 409, 413, 422),
		"PATCH /api/v1/admin/pages/{id}":      writeB("updatePage", "Change some fields of a page", "pages", "PagePatch", "Page", 200, 400, 401, 403, 404, 409, 413, 422),
		"DELETE /api/v1/admin/pages/{id}":     deleteB("deletePage", "Delete a page", "pages"),

		// Revisions.
		"GET /api/v1/admin/posts/{id}/revisions":                listRevisions("listPostRevisions", "post"),
		"GET /api/v1/admin/posts/{id}/revisions/{rev}":          getRevision("getPostRevision", "post", "PostRevision"),
		"POST /api/v1/admin/posts/{id}/revisions/{rev}/restore": restoreRevision("restorePostRevision", "post", "Post"),
		"GET /api/v1/admin/pages/{id}/revisions":                listRevisions("listPageRevisions", "page"),
		"GET /api/v1/admin/pages/{id}/revisions/{rev}":          getRevision("getPageRevision", "page", "PageRevision"),
		"POST /api/v1/admin/pages/{id}/revisions/{rev}/restore": restoreRevision("restorePageRevision", "page", "Page"),
		"GET /api/v1/categories":                                listB("listCategories", "Categories, oldest first", "categories", "Term", public, keywordParam()),
		"OPTIONS /api/v1/categories":                            preflight("preflightCategories", "categories"),
		"GET /api/v1/categories/{id}":                           getB("getCategory", "A category", "categories", "Term", public),
		"OPTIONS /api/v1/categories/{id}":                       preflight("preflightCategory", "categories"),
		"GET /api/v1/admin/categories":                          listB("adminListCategories", "Categories", "categories", "Term", admin, keywordParam()),
		"GET /api/v1/admin/categories/{id}":                     getB("adminGetCategory", "A category", "categories", "Term", admin),
		"POST /api/v1/admin/categories":                         writeB("createCategory", "Create a category", "categories", "TermInput", "Term", 201, 400, 401, 403, 409, 422),
		"PUT /api/v1/admin/categories/{id}":                     writeB("replaceCategory", "Replace a category", "categories", "TermInput", "Term", 200, 400, 401, 403, 404, 409, 422),
		"PATCH /api/v1/admin/categories/{id}":                   writeB("updateCategory", "Change a category", "categories", "TermPatch", "Term", 200, 400, 401, 403, 404, 409, 422),
		"DELETE /api/v1/admin/categories/{id}":                  deleteB("deleteCategory", "Delete a category; its posts lose it", "categories"),
		"GET /api/v1/tags":                                      listB("listTags", "Tags, oldest first", "tags", "Term", public, keywordParam()),
		"OPTIONS /api/v1/tags":                                  preflight("preflightTags", "tags"),
		"GET /api/v1/tags/{id}":                                 getB("getTag", "A tag", "tags", "Term", public),
		"OPTIONS /api/v1/tags/{id}":                             preflight("preflightTag", "tags"),
		"GET /api/v1/admin/tags":                                listB("adminListTags", "Tags", "tags", "Term", admin, keywordParam()),
		"GET /api/v1/admin/tags/{id}":                           getB("adminGetTag", "A tag", "tags", "Term", admin),
		"POST /api/v1/admin/tags":                               writeB("createTag", "Create a tag", "tags", "TermInput", "Term", 201, 400, 401, 403, 409, 422),
		"PUT /api/v1/admin/tags/{id}":                           writeB("replaceTag", "Replace a tag", "tags", "TermInput", "Term", 200, 400, 401, 403, 404, 409, 422),
		"PATCH /api/v1/admin/tags/{id}":                         writeB("updateTag", "Change a tag", "tags", "TermPatch", "Term", 200, 400, 401, 403, 404, 409, 422),
		"DELETE /api/v1/admin/tags/{id}":                        deleteB("deleteTag", "Delete a tag; its posts lose it", "tags"),
		"GET /api/v1/friend-links":                              listB("listFriendLinks", "Active friend links, by sort then newest", "friend-links", "FriendLink", public, keywordParam()),
		"OPTIONS /api/v1/friend-links":                          preflight("preflightFriendLinks", "friend-links"),
		"GET /api/v1/friend-links/{id}":                         getB("getFriendLink", "An active friend link", "friend-links", "FriendLink", public),
		"OPTIONS /api/v1/friend-links/{id}":                     preflight("preflightFriendLink", "friend-links"),
		"GET /api/v1/admin/friend-links":                        listB("adminListFriendLinks", "Every friend link", "friend-links", "FriendLink", admin, keywordParam(), queryParam("is_active", boolean(""), "Only active, or only inactive, links.")),
		"GET /api/v1/admin/friend-links/{id}":                   getB("adminGetFriendLink", "A friend link", "friend-links", "FriendLink", admin),
		"POST /api/v1/admin/friend-links":                       writeB("createFriendLink", "Create a friend link", "friend-links", "FriendLinkInput", "FriendLink", 201, 400, 401, 403, 409, 422),
		"PUT /api/v1/admin/friend-links/{id}":                   writeB("replaceFriendLink", "Replace a friend link", "friend-links", "FriendLinkInput", "FriendLink", 200, 400, 401, 403, 404, 409, 422),
		"PATCH /api/v1/admin/friend-links/{id}":                 writeB("updateFriendLink", "Change a friend link", "friend-links", "FriendLinkPatch", "FriendLink", 200, 400, 401, 403, 404, 409, 422),
		"DELETE /api/v1/admin/friend-links/{id}":                deleteB("deleteFriendLink", "Delete a friend link", "friend-links"),
		"GET /api/v1/admin/settings":                            {id: "getSettings", summary: "The runtime settings", tag: "settings", auth: admin, responses: responses(okB(200, ref("Settings")), errsB(401, 403))},
		"PUT /api/v1/admin/settings":                            writeB("putSettings", "Change runtime settings (omitted keys keep their values)", "settings", "SettingsPatch", "Settings", 200, 400, 401, 403, 413, 422),
		"POST /api/v1/admin/ai/summary":                         writeB("aiSummary", "Suggest a summary", "ai", "AIInput", "AISummary", 200, 400, 401, 403, 404, 422, 502),
		"POST /api/v1/admin/ai/tags":                            writeB("aiTags", "Suggest tags", "ai", "AIInput", "AITags", 200, 400, 401, 403, 404, 422, 502),

		// File host: uploads and Lsky compatibility.
		"POST /api/v1/upload": {id: "upload", summary: "Upload a file", tag: "uploads", auth: user,
			body:      &requestBody{mediaType: "multipart/form-data", schema: ref("UploadForm"), required: true},
			responses: responses(okLsky(ref("UploadResult")), errsLsky(400, 401, 409, 413, 415, 507))},
		"POST /api/v1/public/upload": {id: "guestUpload", summary: "Upload a file as a guest", tag: "uploads",
			description: "While `upload.allow_guest_upload` is on; the file belongs to the guest user. Rate limited: 10 a minute per address.",
			body:        &requestBody{mediaType: "multipart/form-data", schema: ref("UploadForm"), required: true},
			responses:   responses(okLsky(ref("UploadResult")), errsLsky(400, 403, 409, 413, 415, 429, 507))},
		// Resumable uploads (docs/filehost.md#resumable-uploads-tus).
		"OPTIONS /api/v1/tus":      tusDiscovery("tusOptions"),
		"OPTIONS /api/v1/tus/{id}": tusDiscovery("tusOptionsUpload"),
		"POST /api/v1/tus": {id: "tusCreate", summary: "Create a resumable upload (tus creation, creation-with-upload)", tag: "uploads", auth: user,
			description: "Also at `/api/v1/tus/`, the address tus clients are usually given. `Upload-Length` (required; `Upload-Defer-Length` is refused), `Upload-Metadata` (`filename`, `filetype`, and the fields of an upload: " +
				"`album_id`, `visibility`, `permission`, `expires_in`, `expires_at`), checked as an upload is. A body in `application/offset+octet-stream` is the first chunk.",
			params:    append(tusHeaders(), headerParam("Upload-Length", integer(""), "The upload's size in bytes.", true), headerParam("Upload-Metadata", stringOf(""), "Comma-separated `key base64value` pairs.", false)),
			body:      &requestBody{mediaType: "application/offset+octet-stream", schema: schema{"type": "string", "format": "binary"}},
			responses: responses(tusOK(201, "Created: `Location` names the upload; `Upload-Offset` when a first chunk came."), tusErrs(400, 401, 403, 409, 412, 413, 415, 460, 507))},
		"PATCH /api/v1/tus/{id}": {id: "tusPatch", summary: "Send the chunk at Upload-Offset", tag: "uploads", auth: user,
			description: "The chunk that completes the upload stores its file, as `POST /api/v1/upload` does; its errors (a type not allowed, the quota) remove the upload.",
			params:      append(tusHeaders(), headerParam("Upload-Offset", integer(""), "Where the chunk starts: the upload's offset.", true), headerParam("Upload-Checksum", stringOf(""), "`md5` or `sha1` and the chunk's base64 digest.", false)),
			body:        &requestBody{mediaType: "application/offset+octet-stream", schema: schema{"type": "string", "format": "binary"}, required: true},
			responses:   responses(tusOK(204, "Stored: the new `Upload-Offset`."), tusErrs(400, 401, 403, 404, 409, 412, 413, 415, 460, 507))},
		"POST /api/v1/tus/{id}": {id: "tusOverride", summary: "PATCH, DELETE, HEAD or GET through X-HTTP-Method-Override", tag: "uploads", auth: user,
			params:    append(tusHeaders(), headerParam("X-HTTP-Method-Override", enum("", "PATCH", "DELETE", "HEAD", "GET"), "The method meant.", true)),
			body:      &requestBody{mediaType: "application/offset+octet-stream", schema: schema{"type": "string", "format": "binary"}},
			responses: responses(tusOK(200, "As the method meant answers."), tusOK(204, "As the method meant answers."), tusErrs(400, 401, 403, 404, 405, 409, 412, 413, 415, 460, 507))},
		"GET /api/v1/tus/{id}": {id: "tusResult", summary: "A finished resumable upload's file, as POST /api/v1/upload answers it", tag: "uploads", auth: user,
			description: "An unfinished upload answers 409; a finished one is kept a day. HEAD is the tus offset request: `Upload-Offset`, `Upload-Length`, " +
				"`Upload-Metadata`, `Upload-Expires` and `Cache-Control: no-store`, errors without a body.",
			params:    tusHeaders(),
			responses: responses(okLsky(ref("UploadResult")), tusErrs(401, 404, 409, 412))},
		"DELETE /api/v1/tus/{id}": {id: "tusDelete", summary: "Remove a resumable upload (tus termination)", tag: "uploads", auth: user,
			params:    tusHeaders(),
			responses: responses(tusOK(204, "Removed with the bytes received."), tusErrs(401, 403, 404, 412))},
		"GET /api/v1/images": {id: "lskyListImages", summary: "The caller's files, newest first (Lsky Pro)", tag: "lsky", auth: user,
			params:    []schema{pageParam(), queryParam("per_page", integer(""), "Items a page: at most 100, default 20."), keywordParam()},
			responses: responses(okLsky(ref("LskyImagePage")), errsLsky(400, 401))},
		"DELETE /api/v1/images/{key}": {id: "lskyDeleteImage", summary: "Delete the caller's files with a storage key (Lsky Pro)", tag: "lsky", auth: user,
			responses: responses(okLsky(schema{"type": "object", "maxProperties": 0}), errsLsky(401, 404))},
		"GET /api/v1/strategies": {id: "lskyStrategies", summary: "The storage strategies (Lsky Pro)", tag: "lsky", auth: user, responses: responses(okLsky(ref("LskyStrategies")), errsLsky(401))},
		"GET /api/v1/profile":    {id: "lskyProfile", summary: "The caller's profile (Lsky Pro)", tag: "lsky", auth: user, responses: responses(okLsky(ref("LskyProfile")), errsLsky(401))},

		// Files, shares, accounts, tokens, albums.
		"GET /api/v1/files":                           listA("listFiles", "The caller's files", "files", "File", user, fileFilters...),
		"POST /api/v1/files/batch-delete":             {id: "batchDeleteFiles", summary: "Delete many of the caller's files", tag: "files", auth: user, body: jsonBody(ref("BatchDelete")), responses: responses(okA(200, ref("Deleted")), errsA(400, 401))},
		"GET /api/v1/files/{id}":                      {id: "getFile", summary: "One of the caller's files", tag: "files", auth: user, responses: responses(okA(200, ref("File")), errsA(401, 404))},
		"PATCH /api/v1/files/{id}":                    {id: "updateFile", summary: "Rename, move or publish a file", tag: "files", auth: user, body: jsonBody(ref("FilePatch")), responses: responses(okA(200, ref("File")), errsA(400, 401, 404))},
		"DELETE /api/v1/files/{id}":                   {id: "deleteFile", summary: "Delete one of the caller's files", tag: "files", auth: user, responses: responses(okA(200, nullSchema()), errsA(401, 404))},
		"POST /api/v1/files/{id}/shares":              {id: "createShare", summary: "Open a file through a share link", tag: "share-links", auth: user, body: jsonBody(ref("ShareInput")), responses: responses(okA(201, ref("Share")), errsA(400, 401, 404))},
		"GET /api/v1/files/{id}/shares":               {id: "listShares", summary: "A file's share links, newest first", tag: "share-links", auth: user, responses: responses(okA(200, array(ref("Share"))), errsA(401, 404))},
		"DELETE /api/v1/files/{id}/shares/{share_id}": {id: "revokeShare", summary: "Revoke a share link", tag: "share-links", auth: user, responses: responses(okA(200, nullSchema()), errsA(401, 404))},
		"POST /api/v1/auth/register": {id: "register", summary: "Create an account", tag: "accounts",
			description: "While `upload.allow_register` is on. Rate limited: 20 a minute per address.",
			body:        jsonBody(ref("RegisterInput")), responses: responses(okA(201, ref("User")), errsA(400, 403, 409, 429))},
		"POST /api/v1/auth/login": {id: "login", summary: "Sign in for an access and a refresh token", tag: "accounts",
			description: "Also sets the `access_token` cookie. Rate limited: 20 a minute per address, and " + factorLimitText(),
			body:        jsonBody(ref("LoginInput")), responses: responses(okA(200, ref("TokenPair")), errsA(400, 401, 403, 429))},
		"POST /api/v1/auth/refresh": {id: "refresh", summary: "Trade a refresh token for a new pair", tag: "accounts",
			body: jsonBody(ref("RefreshInput")), responses: responses(okA(200, ref("TokenPair")), errsA(400, 401, 429))},
		"POST /api/v1/auth/logout": {id: "logout", summary: "Revoke a refresh token and clear the cookie", tag: "accounts",
			body: &requestBody{mediaType: "application/json", schema: ref("LogoutInput")}, responses: responses(okA(200, nullSchema()), errsA(400))},
		"GET /api/v1/auth/me":          {id: "me", summary: "The caller's account", tag: "accounts", auth: user, responses: responses(okA(200, ref("User")), errsA(401))},
		"PATCH /api/v1/auth/me":        {id: "updateMe", summary: "Change the caller's default visibility", tag: "accounts", auth: user, body: jsonBody(ref("MePatch")), responses: responses(okA(200, ref("User")), errsA(400, 401))},
		"GET /api/v1/tokens":           listA("listTokens", "The caller's API tokens, newest first", "tokens", "Token", user),
		"POST /api/v1/tokens":          {id: "createToken", summary: "Create an API token", tag: "tokens", auth: user, body: jsonBody(ref("TokenInput")), responses: responses(okA(201, ref("NewToken")), errsA(400, 401))},
		"DELETE /api/v1/tokens/{id}":   {id: "revokeToken", summary: "Revoke an API token", tag: "tokens", auth: user, responses: responses(okA(200, nullSchema()), errsA(401, 404))},
		"GET /api/v1/albums":           listA("listAlbums", "The caller's albums", "albums", "Album", user, queryParam("order_by", enum("", "created_at", "updated_at", "name"), "The sort key."), order, keywordParam()),
		"POST /api/v1/albums":          {id: "createAlbum", summary: "Create an album", tag: "albums", auth: user, body: jsonBody(ref("AlbumInput")), responses: responses(okA(201, ref("Album")), errsA(400, 401))},
		"GET /api/v1/albums/{id}":      {id: "getAlbum", summary: "One of the caller's albums", tag: "albums", auth: user, responses: responses(okA(200, ref("Album")), errsA(401, 404))},
		"PATCH /api/v1/albums/{id}":    {id: "updateAlbum", summary: "Change an album", tag: "albums", auth: user, body: jsonBody(ref("AlbumPatch")), responses: responses(okA(200, ref("Album")), errsA(400, 401, 404))},
		"DELETE /api/v1/albums/{id}":   {id: "deleteAlbum", summary: "Delete an album; its files stay", tag: "albums", auth: user, responses: responses(okA(200, nullSchema()), errsA(401, 404))},
		"GET /api/v1/public/stats":     {id: "publicStats", summary: "Site-wide numbers", tag: "public", responses: responses(okA(200, ref("PublicStats")), errsA(400))},
		"GET /api/v1/public/plaza":     listA("plaza", "Public images of every user, newest first", "public", "PlazaFile", public),
		"GET /api/v1/admin/users":      listA("adminListUsers", "Every account, oldest first", "file-admin", "User", admin, keywordParam()),
		"POST /api/v1/admin/users":     {id: "adminCreateUser", summary: "Create an account", tag: "file-admin", auth: admin, body: jsonBody(ref("AdminUserInput")), responses: responses(okA(201, ref("User")), errsA(400, 401, 403, 409))},
		"GET /api/v1/admin/users/{id}": {id: "adminGetUser", summary: "An account", tag: "file-admin", auth: admin, responses: responses(okA(200, ref("User")), errsA(401, 403, 404))},
		"PATCH /api/v1/admin/users/{id}": {id: "adminUpdateUser", summary: "Disable, promote, set quota or password", tag: "file-admin", auth: admin,
			body: jsonBody(ref("AdminUserPatch")), responses: responses(okA(200, ref("User")), errsA(400, 401, 403, 404))},
		"DELETE /api/v1/admin/users/{id}": {id: "adminDeleteUser", summary: "Delete an account with its albums, tokens and files", tag: "file-admin", auth: admin, responses: responses(okA(200, nullSchema()), errsA(401, 403, 404))},
		"GET /api/v1/admin/files":         listA("adminListFiles", "Every user's files", "file-admin", "AdminFile", admin, append(fileFilters, queryParam("user_id", stringOf(""), "Only this user's files."))...),
		"DELETE /api/v1/admin/files/{id}": {id: "adminDeleteFile", summary: "Delete any user's file", tag: "file-admin", auth: admin, responses: responses(okA(200, nullSchema()), errsA(401, 403, 404))},
		"GET /api/v1/admin/stats": {id: "adminStats", summary: "Storage numbers", tag: "file-admin", auth: admin,
			params:    []schema{queryParam("top", integer(""), "How many top users: 1-100, default 10.")},
			responses: responses(okA(200, ref("AdminStats")), errsA(400, 401, 403))},

		// Short links and share pages.
		"GET /i/{hash}": sized(shortLink("getImage", "An image")),
		"GET /v/{hash}": shortLink("getVideo", "A video"),
		"GET /a/{hash}": shortLink("getAudio", "An audio file"),
		"GET /f/{hash}": shortLink("getDownload", "Any file, as a download"),
		"GET /t/{hash}": {id: "getThumbnail", summary: "A thumbnail of at most 400x400", tag: "short-links",
			responses: responses(bytesOf(200, "The thumbnail."), response{status: 304, description: "Not modified."},
				pageOrJSON(404, "No such image, one that cannot have a thumbnail, or a `restricted` one asked for by anyone but its owner.", "ErrorA"), tooManyMisses)},
		"GET /s/{token}": {id: "getSharePage", summary: "The page of a share link", tag: "share-pages",
			responses: responses(htmlPage(200, "The file's page (one counted view), or the password form."),
				pageOrJSON(404, "Expired, revoked, exhausted, or the file is gone: an HTML page to a browser, envelope A otherwise.", "ErrorA"), tooManyMisses)},
		"POST /s/{token}": {id: "unlockShare", summary: "Answer a share link's password form", tag: "share-pages", body: formBody("password", "form_token"),
			responses: responses(redirect(303, "Right: a cookie for this link."), htmlPage(401, "Wrong password: the form again."), htmlPage(403, "The form was refused."),
				pageOrJSON(404, "No such link.", "ErrorA"),
				pageOrJSON(429, "Five wrong answers a minute from this address, 20 in 15 minutes to this link from all addresses together (then even the right one), or too many misses (`Retry-After`).", "ErrorA"))},
		"GET /s/raw/{token}": {id: "getShareRaw", summary: "The bytes behind a share link", tag: "share-pages",
			params: []schema{queryParam("t", stringOf(""), "The 15-minute ticket a counted view put in the page."), queryParam("download", enum("", "1"), "`1`: as an attachment.")},
			responses: responses(bytesOf(200, "The file's bytes."), bytesOf(206, "A byte range."), response{status: 304, description: "Not modified."},
				pageOrJSON(404, "No ticket, a stale one, or a closed link.", "ErrorA"), tooManyMisses)},
		"GET /s/static/{file}": {id: "getShareAsset", summary: "The share pages' stylesheet and icon", tag: "share-pages",
			responses: responses(bytesOf(200, "The asset."), response{status: 304, description: "Not modified."}, pageOrJSON(404, "No such asset.", "ErrorA"))},

		// Classic site.
		"GET /":                  negotiated(site("siteHome", "Home: the newest public posts", pageParam()), "The blog's actor."),
		"GET /posts/{slug}":      negotiated(movedPage(site("sitePost", "A public post with its comments", queryParam("comment", enum("", "pending"), "`pending` shows the awaits-moderation notice."))), "The post's `Article`."),
		"GET /pages/{slug}":      movedPage(site("sitePage", "A public page")),
		"GET /categories/{slug}": site("siteCategory", "A category's public posts", pageParam()),
		"GET /tags/{slug}":       site("siteTag", "A tag's public posts", pageParam()),
		"GET /search":            site("siteSearch", "Search public posts", queryParam("q", stringOf(""), "The words (200 characters used)."), pageParam()),
		"GET /feed.xml":          feed("siteRSS", "RSS 2.0 of the 20 newest public posts", "application/rss+xml"),
		"GET /atom.xml":          feed("siteAtom", "Atom 1.0 of the 20 newest public posts", "application/atom+xml"),
		"GET /sitemap.xml":       feed("siteSitemap", "The sitemap", "application/xml"),
		"GET /robots.txt":        feed("siteRobots", "robots.txt", "text/plain"),
		"GET /ap/comments/{id}": {id: "getFederationReply", summary: "The Note of the administrator's reply to a fediverse comment", tag: "federation",
			description: "ActivityStreams JSON (docs/federation.md#moderation); with `federation.authorized_fetch` on, the request must be signed.",
			responses:   responses(textOf(200, "application/activity+json", "The Note."), errsB(401, 403, 404))},
		"GET /static/{file}": {id: "siteAsset", summary: "A theme asset", tag: "site", responses: responses(bytesOf(200, "The asset."), response{status: 304, description: "Not modified."}, pageOrJSON(404, "No such asset.", "ErrorB"))},
		"POST /posts/{slug}/comments": {id: "siteComment", summary: "The site's comment form", tag: "site", body: formBody("author", "email", "content"),
			responses: responses(redirect(303, "To the post with the awaits-moderation notice."), htmlPage(400, "An unreadable form."), htmlPage(403, "Comments are closed."),
				pageOrJSON(404, "No such post.", "ErrorB"), htmlPage(422, "The post again with the fields' messages."), htmlPage(429, errorText(429)))},

		// Federation.
		"GET /.well-known/webfinger": {id: "webFinger", summary: "The blog's account for WebFinger", tag: "federation",
			params:    []schema{queryParam("resource", stringOf(""), "`acct:{username}@{host}`, the actor's IRI or the home page's URL.")},
			responses: responses(response{status: 200, description: "The JRD.", content: map[string]schema{"application/jrd+json": {"type": "object"}}}, errsB(400, 404))},
		"GET /.well-known/nodeinfo": {id: "nodeInfoLinks", summary: "Where NodeInfo is", tag: "federation",
			responses: responses(okJSON(200, "The links."), errsB(404))},
		"GET /nodeinfo/2.1": {id: "nodeInfo", summary: "NodeInfo 2.1", tag: "federation",
			responses: responses(okJSON(200, "The document (`application/json` with the NodeInfo 2.1 profile)."), errsB(404))},
		"GET /ap/actor":           fedGet("getActor", "The blog's actor", "The `Person`, with its public key."),
		"GET /ap/actor/outbox":    fedGet("getOutbox", "The outbox: the public posts as `Create`s", "The collection, or with `page` one of its pages of 20, newest first.", errsB(400, 401, 403)...),
		"GET /ap/actor/followers": fedGet("getFollowers", "How many follow the blog", "The collection's `totalItems`; who follows is not shown."),
		"GET /ap/actor/following": fedGet("getFollowing", "Whom the blog follows: no one", "The empty collection."),
		"GET /ap/activities/{id}": fedGet("getActivity", "An activity the blog sent", "The activity, while it is kept, when it was public."),
		"POST /ap/actor/inbox":    fedInbox("postInbox", "The actor's inbox"),
		"POST /ap/inbox":          fedInbox("postSharedInbox", "The shared inbox"),

		// Export and import.
		"GET /api/v1/admin/export": {id: "exportBlog", summary: "Download the blog as a Folio archive", tag: "export-import", auth: admin,
			description: "A zip of Markdown files with front matter (posts, pages) and JSON (categories, tags, comments, friend links, settings without secrets).",
			responses: responses(response{status: 200, description: "The archive, as an attachment.",
				content: map[string]schema{"application/zip": {"type": "string", "contentMediaType": "application/zip"}},
				headers: map[string]any{"Content-Disposition": schema{"description": "`attachment; filename=\"folio-export-YYYYMMDD.zip\"`.", "schema": stringOf("")}}},
				errsB(401, 403))},
		"POST /api/v1/admin/import": {id: "importBlog", summary: "Import a Folio archive, a Ghost JSON export, a WordPress WXR export or a Hugo or Jekyll site", tag: "export-import", auth: admin,
			description: "Idempotent: importing the same export twice creates nothing new.",
			body:        &requestBody{mediaType: "multipart/form-data", schema: ref("ImportForm"), required: true},
			responses:   responses(okB(200, ref("ImportResult")), errsB(400, 401, 403, 409, 413))},
		// The audit log.
		"GET /api/v1/admin/audit-log": listB("listAuditLog", "The audit log, newest first", "audit-log", "AuditEntry", admin,
			queryParam("user", stringOf(""), "A user name (any case) or user id."),
			queryParam("method", enum("", "POST", "PUT", "PATCH", "DELETE"), "Only this method."),
			queryParam("action", enum("", auditActions()...), "Only this action.")),
		// Console: sign-in.
		"GET /console":               {id: "consoleRoot", summary: "To the console", tag: "console", responses: responses(redirect(301, "To `/console/`."))},
		"GET /console/":              {id: "consoleHome", summary: "The console's start", tag: "console", auth: console, responses: responses(redirect(303, "The administrator to the dashboard (`/console/admin`), anyone else to `/console/upload`; without a session to the sign-in page."))},
		"GET /console/static/{file}": {id: "consoleAsset", summary: "A console asset", tag: "console", responses: responses(bytesOf(200, "The asset."), response{status: 304, description: "Not modified."}, htmlPage(404, "No such asset."))},
		"GET /console/login":         with(page("consoleLoginForm", "The sign-in form", public, redirect(303, "Already signed in: to `next`.")), queryParam("next", stringOf(""), "A `/console/` path to go to after signing in.")),
		"POST /console/login": post("consoleLogin", "Sign in", public, formBody("username", "password", "next", "form_token"),
			redirect(303, "To `next`, signed in."), 401, 422, 429),
		"POST /console/login/code": described(post("consoleLoginCode", "The second factor", public, formBody("ticket", "code", "next", "form_token"),
			redirect(303, "To `next`, signed in."), 401, 429), "Rate limited: the sign-in allowance of the address, and "+factorLimitText()),
		"POST /console/logout":   post("consoleLogout", "Sign out", console, formBody("form_token"), redirect(303, "To the sign-in page.")),
		"GET /console/register":  page("consoleRegisterForm", "The registration form", public, htmlPage(404, "Registration is off.")),
		"POST /console/register": post("consoleRegister", "Create an account", public, formBody("username", "email", "password", "form_token"), redirect(303, "To `/console/upload`, signed in."), 400, 404, 409, 429),
		"GET /console/upload":    page("consoleUploadPage", "The upload page", console),
		"POST /console/upload": with(post("consoleUpload", "Upload without JavaScript", console,
			&requestBody{mediaType: "multipart/form-data", required: true, schema: object(map[string]schema{
				"file":       schema{"type": "array", "items": schema{"type": "string", "contentMediaType": "application/octet-stream"}, "maxItems": 20},
				"album_id":   stringOf(""),
				"permission": enum("Lsky Pro's, as on the API.", "0", "1"),
				"visibility": enum("", "public", "unlisted", "restricted"),
				"format":     enum("The link format the answer's rows show.", "url", "markdown", "html", "bbcode", "thumbnail"),
			}, "album_id", "permission", "visibility", "format")},
			htmlPage(200, "The upload page with a row for each stored file."), 400, 413, 415, 507), formToken),
		"GET /upload": {id: "guestUploadPage", summary: "The guest upload page", tag: "console", responses: responses(htmlPage(200, "The page."), htmlPage(404, "Guest upload is off."))},
		"POST /upload": {id: "guestUploadForm", summary: "Guest upload without JavaScript", tag: "console", params: []schema{formToken},
			body: &requestBody{mediaType: "multipart/form-data", required: true, schema: object(map[string]schema{"file": schema{"type": "string", "contentMediaType": "application/octet-stream"},
				"visibility": enum("", "public", "unlisted")}, "visibility")},
			responses: responses(htmlPage(200, "The page with the file's card."), htmlPage(400, errorText(400)), htmlPage(403, "The form was refused."), htmlPage(404, "Guest upload is off."),
				htmlPage(413, errorText(413)), htmlPage(415, errorText(415)), htmlPage(429, errorText(429)), htmlPage(507, errorText(507)))},

		// Console: files and albums.
		"GET /console/files": with(page("consoleFiles", "The caller's files", console, htmlPage(400, "A bad `type` or `page`."), htmlPage(404, "`album` is not one of the caller's.")),
			pageParam(), queryParam("album", stringOf(""), "An album id, or `none` for files in no album."), typeParam, qParam),
		"POST /console/files/delete": post("consoleDeleteFiles", "Delete some of the caller's files", console, formBody("ids", "back", "form_token"),
			back("Back to the grid."), 422),
		"POST /console/files/batch": post("consoleBatchFiles", "Move, change the visibility of, or delete some of the caller's files", console,
			formBody("ids", "action", "album_id", "visibility", "back", "form_token"),
			back("Back to the grid, with a flash saying how many files changed."), 404, 422),
		"GET /console/files/{id}":                           page("consoleFile", "One of the caller's files", console, htmlPage(404, "Not found.")),
		"POST /console/files/{id}":                          post("consoleUpdateFile", "Change a file", console, formBody("origin_name", "album_id", "visibility", "form_token"), back("Back to the file."), 404, 422),
		"POST /console/files/{id}/delete":                   post("consoleDeleteFile", "Delete a file", console, formBody("form_token"), back("To `/console/files`."), 404),
		"POST /console/files/{id}/shares":                   post("consoleCreateShare", "Create a share link", console, formBody("expires_in", "max_views", "password", "form_token"), back("Back to the file."), 404, 422),
		"POST /console/files/{id}/shares/{share_id}/delete": post("consoleRevokeShare", "Revoke a share link", console, formBody("form_token"), back("Back to the file."), 404),
		"GET /console/albums":                               with(page("consoleAlbums", "The caller's albums", console, htmlPage(400, "A bad `page`.")), pageParam()),
		"POST /console/albums":                              post("consoleCreateAlbum", "Create an album", console, formBody("name", "description", "is_public", "form_token"), back("To the new album."), 422),
		"GET /console/albums/{id}":                          page("consoleAlbum", "An album", console, htmlPage(404, "Not found.")),
		"POST /console/albums/{id}":                         post("consoleUpdateAlbum", "Change an album", console, formBody("name", "description", "is_public", "form_token"), back("Back to the album."), 404, 422),
		"POST /console/albums/{id}/delete":                  post("consoleDeleteAlbum", "Delete an album; its files stay", console, formBody("form_token"), back("To `/console/albums`."), 404),

		// Console: tokens.
		"GET /console/tokens":  with(page("consoleTokens", "The caller's API tokens", console, htmlPage(400, "A bad `page`.")), pageParam()),
		"POST /console/tokens": post("consoleCreateToken", "Create an API token", console, formBody("name", "expires_at", "once", "form_token"), htmlPage(200, "The page showing the value once; again for the same once within 10 minutes."), 409, 422),
		"POST /console/tokens/sxcu": {id: "consoleSXCU", summary: "A ShareX custom uploader for a token", tag: "console", auth: console, body: formBody("token", "form_token"),
			responses: responses(response{status: 200, description: "The `.sxcu` file, as an attachment.", content: jsonContent(schema{"type": "object"})},
				redirect(303, "No console session: to the sign-in page."), htmlPage(403, "The form was refused."), htmlPage(422, "Not an API token."))},
		"POST /console/tokens/{id}/revoke": post("consoleRevokeToken", "Revoke an API token", console, formBody("form_token"), back("To `/console/tokens`."), 404),

		// Console: account.
		"GET /console/account":                         page("consoleAccount", "The account page", console),
		"POST /console/account/email":                  post("consoleChangeEmail", "Change the email", console, formBody("email", "form_token"), back("To the account."), 400, 409),
		"POST /console/account/visibility":             post("consoleDefaultVisibility", "Change the default visibility of uploads", console, formBody("default_visibility", "form_token"), back("To the account."), 422),
		"POST /console/account/password":               post("consoleChangePassword", "Change the password", console, formBody("current_password", "new_password", "form_token"), back("To the account."), 409, 422),
		"POST /console/account/totp":                   post("consoleStartTOTP", "Start two-factor set-up", console, formBody("form_token"), htmlPage(200, "The set-up page with the secret.")),
		"GET /console/account/totp":                    page("consoleTOTPSetup", "The two-factor set-up page", console, redirect(303, "Nothing pending: to the account, or without a session to the sign-in page.")),
		"POST /console/account/totp/enable":            post("consoleEnableTOTP", "Turn two-factor sign-in on", console, formBody("code", "form_token"), htmlPage(200, "The recovery codes, once."), 409, 422),
		"POST /console/account/totp/disable":           post("consoleDisableTOTP", "Turn two-factor sign-in off", console, formBody("password", "form_token"), back("To the account."), 422),
		"POST /console/account/recovery":               post("consoleNewRecoveryCodes", "New recovery codes", console, formBody("password", "form_token"), htmlPage(200, "The new codes, once."), 409, 422),
		"POST /console/account/sessions/{id}/revoke":   post("consoleRevokeSession", "Sign a session out", console, formBody("form_token"), back("To the account."), 404),
		"POST /console/account/sessions/revoke-others": post("consoleRevokeOtherSessions", "Sign out every other session", console, formBody("form_token"), back("To the account.")),

		// Console: administration.
		"GET /console/admin":       page("consoleDashboard", "The administrator's dashboard: the blog and the files", console, forbiddenAdmin),
		"GET /console/admin/users": with(page("consoleUsers", "Every account", console, forbiddenAdmin, htmlPage(400, "A bad `page`.")), pageParam(), qParam),
		"POST /console/admin/users": post("consoleCreateUser", "Add an account", console, formBody("username", "email", "password", "role", "quota", "form_token"),
			back("To the new user's page."), 400, 409, 422),
		"GET /console/admin/users/{id}": page("consoleUser", "An account", console, forbiddenAdmin, htmlPage(404, "Not found.")),
		"POST /console/admin/users/{id}": post("consoleUpdateUser", "Change an account", console, formBody("status", "role", "quota", "password", "form_token"),
			back("Back to the account."), 400, 404, 422),
		"POST /console/admin/users/{id}/delete": post("consoleDeleteUser", "Delete an account", console, formBody("form_token"), back("To the list."), 404),
		"GET /console/admin/files": with(page("consoleAdminFiles", "Every user's files", console, forbiddenAdmin, htmlPage(400, "A bad `type` or `page`."), htmlPage(404, "No such user.")),
			pageParam(), queryParam("user", stringOf(""), "Only this username's files."), typeParam, qParam),
		"POST /console/admin/files/delete": post("consoleAdminDeleteFiles", "Delete any user's files", console, formBody("ids", "back", "form_token"), back("Back to the grid."), 422),
		"GET /console/admin/settings":      page("consoleSettings", "The upload settings", console, forbiddenAdmin),
		"POST /console/admin/settings": post("consoleUpdateSettings", "Change the upload settings", console,
			formBody("allow_guest_upload", "allow_register", "allow_duplicate", "strip_metadata", "max_file_size", "default_quota", "allowed_types", "forbidden_exts", "path_pattern", "form_token"),
			back("Back to the settings."), 422),

		// Preview links (docs/console.md#preview-links).
		"POST /api/v1/admin/posts/{id}/preview-link": {id: "createPreviewLink", summary: "A signed, expiring link showing a post of any status", tag: "posts", auth: admin,
			description: "The link opens `GET /preview/{token}`, in both render modes. Nothing is stored: a link cannot be revoked on its own; deleting the post ends it.",
			body: &requestBody{mediaType: "application/json", schema: object(map[string]schema{
				"expires_in_hours": {"type": "integer", "minimum": 1, "maximum": 720, "description": "How long the link works; default 168 (7 days)."}}, "expires_in_hours")},
			responses: responses(okB(201, object(map[string]schema{"url": stringOf("The absolute link, on this server's own origin."), "expires_at": dateTime("")})),
				errsB(400, 401, 403, 404, 413, 422))},
		"GET /preview/{token}": {id: "sitePreview", summary: "A post as the classic theme renders it, through a preview link", tag: "site",
			description: "In both render modes. Sends `Cache-Control: no-store`, `X-Robots-Tag: noindex` and `Referrer-Policy: no-referrer`.",
			responses: responses(htmlPage(200, "The post with the preview banner."),
				htmlPage(404, "Not a link this site made, made for another use, altered, or its post deleted: the site's 404 page."),
				htmlPage(410, "The link has expired: a page asking for a new one."))},
		"GET /console/blog/posts/{id}/preview": page("consoleBlogPreview", "What a preview link is, and the form to make one", console, forbiddenAdmin, htmlPage(404, "No such post.")),
		"POST /console/blog/posts/{id}/preview": post("consoleBlogMakePreview", "Make a preview link", console, formBody("expires_in_hours", "form_token"),
			htmlPage(200, "The page with the link (not a redirect)."), 404, 422),
		// Console: the blog's posts and the editor.
		"GET /console/blog/posts": with(page("consoleBlogPosts", "Every post, newest first", console, forbiddenAdmin, htmlPage(400, "A bad `page`, `status` or `category`.")),
			pageParam(), queryParam("status", enum("", "all", "draft", "scheduled", "published", "archived"), "Published splits by date: `scheduled` (still to come) and `published` (visible now)."),
			queryParam("q", stringOf(""), "A keyword in the title, summary or text."), queryParam("category", stringOf(""), "A category id.")),
		"GET /console/blog/posts/new": page("consoleBlogNewPost", "The editor for a new post", console, forbiddenAdmin),
		"POST /console/blog/posts": post("consoleBlogCreatePost", "Create a post", console, formBody(consolePostFields...),
			back("To the new post's editor."), 409, 413, 422),
		"GET /console/blog/posts/{id}": page("consoleBlogPost", "The editor of a post", console, forbiddenAdmin, htmlPage(404, "Not found.")),
		"POST /console/blog/posts/{id}": post("consoleBlogSavePost", "Save a post", console, formBody(consolePostFields...),
			back("Back to the editor."), 404, 409, 413, 422),
		"POST /console/blog/posts/{id}/delete": post("consoleBlogDeletePost", "Delete a post", console, formBody("form_token"), back("To the list."), 404),
		"POST /console/blog/preview": {id: "consoleBlogRenderPreview", summary: "The editor's live preview", tag: "console", auth: console,
			description: "Renders `content_markdown` as the site renders a post. The form token goes in the `X-Form-Token` header.",
			body:        formBody("content_markdown"),
			responses: responses(response{status: 200, description: "The HTML and the table of contents.", content: jsonContent(object(map[string]schema{
				"html": stringOf("The rendered HTML."),
				"toc":  schema{"type": "array", "items": object(map[string]schema{"level": integer(""), "text": stringOf(""), "id": stringOf("")})},
			}))}, redirect(303, "No console session: to the sign-in page."), htmlPage(403, "A `user` account, or a missing or stale form token."),
				htmlPage(413, "Longer than a post may be."), htmlPage(422, errorText(422)))},
		// Console: the blog's dashboard, pages, terms, friend links,
		// comments and settings (docs/console.md#the-blog).
		"GET /console/blog":           page("consoleBlogDashboard", "The blog's dashboard", console, forbiddenAdmin),
		"GET /console/blog/pages":     with(page("consoleBlogPages", "Every page", console, forbiddenAdmin, htmlPage(400, "A bad `page`.")), pageParam()),
		"GET /console/blog/pages/new": page("consoleBlogNewPage", "The editor of a new page", console, forbiddenAdmin),
		"POST /console/blog/pages": post("consoleBlogCreatePage", "Create a page", console,
			formBody("title", "slug", "content_markdown", "status", "template", "config.{template}.{key}", "show_in_nav", "sort_order", "form_token"),
			back("To the new page's editor."), 409, 422),
		"GET /console/blog/pages/{id}": page("consoleBlogPage", "A page's editor", console, forbiddenAdmin, htmlPage(404, "Not found.")),
		"POST /console/blog/pages/{id}": post("consoleBlogUpdatePage", "Change a page", console,
			formBody("title", "slug", "content_markdown", "status", "template", "config.{template}.{key}", "show_in_nav", "sort_order", "form_token"),
			back("Back to the editor."), 404, 409, 422),
		"POST /console/blog/pages/{id}/delete": post("consoleBlogDeletePage", "Delete a page", console, formBody("form_token"), back("To the list."), 404),
		"GET /console/blog/categories":         with(page("consoleBlogCategories", "Every category", console, forbiddenAdmin, htmlPage(400, "A bad `page`.")), pageParam()),
		"POST /console/blog/categories": post("consoleBlogCreateCategory", "Add a category", console, formBody("name", "slug", "form_token"),
			back("Back to the list."), 409, 422),
		"POST /console/blog/categories/{id}": post("consoleBlogUpdateCategory", "Rename a category", console, formBody("name", "slug", "form_token"),
			back("Back to the list."), 404, 409, 422),
		"POST /console/blog/categories/{id}/delete": post("consoleBlogDeleteCategory", "Delete a category", console, formBody("form_token"), back("Back to the list."), 404),
		"GET /console/blog/tags":                    with(page("consoleBlogTags", "Every tag", console, forbiddenAdmin, htmlPage(400, "A bad `page`.")), pageParam()),
		"POST /console/blog/tags": post("consoleBlogCreateTag", "Add a tag", console, formBody("name", "slug", "form_token"),
			back("Back to the list."), 409, 422),
		"POST /console/blog/tags/{id}": post("consoleBlogUpdateTag", "Rename a tag", console, formBody("name", "slug", "form_token"),
			back("Back to the list."), 404, 409, 422),
		"POST /console/blog/tags/{id}/delete": post("consoleBlogDeleteTag", "Delete a tag", console, formBody("form_token"), back("Back to the list."), 404),
		"GET /console/blog/links":             with(page("consoleBlogLinks", "Every friend link", console, forbiddenAdmin, htmlPage(400, "A bad `page`.")), pageParam()),
		"POST /console/blog/links": post("consoleBlogCreateLink", "Add a friend link", console,
			formBody("name", "url", "description", "logo", "sort", "status", "form_token"), back("Back to the list."), 409, 422),
		"GET /console/blog/links/{id}": page("consoleBlogLink", "A friend link's form", console, forbiddenAdmin, htmlPage(404, "Not found.")),
		"POST /console/blog/links/{id}": post("consoleBlogUpdateLink", "Change a friend link", console,
			formBody("name", "url", "description", "logo", "sort", "status", "form_token"), back("Back to the link."), 404, 409, 422),
		"POST /console/blog/links/{id}/delete": post("consoleBlogDeleteLink", "Delete a friend link", console, formBody("form_token"), back("To the list."), 404),
		"GET /console/blog/comments": with(page("consoleBlogComments", "The comment moderation queue", console, forbiddenAdmin, htmlPage(400, "A bad `status` or `page`.")),
			pageParam(), queryParam("status", enum("", "pending", "approved", "spam", "all"), "The tab: pending (the default, oldest first), approved, spam or all.")),
		"POST /console/blog/comments/batch": post("consoleBlogCommentsBatch", "Approve, mark as spam or delete comments", console,
			formBody("ids", "action", "status", "page", "form_token"), back("Back to the same view, with the count done."), 422),
		"POST /console/blog/comments/{id}/reply": described(post("consoleBlogReplyComment", "Reply to an approved fediverse comment", console,
			formBody("content", "status", "page", "form_token"), back("Back to the same view, with a notice."), 404, 409, 422),
			"The reply is an approved comment of the site's name under the post and a Note delivered to the comment's author (docs/federation.md#moderation). "+
				"404 no such comment; 409 federation is off or the comment is not approved; 422 not a fediverse comment, or an empty or too long reply: the page again with the message."),
		// Blog console: federation (docs/console.md#federation).
		"GET /console/blog/federation": with(page("consoleBlogFederation", "The federation switch, followers, blocks, delivery and reactions", console, forbiddenAdmin,
			htmlPage(400, "A bad `page`.")), pageParam()),
		"POST /console/blog/federation": post("consoleBlogSaveFederation", "Change the federation settings", console,
			formBody("federation.enabled", "federation.username", "federation.approve_followers", "federation.authorized_fetch", "form_token"),
			back("Back to the page, with a notice."), 422),
		"POST /console/blog/federation/followers": described(post("consoleBlogFollower", "Approve, reject, remove or block a follower", console,
			formBody("actor", "action", "page", "form_token"), back("Back to the followers' page, with a notice."), 404, 409, 422),
			"`action` is `approve`, `reject`, `remove`, `block-actor` or `block-domain`; approving sends Accept, the others Reject (docs/federation.md#moderation)."),
		"POST /console/blog/federation/blocks": post("consoleBlogAddBlock", "Block an actor or a domain", console,
			formBody("kind", "value", "form_token"), back("Back to the blocks, with a notice."), 422),
		"POST /console/blog/federation/blocks/delete": post("consoleBlogRemoveBlock", "Lift a block", console,
			formBody("kind", "value", "form_token"), back("Back to the blocks, with a notice."), 404),
		"GET /console/blog/import": page("consoleBlogImport", "The import form and the export's download", console, forbiddenAdmin),
		"POST /console/blog/import": with(described(post("consoleBlogRunImport", "Import an export and show the report", console,
			&requestBody{mediaType: "multipart/form-data", schema: ref("ImportForm"), required: true},
			htmlPage(200, "The report: per kind imported, skipped and changed, the losses by kind and the warnings (not a redirect)."), 400, 409, 413),
			"The form of `POST /api/v1/admin/import`, with its limits; a refused file or field is the form again with the message and the status that route answers."), formToken),
		"GET /console/blog/settings": page("consoleBlogSettings", "The blog settings", console, forbiddenAdmin),
		"POST /console/blog/settings": post("consoleBlogUpdateSettings", "Change the blog settings", console,
			formBody("site.site_name", "site.site_url", "site.description", "site.keywords", "site.favicon", "site.logo", "site.icp", "site.footer",
				"post.posts_per_page", "post.enable_comment", "post.enable_toc", "post.summary_length", "post.default_cover_url",
				"render.render_mode", "render.enable_cors", "ai.enabled", "ai.provider", "ai.base_url", "ai.model", "ai.api_key",
				"remove_api_key", "ai.auto_summary", "ai.auto_tag", "form_token"),
			back("Back to the settings."), 422),
		// Blog console: revisions (docs/console.md#revisions).
		"GET /console/blog/posts/{id}/revisions": with(page("consolePostRevisions", "A post's revisions", console, forbiddenAdmin, htmlPage(400, "A bad `page`."), htmlPage(404, "No such post.")),
			pageParam()),
		"GET /console/blog/posts/{id}/revisions/{rev}": page("consolePostRevision", "A post's revision against its current version", console, forbiddenAdmin, htmlPage(404, "No such post or revision.")),
		"POST /console/blog/posts/{id}/revisions/{rev}/restore": post("consoleRestorePostRevision", "Restore a post's revision", console, formBody("form_token"),
			back("To the post's editor, with a notice."), 404, 409, 422),
		"GET /console/blog/pages/{id}/revisions": with(page("consolePageRevisions", "A page's revisions", console, forbiddenAdmin, htmlPage(400, "A bad `page`."), htmlPage(404, "No such page.")),
			pageParam()),
		"GET /console/blog/pages/{id}/revisions/{rev}": page("consolePageRevision", "A page's revision against its current version", console, forbiddenAdmin, htmlPage(404, "No such page or revision.")),
		"POST /console/blog/pages/{id}/revisions/{rev}/restore": post("consoleRestorePageRevision", "Restore a page's revision", console, formBody("form_token"),
			back("To the page's editor, with a notice."), 404, 409, 422),
	}
}

// consolePostFields are the fields of the post editor's form.
var consolePostFields = []string{"title", "slug", "content_markdown", "status", "published_at", "published_at_utc",
	"category_id", "tags", "cover_image", "summary", "show_comments", "form_token"}

// listCommentsOp is the public list of a post's approved comments.
func listCommentsOp() operation {
	return operation{id: "listPostComments", summary: "A public post's approved comments", tag: "comments",
		params:    []schema{pageParam(), pageSizeParam(20)},
		responses: responses(okB(http.StatusOK, pageB("PublicComment")), errsB(400, 404))}
}

// The tus operations' parts (docs/filehost.md#resumable-uploads-tus).

func headerParam(name string, s schema, description string, required bool) schema {
	return schema{"name": name, "in": "header", "required": required, "description": description, "schema": s}
}

func tusHeaders() []schema {
	return []schema{headerParam("Tus-Resumable", enum("", "1.0.0"), "The protocol version; any other is a 412.", true)}
}

func tusResumable() map[string]any {
	return map[string]any{"Tus-Resumable": schema{"description": "`1.0.0`, on every answer.", "schema": stringOf("")}}
}

func tusOK(status int, description string) response {
	return response{status: status, description: description, headers: tusResumable()}
}

func tusDiscovery(id string) operation {
	h := tusResumable()
	for _, k := range []string{"Tus-Version", "Tus-Extension", "Tus-Max-Size", "Tus-Checksum-Algorithm"} {
		h[k] = schema{"schema": stringOf("")}
	}
	return operation{id: id, summary: "What the tus server supports", tag: "uploads",
		description: "`Tus-Version: 1.0.0`, `Tus-Extension: creation,creation-with-upload,termination,checksum,expiration`, `Tus-Max-Size` (the maximum file size), `Tus-Checksum-Algorithm: md5,sha1`; no credentials needed.",
		responses:   responses(response{status: 204, description: "The server's tus support.", headers: h})}
}

func tusErrText(status int) string {
	switch status {
	case 409:
		return "`Upload-Offset` is not the upload's offset (or another request moved it first), or GET of an unfinished upload."
	case 412:
		return "`Tus-Resumable` is missing or not `1.0.0`; `Tus-Version` names the one served."
	case 413:
		return "`Upload-Length` over the maximum file size, or a chunk beyond `Upload-Length`."
	case 415:
		return "The body is not `application/offset+octet-stream`, or the file type is not allowed."
	case 460:
		return "The chunk does not match its `Upload-Checksum`: it was discarded."
	}
	return errorText(status)
}

func tusErrs(statuses ...int) []response {
	out := make([]response, len(statuses))
	for i, st := range statuses {
		out[i] = response{status: st, description: tusErrText(st), content: jsonContent(ref("ErrorA")), headers: tusResumable()}
	}
	return out
}
