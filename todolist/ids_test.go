package todolist

import (
	"testing"
)

// TestIsPosition tells positions from stable ids.
func TestIsPosition(t *testing.T) {
	for id, want := range map[string]bool{"1": true, "2.1": true, " 3 ": true, "t3": false, "s12": false, "": false, "1a": false} {
		if IsPosition(id) != want {
			t.Errorf("IsPosition(%q) = %v", id, !want)
		}
	}
}
