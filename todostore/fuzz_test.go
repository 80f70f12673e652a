package todostore

import (
	"bytes"
	"errors"
	"testing"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todoview"
)

// The seed corpora are committed under testdata/fuzz/FuzzXxx/, so plain
// go test runs them; go test -fuzz=FuzzXxx explores from them.

// FuzzDecode feeds arbitrary bytes to Decode, the parser of session files:
// it must never panic, and whatever it accepts must survive Encode and
// Decode unchanged and be writable by Update (normalized and valid); the
// lines a history gets from it are numbered in order, after the
// history's end, and those its change record carries ahead have valid
// lists.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		sess, err := Decode(data)
		if err != nil {
			return
		}
		enc, err := Encode(sess)
		if errors.Is(err, todolist.ErrLimit) {
			return // compact input can grow past 1 MiB when indented
		}
		if err != nil {
			t.Fatalf("Encode of a decoded session: %v", err)
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode of an encoded session: %v\n%s", err, enc)
		}
		enc2, err := Encode(back)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip differs (%v):\n%s\n%s", err, enc, enc2)
		}
		todos := todolist.CloneTodos(back.Todos)
		todolist.Normalize(todos)
		if err := todolist.Validate(todos); err != nil {
			t.Fatalf("a decoded list is invalid after Normalize: %v", err)
		}
		todoview.FormatList(todos)
		st := state{sess: back, present: true, hash: listHash(back.Todos)}
		for _, last := range []*HistoryLine{nil, {N: 2, Todos: []todolist.Todo{}}} {
			prev := 0
			if last != nil {
				prev = last.N
			}
			lines := catchUp(last, st)
			for _, l := range lines {
				if l.N <= prev {
					t.Fatalf("change %d after change %d", l.N, prev)
				}
				prev = l.N
			}
			checkLinesRead(t, last, lines)
			for _, l := range linesAhead(prev, st) {
				if err := todolist.Validate(l.Todos); err != nil {
					t.Fatalf("change %d ahead: %v", l.N, err)
				}
			}
		}
	})
}

// checkLinesRead fails t unless lines, written after last (nil: at the
// start of a history), read back: a line catchUp makes from a file todosh
// accepted is never one its history reader rejects.
func checkLinesRead(t *testing.T, last *HistoryLine, lines []HistoryLine) {
	t.Helper()
	if len(lines) == 0 {
		return
	}
	all := lines
	if last != nil {
		all = append([]HistoryLine{*last}, lines...)
	}
	data, _, err := encodeLines(lineChain{}, nil, all, todolist.MaxFileSize)
	if err != nil {
		t.Fatalf("encode caught-up lines: %v", err)
	}
	got, bad := ParseHistory(data)
	if len(bad) > 0 {
		t.Fatalf("caught-up line %d unreadable: %v\n%s", bad[0].Line, bad[0].Err, data)
	}
	if len(got) != len(all) {
		t.Fatalf("%d lines read back of %d", len(got), len(all))
	}
}
