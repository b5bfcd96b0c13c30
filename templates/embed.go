package templates

import "embed"

// FS holds the embedded page templates: pages/{name}.html with its manifest
// pages/{name}.json, which lists the config keys the template reads and which
// of them are required. The blog validates a page's template and config
// against it; theme.dir may overlay it.
//
//go:embed pages
var FS embed.FS
