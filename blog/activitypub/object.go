package activitypub

import (
	"encoding/json"
)

// Object is an ActivityStreams object, activity, actor or collection.
// Encoding writes only the fields set; decoding (UnmarshalJSON, Decode)
// ignores unknown fields and leaves empty a field whose JSON type is not
// the one expected.
type Object struct {
	Context any    `json:"@context,omitempty"`
	ID      string `json:"id,omitempty"`
	Type    string `json:"type,omitempty"`

	Actor        Ref  `json:"actor,omitzero"`
	Object       Ref  `json:"object,omitzero"`
	Target       Ref  `json:"target,omitzero"`
	InReplyTo    Ref  `json:"inReplyTo,omitzero"`
	AttributedTo Ref  `json:"attributedTo,omitzero"`
	To           Refs `json:"to,omitempty"`
	Cc           Refs `json:"cc,omitempty"`

	Name       string            `json:"name,omitempty"`
	Summary    string            `json:"summary,omitempty"`
	Content    string            `json:"content,omitempty"`
	ContentMap map[string]string `json:"contentMap,omitempty"`
	MediaType  string            `json:"mediaType,omitempty"`
	URL        Ref               `json:"url,omitzero"`
	Published  string            `json:"published,omitempty"` // RFC 3339 as given
	Updated    string            `json:"updated,omitempty"`
	Tag        Refs              `json:"tag,omitempty"`
	Attachment Refs              `json:"attachment,omitempty"`
	Sensitive  bool              `json:"sensitive,omitempty"`

	// Actors.
	PreferredUsername         string     `json:"preferredUsername,omitempty"`
	Inbox                     string     `json:"inbox,omitempty"`
	Outbox                    string     `json:"outbox,omitempty"`
	Followers                 string     `json:"followers,omitempty"`
	Following                 string     `json:"following,omitempty"`
	Endpoints                 *Endpoints `json:"endpoints,omitempty"`
	PublicKey                 *PublicKey `json:"publicKey,omitempty"`
	Icon                      *Image     `json:"icon,omitempty"`
	Image                     *Image     `json:"image,omitempty"`
	ManuallyApprovesFollowers bool       `json:"manuallyApprovesFollowers,omitempty"`
	Discoverable              *bool      `json:"discoverable,omitempty"`

	// Links, mentions and hashtags.
	Href string `json:"href,omitempty"`

	// Collections.
	TotalItems   *int `json:"totalItems,omitempty"`
	First        Ref  `json:"first,omitzero"`
	Next         Ref  `json:"next,omitzero"`
	Prev         Ref  `json:"prev,omitzero"`
	PartOf       Ref  `json:"partOf,omitzero"`
	OrderedItems Refs `json:"orderedItems,omitempty"`
	Items        Refs `json:"items,omitempty"`
}

// Endpoints is an actor's endpoints; Folio reads the shared inbox.
type Endpoints struct {
	SharedInbox string `json:"sharedInbox,omitempty"`
}

// PublicKey is an actor's key, with which its requests are signed
// (docs/federation.md#signatures).
type PublicKey struct {
	ID           string `json:"id,omitempty"`
	Owner        string `json:"owner,omitempty"`
	PublicKeyPem string `json:"publicKeyPem,omitempty"`
}

// Image is an actor's icon (avatar) or image (header).
type Image struct {
	Type      string `json:"type,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	URL       string `json:"url,omitempty"`
	Name      string `json:"name,omitempty"`
}

// Ref is a property that may be a bare IRI, an embedded object or an
// array of those, of which the first is taken. ID is the IRI, the
// embedded object's id when there is one.
type Ref struct {
	ID     string
	Object *Object
}

// IsZero reports whether nothing is set, so that `omitzero` leaves the
// property out.
func (r Ref) IsZero() bool { return r.ID == "" && r.Object == nil }

// IRI returns the IRI the property names: its ID, else the embedded
// object's href (a url given as a Link object).
func (r Ref) IRI() string {
	if r.ID != "" || r.Object == nil {
		return r.ID
	}
	return r.Object.Href
}

// MarshalJSON writes the IRI when no object is embedded, else the object.
func (r Ref) MarshalJSON() ([]byte, error) {
	if r.Object != nil {
		return json.Marshal(r.Object)
	}
	if r.ID == "" {
		return []byte("null"), nil
	}
	return json.Marshal(r.ID)
}

// UnmarshalJSON reads an IRI, an object, an array (its first IRI or
// object) or null; any other JSON leaves the Ref empty.
func (r *Ref) UnmarshalJSON(data []byte) error {
	*r = refOf(data)
	return nil
}

// Refs is a multi-valued property (to, cc, tag, attachment, items): one
// value or an array, each an IRI or an object.
type Refs []Ref

// IDs returns the IRIs of the values that have one, in order.
func (rs Refs) IDs() []string {
	var ids []string
	for _, r := range rs {
		if r.ID != "" {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// UnmarshalJSON reads one value or an array of values; values that are
// neither an IRI nor an object are skipped.
func (rs *Refs) UnmarshalJSON(data []byte) error {
	*rs = refsOf(data)
	return nil
}

// UnmarshalJSON reads an object, an array (its first object) or a bare
// IRI as the key's id.
func (k *PublicKey) UnmarshalJSON(data []byte) error {
	*k = PublicKey{}
	raw := first(data)
	if s, ok := stringOf(raw); ok {
		k.ID = s
		return nil
	}
	fields, ok := fieldsOf(raw)
	if !ok {
		return nil
	}
	k.ID = iriOf(fields["id"])
	k.Owner = iriOf(fields["owner"])
	k.PublicKeyPem, _ = stringOf(fields["publicKeyPem"])
	return nil
}

// UnmarshalJSON reads an object, an array (its first) or a bare URL.
func (im *Image) UnmarshalJSON(data []byte) error {
	*im = Image{}
	raw := first(data)
	if s, ok := stringOf(raw); ok {
		im.URL = s
		return nil
	}
	fields, ok := fieldsOf(raw)
	if !ok {
		return nil
	}
	im.Type = typeOf(fields["type"])
	im.MediaType, _ = stringOf(fields["mediaType"])
	im.URL = refOf(fields["url"]).IRI()
	im.Name, _ = stringOf(fields["name"])
	return nil
}

// UnmarshalJSON reads the shared inbox, if it is a string.
func (e *Endpoints) UnmarshalJSON(data []byte) error {
	*e = Endpoints{}
	if fields, ok := fieldsOf(data); ok {
		e.SharedInbox = iriOf(fields["sharedInbox"])
	}
	return nil
}
