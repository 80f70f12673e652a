package todostore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"
)

// The names of the fields each type knows; every other field is kept in
// its Extra.
var (
	sessionFields = []string{"version", "session", "createdAt", "updatedAt", "cwd", "agent", "paused", "pauseReason", "todos", "hooks", "rev", "nextUid", "agentRead", "archive", "change"}
	todoFields    = []string{"id", "content", "status", "activeForm", "evidence", "subtasks", "origin", "uid", "rev"}
	subtaskFields = []string{"id", "content", "status", "evidence", "origin", "uid", "rev"}
	archiveFields = []string{"at", "reason", "todos"}
)

// readExtras makes one pass over data, a session file that json.Unmarshal
// has already accepted into sess (bare: llxprt's array of todos), and finds
// what encoding/json passes over in silence: a key given twice in the
// session, an item, a subtask or an archive entry (keys of known fields
// compare case-insensitively, as encoding/json matches them), and the
// fields no known name matches, which it keeps in the Extra of their
// object. One pass rather than a decoder per object keeps reading a file as
// cheap as json.Unmarshal alone.
func readExtras(data []byte, sess *Session, bare bool) error {
	w := &jwalk{b: data}
	w.ws()
	if bare {
		return w.todos(sess.Todos)
	}
	var err error
	sess.Extra, err = w.object(sessionFields, func(key string) error {
		switch key {
		case "todos":
			return w.todos(sess.Todos)
		case "archive":
			n := 0
			return w.array(func() error {
				if n >= len(sess.Archive) {
					return w.skip()
				}
				a := &sess.Archive[n]
				n++
				var err error
				a.Extra, err = w.object(archiveFields, func(key string) error {
					if key == "todos" {
						return w.todos(a.Todos)
					}
					return w.skip()
				})
				return err
			})
		}
		return w.skip()
	})
	return err
}

// jwalk walks JSON that encoding/json has already found valid, so it
// checks no syntax of its own.
type jwalk struct {
	b []byte
	i int
}

// errTruncated cannot happen on valid JSON; it keeps the walker from
// reading past the end should it be given anything else.
var errTruncated = errors.New("unexpected end of JSON")

func (w *jwalk) ws() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

// at reports whether the next byte is c.
func (w *jwalk) at(c byte) bool { return w.i < len(w.b) && w.b[w.i] == c }

// todos walks an array of items into todos, index by index.
func (w *jwalk) todos(todos []todolist.Todo) error {
	n := 0
	return w.array(func() error {
		if n >= len(todos) {
			return w.skip()
		}
		t := &todos[n]
		n++
		var err error
		t.Extra, err = w.object(todoFields, func(key string) error {
			if key != "subtasks" {
				return w.skip()
			}
			m := 0
			return w.array(func() error {
				if m >= len(t.Subtasks) {
					return w.skip()
				}
				st := &t.Subtasks[m]
				m++
				var err error
				st.Extra, err = w.object(subtaskFields, func(string) error { return w.skip() })
				return err
			})
		})
		return err
	})
}

// array calls elem at the start of each element of the array at w.i; a
// value that is not an array (null) is skipped.
func (w *jwalk) array(elem func() error) error {
	if !w.at('[') {
		return w.skip()
	}
	w.i++
	for {
		w.ws()
		if w.i >= len(w.b) {
			return errTruncated
		}
		if w.at(']') {
			w.i++
			return nil
		}
		if err := elem(); err != nil {
			return err
		}
		w.ws()
		if w.at(',') {
			w.i++
		}
	}
}

// object walks the object at w.i: a key given twice is an error, a known
// key goes to field by the name known spells it with (field must consume
// its value), and the other fields are returned. A value that is not an
// object (null) is skipped.
func (w *jwalk) object(known []string, field func(key string) error) (todolist.Extra, error) {
	if !w.at('{') {
		return nil, w.skip()
	}
	w.i++
	var seen []string
	var extra todolist.Extra
	for {
		w.ws()
		if w.i >= len(w.b) {
			return nil, errTruncated
		}
		if w.at('}') {
			w.i++
			return extra, nil
		}
		key := w.key()
		w.ws()
		w.i++ // ':'
		w.ws()
		name, isKnown := key, slices.Contains(known, key) // the usual spelling, cheap
		for i := 0; i < len(known) && !isKnown; i++ {
			if strings.EqualFold(known[i], key) {
				name, isKnown = known[i], true
			}
		}
		if slices.Contains(seen, name) {
			return nil, fmt.Errorf("key %q appears twice (which one is meant is unclear: keep one)", todolist.ShortLine(key, 40))
		}
		seen = append(seen, name)
		if isKnown {
			if err := field(name); err != nil {
				return nil, err
			}
		} else {
			start := w.i
			if err := w.skip(); err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, w.b[start:w.i]); err != nil {
				return nil, err
			}
			if extra == nil {
				extra = make(todolist.Extra)
			}
			extra[key] = buf.Bytes()
		}
		w.ws()
		if w.at(',') {
			w.i++
		}
	}
}

// key reads the string at w.i as encoding/json does: escapes decoded, a
// byte that is not UTF-8 read as U+FFFD.
func (w *jwalk) key() string {
	start := w.i
	w.str()
	raw := w.b[start:w.i]
	if bytes.IndexByte(raw, '\\') < 0 && len(raw) >= 2 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// str moves past the string at w.i.
func (w *jwalk) str() {
	for w.i++; w.i < len(w.b); w.i++ {
		switch w.b[w.i] {
		case '\\':
			w.i++
		case '"':
			w.i++
			return
		}
	}
}

// skip moves past the value at w.i.
func (w *jwalk) skip() error {
	if w.i >= len(w.b) {
		return errTruncated
	}
	switch w.b[w.i] {
	case '"':
		w.str()
	case '{', '[':
		depth := 0
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case '"':
				w.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					w.i++
					return nil
				}
			}
			w.i++
		}
		return errTruncated
	default: // a number, true, false or null
		for w.i < len(w.b) && !strings.ContainsRune(",]} \t\r\n", rune(w.b[w.i])) {
			w.i++
		}
	}
	return nil
}

// MarshalJSON encodes a session with its unknown fields after the known ones.
func (s Session) MarshalJSON() ([]byte, error) {
	type plain Session
	return todolist.MarshalWithExtra(plain(s), s.Extra)
}

// MarshalJSON encodes an archive entry with its unknown fields.
func (a ArchiveEntry) MarshalJSON() ([]byte, error) {
	type plain ArchiveEntry
	return todolist.MarshalWithExtra(plain(a), a.Extra)
}
