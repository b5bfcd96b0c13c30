package httpx

import "net/http"

// Reply writes an envelope-B response with an explicit status, data and msg,
// for the few answers that are neither a plain success nor an error (a
// health check reporting 503 with data, for instance).
func Reply(w http.ResponseWriter, status int, data any, msg string) {
	writeJSON(w, status, struct {
		Code int    `json:"code"`
		Data any    `json:"data"`
		Msg  string `json:"msg"`
	}{status, data, msg})
}
