package hooks

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const testExe = "/opt/todosh bin/todosh"

// checkGolden compares what install made with the golden file at path,
// which -update rewrites first.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("install: got\n%s\nwant\n%s", got, want)
	}
}

// TestSettingsGolden installs into settings that already hold other hooks,
// keys and unknown fields, compares with the golden file, installs again
// (no change) and uninstalls (the file as it was, byte for byte).
func TestSettingsGolden(t *testing.T) {
	for _, a := range Agents() {
		t.Run(a.Name, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join("testdata", a.Name+".before.json"))
			if err != nil {
				t.Fatal(err)
			}
			after, err := install(before, a, testExe)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", a.Name+".installed.json"), after)
			if !json.Valid(after) {
				t.Fatalf("install wrote invalid JSON")
			}
			again, err := install(after, a, testExe)
			if err != nil || !bytes.Equal(again, after) {
				t.Errorf("second install changed the file (err %v):\n%s", err, again)
			}
			back, err := uninstall(after, a)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, before) {
				t.Errorf("uninstall: got\n%s\nwant the file as before\n%s", back, before)
			}
			rep, err := inspect(after, a, func(string) bool { return true })
			if err != nil || rep.State() != "installed" {
				t.Errorf("inspect after install: %v %v", rep.State(), err)
			}
			rep, err = inspect(before, a, func(string) bool { return true })
			if err != nil || rep.State() != "not installed" {
				t.Errorf("inspect before install: %v %v", rep.State(), err)
			}
		})
	}
}

// TestSettingsEdges: files todosh must refuse or treat specially.
func TestSettingsEdges(t *testing.T) {
	claude, _ := Lookup("claude")
	gemini, _ := Lookup("gemini")
	for _, tc := range []struct {
		name, in string
		a        Agent
		wantErr  string
	}{
		{"empty file", "", claude, ""},
		{"blank file", " \n", claude, ""},
		{"empty object", "{}", claude, ""},
		{"not an object", "[1]", claude, "not a JSON object"},
		{"invalid", "{\"hooks\": ", claude, "not valid JSON"},
		{"hooks not object", `{"hooks": []}`, claude, `"hooks" is not an object`},
		{"event not list", `{"hooks": {"Stop": {}}}`, claude, "hooks.Stop is not a list"},
		{"duplicate key", `{"a": 1, "a": 2}`, claude, "appears twice"},
		{"empty hooks", `{"hooks": {}}`, gemini, ""},
		{"empty list", `{"hooks": {"AfterAgent": []}}`, gemini, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := install([]byte(tc.in), tc.a, testExe)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("install: err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(out) {
				t.Fatalf("invalid JSON:\n%s", out)
			}
			rep, _ := inspect(out, tc.a, func(string) bool { return true })
			if rep.State() != "installed" {
				t.Fatalf("state %q after install:\n%s", rep.State(), out)
			}
			back, err := uninstall(out, tc.a)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(back, &v); err != nil {
				t.Fatalf("uninstall left invalid JSON: %v\n%s", err, back)
			}
			if _, err := uninstall(back, tc.a); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSettingsMoved: a todosh that moved has its commands rewritten in
// place, and another agent's entries are never touched.
func TestSettingsMoved(t *testing.T) {
	claude, _ := Lookup("claude")
	qwen, _ := Lookup("qwen")
	doc, err := install(nil, claude, "/old/todosh")
	if err != nil {
		t.Fatal(err)
	}
	doc, err = install(doc, qwen, "/old/todosh") // both in one file, as a test of the owner
	if err != nil {
		t.Fatal(err)
	}
	moved, err := install(doc, claude, "/new/todosh")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(moved), "/new/todosh hook claude"); got != 4 {
		t.Errorf("%d claude commands point at the new todosh, want 4:\n%s", got, moved)
	}
	if got := strings.Count(string(moved), "/old/todosh hook qwen"); got != 4 {
		t.Errorf("qwen's commands changed:\n%s", moved)
	}
	if len(moved) != len(doc) {
		t.Errorf("the file changed beyond the commands")
	}
	rep, _ := inspect(moved, claude, func(p string) bool { return p != "/old/todosh" })
	if len(rep.Stale) != 0 {
		t.Errorf("stale %v", rep.Stale)
	}
	back, err := uninstall(moved, claude)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(back), "hook claude") || strings.Count(string(back), "hook qwen") != 4 {
		t.Errorf("uninstall claude:\n%s", back)
	}
}

func TestOurCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd, exe, agent string
		kind            Kind
		ok              bool
	}{
		{Command("/usr/bin/todosh", "claude", KindStop), "/usr/bin/todosh", "claude", KindStop, true},
		{Command("/a b/todosh", "gemini", KindTool), "/a b/todosh", "gemini", KindTool, true},
		{Command("/it's/todosh", "qwen", KindStart), "/it's/todosh", "qwen", KindStart, true},
		{"todosh hook codex prompt", "todosh", "codex", KindPrompt, true},
		{"/usr/bin/other hook claude stop", "", "", "", false},
		{"todosh hook claude sleep", "", "", "", false},
		{"todosh hook claude stop now", "", "", "", false},
		{"notify.sh", "", "", "", false},
	} {
		exe, agent, k, ok := ourCommand(tc.cmd)
		if ok != tc.ok || exe != tc.exe || agent != tc.agent || k != tc.kind {
			t.Errorf("ourCommand(%q) = %q %q %q %v, want %q %q %q %v", tc.cmd, exe, agent, k, ok, tc.exe, tc.agent, tc.kind, tc.ok)
		}
	}
}

// TestReport: what status says the person still must do.
func TestReport(t *testing.T) {
	qwen, _ := Lookup("qwen")
	codex, _ := Lookup("codex")
	gemini, _ := Lookup("gemini")
	doc, _ := install([]byte(`{"disableAllHooks": true, "tools": {"todoWrite": {"enabled": true}}}`), qwen, "/gone/todosh")
	r, err := inspect(doc, qwen, func(string) bool { return false })
	if err != nil || r.State() != "broken" || len(r.Todo()) != 2 {
		t.Fatalf("qwen: %v %q %v", r.State(), r.Todo(), err)
	}
	if !strings.Contains(r.Todo()[0], "/gone/todosh no longer exists") || !strings.Contains(r.Todo()[1], "disableAllHooks") {
		t.Errorf("qwen todo %q", r.Todo())
	}
	doc, _ = install(nil, codex, testExe)
	r, _ = inspect(doc, codex, func(string) bool { return true })
	if len(r.Todo()) != 1 || !strings.Contains(r.Todo()[0], "update_plan") {
		t.Errorf("codex todo %q", r.Todo())
	}
	doc, _ = install([]byte(`{"hooksConfig": {"enabled": false}}`), gemini, testExe)
	doc, _ = uninstallKind(doc, gemini, KindTool)
	r, _ = inspect(doc, gemini, func(string) bool { return true })
	if r.State() != "partly installed" || len(r.Todo()) != 2 || !strings.Contains(r.Todo()[0], "missing tool") {
		t.Errorf("gemini: %v %q", r.State(), r.Todo())
	}
	r.Scope = ScopeProject
	if !strings.Contains(r.Line(), "install gemini --project") {
		t.Errorf("line %q", r.Line())
	}
	if r, _ := inspect(nil, gemini, func(string) bool { return true }); r.State() != "not installed" || len(r.Todo()) != 0 {
		t.Errorf("empty: %v %q", r.State(), r.Todo())
	}
}

// TestToolOn: status names the setting that turns an agent's hidden todo
// tool on (Claude Code 2.1.233+, Qwen Code 0.24) until a file or the
// environment sets it, and never for agents whose tool is always there.
func TestToolOn(t *testing.T) {
	noEnv := func(string) string { return "" }
	for _, tc := range []struct {
		agent, file, other string
		env                func(string) string
		want               string // a piece of the line, "" for no line
	}{
		{"claude", `{}`, "", noEnv, "CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		{"claude", `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}}`, "", noEnv, ""},
		{"claude", `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "TRUE"}}`, "", noEnv, ""},
		{"claude", `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "0"}}`, "", noEnv, "CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		{"claude", `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": 1}}`, "", noEnv, ""},
		{"claude", `{"env": "CLAUDE_CODE_ENABLE_TODO_TOOLS"}`, "", noEnv, "CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		{"claude", `{}`, "", func(k string) string {
			if k == "CLAUDE_CODE_ENABLE_TODO_TOOLS" {
				return "1"
			}
			return ""
		}, ""},
		{"claude", `{}`, `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "yes"}}`, noEnv, ""},
		{"qwen", `{}`, "", noEnv, `"todoWrite": {"enabled": true}`},
		{"qwen", `{"tools": {"todoWrite": {"enabled": false}}}`, "", noEnv, `"todoWrite": {"enabled": true}`},
		{"qwen", `{"tools": {"todoWrite": {"enabled": "true"}}}`, "", noEnv, ""},
		{"qwen", `{"tools": {"todoWrite": {"enabled": true}}}`, "", noEnv, ""},
		{"qwen", `{}`, `{"tools": {"todoWrite": {"enabled": true}}}`, noEnv, ""},
		{"gemini", `{}`, "", noEnv, ""},
		{"codex", `{}`, "", noEnv, ""},
	} {
		a, _ := Lookup(tc.agent)
		doc, err := install([]byte(tc.file), a, testExe)
		if err != nil {
			t.Fatal(err)
		}
		r, err := inspect(doc, a, func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		reps := []Report{r}
		if tc.other != "" {
			o, err := inspect([]byte(tc.other), a, func(string) bool { return true })
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, o)
		}
		ShareToolOn(reps, tc.env)
		var got string
		for _, line := range reps[0].Todo() {
			if strings.Contains(line, "todo") && !strings.Contains(line, "trust") {
				got = line
			}
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s (other %s): got %q, want a line with %q", tc.agent, tc.file, tc.other, got, tc.want)
		}
	}
	// Not installed: nothing to do yet.
	claude, _ := Lookup("claude")
	if r, _ := inspect(nil, claude, func(string) bool { return true }); len(r.Todo()) != 0 {
		t.Errorf("not installed: %q", r.Todo())
	}
}

// uninstallKind removes the entry of one kind, as a person editing the
// file by hand would.
func uninstallKind(doc []byte, a Agent, k Kind) ([]byte, error) {
	s, err := parseSettings(doc, false)
	if err != nil {
		return nil, err
	}
	for _, f := range s.ours(a) {
		if f.kind == k {
			return removeItem(s.doc, s.hooks.member(f.event), f.group).apply(s.doc), nil
		}
	}
	return doc, nil
}

// An install made when the tool hook matched only the todo tools is
// widened to every tool by installing again (issue 26's receipts).
func TestInstallWidensOldMatcher(t *testing.T) {
	for _, a := range Agents() {
		old, err := install(nil, a, "/bin/todosh")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := a.matcher()
		q, _ := render(want, "", "")
		narrow := strings.Replace(string(old), q, `"TodoWrite|todo_write"`, 1)
		if narrow == string(old) {
			t.Fatalf("%s: no matcher %s in %s", a.Name, q, old)
		}
		got, err := install([]byte(narrow), a, "/bin/todosh")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(old) {
			t.Errorf("%s: install again gave\n%s\nwant\n%s", a.Name, got, old)
		}
	}
}
