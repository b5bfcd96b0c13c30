package blog

import (
	"errors"
	"net/http"
	"strings"

	"folio/httpx"
	"folio/sqlstore"
)

// maskPrefix starts a masked API key. A PUT that sends a value starting with
// it sends back what it read, so the stored key stays.
const maskPrefix = "****"

// maskKey shows at most the last four characters of a secret; short keys
// are not shown at all.
func maskKey(key string) string {
	if key == "" {
		return ""
	}
	r := []rune(key)
	if len(r) <= 8 {
		return maskPrefix
	}
	return maskPrefix + string(r[len(r)-4:])
}

func masked(s sqlstore.Settings) sqlstore.Settings {
	s.AI.APIKey = maskKey(s.AI.APIKey)
	return s
}

func (b *Blog) handleGetSettings(w http.ResponseWriter, r *http.Request) error {
	httpx.BlogAPI.OK(w, http.StatusOK, masked(b.settings.Get(r.Context())))
	return nil
}

// handlePutSettings decodes the body onto the current settings, so fields
// left out keep their values, then validates and stores them.
func (b *Blog) handlePutSettings(w http.ResponseWriter, r *http.Request) error {
	cur := b.settings.Get(r.Context())
	next := cur
	if err := httpx.DecodeJSON(w, r, &next); err != nil {
		return err
	}
	if strings.HasPrefix(next.AI.APIKey, maskPrefix) {
		next.AI.APIKey = cur.AI.APIKey
	}
	err := b.settings.Put(r.Context(), next)
	var fe *sqlstore.FieldError
	if errors.As(err, &fe) {
		return httpx.Unprocessable(fe.Key, fe.Msg)
	}
	if err != nil {
		return err
	}
	httpx.BlogAPI.OK(w, http.StatusOK, masked(b.settings.Get(r.Context())))
	return nil
}
