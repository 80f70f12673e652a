package todostore

import (
	"bytes"
	"errors"
	"testing"
)

// The seed corpora are committed under testdata/fuzz/FuzzXxx/, so plain
// go test runs them; go test -fuzz=FuzzXxx explores from them.

// FuzzDecode feeds arbitrary bytes to Decode, the parser of session files:
// it must never panic, and whatever it accepts must survive Encode and
// Decode unchanged and be writable by Update (normalized and valid).
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		sess, err := Decode(data)
		if err != nil {
			return
		}
		enc, err := Encode(sess)
		if errors.Is(err, ErrLimit) {
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
		todos := CloneTodos(back.Todos)
		Normalize(todos)
		if err := Validate(todos); err != nil {
			t.Fatalf("a decoded list is invalid after Normalize: %v", err)
		}
		FormatList(todos)
	})
}

// FuzzForeign feeds arbitrary bytes to the readers of other agents' files
// (a list file, or one Claude task when claudeTask is set): no panic, and
// an accepted list is valid and renders.
func FuzzForeign(f *testing.F) {
	f.Fuzz(func(t *testing.T, claudeTask bool, data []byte) {
		var todos []Todo
		var err error
		if claudeTask {
			var it foreignItem
			if it, err = decodeClaudeTask(data); err == nil {
				todos, err = adoptItems([]foreignItem{it}, itemNumber)
			}
		} else {
			todos, err = decodeForeignList(data)
		}
		if err != nil {
			return
		}
		if err := Validate(todos); err != nil {
			t.Fatalf("accepted an invalid list: %v", err)
		}
		for i, todo := range todos {
			if want := itemNumber(i)[len("item "):]; todo.ID != want {
				t.Fatalf("item %d has id %q", i+1, todo.ID)
			}
		}
		FormatList(todos)
	})
}
