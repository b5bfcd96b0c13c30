// Package templates owns the embedded HTML templates and the page-template
// manifests (templates/pages/{name}.html with {name}.json); theme.dir can
// override any of them by file name.
package templates
