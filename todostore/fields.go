package todostore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Extra holds the fields of a JSON object that this todosh does not know
// (llxprt's "priority" and "notes", whatever a later version adds), by name,
// so that a rewrite writes them back untouched instead of dropping them.
type Extra map[string]json.RawMessage

// scanObject reads the top-level keys of the JSON object data. It reports a
// key given twice (encoding/json would silently keep the last one; keys of
// known fields compare case-insensitively, as encoding/json matches them)
// and returns the fields whose names match none of known.
func scanObject(data []byte, known ...string) (Extra, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, fmt.Errorf("want a JSON object, not %s", describeToken(tok))
	}
	seen := make(map[string]bool)
	var extra Extra
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		name := key
		isKnown := slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, key) })
		if isKnown {
			name = strings.ToLower(key)
		}
		if seen[name] {
			return nil, fmt.Errorf("key %q appears twice (which one is meant is unclear: keep one)", ShortLine(key, 40))
		}
		seen[name] = true
		if !isKnown {
			if extra == nil {
				extra = make(Extra)
			}
			extra[key] = raw
		}
	}
	return extra, nil
}

// describeToken names the first token of a JSON value for an error.
func describeToken(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// withExtra appends the fields of extra, sorted by name, to the encoded
// object obj. A name that the known fields already wrote is skipped, so a
// file never gets a key twice.
func withExtra(obj []byte, extra Extra) ([]byte, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	body := bytes.TrimSuffix(bytes.TrimSpace(obj), []byte("}"))
	var b bytes.Buffer
	b.Write(body)
	empty := bytes.Equal(bytes.TrimSpace(body), []byte("{"))
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v := extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("field %q holds invalid JSON", k)
		}
		if !empty {
			b.WriteByte(',')
		}
		empty = false
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// The names of the fields each type knows; every other field is kept in
// its Extra.
var (
	sessionFields = []string{"version", "session", "createdAt", "updatedAt", "cwd", "agent", "paused", "pauseReason", "todos", "archive"}
	todoFields    = []string{"id", "content", "status", "activeForm", "evidence", "subtasks", "origin"}
	subtaskFields = []string{"id", "content", "status", "evidence", "origin"}
	archiveFields = []string{"at", "reason", "todos"}
)

// The json methods below decode with a local type that has no methods (so
// encoding/json does the field work) and add the field scan: unknown fields
// are kept, duplicate keys refused.

// UnmarshalJSON decodes a session, keeping unknown fields and refusing
// duplicate keys.
func (s *Session) UnmarshalJSON(data []byte) error {
	type plain Session
	extra, err := scanObject(data, sessionFields...)
	if err != nil {
		return err
	}
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*s = Session(p)
	s.Extra = extra
	return nil
}

// MarshalJSON encodes a session with its unknown fields after the known ones.
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session
	b, err := json.Marshal(plain(s))
	if err != nil {
		return nil, err
	}
	return withExtra(b, s.Extra)
}

// UnmarshalJSON decodes a todo, keeping unknown fields and refusing
// duplicate keys.
func (t *Todo) UnmarshalJSON(data []byte) error {
	type plain Todo
	extra, err := scanObject(data, todoFields...)
	if err != nil {
		return err
	}
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*t = Todo(p)
	t.Extra = extra
	return nil
}

// MarshalJSON encodes a todo with its unknown fields after the known ones.
func (t Todo) MarshalJSON() ([]byte, error) {
	type plain Todo
	b, err := json.Marshal(plain(t))
	if err != nil {
		return nil, err
	}
	return withExtra(b, t.Extra)
}

// UnmarshalJSON decodes a subtask, keeping unknown fields and refusing
// duplicate keys.
func (s *Subtask) UnmarshalJSON(data []byte) error {
	type plain Subtask
	extra, err := scanObject(data, subtaskFields...)
	if err != nil {
		return err
	}
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*s = Subtask(p)
	s.Extra = extra
	return nil
}

// MarshalJSON encodes a subtask with its unknown fields after the known ones.
func (s Subtask) MarshalJSON() ([]byte, error) {
	type plain Subtask
	b, err := json.Marshal(plain(s))
	if err != nil {
		return nil, err
	}
	return withExtra(b, s.Extra)
}

// UnmarshalJSON decodes an archive entry, refusing duplicate keys; unknown
// fields of an entry are kept as well.
func (a *ArchiveEntry) UnmarshalJSON(data []byte) error {
	type plain ArchiveEntry
	extra, err := scanObject(data, archiveFields...)
	if err != nil {
		return err
	}
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*a = ArchiveEntry(p)
	a.Extra = extra
	return nil
}

// MarshalJSON encodes an archive entry with its unknown fields.
func (a ArchiveEntry) MarshalJSON() ([]byte, error) {
	type plain ArchiveEntry
	b, err := json.Marshal(plain(a))
	if err != nil {
		return nil, err
	}
	return withExtra(b, a.Extra)
}
