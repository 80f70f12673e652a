package todostore

// The history's compact form of a change: a delta from the list before it
// (ARCHITECTURE.md §3, history format 2).

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"sync"

	"github.com/todosh/todosh/todolist"
)

// A delta states the list after a change in terms of the list before it,
// as a JSON array whose elements are, in order:
//
//	[a,b]                         items a..b of the list before, unchanged
//	{"i":k,"t":{…},"s":[…]}       item k of the list before with the fields of
//	                              t, and subtasks stated by s as a delta of
//	                              item k's subtasks
//	{"t":{…}}                     a new item, whole
//
// and a subtask delta's elements are [a,b] (subtasks a..b of the item
// before, unchanged) or a subtask object, whole. A status toggle on a
// 100-item list is about 150 bytes instead of the whole list.

// encodeDelta returns the delta that makes after from before.
func encodeDelta(before, after []todolist.Todo) ([]byte, error) {
	buf := make([]byte, 0, 64)
	buf = append(buf, '[')
	var byID map[string]int
	p := 0 // where the next item of before is expected
	run := [2]int{-1, -1}
	flush := func() {
		if run[0] >= 0 {
			buf = appendRange(buf, run[0], run[1])
			run = [2]int{-1, -1}
		}
	}
	for _, t := range after {
		k, same := -1, false
		if p < len(before) && todolist.SameTodo(before[p], t) {
			k, same = p, true
		} else if p < len(before) && t.ID != "" && before[p].ID == t.ID {
			k = p // changed in place: ids are positions, one each, so the map would say so too
		} else {
			if byID == nil {
				byID = make(map[string]int, len(before))
				for i := range before {
					if before[i].ID != "" {
						byID[before[i].ID] = i
					}
				}
			}
			if i, ok := byID[t.ID]; ok && t.ID != "" {
				k = i
			} else if p < len(before) {
				k = p
			}
		}
		if same || k >= 0 && k != p && todolist.SameTodo(before[k], t) { // before[p] is not t when not same
			if run[0] >= 0 && run[1]+1 == k {
				run[1] = k
			} else {
				flush()
				run = [2]int{k, k}
			}
			p = k + 1
			continue
		}
		flush()
		var err error
		if buf, err = appendItem(buf, before, k, t); err != nil {
			return nil, err
		}
		if k >= 0 {
			p = k + 1
		}
	}
	flush()
	if len(buf) > 1 {
		buf = buf[:len(buf)-1] // the last comma
	}
	return append(buf, ']'), nil
}

func appendRange(buf []byte, a, b int) []byte {
	buf = append(buf, '[')
	buf = strconv.AppendInt(buf, int64(a), 10)
	buf = append(buf, ',')
	buf = strconv.AppendInt(buf, int64(b), 10)
	return append(buf, "],"...)
}

// appendItem writes one changed or new item of a delta.
func appendItem(buf []byte, before []todolist.Todo, k int, t todolist.Todo) ([]byte, error) {
	var err error
	if k < 0 {
		buf = append(buf, `{"t":`...)
		if buf, err = marshalTodo(buf, t); err != nil {
			return nil, err
		}
		return append(buf, "},"...), nil
	}
	subs := t.Subtasks
	t.Subtasks = nil
	buf = append(buf, `{"i":`...)
	buf = strconv.AppendInt(buf, int64(k), 10)
	buf = append(buf, `,"t":`...)
	if buf, err = marshalTodo(buf, t); err != nil {
		return nil, err
	}
	if len(subs) > 0 {
		buf = append(buf, `,"s":[`...)
		n := len(buf)
		if buf, err = appendSubtasks(buf, before[k].Subtasks, subs); err != nil {
			return nil, err
		}
		if len(buf) > n {
			buf = buf[:len(buf)-1]
		}
		buf = append(buf, ']')
	}
	return append(buf, "},"...), nil
}

// appendSubtasks writes the subtask delta from before to after, each
// element followed by a comma.
func appendSubtasks(buf []byte, before, after []todolist.Subtask) ([]byte, error) {
	p := 0
	run := [2]int{-1, -1}
	for _, s := range after {
		if p < len(before) && todolist.SameSubtask(before[p], s) {
			if run[0] >= 0 && run[1]+1 == p {
				run[1] = p
			} else {
				if run[0] >= 0 {
					buf = appendRange(buf, run[0], run[1])
				}
				run = [2]int{p, p}
			}
			p++
			continue
		}
		if run[0] >= 0 {
			buf = appendRange(buf, run[0], run[1])
			run = [2]int{-1, -1}
		}
		var err error
		if buf, err = marshalSubtask(buf, s); err != nil {
			return nil, err
		}
		buf = append(buf, ',')
		if p < len(before) && before[p].ID == s.ID {
			p++ // the same subtask, changed
		}
	}
	if run[0] >= 0 {
		buf = appendRange(buf, run[0], run[1])
	}
	return buf, nil
}

// deltaItem is one object element of a delta.
type deltaItem struct {
	I *int              `json:"i"`
	T json.RawMessage   `json:"t"`
	S []json.RawMessage `json:"s"`
}

// applyDelta makes the list a delta states from the list before it. A
// delta that names items or subtasks the list does not have is an error:
// it was not made from this list.
func applyDelta(before []todolist.Todo, d []byte) ([]todolist.Todo, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(d, &elems); err != nil {
		return nil, fmt.Errorf("delta: %w", err)
	}
	after := make([]todolist.Todo, 0, len(before))
	for _, e := range elems {
		if len(e) > 0 && e[0] == '[' {
			a, b, err := parseRange(e, len(before))
			if err != nil {
				return nil, err
			}
			after = append(after, todolist.CloneTodos(before[a:b+1])...)
			continue
		}
		var it deltaItem
		if err := json.Unmarshal(e, &it); err != nil {
			return nil, fmt.Errorf("delta: %w", err)
		}
		var t todolist.Todo
		if err := json.Unmarshal(it.T, &t); err != nil {
			return nil, fmt.Errorf("delta: item: %w", err)
		}
		if it.I != nil {
			k := *it.I
			if k < 0 || k >= len(before) {
				return nil, fmt.Errorf("delta: item %d of a list of %d", k, len(before))
			}
			t.Subtasks = nil
			for _, s := range it.S {
				if len(s) > 0 && s[0] == '[' {
					a, b, err := parseRange(s, len(before[k].Subtasks))
					if err != nil {
						return nil, err
					}
					t.Subtasks = append(t.Subtasks, before[k].Subtasks[a:b+1]...)
					continue
				}
				var st todolist.Subtask
				if err := json.Unmarshal(s, &st); err != nil {
					return nil, fmt.Errorf("delta: subtask: %w", err)
				}
				t.Subtasks = append(t.Subtasks, st)
			}
		}
		after = append(after, t)
	}
	return after, nil
}

// parseRange reads [a,b] with 0 <= a <= b < n.
func parseRange(e []byte, n int) (int, int, error) {
	var r []int
	if err := json.Unmarshal(e, &r); err != nil || len(r) != 2 {
		return 0, 0, fmt.Errorf("delta: range %s", e)
	}
	if r[0] < 0 || r[0] > r[1] || r[1] >= n {
		return 0, 0, fmt.Errorf("delta: range %d-%d of %d", r[0], r[1], n)
	}
	return r[0], r[1], nil
}

// listHash is a checksum of every field of a list that todolist.SameTodos
// compares, so two lists with the same hash are, but for a collision one
// in 2^64, the same list. A history line carries the hash of its list and
// the session file the hash of the change that wrote it, so a reader
// checks a delta's result and a writer sees whether the history explains
// the file without reading it.
func listHash(todos []todolist.Todo) uint64 {
	h, _ := listHashes(todos, nil, nil)
	return h
}

// listHashes is listHash of todos, with the hash's state at each item's
// start (and after the last item: at[len(todos)] is the hash), for the
// next change: a change from prev, whose states are prevAt, hashes the
// items from the first one it changed, not the whole list (a list of the
// same length only: its length is hashed first).
func listHashes(todos, prev []todolist.Todo, prevAt []uint64) (uint64, []uint64) {
	h := hashers.Get().(*hasher)
	defer hashers.Put(h)
	h.c, h.e, h.n = 0, 0, 0
	at := make([]uint64, len(todos)+1)
	k := 0
	if len(prev) == len(todos) && len(prevAt) == len(prev)+1 {
		for k < len(todos) && todolist.SameTodo(prev[k], todos[k]) { // the fields hashed, and no others
			k++
		}
		copy(at[:k+1], prevAt[:k+1])
		h.c, h.e = uint32(prevAt[k]>>32), uint32(prevAt[k])
	} else {
		h.num(len(todos))
		at[0] = h.state()
	}
	for ; k < len(todos); k++ {
		t := &todos[k]
		h.str(t.ID)
		h.str(t.Content)
		h.str(string(t.Status))
		h.str(t.ActiveForm)
		h.str(t.Evidence)
		h.str(t.Origin)
		h.num(len(t.Subtasks))
		for _, s := range t.Subtasks {
			h.str(s.ID)
			h.str(s.Content)
			h.str(string(s.Status))
			h.str(s.Evidence)
			h.str(s.Origin)
		}
		at[k+1] = h.state()
	}
	return at[len(todos)], at
}

// hasher is listHash's state: the two CRCs and the n bytes of buf not yet
// added to them. The buffer escapes (crc32 reads it in assembly), so
// hashers are kept for the next hash rather than made at every change.
type hasher struct {
	c, e uint32
	n    int
	buf  [4096]byte
}

func (h *hasher) update(b []byte) {
	// Two 32-bit CRCs the processor computes (SSE 4.2, carry-less
	// multiply), several times faster than a 64-bit table CRC.
	h.c = crc32.Update(h.c, castagnoli(), b)
	h.e = crc32.Update(h.e, crc32.IEEETable, b)
}

func (h *hasher) flush() {
	h.update(h.buf[:h.n])
	h.n = 0
}

// state adds what is buffered and returns the two CRCs as the hash: a
// CRC is the same however its bytes are split.
func (h *hasher) state() uint64 {
	h.flush()
	return uint64(h.c)<<32 | uint64(h.e)
}

func (h *hasher) num(v int) {
	if h.n+binary.MaxVarintLen64 > len(h.buf) {
		h.flush()
	}
	h.n += binary.PutUvarint(h.buf[h.n:], uint64(v))
}

func (h *hasher) str(s string) {
	h.num(len(s))
	if h.n+len(s) > len(h.buf) {
		h.flush()
		if len(s) > len(h.buf) {
			h.update([]byte(s))
			return
		}
	}
	h.n += copy(h.buf[h.n:], s)
}

var hashers = sync.Pool{New: func() any { return new(hasher) }}

// castagnoli is crc32's Castagnoli table, built at the first call, not at
// start-up.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// hashString is how a hash is written: 16 hex digits, exact in any JSON reader.
func hashString(h uint64) string {
	b := make([]byte, 0, 16)
	s := strconv.FormatUint(h, 16)
	for i := len(s); i < 16; i++ {
		b = append(b, '0')
	}
	return string(append(b, s...))
}

var errHashMismatch = errors.New("list does not match its checksum")
