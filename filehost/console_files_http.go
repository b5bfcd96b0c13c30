package filehost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// errNoSuchFile answers a file that is not the signed-in user's, or none.
var errNoSuchFile = httpx.E(http.StatusNotFound, "There is no such file.")

// handleConsoleFiles is GET /console/files: the user's files as a grid,
// newest first, filtered by album ("none" for files in no album), type and
// a keyword in the name. A constant number of queries whatever the page
// holds: the files with their objects, their count, and the albums.
func (s consoleHandlers) handleConsoleFiles(w http.ResponseWriter, r *http.Request) error {
	return s.renderFiles(w, r, http.StatusOK, "", nil)
}

// renderFiles renders the grid r's URL asks for, with a problem above it
// and the files of selected ticked when a batch form failed.
func (s consoleHandlers) renderFiles(w http.ResponseWriter, r *http.Request, status int, problem string, selected []string) error {
	ctx := r.Context()
	userID := auth.FromContext(ctx).UserID
	p, err := httpx.ParsePaging(r, "size", consoleFilesPage, consoleFilesPage)
	if err != nil {
		return err
	}
	in := r.URL.Query()
	q := fileQuery{UserID: userID, OrderBy: "created_at", Desc: true, Limit: p.Size, Offset: p.Offset(),
		Keyword: strings.TrimSpace(in.Get("q"))}
	data := filesView{Types: consoleFileTypes, Keyword: q.Keyword, Back: r.URL.RequestURI()}
	filters := url.Values{}
	switch a := strings.ToLower(strings.TrimSpace(in.Get("album"))); {
	case a == "":
	case a == "none":
		q.NoAlbum, data.Album = true, a
	default:
		ok, err := s.ownAlbum(ctx, s.db, a, userID)
		if err != nil {
			return err
		}
		if !ok {
			return httpx.E(http.StatusNotFound, "There is no such album.")
		}
		q.AlbumID, data.Album = a, a
	}
	if data.Album != "" {
		filters.Set("album", data.Album)
	}
	if err := gridFilters(in, &q, filters); err != nil {
		return err
	}
	data.Type, data.Filtered = q.FileType, len(filters) > 0
	files, total, err := s.listFiles(ctx, q)
	if err != nil {
		return err
	}
	if data.Albums, err = s.albumChoices(ctx, userID); err != nil {
		return err
	}
	ticked := map[string]bool{}
	for _, id := range selected {
		ticked[strings.ToLower(strings.TrimSpace(id))] = true
	}
	data.Files = make([]consoleCard, len(files))
	for i, f := range files {
		data.Files[i] = newCard(f)
		data.Files[i].Selected = ticked[f.ID]
	}
	data.Visibility = newVisibilityField("batch-visibility", "visibility", "", false)
	data.Pager = templates.NewConsolePager("/console/files", filters, p.Page, p.Size, total)
	v := s.console.View(w, r, "My files", "files")
	v.Error = problem
	v.Data = data
	s.console.Render(w, r, status, "files", v)
	return nil
}

// gridFilters reads the type filter of a file grid into q, and records the
// type and keyword filters in filters for the pager's links.
func gridFilters(in url.Values, q *fileQuery, filters url.Values) error {
	switch t := in.Get("type"); t {
	case "", "image", "video", "audio", "file":
		q.FileType = t
	default:
		return httpx.BadRequest("There is no such file type.")
	}
	if q.FileType != "" {
		filters.Set("type", q.FileType)
	}
	if q.Keyword != "" {
		filters.Set("q", q.Keyword)
	}
	return nil
}

// albumChoices are the user's albums by name, for a picker.
func (s consoleHandlers) albumChoices(ctx context.Context, userID string) ([]*album, error) {
	albums, _, err := s.listAlbums(ctx, albumQuery{UserID: userID, OrderBy: "name", Limit: consoleAlbumChoices})
	return albums, err
}

// handleConsoleDeleteFiles is POST /console/files/delete: the ticked files
// of the grid. Ids that are not the user's files are ignored, as in
// POST /api/v1/files/batch-delete.
func (s consoleHandlers) handleConsoleDeleteFiles(w http.ResponseWriter, r *http.Request) error {
	ids := r.PostForm["ids"]
	if len(ids) == 0 {
		return httpx.E(http.StatusUnprocessableEntity, "Select at least one file to delete.")
	}
	if err := checkBatch(ids); err != nil {
		return httpx.E(http.StatusUnprocessableEntity, "Delete at most 1000 files at a time.")
	}
	n, err := s.deleteFiles(r.Context(), auth.FromContext(r.Context()).UserID, dedupIDs(ids))
	if err != nil {
		return err
	}
	msg := "Deleted " + plural(n, "file") + "."
	s.console.Redirect(w, r, consoleFilesBack(r.PostFormValue("back")), msg)
	return nil
}

// handleConsoleBatchFiles is POST /console/files/batch, the grid's form:
// the ticked files (ids) are moved to an album (action=move, album_id; ""
// takes them out of any), given a visibility (action=visibility,
// visibility) or deleted (action=delete), all in one transaction. Ids
// that are not the user's files are ignored, as in
// POST /api/v1/files/batch-delete; when none is, nothing changes and the
// answer is 404. A refused form shows the grid again with the problem and
// the selection (docs/console.md#selecting-many-files).
func (s consoleHandlers) handleConsoleBatchFiles(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	userID := auth.FromContext(ctx).UserID
	back := consoleFilesBack(r.PostFormValue("back"))
	ids := r.PostForm["ids"]
	fail := func(status int, msg string) error {
		g := r.Clone(ctx)
		g.Method = http.MethodGet
		g.URL, _ = url.Parse(back) // consoleFilesBack made it a grid's path
		return s.renderFiles(w, g, status, msg, ids)
	}
	if len(ids) == 0 {
		return fail(http.StatusUnprocessableEntity, "Select at least one file first.")
	}
	if checkBatch(ids) != nil {
		return fail(http.StatusUnprocessableEntity, "Select at most 1000 files at a time.")
	}
	ids = dedupIDs(ids)
	var n int
	var done func(files string) string
	switch r.PostFormValue("action") {
	case "move":
		albumID := strings.TrimSpace(r.PostFormValue("album_id"))
		changed, name, err := s.updateFiles(ctx, userID, ids, batchPatch{AlbumID: &albumID})
		if errors.Is(err, errBadAlbum) {
			return fail(http.StatusUnprocessableEntity, "Choose one of your albums.")
		}
		if err != nil {
			return err
		}
		n = changed
		done = func(files string) string { return "Moved " + files + " to " + name + "." }
		if albumID == "" {
			done = func(files string) string { return "Took " + files + " out of their albums." }
		}
	case "visibility":
		vis := r.PostFormValue("visibility")
		if !validVisibility(vis) {
			return fail(http.StatusUnprocessableEntity, "Choose a visibility: public, unlisted or restricted.")
		}
		changed, _, err := s.updateFiles(ctx, userID, ids, batchPatch{Visibility: &vis})
		if err != nil {
			return err
		}
		n = changed
		done = func(files string) string { return "Made " + files + " " + strings.ToLower(visibilityLabel(vis)) + "." }
	case "delete":
		deleted, err := s.deleteFiles(ctx, userID, ids)
		if err != nil {
			return err
		}
		n = deleted
		done = func(files string) string { return "Deleted " + files + "." }
	default:
		return fail(http.StatusUnprocessableEntity, "Choose what to do with the selected files.")
	}
	if n == 0 {
		return fail(http.StatusNotFound, "None of the selected files is yours any more; nothing was changed.")
	}
	s.console.Redirect(w, r, back, done(plural(n, "file")))
	return nil
}

// plural is "1 file", "2 files" (templates.Plural, as the pages say it).
func plural(n int, noun string) string { return templates.Plural(int64(n), noun) }

// consoleFile loads the signed-in user's file named by the path, with its
// links; anyone else's is a 404.
func (s consoleHandlers) consoleFile(r *http.Request) (*fileRecord, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, errNoSuchFile
	}
	f, err := s.fileByID(r.Context(), id, auth.FromContext(r.Context()).UserID)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, errNoSuchFile
	}
	if err != nil {
		return nil, err
	}
	f.setLinks(httpx.BaseURL(r))
	return f, nil
}

// handleConsoleFile is GET /console/files/{id}: preview, facts, links and
// the edit form.
func (s consoleHandlers) handleConsoleFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.consoleFile(r)
	if err != nil {
		return err
	}
	return s.renderFile(w, r, http.StatusOK, newFileView(f), "")
}

func (s consoleHandlers) renderFile(w http.ResponseWriter, r *http.Request, status int, data *fileView, problem string) error {
	albums, err := s.albumChoices(r.Context(), auth.FromContext(r.Context()).UserID)
	if err != nil {
		return err
	}
	data.Albums = albums
	shares, err := s.listShares(r.Context(), data.File.ID)
	if err != nil {
		return err
	}
	base := httpx.BaseURL(r)
	now := s.now()
	for i, sh := range shares {
		sh.setURL(base)
		card := shareCard{share: sh,
			Copy: templates.ConsoleCopy{ID: fmt.Sprintf("share-%d", i+1), Label: "Share link", Value: sh.URL}}
		if until, locked := sh.lockedUntil(now); locked {
			card.LockedUntil = &until
		}
		data.Shares = append(data.Shares, card)
	}
	data.Expiry = expiryChoices()
	v := s.console.View(w, r, data.File.OriginName, "files")
	v.Error = problem
	v.Data = data
	s.console.Render(w, r, status, "file", v)
	return nil
}

// handleConsoleUpdateFile is POST /console/files/{id}: the edit form sets
// the name, the album ("" for none) and the visibility, with
// the rules of PATCH /api/v1/files/{id}.
func (s consoleHandlers) handleConsoleUpdateFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.consoleFile(r)
	if err != nil {
		return err
	}
	name, albumID, visibility := r.PostFormValue("origin_name"), r.PostFormValue("album_id"), r.PostFormValue("visibility")
	fail := func(msg string) error {
		data := newFileView(f)
		data.Name, data.AlbumID = name, albumID
		if validVisibility(visibility) {
			data.Visibility.Selected = visibility
		}
		return s.renderFile(w, r, http.StatusUnprocessableEntity, data, msg)
	}
	patch := filePatch{OriginName: &name, AlbumID: &albumID}
	if visibility != "" { // a form without the select keeps it
		if !validVisibility(visibility) {
			return fail("Choose a visibility.")
		}
		patch.Visibility = &visibility
	}
	if err := patch.clean(); err != nil {
		return fail("Enter a name of 1 to 255 characters, without slashes or control characters.")
	}
	err = s.updateFile(r.Context(), f.ID, auth.FromContext(r.Context()).UserID, patch)
	switch {
	case errors.Is(err, errBadAlbum):
		return fail("Choose one of your albums.")
	case errors.Is(err, sqlstore.ErrNotFound):
		return errNoSuchFile
	case err != nil:
		return err
	}
	s.console.Redirect(w, r, "/console/files/"+f.ID, "Saved.")
	return nil
}

// handleConsoleDeleteFile is POST /console/files/{id}/delete.
func (s consoleHandlers) handleConsoleDeleteFile(w http.ResponseWriter, r *http.Request) error {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return errNoSuchFile
	}
	n, err := s.deleteFiles(r.Context(), auth.FromContext(r.Context()).UserID, []string{id})
	if err != nil {
		return err
	}
	if n == 0 {
		return errNoSuchFile
	}
	s.console.Redirect(w, r, "/console/files", "Deleted.")
	return nil
}
