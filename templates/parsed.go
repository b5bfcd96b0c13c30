package templates

import (
	"html/template"
	"sync"
	"sync/atomic"
)

// parsed is one template set, parsed on first use and dropped by release.
// A parsed and escaped set costs tens of kilobytes of heap (the console's
// pages over 3 MiB together, each with its own copy of the layout), while a
// quiet site renders none: the sets are checked at start-up, kept only as
// their source, and parsed again when a request needs them
// (docs/design.md#memory).
type parsed struct {
	t     atomic.Pointer[template.Template]
	mu    sync.Mutex // held while parsing, so that one request parses
	parse func() (*template.Template, error)
}

// newParsed checks that parse succeeds, keeping nothing of what it made.
func newParsed(parse func() (*template.Template, error)) (*parsed, error) {
	if _, err := parse(); err != nil {
		return nil, err
	}
	return &parsed{parse: parse}, nil
}

// get is the parsed set, parsing it when it is not held. Parsing cannot
// fail on sources that passed at start-up, but an error is still returned
// rather than assumed away.
func (p *parsed) get() (*template.Template, error) {
	if t := p.t.Load(); t != nil {
		return t, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.t.Load(); t != nil {
		return t, nil
	}
	t, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.t.Store(t)
	return t, nil
}

// release drops the parsed set; renders under way keep theirs.
func (p *parsed) release() { p.t.Store(nil) }

// releaseAll releases every set of m.
func releaseAll(m map[string]*parsed) {
	for _, p := range m {
		p.release()
	}
}
