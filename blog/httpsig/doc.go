// Package httpsig signs and verifies HTTP requests with draft-cavage HTTP
// Signatures (rsa-sha256, also "hs2019" with an RSA key) as Mastodon,
// GoToSocial, Misskey and Fedify sign them, and checks the Digest header
// of a signed body (docs/federation.md#signatures).
//
// The package is a map of four surfaces:
//
//   - signing (sign.go): Signer sets Date, Digest and Signature on an
//     outgoing request, covering "(request-target) host date digest", or
//     "(request-target) host date" for a signed GET;
//   - reading and verifying (parse.go, verify.go): Parse reads the
//     Signature header (or "Authorization: Signature ...") without ever
//     panicking, SigningString rebuilds what was signed, Verify checks it
//     against the actor's public key and the headers a caller requires;
//     CheckDate bounds the clock skew of the Date header;
//   - the body's Digest (digest.go): Digest and CheckDigest;
//   - keys (keys.go): RSA keys to and from the PEM texts actors publish.
//
// Every error is one of the sentinels below, possibly wrapped with detail,
// so a caller answers by errors.Is. The package knows nothing of actors or
// of fetching keys: the caller looks the key up by Signature.KeyID.
package httpsig

import "errors"

// The errors of the package; each is returned wrapped with detail where
// there is some to give.
var (
	ErrNoSignature    = errors.New("httpsig: the request is not signed")
	ErrMalformed      = errors.New("httpsig: malformed signature header")
	ErrMissingHeader  = errors.New("httpsig: a signed header is missing")
	ErrAlgorithm      = errors.New("httpsig: unsupported signature algorithm")
	ErrBadSignature   = errors.New("httpsig: the signature does not verify")
	ErrNoDigest       = errors.New("httpsig: no SHA-256 Digest header")
	ErrDigestMismatch = errors.New("httpsig: the Digest does not match the body")
	ErrNoDate         = errors.New("httpsig: no readable Date header")
	ErrStale          = errors.New("httpsig: the Date is too far from now")
)
