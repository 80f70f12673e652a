package acpagent

import "testing"

func TestIsSlashCommand(t *testing.T) {
	for prompt, want := range map[string]bool{
		"/compact":                   true,
		"  /compact now":             true,
		"/review-branch main":        true,
		"/project:deploy":            true,
		"/init\nand more":            true,
		"/tmp/x is broken, fix it":   false,
		"/":                          false,
		"/ compact":                  false,
		"please /compact":            false,
		"/naïve":                     false,
		"":                           false,
		"/usr/bin/env python script": false,
	} {
		if got := IsSlashCommand(prompt); got != want {
			t.Errorf("IsSlashCommand(%q) = %v, want %v", prompt, got, want)
		}
	}
}
