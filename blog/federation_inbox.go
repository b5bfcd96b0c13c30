package blog

import "net/http"

// serveInbox answers POST /ap/actor/inbox and /ap/inbox. Not built in
// this branch: the inbox's own file replaces this one.
func (b *Blog) serveInbox(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "", http.StatusNotImplemented)
}
