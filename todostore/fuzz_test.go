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
// Decode unchanged and be writable by Update (normalized and valid).
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
	})
}
