package todolist

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Extra holds the fields of a JSON object that this todosh does not know
// (llxprt's "priority" and "notes", whatever a later version adds), by name,
// compacted, so that a rewrite writes them back instead of dropping them.
type Extra map[string]json.RawMessage

// withExtra appends the fields of extra, sorted by name, to the encoded
// object obj.
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

// The MarshalJSON methods encode with a local type that has no methods (so
// encoding/json does the field work) and add the unknown fields after it.

// MarshalWithExtra encodes v, a method-less copy of a value, followed by
// the value's unknown fields.
func MarshalWithExtra(v any, extra Extra) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return withExtra(b, extra)
}

// MarshalJSON encodes a todo with its unknown fields after the known ones.
func (t Todo) MarshalJSON() ([]byte, error) {
	type plain Todo
	return MarshalWithExtra(plain(t), t.Extra)
}

// MarshalJSON encodes a subtask with its unknown fields after the known ones.
func (s Subtask) MarshalJSON() ([]byte, error) {
	type plain Subtask
	return MarshalWithExtra(plain(s), s.Extra)
}
