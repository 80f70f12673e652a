package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeAgentSpec is what a fake agent knows of itself, as the real one
// does: where its settings are, its event names, its todo tool and how it
// writes its list, how it reads a hook's output.
type fakeAgentSpec struct {
	name, settings            string // settings file under HOME
	stop, tool, prompt, start string // its event names
	todoTool                  string
	replyKey                  string // the stop input's reply field
	promptOnContinue          bool   // it runs the prompt hook for a continuation (Gemini CLI, Qwen Code)
	toolInput                 func(items []fakeItem) any
	continueWord              string
	shell                     string // its tool that runs a command
}

type fakeItem struct {
	text string
	done bool
}

var fakeAgents = []fakeAgentSpec{
	{name: "claude", settings: ".claude/settings.json", stop: "Stop", tool: "PostToolUse", prompt: "UserPromptSubmit", start: "SessionStart",
		todoTool: "TodoWrite", replyKey: "last_assistant_message", continueWord: "block", shell: "Bash",
		toolInput: func(items []fakeItem) any {
			var t []map[string]string
			for _, it := range items {
				t = append(t, map[string]string{"content": it.text, "status": status(it.done), "activeForm": it.text})
			}
			return map[string]any{"todos": t}
		}},
	{name: "gemini", settings: ".gemini/settings.json", stop: "AfterAgent", tool: "AfterTool", prompt: "BeforeAgent", start: "SessionStart",
		todoTool: "write_todos", replyKey: "prompt_response", promptOnContinue: true, continueWord: "deny", shell: "run_shell_command",
		toolInput: func(items []fakeItem) any {
			var t []map[string]string
			for _, it := range items {
				t = append(t, map[string]string{"description": it.text, "status": status(it.done)})
			}
			return map[string]any{"todos": t}
		}},
	{name: "qwen", settings: ".qwen/settings.json", stop: "Stop", tool: "PostToolUse", prompt: "UserPromptSubmit", start: "SessionStart",
		todoTool: "todo_write", replyKey: "last_assistant_message", promptOnContinue: true, continueWord: "block", shell: "run_shell_command",
		toolInput: func(items []fakeItem) any {
			var t []map[string]string
			for i, it := range items {
				t = append(t, map[string]string{"id": fmt.Sprint(i + 1), "content": it.text, "status": status(it.done)})
			}
			return map[string]any{"todos": t}
		}},
	{name: "codex", settings: ".codex/hooks.json", stop: "Stop", tool: "PostToolUse", prompt: "UserPromptSubmit", start: "SessionStart",
		todoTool: "update_plan", replyKey: "last_assistant_message", continueWord: "block", shell: "Bash",
		toolInput: func(items []fakeItem) any {
			var t []map[string]string
			for _, it := range items {
				t = append(t, map[string]string{"step": it.text, "status": status(it.done)})
			}
			return map[string]any{"plan": t}
		}},
}

func status(done bool) string {
	if done {
		return "completed"
	}
	return "pending"
}

// fakeAgent runs the hook commands installed in its settings file as the
// real agents do: each matching command through /bin/sh -c in the
// session's directory, the event's JSON on stdin, JSON (or nothing) on
// stdout, and exit status 0 for "go on as decided by stdout".
type fakeAgent struct {
	t       *testing.T
	spec    fakeAgentSpec
	h       home
	env     []string
	session string
	items   []fakeItem
	// blocks counts the stops the hooks blocked; said the lines shown to
	// the person.
	blocks int
	said   []string
}

// hooksFor lists the commands of one event whose matcher accepts tool.
func (f *fakeAgent) hooksFor(event, tool string) []string {
	data, err := os.ReadFile(filepath.Join(f.h.dir, f.spec.settings))
	if err != nil {
		f.t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		f.t.Fatal(err)
	}
	var cmds []string
	for _, g := range s.Hooks[event] {
		if g.Matcher != "" && tool != "" {
			m := g.Matcher
			if m == "*" { // Claude Code's every tool
				m = ".*"
			}
			if !strings.ContainsAny(m, "^$()*") { // Claude Code's exact names
				m = "^(" + m + ")$"
			}
			if !regexp.MustCompile(m).MatchString(tool) {
				continue
			}
		}
		for _, h := range g.Hooks {
			if h.Type == "command" {
				cmds = append(cmds, h.Command)
			}
		}
	}
	return cmds
}

// fire runs the event's hooks and returns their outputs.
func (f *fakeAgent) fire(event, tool string, fields map[string]any) []map[string]any {
	in := map[string]any{"session_id": f.session, "cwd": f.h.dir, "hook_event_name": event, "transcript_path": "/dev/null"}
	for k, v := range fields {
		in[k] = v
	}
	data, _ := json.Marshal(in)
	var outs []map[string]any
	for _, c := range f.hooksFor(event, tool) {
		cmd := exec.Command("/bin/sh", "-c", c)
		cmd.Dir, cmd.Env, cmd.Stdin = f.h.dir, f.env, bytes.NewReader(data)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			f.t.Fatalf("%s hook %q: %v (stderr %q)", event, c, err, errb.String())
		}
		if errb.Len() > 0 {
			f.t.Fatalf("%s hook %q wrote on stderr: %q", event, c, errb.String())
		}
		if out.Len() == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			f.t.Fatalf("%s hook stdout is not JSON: %q", event, out.String())
		}
		outs = append(outs, m)
	}
	return outs
}

// writeList is the agent calling its todo tool.
func (f *fakeAgent) writeList() {
	f.fire(f.spec.tool, f.spec.todoTool, map[string]any{"tool_name": f.spec.todoTool, "tool_input": f.spec.toolInput(f.items),
		"tool_response": map[string]any{}, "tool_use_id": "call_1"})
}

// runCommand is the agent running a command that succeeds, which its
// post-tool hook reports: work a receipt shows.
func (f *fakeAgent) runCommand(cmd string) {
	f.fire(f.spec.tool, f.spec.shell, map[string]any{"tool_name": f.spec.shell, "tool_input": map[string]string{"command": cmd},
		"tool_response": map[string]any{"stdout": "ok"}, "tool_use_id": "call_2"})
}

// send is the person's prompt and the agent's turns until it stops for
// good: each turn is act() (the scripted model), then the stop hooks,
// which may send it on. It returns the additional context the prompt hook
// gave.
func (f *fakeAgent) send(prompt string, act func(turn int) string) string {
	ctx := ""
	for _, o := range f.fire(f.spec.prompt, "", map[string]any{"prompt": prompt}) {
		if h, ok := o["hookSpecificOutput"].(map[string]any); ok {
			ctx, _ = h["additionalContext"].(string)
		}
	}
	for turn := 0; turn < 50; turn++ {
		reply := act(turn)
		// What the agent is given to go on with, and what its screen
		// shows: the systemMessage where there is one, else the block's
		// reason (its first line).
		cont, gets := "", ""
		for _, o := range f.fire(f.spec.stop, "", map[string]any{f.spec.replyKey: reply, "stop_hook_active": turn > 0}) {
			shown, _ := o["systemMessage"].(string)
			if o["decision"] == f.spec.continueWord {
				cont, _ = o["reason"].(string)
				gets = cont
				if shown == "" {
					shown, _, _ = strings.Cut(cont, "\n")
				}
			}
			if h, ok := o["hookSpecificOutput"].(map[string]any); ok && h["hookEventName"] == f.spec.stop {
				gets, _ = h["additionalContext"].(string) // Claude Code 2.1.332 goes on without a block
			}
			if shown != "" {
				f.said = append(f.said, shown)
			}
		}
		if gets == "" {
			return ctx
		}
		f.blocks++
		if f.spec.promptOnContinue {
			for _, o := range f.fire(f.spec.prompt, "", map[string]any{"prompt": cont}) {
				if h, ok := o["hookSpecificOutput"].(map[string]any); ok {
					c, _ := h["additionalContext"].(string)
					gets += "\n" + c
				}
			}
		}
		if !strings.Contains(gets, "<todo-list>") || !strings.Contains(gets, "Item numbers are positions") {
			f.t.Fatalf("a continuation without the instructions and the list: %q", gets)
		}
	}
	f.t.Fatal("the hooks never let the agent stop")
	return ctx
}

func newFakeAgent(t *testing.T, spec fakeAgentSpec, h home, extraEnv ...string) *fakeAgent {
	var env []string
	for _, kv := range h.env() {
		if !strings.HasPrefix(kv, "TODOSH_SESSION=") && !strings.HasPrefix(kv, "TODOSH_HOOKS=") {
			env = append(env, kv)
		}
	}
	if spec.name == "claude" {
		env = append(env, "AI_AGENT=claude-code_2-1-332_harness") // what Claude Code 2.1.332 gives its hooks
	}
	return &fakeAgent{t: t, spec: spec, h: h, env: append(env, extraEnv...), session: "0f3c-" + spec.name}
}

func threeItems() []fakeItem {
	return []fakeItem{{"write the parser", true}, {"write the CLI", false}, {"write the tests", false}}
}

// TestHooksFakeAgents installs the hooks with the binary and drives each
// agent's scenarios through them: lazy (continued until the list is done),
// stuck (exactly 3 continuations, then a line for the person), a question
// (never blocked), the person's /todo edit (given back at the next
// prompt), a compaction (the list given back), under todosh (nothing).
func TestHooksFakeAgents(t *testing.T) {
	for _, spec := range fakeAgents {
		t.Run(spec.name, func(t *testing.T) {
			h := newHome(t)
			r := h.script(t, h.dir, "", "hooks", "install", spec.name)
			if r.code != 0 || !strings.Contains(r.stdout, "installed todosh's hooks") {
				t.Fatalf("install: %+v", r)
			}
			sid := spec.name + "-0f3c-" + spec.name

			// lazy: one item more per turn, continued until done.
			f := newFakeAgent(t, spec, h)
			f.send("Build csvkit-lite", func(turn int) string {
				if turn == 0 {
					// The list, then the work on its first item, then the mark.
					f.items = threeItems()
					f.items[0].done = false
					f.writeList()
					f.runCommand("go build ./...")
					f.items[0].done = true
				} else {
					f.runCommand("go test ./...") // the work, then the mark
					f.items[turn].done = true
				}
				f.writeList()
				return "I'll stop here for now."
			})
			if f.blocks != 2 || !f.items[2].done {
				t.Fatalf("lazy: %d continuations, items %v", f.blocks, f.items)
			}
			h.assertList(t, sid, "write the parser", "write the CLI", "write the tests")
			if want := []string{"todosh: continuing 1/3 — 2 open items", "todosh: continuing 1/3 — 1 open item", "todosh: all done"}; !slices.Equal(f.said, want) {
				t.Errorf("lazy: said %q, want %q", f.said, want)
			}
			r = h.script(t, h.dir, "", "--session", sid, "-c", "/todo show")
			if !strings.Contains(r.stdout, "✓ write the tests") {
				t.Errorf("todosh --session %s: %q", sid, r.stdout)
			}

			// stuck: a new list, then never any progress.
			f.said = nil
			f.blocks = 0
			f.send("Now the docs", func(turn int) string {
				if turn == 0 {
					f.items = []fakeItem{{"write the README", false}, {"write the man page", false}}
					f.writeList()
				}
				return "Done for today."
			})
			if f.blocks != 3 {
				t.Fatalf("stuck: %d continuations, want 3", f.blocks)
			}
			if want := []string{"todosh: continuing 1/3 — 2 open items", "todosh: continuing 2/3 — 2 open items",
				"todosh: continuing 3/3 — 2 open items", "todosh: stopped: 3 attempts without progress"}; !slices.Equal(f.said, want) {
				t.Errorf("stuck: said %q, want %q", f.said, want)
			}

			// marks done without working: the gate blocks while the items
			// have no receipt, says why, and stops after 3.
			f.said, f.blocks = nil, 0
			f.send("Finish the docs", func(turn int) string {
				f.items = []fakeItem{{"write the README", true}, {"write the man page", true}}
				f.writeList()
				return "All done."
			})
			if n := len(f.said); f.blocks != 3 || n == 0 || f.said[n-1] != "todosh: stopped: 3 attempts without progress" ||
				!strings.Contains(strings.Join(f.said, "\n"), "done without a receipt") {
				t.Errorf("done without work: %d continuations, said %q; want 3 naming the items done without a receipt, and a stop", f.blocks, f.said)
			}
			r = h.script(t, h.dir, "", "--session", sid, "-c", "/todo show")
			if !strings.Contains(r.stdout, "(reported, no receipt)") {
				t.Errorf("done without work shown as:\n%s", r.stdout)
			}

			// The person adds an item in todosh; the next prompt gives it back.
			r = h.script(t, h.dir, "", "--session", sid, "-c", "/todo add check the links")
			if r.code != 0 {
				t.Fatalf("/todo add: %+v", r)
			}
			f.blocks, f.said = 0, nil
			ctx := f.send("What is left?", func(int) string { return "Should I write the man page in roff or markdown?" })
			if f.blocks != 0 {
				t.Errorf("question: blocked %d times", f.blocks)
			}
			if !strings.Contains(ctx, `"check the links"`) || !strings.Contains(ctx, "<todo-list>") ||
				!strings.Contains(ctx, "Item 3 of the list below is not in your own todo list yet") || !strings.Contains(ctx, "with "+spec.todoTool) {
				t.Errorf("prompt context: %q", ctx)
			}

			// A compaction gives the list back.
			outs := f.fire(spec.start, "", map[string]any{"source": "compact"})
			if len(outs) != 1 || !strings.Contains(fmt.Sprint(outs[0]), "check the links") {
				t.Errorf("start: %v", outs)
			}

			// Inside an agent todosh runs itself, and with TODOSH_HOOKS=off,
			// the hooks do nothing.
			for _, env := range []string{"TODOSH_SESSION=outer", "TODOSH_HOOKS=off"} {
				g := newFakeAgent(t, spec, h, env)
				g.session = "inner"
				g.send("Build it", func(turn int) string {
					g.items = threeItems()
					g.writeList()
					return "Stopping."
				})
				if g.blocks != 0 {
					t.Errorf("%s: blocked %d times", env, g.blocks)
				}
				if _, err := h.store().Load(spec.name + "-inner"); err == nil {
					t.Errorf("%s: the mirror wrote a session", env)
				}
			}

			// status names it; uninstall gives the file back.
			// (Codex has not trusted them: it would not run them yet.)
			r = h.script(t, h.dir, "", "hooks", "status")
			state := "installed"
			if spec.name == "codex" {
				state = "broken"
				if !strings.Contains(r.stdout, "hooks stop, tool, prompt, start: not trusted in Codex yet") {
					t.Errorf("status without Codex's trust:\n%s", r.stdout)
				}
			}
			if !regexp.MustCompile(`(?m)^` + spec.name + `\s+user\s+` + state + `\s`).MatchString(r.stdout) {
				t.Errorf("status:\n%s", r.stdout)
			}
			r = h.script(t, h.dir, "", "hooks", "uninstall", spec.name)
			if r.code != 0 {
				t.Fatalf("uninstall: %+v", r)
			}
			if _, err := os.Stat(filepath.Join(h.dir, spec.settings)); !os.IsNotExist(err) {
				t.Errorf("the settings file todosh created is still there: %v", err)
			}
		})
	}
}

// TestHooksToolOn: install and status through the binary name the setting
// without which Claude Code 2.1.233+ and Qwen Code 0.24 offer no todo tool,
// until the settings file or the environment turns it on.
func TestHooksToolOn(t *testing.T) {
	h := newHome(t)
	for _, tc := range []struct{ agent, want, file, setting string }{
		{"claude", "CLAUDE_CODE_ENABLE_TODO_TOOLS=1", ".claude/settings.json", `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}}`},
		{"qwen", `"todoWrite": {"enabled": true}`, ".qwen/settings.json", `{"tools": {"todoWrite": {"enabled": true}}}`},
	} {
		r := h.script(t, h.dir, "", "hooks", "install", tc.agent)
		if r.code != 0 || !strings.Contains(r.stdout, "next: ") || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("install %s: %+v", tc.agent, r)
		}
		status := regexp.MustCompile(`(?m)^` + tc.agent + `\s+user\s+installed\s.*\n\s+→ .*` + regexp.QuoteMeta(tc.want))
		if r := h.script(t, h.dir, "", "hooks", "status"); !status.MatchString(r.stdout) {
			t.Errorf("status before %s's setting:\n%s", tc.agent, r.stdout)
		}
		// The person turns it on in the file; install keeps it.
		path := filepath.Join(h.dir, tc.file)
		h.script(t, h.dir, "", "hooks", "uninstall", tc.agent)
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.WriteFile(path, []byte(tc.setting), 0o600)
		r = h.script(t, h.dir, "", "hooks", "install", tc.agent)
		if r.code != 0 || strings.Contains(r.stdout, tc.want) {
			t.Errorf("install %s with the setting: %+v", tc.agent, r)
		}
		if r := h.script(t, h.dir, "", "hooks", "status"); strings.Contains(r.stdout, tc.want) {
			t.Errorf("status with %s's setting:\n%s", tc.agent, r.stdout)
		}
	}
	// The variable in the environment counts for Claude Code.
	os.WriteFile(filepath.Join(h.dir, ".claude/settings.json"), []byte("{}"), 0o600)
	h.script(t, h.dir, "", "hooks", "install", "claude")
	cmd := exec.Command(binary, "hooks", "status")
	cmd.Env, cmd.Dir = append(h.env(), "CLAUDE_CODE_ENABLE_TODO_TOOLS=1"), h.dir
	out, err := cmd.Output()
	if err != nil || strings.Contains(string(out), "CLAUDE_CODE_ENABLE_TODO_TOOLS") {
		t.Errorf("status with the variable set: %v\n%s", err, out)
	}
}

// TestHooksInstallKeepsFile: install and uninstall through the binary on
// a settings file with the person's own hooks and a mode of its own.
func TestHooksInstallKeepsFile(t *testing.T) {
	h := newHome(t)
	path := filepath.Join(h.dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o700)
	orig := "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n  },\n  \"x\": 1\n}\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if r := h.script(t, h.dir, "", "hooks", "install", "claude"); r.code != 0 {
			t.Fatalf("install: %+v", r)
		}
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), "hook claude stop") != 1 || !strings.Contains(string(data), "say done") {
		t.Errorf("after two installs:\n%s", data)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", info.Mode().Perm())
	}
	if r := h.script(t, h.dir, "", "hooks", "uninstall", "claude"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if data, _ := os.ReadFile(path); string(data) != orig {
		t.Errorf("after uninstall:\n%s\nwant\n%s", data, orig)
	}
	// Bad input changes nothing and says so in one line.
	os.WriteFile(path, []byte("{not json"), 0o640)
	r := h.script(t, h.dir, "", "hooks", "install", "claude")
	if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "not valid JSON") {
		t.Errorf("install into a broken file: %+v", r)
	}
	if data, _ := os.ReadFile(path); string(data) != "{not json" {
		t.Errorf("the broken file changed")
	}
	for _, args := range [][]string{{"hooks", "install", "cursor"}, {"hooks", "install"}, {"hooks", "frob"}, {"hooks", "install", "claude", "--global"}} {
		if r := h.script(t, h.dir, "", args...); r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: %+v", args, r)
		}
	}
	// --project writes the repository's file.
	repo := filepath.Join(h.dir, "repo")
	os.Mkdir(repo, 0o700)
	if r := h.script(t, repo, "", "hooks", "install", "gemini", "--project"); r.code != 0 {
		t.Fatalf("install --project: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(repo, ".gemini", "settings.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".gemini", "settings.json")); err == nil {
		t.Error("--project wrote the user's file")
	}
}

// BenchmarkHookExec times the whole binary as an agent runs it at every
// stop: `todosh hook claude stop` with the stop's JSON on stdin, on a
// session with a 20-item list the gate continues (a change written), and
// once on an agent session that has no list (the common case for an agent
// that never used its todo tool).
func BenchmarkHookExec(b *testing.B) {
	h := newHome(b)
	if r := h.script(b, h.dir, "", "hooks", "install", "claude"); r.code != 0 {
		b.Fatalf("install: %+v", r)
	}
	var items []map[string]string
	for i := range 20 {
		items = append(items, map[string]string{"content": fmt.Sprintf("item number %d of the plan", i), "status": "pending", "activeForm": "doing it"})
	}
	tool, _ := json.Marshal(map[string]any{"session_id": "bench", "cwd": h.dir, "hook_event_name": "PostToolUse",
		"tool_name": "TodoWrite", "tool_input": map[string]any{"todos": items}, "tool_response": map[string]any{}})
	run := func(stdin []byte, args ...string) time.Duration {
		c := exec.Command(binary, args...)
		c.Env, c.Dir, c.Stdin = h.env(), h.dir, bytes.NewReader(stdin)
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("%q: %v\n%s", args, err, out)
		}
		return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	run(tool, "hook", "claude", "tool")
	for _, tc := range []struct{ name, session string }{{"continuing", "bench"}, {"no-list", "other"}} {
		stop := []byte(`{"session_id":"` + tc.session + `","hook_event_name":"Stop","last_assistant_message":"I will stop here."}`)
		prompt := []byte(`{"session_id":"` + tc.session + `","hook_event_name":"UserPromptSubmit","prompt":"go on"}`)
		b.Run(tc.name, func(b *testing.B) {
			var cpu time.Duration
			i := 0
			for b.Loop() {
				if i%3 == 0 {
					b.StopTimer()
					run(prompt, "hook", "claude", "prompt") // the counters start again
					b.StartTimer()
				}
				i++
				cpu += run(stop, "hook", "claude", "stop")
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// TestHookNeverInTheWay: the binary, given what no agent sends, exits 0
// with nothing on stdout and one line on stderr, so the agent goes on as
// without the hook; with a store it cannot use it exits 1, which every
// agent shows without being blocked.
func TestHookNeverInTheWay(t *testing.T) {
	h := newHome(t)
	blocked := filepath.Join(h.dir, "not-a-dir")
	os.WriteFile(blocked, nil, 0o600)
	for _, tc := range []struct {
		name, stdin string
		args        []string
		env         string
		code        int
	}{
		{"garbage", "\x00\x01 not json", []string{"hook", "claude", "stop"}, "", 0},
		{"empty", "", []string{"hook", "gemini", "stop"}, "", 0},
		{"unknown agent", `{"session_id":"s"}`, []string{"hook", "cursor", "stop"}, "", 0},
		{"no event", `{"session_id":"s"}`, []string{"hook", "claude"}, "", 0},
		{"store unusable", `{"session_id":"s","tool_name":"TodoWrite","tool_input":{"todos":[{"content":"a","status":"pending"}]}}`,
			[]string{"hook", "claude", "tool"}, "TODOSH_HOME=" + blocked, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binary, tc.args...)
			cmd.Env = h.env()
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			cmd.Dir, cmd.Stdin = h.dir, strings.NewReader(tc.stdin)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != tc.code {
				t.Fatalf("exit: %v, want %d", err, tc.code)
			}
			if out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "todosh hook") {
				t.Errorf("stdout %q stderr %q", out.String(), errb.String())
			}
		})
	}
}

// TestTerminalListOpensAgentMirror: the list an agent's hooks keep is
// opened as itself when the person picks it in /todo list, so what they
// add reaches the agent's session; /todo load still copies it, and says
// so.
func TestTerminalListOpensAgentMirror(t *testing.T) {
	h := newHome(t)
	f := newFakeAgent(t, fakeAgents[0], h)
	r := h.script(t, h.dir, "", "hooks", "install", "claude")
	if r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	f.items = []fakeItem{{"the agent's item", false}}
	f.writeList()
	mirror := "claude-" + f.session
	h.assertList(t, mirror, "the agent's item")

	tm := h.startTerm(t, "--session", "current")
	tm.expect("todosh › ")
	tm.openFromList(mirror)
	tm.expect("todosh 0/1 › ")
	tm.run("/todo add the person's item")
	tm.expect("todosh 0/2 › ")
	// A copy, from another session.
	tm.quit()
	h.assertList(t, mirror, "the agent's item", "the person's item")
	if s, err := h.store().Load("current"); err == nil && len(s.Todos) != 0 {
		t.Errorf("the session it switched from got %v", s.Todos)
	}
	r = h.script(t, h.dir, "", "--session", "other", "-c", "/todo list", "-c", "/todo load 2")
	if !strings.Contains(r.stdout, "Loaded a copy of list 2 (session "+mirror) || !strings.Contains(r.stdout, "todosh --session "+mirror+" opens its own list") {
		t.Errorf("/todo load of the agent's list:\n%s", r.stdout)
	}
	// The agent is offered the person's item at its next prompt.
	if ctx := f.send("go on", func(int) string { return "Which one first?" }); !strings.Contains(ctx, "Item 2 of the list below is not in your own todo list yet") {
		t.Errorf("the agent's next prompt: %q", ctx)
	}
}
