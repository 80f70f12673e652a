package todolist

import "testing"

// TestReceiptWordsCount: a receipt's counts read as /todo cost's do.
func TestReceiptWordsCount(t *testing.T) {
	for _, tt := range []struct {
		w    ItemWork
		want string
	}{
		{ItemWork{Edits: 1}, "1 edit"},
		{ItemWork{Edits: 2, Commands: 1}, "2 edits, 1 command"},
		{ItemWork{Commands: 1668}, "1,668 commands"},
	} {
		if got := tt.w.Words(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.w, got, tt.want)
		}
	}
}

// TestAndList: words joined as a sentence.
func TestAndList(t *testing.T) {
	for _, tt := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := AndList(tt.words); got != tt.want {
			t.Errorf("AndList(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}
