package todostore

// Compact JSON of items, subtasks and history lines, written directly:
// the bytes json.Marshal writes (FuzzCompactSameAsMarshal), without its
// reflection at every change (ARCHITECTURE.md §3).

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/todosh/todosh/todolist"
)

// marshalTodo is json.Marshal(t).
func marshalTodo(buf []byte, t todolist.Todo) ([]byte, error) {
	if hasExtra([]todolist.Todo{t}) {
		whole, err := json.Marshal(t)
		return append(buf, whole...), err
	}
	return appendTodoCompact(buf, t), nil
}

// marshalSubtask is json.Marshal(s).
func marshalSubtask(buf []byte, s todolist.Subtask) ([]byte, error) {
	if len(s.Extra) > 0 {
		whole, err := json.Marshal(s)
		return append(buf, whole...), err
	}
	return appendSubtaskCompact(buf, s), nil
}

// compactField writes "key":value after a comma (unless first), and
// nothing for an empty value when omitEmpty.
func compactField(b []byte, key, v string, omitEmpty, first bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

// compactInt writes ,"key":v, and nothing for 0.
func compactInt(b []byte, key string, v int) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

// appendTodoCompact writes an item without unknown fields.
func appendTodoCompact(b []byte, t todolist.Todo) []byte {
	b = append(b, '{')
	b = compactField(b, "id", t.ID, false, true)
	b = compactField(b, "content", t.Content, false, false)
	b = compactField(b, "status", string(t.Status), false, false)
	b = compactField(b, "activeForm", t.ActiveForm, true, false)
	b = compactField(b, "evidence", t.Evidence, true, false)
	if len(t.Subtasks) > 0 {
		b = append(b, `,"subtasks":[`...)
		for k, s := range t.Subtasks {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendSubtaskCompact(b, s)
		}
		b = append(b, ']')
	}
	b = compactField(b, "origin", t.Origin, true, false)
	b = compactField(b, "uid", t.UID, true, false)
	b = compactInt(b, "rev", t.Rev)
	return append(b, '}')
}

// appendSubtaskCompact writes a subtask without unknown fields.
func appendSubtaskCompact(b []byte, s todolist.Subtask) []byte {
	b = append(b, '{')
	b = compactField(b, "id", s.ID, false, true)
	b = compactField(b, "content", s.Content, false, false)
	b = compactField(b, "status", string(s.Status), false, false)
	b = compactField(b, "evidence", s.Evidence, true, false)
	b = compactField(b, "origin", s.Origin, true, false)
	b = compactField(b, "uid", s.UID, true, false)
	b = compactInt(b, "rev", s.Rev)
	return append(b, '}')
}

// marshalLine is json.Marshal(w), written directly unless an item has
// unknown fields.
func marshalLine(buf []byte, w *wireLine) ([]byte, error) {
	if w.Todos != nil && hasExtra(*w.Todos) || hasExtra(w.Dropped) || !jsonTime(w.At) || len(w.D) > 0 && !json.Valid(w.D) {
		data, err := json.Marshal(w)
		return append(buf, data...), err
	}
	b := append(buf, `{"n":`...)
	b = strconv.AppendInt(b, int64(w.N), 10)
	b = compactInt(b, "v", w.V)
	b = compactInt(b, "from", w.From)
	b = compactInt(b, "db", w.DB)
	b = compactField(b, "h", w.H, true, false)
	b = append(b, `,"at":"`...)
	b = w.At.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = compactField(b, "by", string(w.By), false, false)
	b = compactField(b, "what", w.What, false, false)
	if w.Todos != nil {
		b = appendTodosCompact(append(b, `,"todos":`...), *w.Todos)
	}
	if len(w.D) > 0 {
		// encodeDelta's bytes are compact JSON whose strings are
		// json.Marshal's, which is what json.Marshal makes of them.
		b = append(b, `,"d":`...)
		b = append(b, w.D...)
	}
	b = compactInt(b, "revert", w.Revert)
	if w.Base {
		b = append(b, `,"base":true`...)
	}
	if len(w.Dropped) > 0 {
		b = appendTodosCompact(append(b, `,"dropped":`...), w.Dropped)
	}
	b = compactInt(b, "pid", w.PID)
	b = compactInt(b, "lostFrom", w.LostFrom)
	b = compactInt(b, "lostTo", w.LostTo)
	return append(b, '}'), nil
}

// appendTodosCompact writes a list of items without unknown fields (nil
// as null, as json.Marshal does).
func appendTodosCompact(b []byte, todos []todolist.Todo) []byte {
	if todos == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for k, t := range todos {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendTodoCompact(b, t)
	}
	return append(b, ']')
}
