package sqlstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// FieldError names the setting that failed validation.
type FieldError struct {
	Key string // dotted key, e.g. "render.render_mode"
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

// RefreshInterval bounds how stale another process's settings change may be.
const RefreshInterval = time.Second

// Registry holds the runtime settings groups. The registry knows no group:
// each owner declares its type, defaults and rules, and registers them here
// (docs/design.md, Settings). A group's value is a struct whose exported
// fields are its settings, keyed "group.field" by their JSON names.
//
// A group starts from its base (the configured values). Overrides are stored
// per dotted key in the settings table, only where they differ from the
// base, so a key equal to the base follows the configuration file again.
// A change made through any process sharing the database shows on the next
// read: every Put bumps the "settings" change counter, and a registry
// re-reads the overrides when that counter moved
// (docs/design.md#caches-across-processes). Where the counters cannot see
// every process (Changes.Local is false), it re-reads them at most once per
// RefreshInterval instead; changes made through this registry show at once. A stored value its
// group's rules refuse is ignored, with a warning, and the base applies.
//
// Register every group, apply configuration text with SetText, then call
// Open; after Open the registry is safe for concurrent use.
type Registry struct {
	groups []groupDef
	db     *DB
	now    func() time.Time
	log    *slog.Logger

	changes *Changes
	counter Counter // the "settings" change counter

	mu       sync.Mutex
	cur      []any // each group's current value, by registration index; replaced, never changed
	loadedAt time.Time
	seen     uint64 // the counter's value before cur was read
	seenOK   bool   // seen is set and nothing was Put since
	// version is the stored settings version read before cur was, for
	// where the counters do not see every process; versionOK as seenOK.
	version   string
	versionOK bool
	gen       uint64            // counts Puts, so a reload that started before one cannot undo it
	ignored   map[string]string // stored values already warned about, by key, so a warning is logged once

	// read is cur and seen while seenOK holds, nil otherwise: where the
	// counters see every process, a read of unchanged settings, which
	// every request makes, takes no lock.
	read atomic.Pointer[readSettings]
}

// readSettings is what a read of settings read under an unmoved counter
// answers.
type readSettings struct {
	cur  []any
	seen uint64
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{now: time.Now, log: slog.New(slog.DiscardHandler), ignored: map[string]string{}}
}

// SetLogger sets where the registry warns of stored values it ignores; it
// must be called before Open.
func (r *Registry) SetLogger(l *slog.Logger) { r.log = l }

// groupDef is what the registry needs from a Group without knowing its type.
// Values travel as any holding the group's T.
type groupDef interface {
	name() string
	baseValue() any
	setBase(v any)
	validate(v any) error
	fields(v any) map[string]json.RawMessage
	withFields(v any, set map[string]json.RawMessage) (any, error)
	decodeOnto(v any, raw json.RawMessage) (any, error)
}

// Group is one registered settings group of type T.
type Group[T any] struct {
	reg   *Registry
	index int
	key   string
	base  T
	check func(T) error
}

// Register adds the group name with its base value and validate hook (nil:
// no rules). validate's error should be a *FieldError naming the dotted key;
// any other error is reported as a FieldError naming the group. The settings
// document lists groups in the order they were registered.
//
// Register panics when the registry is open, the name is taken or has a
// dot, or T does not encode as a JSON object: all mistakes in the program,
// found at start-up.
func Register[T any](reg *Registry, name string, base T, validate func(T) error) *Group[T] {
	if reg.db != nil {
		panic("sqlstore: Register after Open")
	}
	if name == "" || strings.Contains(name, ".") {
		panic(fmt.Sprintf("sqlstore: settings group name %q", name))
	}
	if _, taken := reg.index(name); taken {
		panic(fmt.Sprintf("sqlstore: settings group %q registered twice", name))
	}
	g := &Group[T]{reg: reg, index: len(reg.groups), key: name, base: base, check: validate}
	if g.fields(base) == nil {
		panic(fmt.Sprintf("sqlstore: settings group %q: %T does not encode as a JSON object", name, base))
	}
	reg.groups = append(reg.groups, g)
	reg.cur = append(reg.cur, base)
	return g
}

// Get returns the group's current value. If the database cannot be read the
// last known value is returned: a blip must not turn every request into a 500.
func (g *Group[T]) Get(ctx context.Context) T { return g.reg.current(ctx)[g.index].(T) }

// Base returns the group's configured value, before any stored override.
func (g *Group[T]) Base() T { return g.base }

// Put validates v and stores the whole document with v as this group's value.
func (g *Group[T]) Put(ctx context.Context, v T) error {
	return g.reg.Put(ctx, g.With(g.reg.Document(ctx), v))
}

// In returns the group's value in d, a document of the group's registry.
func (g *Group[T]) In(d Document) T {
	g.mustOwn(d)
	return d.values[g.index].(T)
}

// With returns a copy of d with v as the group's value.
func (g *Group[T]) With(d Document, v T) Document {
	g.mustOwn(d)
	values := slices.Clone(d.values)
	values[g.index] = v
	return Document{reg: d.reg, values: values}
}

func (g *Group[T]) mustOwn(d Document) {
	if d.reg != g.reg {
		panic("sqlstore: settings document of another registry")
	}
}

func (g *Group[T]) name() string   { return g.key }
func (g *Group[T]) baseValue() any { return g.base }
func (g *Group[T]) setBase(v any)  { g.base = v.(T) }

func (g *Group[T]) validate(v any) error {
	if g.check == nil {
		return nil
	}
	err := g.check(v.(T))
	var fe *FieldError
	if err == nil || errors.As(err, &fe) {
		return err
	}
	return &FieldError{Key: g.key, Msg: err.Error()}
}

// fields returns the JSON value of each field of v by its JSON name; nil
// when v is not a JSON object.
func (g *Group[T]) fields(v any) map[string]json.RawMessage {
	raw, err := json.Marshal(v.(T))
	if err != nil {
		return nil
	}
	var out map[string]json.RawMessage
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// withFields returns a copy of v with the given fields set from JSON values.
// Unknown fields and values of the wrong type are errors naming the key.
func (g *Group[T]) withFields(v any, set map[string]json.RawMessage) (any, error) {
	obj := g.fields(v)
	names := make([]string, 0, len(set))
	for f := range set {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if _, ok := obj[f]; !ok {
			return v, &FieldError{Key: g.key + "." + f, Msg: "unknown setting"}
		}
		// Decode each field on its own so a type error names it.
		one, _ := json.Marshal(map[string]json.RawMessage{f: set[f]})
		var probe T
		if err := json.Unmarshal(one, &probe); err != nil {
			return v, &FieldError{Key: g.key + "." + f, Msg: "wrong type of value"}
		}
		obj[f] = set[f]
	}
	// Decoding the whole object into a fresh value shares no slice or map
	// with v.
	raw, _ := json.Marshal(obj)
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		return v, fmt.Errorf("sqlstore: settings group %s: %w", g.key, err)
	}
	return out, nil
}

// decodeOnto decodes raw onto a copy of v, so fields raw leaves out keep
// their values.
func (g *Group[T]) decodeOnto(v any, raw json.RawMessage) (any, error) {
	out, err := g.withFields(v, nil)
	if err != nil {
		return v, err
	}
	t := out.(T)
	if err := json.Unmarshal(raw, &t); err != nil {
		return v, err
	}
	return t, nil
}

func (r *Registry) index(name string) (int, bool) {
	for i, g := range r.groups {
		if g.name() == name {
			return i, true
		}
	}
	return 0, false
}

// Keys lists every registered dotted key, sorted.
func (r *Registry) Keys() []string {
	var keys []string
	for _, g := range r.groups {
		for f := range g.fields(g.baseValue()) {
			keys = append(keys, g.name()+"."+f)
		}
	}
	sort.Strings(keys)
	return keys
}

// SetText sets one dotted key of a base from its configuration-file text
// form: integers (with an optional size suffix, see ParseSize), booleans
// (see ParseBool), or text, as the field's JSON form requires; text goes to
// the field as a JSON string, so a list type decodes it as it likes. Errors
// are *FieldError naming the key. It must be called before Open.
func (r *Registry) SetText(key, text string) error {
	if r.db != nil {
		return errors.New("sqlstore: SetText after Open")
	}
	name, field, _ := strings.Cut(key, ".")
	i, ok := r.index(name)
	if !ok {
		return &FieldError{Key: key, Msg: "unknown setting"}
	}
	g := r.groups[i]
	cur, ok := g.fields(g.baseValue())[field]
	if !ok {
		return &FieldError{Key: key, Msg: "unknown setting"}
	}
	var v any
	switch {
	case len(cur) > 0 && (cur[0] == 't' || cur[0] == 'f'): // bool
		b, err := ParseBool(text)
		if err != nil {
			return &FieldError{Key: key, Msg: "want true or false"}
		}
		v = b
	case len(cur) > 0 && (cur[0] == '-' || cur[0] >= '0' && cur[0] <= '9'): // number
		n, err := ParseSize(text)
		if err != nil {
			return &FieldError{Key: key, Msg: "want a whole number"}
		}
		v = n
	default:
		v = text
	}
	raw, _ := json.Marshal(v)
	next, err := g.withFields(g.baseValue(), map[string]json.RawMessage{field: raw})
	if err != nil {
		return err
	}
	g.setBase(next)
	r.cur[i] = next
	r.read.Store(nil)
	return nil
}

// Validate checks every group's base in registration order; the error is
// the first group's *FieldError.
func (r *Registry) Validate() error {
	for _, g := range r.groups {
		if err := g.validate(g.baseValue()); err != nil {
			return err
		}
	}
	return nil
}

// Open binds the registry to db and loads the stored overrides.
func (r *Registry) Open(ctx context.Context, db *DB) error {
	if r.db != nil {
		return errors.New("sqlstore: settings registry opened twice")
	}
	r.db = db
	r.changes = db.Changes()
	r.counter = r.changes.Counter(SettingsCounter)
	if err := r.Refresh(ctx); err != nil {
		r.db = nil
		return err
	}
	return nil
}

// Refresh re-reads the stored overrides now, without waiting for
// RefreshInterval.
func (r *Registry) Refresh(ctx context.Context) error {
	if r.db == nil {
		return errors.New("sqlstore: settings registry is not open")
	}
	r.mu.Lock()
	gen := r.gen
	r.mu.Unlock()
	seen := r.counter.Load()
	version, verr := r.storedVersion(ctx)
	cur, err := r.load(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	if r.gen == gen {
		r.cur, r.seen, r.seenOK = cur, seen, true
		r.read.Store(&readSettings{cur: cur, seen: seen})
		r.version, r.versionOK = version, verr == nil
	}
	r.loadedAt = r.now()
	r.mu.Unlock()
	return nil
}

// load reads the overrides of the registered groups over their bases.
// Stored keys no group knows (a removed setting, another binary's group) and
// values that are not JSON are ignored.
func (r *Registry) load(ctx context.Context) ([]any, error) {
	rows, err := r.db.Query(ctx, "SELECT key, value FROM settings")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: load settings: %w", err)
	}
	defer rows.Close()
	stored := make([]map[string]json.RawMessage, len(r.groups))
	known := make([]map[string]json.RawMessage, len(r.groups))
	for i, g := range r.groups {
		stored[i], known[i] = map[string]json.RawMessage{}, g.fields(g.baseValue())
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("sqlstore: load settings: %w", err)
		}
		name, field, _ := strings.Cut(k, ".")
		i, ok := r.index(name)
		if !ok {
			continue
		}
		if _, ok := known[i][field]; ok && json.Valid([]byte(v)) {
			stored[i][field] = json.RawMessage(v)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlstore: load settings: %w", err)
	}
	cur := make([]any, len(r.groups))
	for i, g := range r.groups {
		v, err := r.valid(g, stored[i])
		if err != nil {
			return nil, fmt.Errorf("sqlstore: stored settings: %w", err)
		}
		cur[i] = v
	}
	return cur, nil
}

// valid returns g's base with the stored overrides that pass g's rules. An
// override the rules refuse (stored by an older version with looser rules,
// or by hand) is ignored with a warning, so the configured value applies:
// a value no request can use must not fail every request. A value of the
// wrong type is still an error, as before.
func (r *Registry) valid(g groupDef, stored map[string]json.RawMessage) (any, error) {
	for {
		v, err := g.withFields(g.baseValue(), stored)
		if err != nil {
			return nil, err
		}
		verr := g.validate(v)
		if verr == nil {
			return v, nil
		}
		var fe *FieldError
		field := ""
		if errors.As(verr, &fe) {
			_, field, _ = strings.Cut(fe.Key, ".")
		}
		if _, ok := stored[field]; !ok {
			// The rules name no stored key: drop every override of the group.
			for f := range stored {
				r.warnIgnored(g.name()+"."+f, stored[f], verr)
			}
			return g.baseValue(), nil
		}
		r.warnIgnored(g.name()+"."+field, stored[field], verr)
		stored = maps.Clone(stored)
		delete(stored, field)
	}
}

// warnIgnored logs, once per key and value, that a stored value is ignored.
func (r *Registry) warnIgnored(key string, value json.RawMessage, why error) {
	r.mu.Lock()
	seen := r.ignored[key] == string(value)
	r.ignored[key] = string(value)
	r.mu.Unlock()
	if !seen {
		r.log.Warn("stored setting ignored: it breaks the current rules; the configured value applies until it is saved again",
			"key", key, "stored", string(value), "err", why)
	}
}

// current returns every group's value, re-reading the overrides when the
// settings counter moved since they were read, or, where the counters do
// not see every process, when they are older than RefreshInterval; on a
// read failure the last known values, and the next attempt waits another
// interval.
func (r *Registry) current(ctx context.Context) []any {
	if rd := r.read.Load(); rd != nil && r.changes.Local() && r.counter.Load() == rd.seen {
		return rd.cur
	}
	r.mu.Lock()
	cur := r.cur
	local := r.db != nil && r.changes.Local()
	var fresh bool
	if local {
		fresh = r.seenOK && r.counter.Load() == r.seen
	} else {
		// The clock only where the counters do not decide: every
		// request reads settings, some several times.
		fresh = r.db == nil || r.now().Sub(r.loadedAt) < RefreshInterval
	}
	version, versionOK := r.version, r.versionOK
	r.mu.Unlock()
	if r.db != nil && !local {
		// Another machine's Put shows on the next read here too, for one
		// indexed query (docs/design.md#caches-across-processes); the
		// interval is left for when the database does not answer.
		if v, err := r.storedVersion(ctx); err == nil {
			fresh = versionOK && v == version
		}
	}
	if fresh {
		return cur
	}
	if err := r.Refresh(ctx); err != nil {
		r.mu.Lock()
		r.loadedAt = r.now()
		r.mu.Unlock()
		return cur
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Document returns every group's current value.
func (r *Registry) Document(ctx context.Context) Document {
	return Document{reg: r, values: r.current(ctx)}
}

// Put validates every group of d, then stores, in one transaction, every
// key whose value differs from its base as an override and removes the
// overrides of the others. On any error nothing is stored.
func (r *Registry) Put(ctx context.Context, d Document) error {
	if d.reg != r {
		return errors.New("sqlstore: settings document of another registry")
	}
	if r.db == nil {
		return errors.New("sqlstore: settings registry is not open")
	}
	for i, g := range r.groups {
		if err := g.validate(d.values[i]); err != nil {
			return err
		}
	}
	now := FromTime(time.Now())
	err := r.db.Tx(ctx, func(tx *Tx) error {
		for i, g := range r.groups {
			base := g.fields(g.baseValue())
			for f, v := range g.fields(d.values[i]) {
				k := g.name() + "." + f
				if bytes.Equal(base[f], v) {
					if _, err := tx.Exec(ctx, "DELETE FROM settings WHERE key = $1", k); err != nil {
						return err
					}
					continue
				}
				if _, err := tx.Exec(ctx, `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
					ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
					k, string(v), now); err != nil {
					return err
				}
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, settingsVersionKey, NewID())
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlstore: save settings: %w", err)
	}
	r.counter.Bump()
	r.mu.Lock()
	r.cur, r.loadedAt = d.values, r.now()
	r.seenOK = false // whether another process's Put came in between is unknown
	r.read.Store(nil)
	r.versionOK = false
	r.gen++
	r.mu.Unlock()
	return nil
}

// Document is every group's value at one moment: what GET and PUT
// /api/v1/admin/settings exchange. In JSON it is one object with a member
// per group, in registration order. Decoding works onto the values already
// held, so groups and fields the JSON leaves out keep theirs; as for a Go
// struct, unknown members are ignored and names match regardless of case.
// Documents are values: decoding and With make new ones.
type Document struct {
	reg    *Registry
	values []any
}

// MarshalJSON writes the groups in registration order.
func (d Document) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if d.reg != nil {
		for i, g := range d.reg.groups {
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(g.name())
			b.Write(name)
			b.WriteByte(':')
			v, err := json.Marshal(d.values[i])
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON decodes each group's member onto the group's value in d.
func (d *Document) UnmarshalJSON(raw []byte) error {
	if d.reg == nil {
		return errors.New("sqlstore: decode settings onto a Registry's Document")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil // null leaves a Go struct as it was, and so a document
	}
	if tok != json.Delim('{') {
		return errors.New("settings: want a JSON object")
	}
	values := slices.Clone(d.values)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var member json.RawMessage
		if err := dec.Decode(&member); err != nil {
			return err
		}
		i, ok := d.reg.lookup(name)
		if !ok {
			continue
		}
		v, err := d.reg.groups[i].decodeOnto(values[i], member)
		if err != nil {
			return err
		}
		values[i] = v
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	d.values = values
	return nil
}

// lookup finds a group by a JSON member name as encoding/json matches struct
// fields: exactly, else regardless of case.
func (r *Registry) lookup(name string) (int, bool) {
	if i, ok := r.index(name); ok {
		return i, true
	}
	for i, g := range r.groups {
		if strings.EqualFold(g.name(), name) {
			return i, true
		}
	}
	return 0, false
}

// ParseBool accepts the usual spellings of a boolean in configuration files.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("not a boolean: %q", s)
}

// ParseSize parses a whole number with an optional binary size suffix
// (K, KB, KiB, M, MB, MiB, G, GB, GiB; all powers of 1024).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(s)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if strings.HasSuffix(upper, suf.s) {
			mult = suf.m
			s = strings.TrimSpace(s[:len(s)-len(suf.s)])
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	// Both signs: a negative size that wraps around would become huge.
	if n > (1<<62)/mult || n < -(1<<62)/mult {
		return 0, errors.New("too large")
	}
	return n * mult, nil
}

// settingsVersionKey names the meta row every Put sets to a new random
// value, in its transaction: the check of processes whose change counters
// do not see every process.
const settingsVersionKey = "settings_version"

// storedVersion reads the settings version; "" before the first Put.
func (r *Registry) storedVersion(ctx context.Context) (string, error) {
	var v string
	err := r.db.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", settingsVersionKey).Scan(&v)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	return v, err
}
