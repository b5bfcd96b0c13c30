package httpxtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DeclareBody sends a request whose headers declare a body of length bytes
// (with the client's headers and cookies) and never sends the body, then
// reads the answer: a server that waited for the body would not answer,
// and the test fails when its read deadline (a guard against hanging, far
// longer than an answer takes) passes.
func (c *Client) DeclareBody(method, path, contentType string, length int64) *Response {
	c.T.Helper()
	u, err := url.Parse(c.Base + path)
	if err != nil {
		c.T.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		c.T.Fatal(err)
	}
	defer conn.Close()
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n", method, u.RequestURI(), u.Host, contentType, length)
	for k, vs := range c.Header {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	if c.HTTP.Jar != nil {
		for _, ck := range c.HTTP.Jar.Cookies(u) {
			fmt.Fprintf(&head, "Cookie: %s\r\n", ck.String())
		}
	}
	head.WriteString("\r\n")
	if _, err := io.WriteString(conn, head.String()); err != nil {
		c.T.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		c.T.Fatalf("%s %s declaring %d bytes: no answer without the body: %v", method, path, length, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.T.Fatalf("read body: %v", err)
	}
	if !resp.Close {
		c.T.Errorf("%s %s: the connection stays open after a refused %d-byte body", method, path, length)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b, T: c.T}
}
