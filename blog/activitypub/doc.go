// Package activitypub is the ActivityStreams 2.0 vocabulary as the
// fediverse speaks it: the types Folio sends, and the tolerant decoding
// of what other servers send (docs/federation.md).
//
// The package is a map of four surfaces:
//
//   - objects (object.go, decode.go): Object is any object, activity,
//     actor or collection; Ref and Refs are properties that may be an IRI,
//     an embedded object or an array of either. Decode reads one document
//     and never fails on a field of an unexpected JSON type: the field is
//     left empty, as other servers' extensions and mistakes must not cost
//     a whole activity;
//   - content negotiation (accept.go): Wants tells whether an Accept
//     header asks for ActivityStreams JSON rather than the HTML page, and
//     IsActivityContentType whether a body is ActivityStreams JSON;
//   - IRIs (iri.go): Host and SameHost, for checking that an activity and
//     its actor come from the same server;
//   - discovery (discovery.go): WebFinger's JRD and ParseAcct, and the
//     NodeInfo 2.1 documents.
//
// It knows nothing of HTTP clients, signatures or storage.
package activitypub

// Media types and IRIs of the vocabulary.
const (
	ContentType            = "application/activity+json"
	LDContentType          = `application/ld+json; profile="https://www.w3.org/ns/activitystreams"`
	Public                 = "https://www.w3.org/ns/activitystreams#Public"
	ActivityStreamsContext = "https://www.w3.org/ns/activitystreams"
	SecurityContext        = "https://w3id.org/security/v1"
)

// Context is the @context of a document that names terms the
// ActivityStreams context leaves out but the fediverse uses: Hashtag and
// sensitive. Servers that read documents as JSON-LD drop a term no context
// defines, so an Article's hashtags need it; servers that read plain JSON
// do not care. A new slice each call, for the caller to keep.
func Context() []any {
	return []any{ActivityStreamsContext, map[string]string{"Hashtag": "as:Hashtag", "sensitive": "as:sensitive"}}
}
