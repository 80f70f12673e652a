package files

import (
	"bytes"
	"testing"
)

// FuzzDecode: an item file either is refused or decodes to an item whose
// encoding decodes to the same item (what the merge driver and every
// read rely on).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"id":"ab12","text":"t","status":"open","created":"2026-11-26T10:00:00Z","updated":"2026-11-26T10:00:00Z"}`))
	f.Add([]byte(`{"id":"ab12","text":"t","status":"claimed","claim":{"session":"s","at":"2026-11-26T10:00:00Z","until":"2026-11-26T11:00:00Z"},"blockedBy":["x"],"notes":[{"at":"2026-11-26T10:00:00Z","by":"p","text":"n"}],"created":"2026-11-26T10:00:00Z","updated":"2026-11-26T10:00:00Z"}`))
	f.Add([]byte(`{"id":"ab12","text":"half`))
	f.Add([]byte(`{"id":"../x","text":"t","status":"open"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := Decode(data)
		if err != nil {
			return
		}
		enc := Encode(&it)
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", enc, err)
		}
		if !bytes.Equal(Encode(&again), enc) {
			t.Fatalf("encoding not stable:\n%s\n%s", enc, Encode(&again))
		}
	})
}
