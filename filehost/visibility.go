package filehost

import (
	"context"

	"folio/auth"
)

// The visibilities of a file (docs/filehost.md#visibility): public files
// are listed in the plaza; unlisted ones are served to anyone holding
// their link and listed nowhere (Lsky's permission=0); restricted ones are
// served only to their owner's session or token and through their share
// links, and to anyone else their links answer as a missing file.
const (
	visPublic     = "public"
	visUnlisted   = "unlisted"
	visRestricted = "restricted"
)

// errBadVisibility answers a visibility outside the three names.
var errBadVisibility = invalid("visibility must be public, unlisted or restricted")

func validVisibility(v string) bool {
	return v == visPublic || v == visUnlisted || v == visRestricted
}

// visibilityOf is what older clients' is_public asks for: true lists the
// file, false keeps it out of the lists but served to its link's holders,
// as Lsky's permission 1 and 0.
func visibilityOf(isPublic bool) string {
	if isPublic {
		return visPublic
	}
	return visUnlisted
}

// setDefaultVisibility checks and sets the visibility a user's uploads get
// when they ask for none.
func (s *Service) setDefaultVisibility(ctx context.Context, userID, v string) (*auth.User, error) {
	if !validVisibility(v) {
		return nil, errBadVisibility
	}
	return s.auth.SetDefaultVisibility(ctx, userID, v)
}

// pickVisibility reconciles a visibility and an older client's is_public
// (or permission, named by other) sent together: either alone decides,
// both must agree; "" when neither was sent.
func pickVisibility(visibility *string, isPublic *bool, other string) (string, error) {
	switch {
	case visibility != nil && !validVisibility(*visibility):
		return "", errBadVisibility
	case visibility != nil && isPublic != nil && (*visibility == visPublic) != *isPublic:
		return "", invalid(other + " contradicts visibility: send one of them")
	case visibility != nil:
		return *visibility, nil
	case isPublic != nil:
		return visibilityOf(*isPublic), nil
	}
	return "", nil
}

// VisibilityLabel names the file's visibility for the console.
func (f *fileRecord) VisibilityLabel() string { return visibilityLabel(f.Visibility) }

func visibilityLabel(v string) string {
	switch v {
	case visPublic:
		return "Public"
	case visRestricted:
		return "Restricted"
	}
	return "Unlisted"
}

// visibilityField is a console select of the visibilities (the template
// "visibility").
type visibilityField struct {
	ID, Name, Selected string
	Choices            []visibilityChoice
}

type visibilityChoice struct{ Value, Label string }

// newVisibilityField offers the visibilities with selected chosen; a guest
// is not offered restricted, which nobody could read.
func newVisibilityField(id, name, selected string, guest bool) visibilityField {
	f := visibilityField{ID: id, Name: name, Selected: selected, Choices: []visibilityChoice{
		{visPublic, "Public: listed in the plaza"},
		{visUnlisted, "Unlisted: anyone with the link"},
	}}
	if !guest {
		f.Choices = append(f.Choices, visibilityChoice{visRestricted, "Restricted: only you, and your share links"})
	}
	return f
}
