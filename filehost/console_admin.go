package filehost

import (
	"errors"
	"strconv"
	"strings"

	"folio/auth"
	"folio/sqlstore"
	"folio/templates"
)

// consoleUsersPage is how many users the administration's user list shows
// a page.
const consoleUsersPage = 25

// usersView is the "admin-users" page's data.
type usersView struct {
	Users   []auth.User
	Keyword string
	Pager   *templates.ConsolePager
	Form    userForm // the create form, as sent when it failed
}

// userView is the "admin-user" page's data.
type userView struct {
	User      *auth.User
	Protected bool // the administrator or the guest: no delete, disable or demotion
	Form      userForm
}

// userForm holds the text of a user form as typed, so that a refused form
// comes back as it was sent.
type userForm struct {
	Username, Email, Role, Status, Quota string
}

// adminFilesView is the "admin-files" page's data.
type adminFilesView struct {
	Files    []adminCard
	Types    []consoleChoice
	Owner    string // the owner filter, a username
	Type     string
	Keyword  string
	Back     string
	Filtered bool
	Pager    *templates.ConsolePager
}

// adminCard is a file in the administration's grid, with its owner.
type adminCard struct {
	consoleCard
	Owner string
}

// settingsView is the "admin-settings" page's data: the upload settings as
// the form shows them, sizes and lists as text.
type settingsView struct {
	AllowGuestUpload, AllowRegister, AllowDuplicate, StripMetadata bool
	MaxFileSize, DefaultQuota                                      string
	AllowedTypes, ForbiddenExts, PathPattern                       string
	Field                                                          string // the key a refused form failed on
}

// newSettingsView shows u in the form.
func newSettingsView(u UploadSettings) settingsView {
	return settingsView{AllowGuestUpload: u.AllowGuestUpload, AllowRegister: u.AllowRegister, AllowDuplicate: u.AllowDuplicate,
		StripMetadata: u.StripMetadata,
		MaxFileSize:   sizeText(u.MaxFileSize), DefaultQuota: sizeText(u.DefaultQuotaBytes),
		AllowedTypes: strings.Join(u.AllowedTypes, ", "), ForbiddenExts: strings.Join(u.ForbiddenExts, ", "), PathPattern: u.PathPattern}
}

// apply reads the form into u; a size that is not one is a FieldError
// naming its key.
func (f settingsView) apply(u UploadSettings) (UploadSettings, error) {
	u.AllowGuestUpload, u.AllowRegister, u.AllowDuplicate = f.AllowGuestUpload, f.AllowRegister, f.AllowDuplicate
	u.StripMetadata = f.StripMetadata
	var err error
	if u.MaxFileSize, err = formSize(f.MaxFileSize); err != nil {
		return u, &sqlstore.FieldError{Key: "upload.max_file_size", Msg: err.Error()}
	}
	if u.DefaultQuotaBytes, err = formSize(f.DefaultQuota); err != nil {
		return u, &sqlstore.FieldError{Key: "upload.default_quota_bytes", Msg: err.Error()}
	}
	u.AllowedTypes, u.ForbiddenExts = ParseList(f.AllowedTypes), ParseList(f.ForbiddenExts)
	u.PathPattern = strings.TrimSpace(f.PathPattern)
	return u, nil
}

// sizeText writes a byte count as the largest binary unit that holds it
// whole ("100 MiB", "1536 KiB", "0"), which formSize reads back exactly.
func sizeText(n int64) string {
	if n == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// errSize is what a size field that is not one says.
var errSize = errors.New("must be a size like 10 MiB: a whole number of bytes, or with KiB, MiB or GiB")

// formSize reads a size field: a whole number with an optional binary unit.
// Empty is 0.
func formSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := sqlstore.ParseSize(s)
	if err != nil || n < 0 {
		return 0, errSize
	}
	return n, nil
}

// uploadSettingLabels names the upload settings as the Upload settings
// page labels them, so that a refusal names the field a person sees, not
// the key the settings API uses (which keeps its own messages).
func uploadSettingLabels() map[string]string {
	return map[string]string{
		"upload.allow_guest_upload":  "Guests may upload",
		"upload.allow_register":      "Visitors may create an account",
		"upload.allow_duplicate":     "Store a new copy of content already stored",
		"upload.strip_metadata":      "Remove photo metadata",
		"upload.max_file_size":       "Largest file",
		"upload.default_quota_bytes": "Quota of new accounts",
		"upload.allowed_types":       "Allowed types",
		"upload.forbidden_exts":      "Forbidden extensions",
		"upload.path_pattern":        "Path pattern",
	}
}

// uploadSettingLabel is the label of a setting's field, or its key for one
// the page does not show.
func uploadSettingLabel(key string) string {
	if l, ok := uploadSettingLabels()[key]; ok {
		return l
	}
	return key
}
