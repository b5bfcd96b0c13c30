package activitypub

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// JRD is a WebFinger answer (JSON Resource Descriptor).
type JRD struct {
	Subject string   `json:"subject"`
	Aliases []string `json:"aliases,omitempty"`
	Links   []Link   `json:"links"`
}

// Link is a link of a JRD or of the NodeInfo discovery document.
type Link struct {
	Rel      string `json:"rel,omitempty"`
	Type     string `json:"type,omitempty"`
	Href     string `json:"href,omitempty"`
	Template string `json:"template,omitempty"`
}

// ErrBadAcct is the error of a WebFinger resource that is not an account.
var ErrBadAcct = errors.New("activitypub: not an account (user@host)")

// ParseAcct splits "acct:user@host", "user@host" or "@user@host" into the
// user and the lowercased host, both non-empty.
func ParseAcct(resource string) (user, host string, err error) {
	s := strings.TrimSpace(resource)
	if len(s) >= 5 && strings.EqualFold(s[:5], "acct:") {
		s = s[5:]
	}
	s = strings.TrimPrefix(s, "@")
	user, host, ok := strings.Cut(s, "@")
	if !ok || user == "" || host == "" || strings.ContainsAny(host, "@/?#\\ \t\r\n") || strings.ContainsAny(user, "/?#\\ \t\r\n") {
		return "", "", fmt.Errorf("%w: %.100q", ErrBadAcct, resource)
	}
	return user, strings.ToLower(host), nil
}

// NodeInfo 2.1: the schema IRI that names the document in the discovery
// links, and the media type it is served as.
const (
	NodeInfoSchema21  = "http://nodeinfo.diaspora.software/ns/schema/2.1"
	NodeInfoProfile21 = `application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"`
)

// NodeInfoLinks is the discovery document of /.well-known/nodeinfo.
type NodeInfoLinks struct {
	Links []Link `json:"links"`
}

// NodeInfo is a NodeInfo 2.1 document. Its lists and metadata are written
// as [] and {} when empty, as the schema requires.
type NodeInfo struct {
	Version           string           `json:"version"`
	Software          NodeInfoSoftware `json:"software"`
	Protocols         []string         `json:"protocols"`
	Services          NodeInfoServices `json:"services"`
	OpenRegistrations bool             `json:"openRegistrations"`
	Usage             NodeInfoUsage    `json:"usage"`
	Metadata          map[string]any   `json:"metadata"`
}

// NodeInfoSoftware names the server's software.
type NodeInfoSoftware struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository string `json:"repository,omitempty"`
	Homepage   string `json:"homepage,omitempty"`
}

// NodeInfoServices lists the third-party services the server talks to.
type NodeInfoServices struct {
	Inbound  []string `json:"inbound"`
	Outbound []string `json:"outbound"`
}

// NodeInfoUsage counts users and posts.
type NodeInfoUsage struct {
	Users      NodeInfoUsers `json:"users"`
	LocalPosts int           `json:"localPosts"`
}

// NodeInfoUsers counts users, all and active.
type NodeInfoUsers struct {
	Total          int `json:"total"`
	ActiveMonth    int `json:"activeMonth"`
	ActiveHalfyear int `json:"activeHalfyear"`
}

// NewNodeInfo returns the document of a server of the named software
// speaking ActivityPub, closed to registrations.
func NewNodeInfo(software, version string) NodeInfo {
	return NodeInfo{
		Version:   "2.1",
		Software:  NodeInfoSoftware{Name: software, Version: version},
		Protocols: []string{"activitypub"},
		Services:  NodeInfoServices{Inbound: []string{}, Outbound: []string{}},
		Metadata:  map[string]any{},
	}
}

// MarshalJSON writes nil lists and metadata as [] and {}.
func (n NodeInfo) MarshalJSON() ([]byte, error) {
	type plain NodeInfo
	p := plain(n)
	if p.Version == "" {
		p.Version = "2.1"
	}
	if p.Protocols == nil {
		p.Protocols = []string{}
	}
	if p.Services.Inbound == nil {
		p.Services.Inbound = []string{}
	}
	if p.Services.Outbound == nil {
		p.Services.Outbound = []string{}
	}
	if p.Metadata == nil {
		p.Metadata = map[string]any{}
	}
	return json.Marshal(p)
}
