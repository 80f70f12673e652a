package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportsRunTime: status checks what the installed hooks need when
// they run, and names the broken hook and the one command that fixes it:
// an executable that moved or cannot run, a store the hooks cannot write,
// and Codex's trust and todo tool read from Codex's own config.toml.
func TestReportsRunTime(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	env := Env{Home: home, Cwd: t.TempDir(), Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}, Store: filepath.Join(home, "todosh")}
	codex, _ := Lookup("codex")
	exe := filepath.Join(home, "bin", "todosh")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	hooksFile := filepath.Join(codexHome, "hooks.json")
	if _, err := Install(hooksFile, codex, exe, ""); err != nil {
		t.Fatal(err)
	}
	todo := func() string {
		t.Helper()
		reps := Reports(codex, env)
		if want := map[bool]string{true: "installed", false: "broken"}[len(reps[0].Todo()) == 0]; reps[0].State() != want {
			t.Fatalf("state %s, want %s (%v)", reps[0].State(), want, reps[0].Err)
		}
		return strings.Join(reps[0].Todo(), "\n")
	}
	got := todo()
	for _, want := range []string{"hooks stop, tool, prompt, start: not trusted in Codex yet", `"[tools.update_plan]" and "enabled = true"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no config.toml: want %q in\n%s", want, got)
		}
	}
	// Codex trusted two of them, and turned update_plan on.
	config := "model = \"gpt-5\" # the model\n\n[tools.update_plan]\nenabled = true\n\n[hooks.state]\n\n" +
		"[hooks.state.\"" + hooksFile + ":stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n\n" +
		"[hooks.state.\"" + hooksFile + ":post_tool_use:0:0\"]\ntrusted_hash = \"sha256:bb\"\n"
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600)
	got = todo()
	if !strings.Contains(got, "hooks prompt, start: not trusted in Codex yet") || strings.Contains(got, "update_plan") {
		t.Errorf("two trusted, tool on:\n%s", got)
	}
	config += "[hooks.state.\"" + hooksFile + ":user_prompt_submit:0:0\"]\ntrusted_hash = \"sha256:cc\"\n" +
		"[hooks.state.\"" + hooksFile + ":session_start:0:0\"]\ntrusted_hash = \"sha256:dd\"\n"
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600)
	if got = todo(); got != "" {
		t.Errorf("all trusted: %s", got)
	}
	// The executable cannot run.
	os.Chmod(exe, 0o644)
	if got = todo(); !strings.Contains(got, "hooks stop, tool, prompt, start: "+exe+" cannot run") || !strings.Contains(got, "run chmod +x "+exe) {
		t.Errorf("not executable:\n%s", got)
	}
	// It moved.
	os.Remove(exe)
	if got = todo(); !strings.Contains(got, exe+" no longer exists: run todosh hooks install codex again") {
		t.Errorf("moved:\n%s", got)
	}
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	// The store is not a directory the hooks can write.
	os.WriteFile(env.Store, []byte("x"), 0o644)
	env.Store = filepath.Join(env.Store, "sub")
	if got = todo(); !strings.Contains(got, "they cannot write todosh's store") || !strings.Contains(got, "run mv ") {
		t.Errorf("store:\n%s", got)
	}
}

// TestTomlKeys reads what status needs of Codex's config.toml.
func TestTomlKeys(t *testing.T) {
	doc := "# c\nmodel = \"gpt\" # x\n[tools.update_plan]\nenabled = true # on\n" +
		"[hooks.state.\"/a b/hooks.json:stop:0:0\"]\ntrusted_hash = 'sha256:x'\n" +
		"[[profiles]]\nname = \"skip\"\n[a]\n\"q.k\".b = \"v#1\"\nlist = [\n  1,\n]\n"
	m, err := tomlKeys(doc)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"model":                           "gpt",
		"tools\x00update_plan\x00enabled": "true",
		"hooks\x00state\x00/a b/hooks.json:stop:0:0\x00trusted_hash": "sha256:x",
		"a\x00q.k\x00b": "v#1",
		"name":          "",
	} {
		if m[k] != want {
			t.Errorf("%q = %q, want %q", k, m[k], want)
		}
	}
	if _, err := tomlKeys("[unclosed\n"); err == nil {
		t.Error("a table without its name read")
	}
}
