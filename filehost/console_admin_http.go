package filehost

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"folio/auth"
	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// errNoSuchUser answers a user id that names nobody.
var errNoSuchUser = httpx.E(http.StatusNotFound, "There is no such user.")

// handleConsoleAdminUsers is GET /console/admin/users: every account,
// oldest first, searched by username or email.
func (s consoleHandlers) handleConsoleAdminUsers(w http.ResponseWriter, r *http.Request) error {
	form := userForm{Role: auth.RoleUser, Quota: sizeText(s.settings.Get(r.Context()).Upload.DefaultQuotaBytes)}
	return s.renderAdminUsers(w, r, http.StatusOK, form, "")
}

func (s consoleHandlers) renderAdminUsers(w http.ResponseWriter, r *http.Request, status int, form userForm, problem string) error {
	p, err := httpx.ParsePaging(r, "size", consoleUsersPage, consoleUsersPage)
	if err != nil {
		return err
	}
	keyword := strings.TrimSpace(r.URL.Query().Get("q"))
	users, total, err := s.auth.ListUsers(r.Context(), keyword, p.Size, p.Offset())
	if err != nil {
		return err
	}
	filters := url.Values{}
	if keyword != "" {
		filters.Set("q", keyword)
	}
	v := s.console.View(w, r, "Users", "admin-users")
	v.Error = problem
	v.Data = usersView{Users: users, Keyword: keyword, Form: form,
		Pager: templates.NewConsolePager("/console/admin/users", filters, p.Page, p.Size, total)}
	s.console.Render(w, r, status, "admin-users", v)
	return nil
}

// handleConsoleAdminCreateUser is POST /console/admin/users: the rules of
// POST /api/v1/admin/users.
func (s consoleHandlers) handleConsoleAdminCreateUser(w http.ResponseWriter, r *http.Request) error {
	form := userForm{Username: strings.TrimSpace(r.PostFormValue("username")), Email: strings.TrimSpace(r.PostFormValue("email")),
		Role: strings.TrimSpace(r.PostFormValue("role")), Quota: r.PostFormValue("quota")}
	quota, err := formSize(form.Quota)
	if err != nil {
		return s.renderAdminUsers(w, r, http.StatusUnprocessableEntity, form, "Quota "+err.Error()+".")
	}
	u, err := s.auth.CreateUser(r.Context(), auth.NewUser{Username: form.Username, Email: form.Email,
		Password: r.PostFormValue("password"), Role: form.Role, QuotaBytes: quota})
	if err != nil {
		he := httpx.AsError(httpError(err))
		if he.Status >= 500 {
			return err
		}
		return s.renderAdminUsers(w, r, he.Status, form, httpx.Sentence(he.Msg))
	}
	s.console.Redirect(w, r, "/console/admin/users/"+u.ID, "Created "+u.Username+".")
	return nil
}

// adminUser loads the user the path names.
func (s consoleHandlers) adminUser(r *http.Request) (*auth.User, error) {
	id, err := httpx.PathID(r, "id")
	if err != nil {
		return nil, errNoSuchUser
	}
	u, err := s.auth.UserByID(r.Context(), id)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, errNoSuchUser
	}
	return u, err
}

// handleConsoleAdminUser is GET /console/admin/users/{id}.
func (s consoleHandlers) handleConsoleAdminUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminUser(r)
	if err != nil {
		return err
	}
	return s.renderAdminUser(w, r, http.StatusOK, u, userForm{Role: u.Role, Status: u.Status, Quota: sizeText(u.QuotaBytes)}, "")
}

func (s consoleHandlers) renderAdminUser(w http.ResponseWriter, r *http.Request, status int, u *auth.User, form userForm, problem string) error {
	v := s.console.View(w, r, "User "+u.Username, "admin-users")
	v.Error = problem
	v.Data = userView{User: u, Form: form, Protected: u.ID == s.auth.AdminID() || u.ID == s.auth.GuestID()}
	s.console.Render(w, r, status, "admin-user", v)
	return nil
}

// handleConsoleAdminUpdateUser is POST /console/admin/users/{id}: status,
// role, quota and, when given, a new password. Disabling an account signs
// it out everywhere at once.
func (s consoleHandlers) handleConsoleAdminUpdateUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminUser(r)
	if err != nil {
		return err
	}
	form := userForm{Role: strings.TrimSpace(r.PostFormValue("role")), Status: strings.TrimSpace(r.PostFormValue("status")), Quota: r.PostFormValue("quota")}
	quota, err := formSize(form.Quota)
	if err != nil {
		return s.renderAdminUser(w, r, http.StatusUnprocessableEntity, u, form, "Quota "+err.Error()+".")
	}
	patch := auth.UserPatch{QuotaBytes: &quota}
	// Only what changed is sent, so saving the quota of the administrator
	// does not trip over the rule that it cannot be demoted.
	if form.Role != u.Role {
		patch.Role = &form.Role
	}
	if form.Status != u.Status {
		patch.Status = &form.Status
	}
	if pw := r.PostFormValue("password"); pw != "" {
		patch.Password = &pw
	}
	if _, err := s.auth.UpdateUser(r.Context(), u.ID, patch); err != nil {
		he := httpx.AsError(httpError(err))
		if he.Status >= 500 {
			return err
		}
		return s.renderAdminUser(w, r, he.Status, u, form, httpx.Sentence(he.Msg))
	}
	s.console.Redirect(w, r, "/console/admin/users/"+u.ID, "Saved.")
	return nil
}

// handleConsoleAdminDeleteUser is POST /console/admin/users/{id}/delete:
// the account with its albums, tokens and files.
func (s consoleHandlers) handleConsoleAdminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminUser(r)
	if err != nil {
		return err
	}
	if err := s.removeUser(r.Context(), u.ID); err != nil {
		he := httpx.AsError(httpError(err))
		if he.Status >= 500 {
			return err
		}
		return s.renderAdminUser(w, r, he.Status, u, userForm{Role: u.Role, Status: u.Status, Quota: sizeText(u.QuotaBytes)}, httpx.Sentence(he.Msg))
	}
	s.console.Redirect(w, r, "/console/admin/users", "Deleted "+u.Username+" and their files.")
	return nil
}

// handleConsoleAdminFiles is GET /console/admin/files: every user's files,
// newest first, filtered by owner (a username), type and name.
func (s consoleHandlers) handleConsoleAdminFiles(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p, err := httpx.ParsePaging(r, "size", consoleFilesPage, consoleFilesPage)
	if err != nil {
		return err
	}
	in := r.URL.Query()
	q := fileQuery{OrderBy: "created_at", Desc: true, Limit: p.Size, Offset: p.Offset(), Keyword: strings.TrimSpace(in.Get("q"))}
	data := adminFilesView{Types: consoleFileTypes, Keyword: q.Keyword, Owner: strings.TrimSpace(in.Get("user")), Back: r.URL.RequestURI()}
	filters := url.Values{}
	if data.Owner != "" {
		u, err := s.auth.UserByName(ctx, data.Owner)
		if errors.Is(err, sqlstore.ErrNotFound) {
			return httpx.E(http.StatusNotFound, "There is no user named "+data.Owner+".")
		}
		if err != nil {
			return err
		}
		q.UserID = u.ID
		filters.Set("user", data.Owner)
	}
	if err := gridFilters(in, &q, filters); err != nil {
		return err
	}
	data.Type, data.Filtered = q.FileType, len(filters) > 0
	files, total, err := s.listFiles(ctx, q)
	if err != nil {
		return err
	}
	names, err := s.usernames(ctx, files)
	if err != nil {
		return err
	}
	data.Files = make([]adminCard, len(files))
	me := auth.FromContext(ctx).UserID
	for i, f := range files {
		data.Files[i] = adminCard{consoleCard: newCard(f), Owner: names[f.userID]}
		if f.Visibility == visRestricted && f.userID != me {
			// Its links are closed to the administrator
			// (docs/filehost.md#visibility): its badge, not a broken image.
			data.Files[i].Thumb = ""
		}
	}
	data.Pager = templates.NewConsolePager("/console/admin/files", filters, p.Page, p.Size, total)
	v := s.console.View(w, r, "All files", "admin-files")
	v.Data = data
	s.console.Render(w, r, http.StatusOK, "admin-files", v)
	return nil
}

// handleConsoleAdminDeleteFiles is POST /console/admin/files/delete: any
// user's ticked files.
func (s consoleHandlers) handleConsoleAdminDeleteFiles(w http.ResponseWriter, r *http.Request) error {
	ids := r.PostForm["ids"]
	if len(ids) == 0 {
		return httpx.E(http.StatusUnprocessableEntity, "Select at least one file to delete.")
	}
	if err := checkBatch(ids); err != nil {
		return httpx.E(http.StatusUnprocessableEntity, "Delete at most 1000 files at a time.")
	}
	n, err := s.deleteFiles(r.Context(), "", dedupIDs(ids))
	if err != nil {
		return err
	}
	back := "/console/admin/files"
	if u, err := url.Parse(r.PostFormValue("back")); err == nil && u.Scheme == "" && u.Host == "" && u.Path == back {
		back += queryOf(u.Query())
	}
	s.console.Redirect(w, r, back, "Deleted "+plural(n, "file")+".")
	return nil
}

// handleConsoleAdminSettings is GET /console/admin/settings: the upload
// settings group as a form.
func (s consoleHandlers) handleConsoleAdminSettings(w http.ResponseWriter, r *http.Request) error {
	return s.renderAdminSettings(w, r, http.StatusOK, newSettingsView(s.settings.Get(r.Context()).Upload), "")
}

func (s consoleHandlers) renderAdminSettings(w http.ResponseWriter, r *http.Request, status int, form settingsView, problem string) error {
	v := s.console.View(w, r, "Upload settings", "admin-settings")
	v.Error = problem
	v.Data = form
	s.console.Render(w, r, status, "admin-settings", v)
	return nil
}

// handleConsoleAdminSaveSettings is POST /console/admin/settings: the whole
// group is validated as the settings API does, and nothing is stored when
// one field is refused.
func (s consoleHandlers) handleConsoleAdminSaveSettings(w http.ResponseWriter, r *http.Request) error {
	form := settingsView{
		AllowGuestUpload: r.PostFormValue("allow_guest_upload") != "",
		AllowRegister:    r.PostFormValue("allow_register") != "",
		AllowDuplicate:   r.PostFormValue("allow_duplicate") != "",
		StripMetadata:    r.PostFormValue("strip_metadata") != "",
		MaxFileSize:      r.PostFormValue("max_file_size"),
		DefaultQuota:     r.PostFormValue("default_quota"),
		AllowedTypes:     r.PostFormValue("allowed_types"),
		ForbiddenExts:    r.PostFormValue("forbidden_exts"),
		PathPattern:      r.PostFormValue("path_pattern"),
	}
	next, err := form.apply(s.settings.Get(r.Context()).Upload)
	if err == nil {
		err = s.settings.upload.Put(r.Context(), next)
	}
	var fe *sqlstore.FieldError
	if errors.As(err, &fe) {
		form.Field = fe.Key
		return s.renderAdminSettings(w, r, http.StatusUnprocessableEntity, form, "Not saved. "+uploadSettingLabel(fe.Key)+": "+fe.Msg+".")
	}
	if err != nil {
		return err
	}
	s.console.Redirect(w, r, "/console/admin/settings", "Settings saved.")
	return nil
}
