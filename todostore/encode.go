package todostore

// The session file's encoder: the bytes json.MarshalIndent writes, made
// without reflection for the list, which is most of a file and of a
// change's CPU (ARCHITECTURE.md §3).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/todosh/todosh/todolist"
)

// Encode renders a session as the bytes of its file: indented JSON, the
// same bytes as json.MarshalIndent(sess, "", "  ") (a test holds it to
// that). The list is written directly; a list with fields this todosh does
// not know, or an old file's archive, takes encoding/json's way.
func Encode(sess *Session) ([]byte, error) {
	enc, _, err := encodeReusing(sess, nil, nil)
	return enc.bytes(), err
}

// encoding is a session file's bytes in pieces, in order: what comes
// before the list, each item's bytes, what follows. A change to one item
// of a large list makes one new piece and reuses the others' bytes as
// they are, neither copied nor joined: the file is written from the pieces
// (writePieces).
type encoding struct {
	pieces [][]byte
	Size   int
}

// bytes joins the pieces (a new slice unless there is only one).
func (e encoding) bytes() []byte {
	if len(e.pieces) == 1 {
		return e.pieces[0]
	}
	out := make([]byte, 0, e.Size)
	for _, p := range e.pieces {
		out = append(out, p...)
	}
	return out
}

// encodeReusing is Encode that reuses the bytes of each item equal to the
// item at its position in prev, whose encodings are prevItems (both nil:
// none), instead of encoding it again: a change to one item of a large
// list encodes that item. It returns the items' encodings in the result,
// for the next change (nil when the list took encoding/json's way). An
// item's encoding is everything the file holds for it at its position,
// the comma before it included, and is never changed once made: the cache
// and the next change share it.
func encodeReusing(sess *Session, prev []todolist.Todo, prevItems [][]byte) (encoding, [][]byte, error) {
	enc, items, err := encodeFast(sess, prev, prevItems)
	if err != nil {
		return encoding{}, nil, err
	}
	last := &enc.pieces[len(enc.pieces)-1]
	*last = append(*last, '\n') // a piece encodeFast made for this encoding alone
	enc.Size++
	if enc.Size > todolist.MaxFileSize {
		return encoding{}, nil, fmt.Errorf("session file would be %d bytes, over the limit of %d: %w", enc.Size, todolist.MaxFileSize, todolist.ErrLimit)
	}
	return enc, items, nil
}

func encodeFast(sess *Session, prev []todolist.Todo, prevItems [][]byte) (encoding, [][]byte, error) {
	slow := func() (encoding, [][]byte, error) {
		data, err := json.MarshalIndent(sess, "", "  ")
		return encoding{pieces: [][]byte{data}, Size: len(data)}, nil, err
	}
	if len(sess.Archive) > 0 || len(sess.Todos) == 0 || hasExtra(sess.Todos) {
		return slow()
	}
	first, end, ok := appendHead(sess)
	if !ok {
		// A session with fields written rarely: encoding/json's way for
		// all but the list.
		shell := *sess
		shell.Todos = []todolist.Todo{}
		head, err := json.MarshalIndent(&shell, "", "  ")
		if err != nil {
			return encoding{}, nil, err
		}
		mark := []byte("\n  \"todos\": []")
		i := bytes.Index(head, mark)
		if i < 0 {
			return slow()
		}
		const open, closing = "\n  \"todos\": [", "\n  ]"
		first = append(head[:i:i], open...)
		rest := head[i+len(mark):]
		end = make([]byte, 0, len(closing)+len(rest)+1) // and Encode's newline
		end = append(append(end, closing...), rest...)
	}
	if len(prevItems) != len(prev) {
		prev = nil
	}
	items := make([][]byte, len(sess.Todos))
	pieces := make([][]byte, 0, len(sess.Todos)+2)
	pieces = append(pieces, first)
	size := len(first) + len(end)
	for k, t := range sess.Todos {
		if k < len(prev) && sameEncoding(prev[k], t) {
			items[k] = prevItems[k]
		} else {
			var b []byte
			if k > 0 {
				b = append(make([]byte, 0, 1+estimate(sess.Todos[k:k+1])), ',')
			} else {
				b = make([]byte, 0, estimate(sess.Todos[k:k+1]))
			}
			b = appendTodo(b, t)
			items[k] = b[:len(b):len(b)]
		}
		pieces = append(pieces, items[k])
		size += len(items[k])
	}
	pieces = append(pieces, end)
	return encoding{pieces: pieces, Size: size}, items, nil
}

// appendHead writes what json.MarshalIndent writes of a session before
// its list's items (up to the list's opening bracket) and after them
// (from its closing bracket, with room for Encode's newline), for the
// fields every session may have; ok is false for a session with fields
// it leaves to encoding/json (hook state, unknown fields, a change record
// with dropped items or lines ahead, a time JSON cannot hold).
func appendHead(sess *Session) (first, end []byte, ok bool) {
	if len(sess.Extra) > 0 || sess.Hooks != nil || sess.Change != nil && (len(sess.Change.Dropped) > 0 || len(sess.Change.Ahead) > 0) ||
		!jsonTime(sess.CreatedAt) || !jsonTime(sess.UpdatedAt) || sess.Change != nil && !jsonTime(sess.Change.At) {
		return nil, nil, false
	}
	const in = "\n  "
	b := make([]byte, 0, 256+len(sess.Session)+len(sess.Cwd)+len(sess.PauseReason))
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(sess.Version), 10)
	b = appendField(b, in[1:], "session", sess.Session, false, false)
	if !sess.CreatedAt.IsZero() {
		b = appendTime(b, in[1:], "createdAt", sess.CreatedAt)
	}
	b = appendTime(b, in[1:], "updatedAt", sess.UpdatedAt)
	b = appendField(b, in[1:], "cwd", sess.Cwd, true, false)
	if a := sess.Agent; a != nil {
		b = append(b, ",\n  \"agent\": {"...)
		b = appendField(b, "    ", "kind", a.Kind, false, true)
		b = appendField(b, "    ", "session", a.Session, false, false)
		if len(a.Tasks) > 0 {
			b = append(b, ",\n    \"tasks\": ["...)
			for k, t := range a.Tasks {
				if k > 0 {
					b = append(b, ',')
				}
				b = append(b, "\n      {"...)
				b = appendField(b, "        ", "id", t.ID, false, true)
				b = appendField(b, "        ", "subject", t.Subject, false, false)
				b = append(b, "\n      }"...)
			}
			b = append(b, "\n    ]"...)
		}
		b = append(b, "\n  }"...)
	}
	b = append(b, ",\n  \"paused\": "...)
	b = strconv.AppendBool(b, sess.Paused)
	b = appendField(b, in[1:], "pauseReason", sess.PauseReason, false, false)
	b = append(b, ",\n  \"todos\": ["...)

	e := make([]byte, 0, 128)
	e = append(e, "\n  ]"...)
	e = appendInt(e, in[1:], "rev", sess.Rev)
	e = appendInt(e, in[1:], "nextUid", sess.NextUID)
	e = appendInt(e, in[1:], "agentRead", sess.AgentRead)
	if c := sess.Change; c != nil {
		const cin = "    "
		e = append(e, ",\n  \"change\": {\n    \"n\": "...)
		e = strconv.AppendInt(e, int64(c.N), 10)
		e = appendField(e, cin, "hash", c.Hash, false, false)
		e = appendTime(e, cin, "at", c.At)
		e = appendField(e, cin, "by", string(c.By), false, false)
		e = appendField(e, cin, "what", c.What, false, false)
		e = appendInt(e, cin, "revert", c.Revert)
		e = appendInt(e, cin, "pid", c.PID)
		e = append(e, "\n  }"...)
	}
	e = append(e, "\n}"...)
	return b, e, true
}

// jsonTime reports whether encoding/json writes t (a year of four digits,
// an offset within a day).
func jsonTime(t time.Time) bool {
	_, off := t.Zone()
	return t.Year() >= 0 && t.Year() <= 9999 && off > -24*3600 && off < 24*3600
}

// appendTime writes a time field as encoding/json does (RFC 3339 with
// nanoseconds), never the first.
func appendTime(out []byte, indent, key string, t time.Time) []byte {
	out = append(out, ",\n"...)
	out = append(out, indent...)
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, "\": \""...)
	out = t.AppendFormat(out, time.RFC3339Nano)
	return append(out, '"')
}

// sameEncoding reports whether two items encode to the same bytes: equal
// in every field the file holds, the stable ids and revisions included
// (which sameTodo, the equality of lists, leaves out).
func sameEncoding(x, y todolist.Todo) bool {
	if x.ID != y.ID || x.Content != y.Content || x.Status != y.Status || x.ActiveForm != y.ActiveForm ||
		x.Evidence != y.Evidence || x.Origin != y.Origin || x.UID != y.UID || x.Rev != y.Rev || len(x.Subtasks) != len(y.Subtasks) {
		return false
	}
	if todolist.SameArray(x.Subtasks, y.Subtasks) {
		return true // one array: nothing writes into it (copy on write)
	}
	for j := range x.Subtasks {
		a, b := &x.Subtasks[j], &y.Subtasks[j]
		if !todolist.SameSubtask(*a, *b) || a.UID != b.UID || a.Rev != b.Rev {
			return false
		}
	}
	return true
}

// appendInt writes an omitempty integer field, never the first.
func appendInt(out []byte, indent, key string, v int) []byte {
	if v == 0 {
		return out
	}
	out = append(out, ",\n"...)
	out = append(out, indent...)
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, "\": "...)
	return strconv.AppendInt(out, int64(v), 10)
}

func hasExtra(todos []todolist.Todo) bool {
	for _, t := range todos {
		if len(t.Extra) > 0 {
			return true
		}
		for _, s := range t.Subtasks {
			if len(s.Extra) > 0 {
				return true
			}
		}
	}
	return false
}

// estimate is about the size of the items' encoding, erring large so
// that the buffer is made once: an item's keys and indentation take about
// 230 bytes and a subtask's 200 at most besides their text (more for
// escapes).
func estimate(todos []todolist.Todo) int {
	n := 0
	for _, t := range todos {
		n += 230 + len(t.Content) + len(t.ActiveForm) + len(t.Evidence) + len(t.Origin)
		for _, s := range t.Subtasks {
			n += 200 + len(s.Content) + len(s.Evidence) + len(s.Origin)
		}
	}
	return n
}

func appendField(out []byte, indent, key, v string, omitEmpty, first bool) []byte {
	if omitEmpty && v == "" {
		return out
	}
	if !first {
		out = append(out, ',')
	}
	out = append(out, '\n')
	out = append(out, indent...)
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, "\": "...)
	return appendString(out, v)
}

// appendTodo writes one item at the depth of the session's list.
func appendTodo(out []byte, t todolist.Todo) []byte {
	const in = "      "
	out = append(out, "\n    {"...)
	out = appendField(out, in, "id", t.ID, false, true)
	out = appendField(out, in, "content", t.Content, false, false)
	out = appendField(out, in, "status", string(t.Status), false, false)
	out = appendField(out, in, "activeForm", t.ActiveForm, true, false)
	out = appendField(out, in, "evidence", t.Evidence, true, false)
	if len(t.Subtasks) > 0 {
		out = append(out, ",\n      \"subtasks\": ["...)
		for k, s := range t.Subtasks {
			if k > 0 {
				out = append(out, ',')
			}
			const sin = "          "
			out = append(out, "\n        {"...)
			out = appendField(out, sin, "id", s.ID, false, true)
			out = appendField(out, sin, "content", s.Content, false, false)
			out = appendField(out, sin, "status", string(s.Status), false, false)
			out = appendField(out, sin, "evidence", s.Evidence, true, false)
			out = appendField(out, sin, "origin", s.Origin, true, false)
			out = appendField(out, sin, "uid", s.UID, true, false)
			out = appendInt(out, sin, "rev", s.Rev)
			out = append(out, "\n        }"...)
		}
		out = append(out, "\n      ]"...)
	}
	out = appendField(out, in, "origin", t.Origin, true, false)
	out = appendField(out, in, "uid", t.UID, true, false)
	out = appendInt(out, in, "rev", t.Rev)
	return append(out, "\n    }"...)
}

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes a JSON string holds as they are.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendString writes s as encoding/json does: HTML characters, control
// characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendString(out []byte, s string) []byte {
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if plain[b] {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch b {
			case '\\', '"':
				out = append(out, '\\', b)
			case '\b':
				out = append(out, '\\', 'b')
			case '\f':
				out = append(out, '\\', 'f')
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, s[start:i]...)
			out = append(out, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
