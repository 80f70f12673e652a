package foreignlists

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist/todolisttest"

	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todostore"
	"github.com/todosh/todosh/todoview"
)

const (
	claudeSample = "12ec3832-a7d8-4254-b780-88c4e469102c"
	qwenSample   = "c956901e-91a0-45da-af91-caa4e7ae5a80"
)

// noEnv is a getenv with nothing set.
func noEnv(string) string { return "" }

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// copyTree copies the directory src to dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// put writes a file under home with a modification time age ago.
func put(t testing.TB, home, rel, content string, age time.Duration) string {
	t.Helper()
	p := filepath.Join(home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	touch(t, p, age)
	return p
}

func touch(t testing.TB, p string, age time.Duration) {
	t.Helper()
	at := time.Now().Add(-age)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// foreignHome is a HOME with the real samples, synthetic llxprt files and
// files that must be skipped or shown as unreadable.
func foreignHome(t *testing.T) (home, data string) {
	t.Helper()
	home = t.TempDir()
	data = filepath.Join(t.TempDir(), "llxprt-data")
	copyTree(t, "testdata/saved-lists/claude", filepath.Join(home, ".claude"))
	copyTree(t, "testdata/saved-lists/qwen", filepath.Join(home, ".qwen"))
	put(t, home, ".claude/tasks/"+claudeSample+"/.lock", "", time.Hour)
	put(t, home, ".claude/tasks/"+claudeSample+"/.highwatermark", "3", time.Hour)
	touch(t, filepath.Join(home, ".claude/tasks", claudeSample), 1*time.Minute)
	touch(t, filepath.Join(home, ".qwen/todos", qwenSample+".json"), 2*time.Minute)

	put(t, home, ".claude/todos/s1-agent-s1.json", `[{"content":"Old style item","status":"in_progress","activeForm":"Doing the old style item"},{"content":"Second","status":"pending"}]`, 3*time.Minute)
	put(t, home, ".claude/todos/s2-agent-sub.json", `[{"content":"Subagent item","status":"completed"}]`, 4*time.Minute)
	put(t, home, ".claude/todos/empty-agent-empty.json", "[]", 0) // newest, but nothing to load
	put(t, home, ".llxprt/todos/todo-sessA.json", `[{"id":"1","content":"Bare array","status":"pending","priority":"high","subtasks":[{"id":"1.1","content":"first sub"},{"id":"1.2","content":"second sub"}]}]`, 5*time.Minute)
	put(t, data, "todos/todo-sessB-agent7.json", `{"todos":[{"id":"1","content":"Object form","status":"completed"}],"paused":true}`, 6*time.Minute)
	put(t, home, ".llxprt/todos/notes.json", `[]`, 0) // not todo-*.json
	put(t, home, ".llxprt/todos/todo-.json", `[]`, 0)
	put(t, home, ".qwen/todos/.tmp.json", `[]`, 0)
	put(t, home, ".qwen/todos/broken.json", `{"todos":[{"content":"cut`, 7*time.Minute)
	if err := os.Mkdir(filepath.Join(home, ".qwen/todos/dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(home, ".llxprt/todos/todo-fifo.json")
	testenv.NeedModes(t) // the fixture has a FIFO
	if err := testenv.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	touch(t, fifo, 8*time.Minute)
	return home, data
}

func TestForeignDirs(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"defaults", nil, []string{"/h/.claude/tasks", "/h/.claude/todos", "/h/.qwen/todos", "/h/.llxprt/todos", "/h/.local/share/llxprt-code/todos"}},
		{"claude config dir", map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, []string{"/c/tasks", "/c/todos", "/h/.qwen/todos", "/h/.llxprt/todos", "/h/.local/share/llxprt-code/todos"}},
		{"llxprt data home", map[string]string{"LLXPRT_DATA_HOME": " /d/ ", "LLXPRT_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/x"}, []string{"/h/.claude/tasks", "/h/.claude/todos", "/h/.qwen/todos", "/h/.llxprt/todos", "/d/todos"}},
		{"llxprt config home", map[string]string{"LLXPRT_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/x"}, []string{"/h/.claude/tasks", "/h/.claude/todos", "/h/.qwen/todos", "/h/.llxprt/todos", "/cfg/todos"}},
		{"xdg data home", map[string]string{"XDG_DATA_HOME": "/x"}, []string{"/h/.claude/tasks", "/h/.claude/todos", "/h/.qwen/todos", "/h/.llxprt/todos", "/x/llxprt-code/todos"}},
		{"relative values ignored", map[string]string{"LLXPRT_DATA_HOME": "rel", "CLAUDE_CONFIG_DIR": "rel", "XDG_DATA_HOME": " "}, []string{"/h/.claude/tasks", "/h/.claude/todos", "/h/.qwen/todos", "/h/.llxprt/todos", "/h/.local/share/llxprt-code/todos"}},
		{"data dir is the old dir", map[string]string{"LLXPRT_DATA_HOME": "/h/.llxprt"}, []string{"/h/.claude/tasks", "/h/.claude/todos", "/h/.qwen/todos", "/h/.llxprt/todos"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ForeignDirs("/h", envOf(tt.env)); !slices.Equal(got, tt.want) {
				t.Errorf("ForeignDirs = %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestForeignEntries(t *testing.T) {
	home, data := foreignHome(t)
	entries, err := ForeignEntries(home, envOf(map[string]string{"LLXPRT_DATA_HOME": data}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Source+" "+e.Name)
	}
	want := []string{
		"claude " + claudeSample,
		"qwen " + qwenSample,
		"claude-todos s1",
		"claude-todos s2-agent-sub",
		"llxprt sessA",
		"llxprt sessB-agent7",
		"qwen broken",
		"llxprt fifo",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ForeignEntries =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e := entries[0]; e.Path != filepath.Join(home, ".claude/tasks", claudeSample) || time.Since(e.ModTime) > time.Hour {
		t.Errorf("first entry = %+v", e)
	}
	none, err := ForeignEntries(t.TempDir(), noEnv)
	if err != nil || len(none) != 0 {
		t.Errorf("empty home: %v, %v", none, err)
	}
	for _, bad := range []string{"", "relative"} {
		if _, err := ForeignEntries(bad, noEnv); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
			t.Errorf("home %q: %v", bad, err)
		}
	}
}

func TestLoadForeign(t *testing.T) {
	home, data := foreignHome(t)
	entries, err := ForeignEntries(home, envOf(map[string]string{"LLXPRT_DATA_HOME": data}))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ForeignEntry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	tests := []struct {
		name string
		want string // todoview.FormatList of the loaded list
	}{
		{claudeSample, "Todo 1/3 done\n" +
			" 1. ✓ Create project skeleton for csvkit-lite\n" +
			" 2. ▸ Implement CSV parser with quoted-field support  (in progress)\n" +
			" 3. ○ Write unit tests for the parser\n"},
		{qwenSample, "Todo 1/3 done\n" +
			" 1. ✓ Create project skeleton for csvkit-lite\n" +
			" 2. ▸ Implement CSV parser with quoted-field support  (in progress)\n" +
			" 3. ○ Write unit tests for the parser\n"},
		{"s1", "Todo 0/2 done\n" +
			" 1. ▸ Old style item                    (in progress)\n" +
			" 2. ○ Second\n"},
		{"sessA", "Todo 0/1 done\n" +
			" 1. ○ Bare array                        (0/2)\n" +
			"    1.1 [ ] first sub\n" +
			"    1.2 [ ] second sub\n"},
		{"sessB-agent7", "Todo 1/1 done\n" +
			" 1. ✓ Object form\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todos, err := LoadForeign(byName[tt.name])
			if err != nil {
				t.Fatal(err)
			}
			if got := todoview.FormatList(todos); got != tt.want {
				t.Errorf("loaded:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	claude, _ := LoadForeign(byName[claudeSample])
	if claude[1].ActiveForm != "Implementing CSV parser with quoted-field support" || claude[1].ID != "2" {
		t.Errorf("claude task 2 = %+v", claude[1])
	}
}

// TestLoadForeignBad: unreadable lists are errors naming the file, on one
// line, and loading them neither hangs (FIFO) nor changes anything.
func TestLoadForeignBad(t *testing.T) {
	home, data := foreignHome(t)
	tasks := filepath.Join(home, ".claude/tasks")
	put(t, home, ".claude/tasks/badtask/1.json", `{"subject":"ok","status":"pending"}`, 0)
	badTask := put(t, home, ".claude/tasks/badtask/2.json", `{"subject":"x","status":"blocked"}`, 0)
	put(t, home, ".claude/tasks/huge/1.json", `{"subject":"`+strings.Repeat("x", todolist.MaxFileSize)+`"}`, 0)
	tests := []struct {
		entry ForeignEntry
		path  string
		want  string
	}{
		{ForeignEntry{Source: SourceQwen, Path: filepath.Join(home, ".qwen/todos/broken.json")}, "", "parse: unexpected end of JSON input"},
		{ForeignEntry{Source: SourceLlxprt, Path: filepath.Join(home, ".llxprt/todos/todo-fifo.json")}, "", "not a regular file (a named pipe)"},
		{ForeignEntry{Source: SourceQwen, Path: filepath.Join(home, ".qwen/todos/dir.json")}, "", "not a regular file (a directory)"},
		{ForeignEntry{Source: SourceQwen, Path: filepath.Join(home, ".qwen/todos/gone.json")}, "", "no such file"},
		{ForeignEntry{Source: SourceClaude, Path: filepath.Join(tasks, "badtask")}, badTask, `unknown status "blocked"`},
		{ForeignEntry{Source: SourceClaude, Path: filepath.Join(tasks, "huge")}, filepath.Join(tasks, "huge/1.json"), "over the limit of 1048576"},
		{ForeignEntry{Source: SourceClaude, Path: filepath.Join(tasks, "gone")}, "", "no such file"},
		{ForeignEntry{Source: "gemini", Path: "/x"}, "", `unknown source "gemini"`},
	}
	before := treeSnapshot(t, home, data)
	for _, tt := range tests {
		_, err := LoadForeign(tt.entry)
		if tt.path == "" {
			tt.path = tt.entry.Path
		}
		if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("LoadForeign(%s) = %v, want one line naming %s with %q", tt.entry.Path, err, tt.path, tt.want)
		} else {
			t.Logf("%v", err)
		}
	}
	entries, _ := ForeignEntries(home, envOf(map[string]string{"LLXPRT_DATA_HOME": data}))
	for _, e := range entries {
		LoadForeign(e)
	}
	if after := treeSnapshot(t, home, data); after != before {
		t.Errorf("reading foreign lists changed files:\nbefore %s\nafter  %s", before, after)
	}
}

// treeSnapshot describes every file under roots: path, type, size, time
// and content, to prove nothing was written.
func treeSnapshot(t *testing.T, roots ...string) string {
	t.Helper()
	var b strings.Builder
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, _ := d.Info()
			fmt.Fprintf(&b, "%s %v %d %d;", p, info.Mode(), info.Size(), info.ModTime().UnixNano())
			if info.Mode().IsRegular() {
				data, _ := os.ReadFile(p)
				b.Write(data)
			}
			return nil
		})
	}
	return b.String()
}

func TestForeignEntriesUnreadableDir(t *testing.T) {
	home := t.TempDir()
	put(t, home, ".qwen/todos", "a file where a directory should be", 0)
	put(t, home, ".llxprt/todos/todo-x.json", "[]", 0)
	entries, err := ForeignEntries(home, noEnv)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(home, ".qwen/todos")) {
		t.Errorf("err = %v, want one naming the qwen directory", err)
	}
	if len(entries) != 1 || entries[0].Name != "x" {
		t.Errorf("entries = %+v, want the llxprt one despite the error", entries)
	}
}

func TestClaudeTaskOrderAndDeleted(t *testing.T) {
	home := t.TempDir()
	for _, n := range []int{10, 2, 1, 3} {
		status := "pending"
		if n == 3 {
			status = "deleted"
		}
		put(t, home, fmt.Sprintf(".claude/tasks/l/%d.json", n), fmt.Sprintf(`{"id":"%d","subject":"task %d","description":"d","status":"%s","blocks":[],"blockedBy":["1"]}`, n, n, status), 0)
	}
	put(t, home, ".claude/tasks/l/notes.json", `{"subject":"not numbered","status":"completed"}`, 0)
	entries, err := ForeignEntries(home, noEnv)
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries = %+v, %v", entries, err)
	}
	todos, err := LoadForeign(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := todolisttest.Texts(todos), []string{"task 1", "task 2", "task 10", "not numbered"}; !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
}

func TestDecodeForeignList(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		wantErr  string
	}{
		{"qwen", `{"todos":[{"id":"1","content":"a","status":"completed"}],"sessionId":"x"}`, []string{"a"}, ""},
		{"claude todowrite", `[{"content":"a","status":"pending","activeForm":"Aing"}]`, []string{"a"}, ""},
		{"ours", `{"version":1,"todos":[{"id":"1","content":"a","status":"cancelled"}]}`, []string{"a"}, ""},
		{"status spellings", `[{"content":"a","status":"done"},{"content":"b","status":"In-Progress"},{"content":"c"}]`, []string{"a", "b", "c"}, ""},
		{"empty object", `{}`, nil, ""},
		{"empty", ` `, nil, "file is empty"},
		{"garbage", `hello`, nil, "not a JSON object or array"},
		{"unknown status", `[{"content":"a","status":"blocked"}]`, nil, `item 1: unknown status "blocked"`},
		{"no text", `[{"status":"pending"}]`, nil, "todo 1 text is empty"},
		{"too many", "[" + strings.Repeat(`{"content":"a"},`, todolist.MaxTodos) + `{"content":"a"}]`, nil, "101 todos"},
		{"wrong type", `{"todos":{}}`, nil, "parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			todos, err := decodeForeignList([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := todolisttest.Texts(todos); !slices.Equal(got, tt.want) || todos == nil {
				t.Errorf("todos = %q, want %q", got, tt.want)
			}
		})
	}
	todos, _ := decodeForeignList([]byte(`[{"content":"p","status":"pending","subtasks":[{"content":"s","status":"completed"},{"content":"t","status":"in_progress"}]}]`))
	if todos[0].Status != todolist.InProgress || todos[0].Subtasks[1].Status != todolist.Pending || todos[0].Subtasks[1].ID != "1.2" {
		t.Errorf("subtasks: %+v", todos[0])
	}
}

func TestForeignNameAndFilter(t *testing.T) {
	tests := []struct {
		source, name, want string
		OK                 bool
	}{
		{SourceClaudeTodos, "abc-agent-abc.json", "abc", true},
		{SourceClaudeTodos, "abc-agent-def.json", "abc-agent-def", true},
		{SourceQwen, "s.json", "s", true},
		{SourceQwen, ".json", "", false},
		{SourceQwen, "s.json.bak", "", false},
		{SourceLlxprt, "todo-a-b.json", "a-b", true},
		{SourceLlxprt, "a.json", "", false},
		{SourceClaude, "list", "list", true},
		{SourceClaude, ".hidden", "", false},
	}
	for _, tt := range tests {
		got, ok := foreignName(tt.source, tt.name)
		if got != tt.want || ok != tt.OK {
			t.Errorf("foreignName(%s, %q) = %q, %v", tt.source, tt.name, got, ok)
		}
	}
}

// TestHasTaskFile: a Claude task list directory is listed only when it
// holds a task file; Claude Code 2.1.332 leaves emptied ones behind.
func TestHasTaskFile(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  bool
	}{
		{"empty", nil, false},
		{"lock and high-water mark only", []string{".lock", ".highwatermark"}, false},
		{"temp file only", []string{".1.json.tmp", ".2.json"}, false},
		{"not a task", []string{"notes.txt"}, false},
		{"one task", []string{".lock", "1.json"}, true},
		{"many files, one task last", append(manyNames(200), "7.json"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				put(t, dir, f, "{}", 0)
			}
			if got := hasTaskFile(dir); got != tt.want {
				t.Errorf("hasTaskFile = %v, want %v", got, tt.want)
			}
		})
	}
	if !hasTaskFile(filepath.Join(t.TempDir(), "gone")) {
		t.Error("a directory that cannot be read is not kept, to be shown as unreadable")
	}
}

// manyNames are n names that are no task files.
func manyNames(n int) []string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf(".tmp%d", i))
	}
	return names
}

// TestForeignEntriesEmptiedAndMirror: emptied Claude task lists are left
// out; every entry names its agent and the session its hooks mirror it to.
func TestForeignEntriesEmptiedAndMirror(t *testing.T) {
	home := t.TempDir()
	put(t, home, ".claude/tasks/kept/1.json", `{"id":"1","subject":"a","status":"pending"}`, time.Minute)
	put(t, home, ".claude/tasks/emptied/.lock", "", time.Minute)
	put(t, home, ".claude/tasks/emptied/.highwatermark", "3", time.Minute)
	if err := os.MkdirAll(filepath.Join(home, ".claude/tasks/bare"), 0o755); err != nil {
		t.Fatal(err)
	}
	put(t, home, ".qwen/todos/q1.json", `{"todos":[]}`, 2*time.Minute)
	entries, err := ForeignEntries(home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Source+" "+e.Name+" "+e.Agent+" "+e.Mirror())
	}
	want := []string{"claude kept claude claude-kept", "qwen q1 qwen qwen-q1"}
	if !slices.Equal(got, want) {
		t.Errorf("entries = %q, want %q", got, want)
	}
}

// TestAttachedTo: a session attached to an agent's session is found by
// the agent session's mirror id; an agent session id that is no file name
// is never linked, and an unknown one finds nothing.
func TestAttachedTo(t *testing.T) {
	s := todostore.Open(t.TempDir())
	commit := func(id, kind, agentSession string) {
		t.Helper()
		if _, _, err := s.Commit(id, todolist.ByAgent, func(x *todostore.Session) error {
			x.Agent = &todostore.AgentRef{Kind: kind, Session: agentSession}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	commit("20261126-144833-cdbe", "claude", "9c9ba9d6-6429-46c2-b0bf-7aa2c7c873d5")
	commit("20261126-144900-aaaa", "claude", "../../escape")
	if got := s.AttachedTo(todostore.MirrorID("claude", "9c9ba9d6-6429-46c2-b0bf-7aa2c7c873d5")); got != "20261126-144833-cdbe" {
		t.Errorf("AttachedTo = %q, want the session", got)
	}
	for _, m := range []string{todostore.MirrorID("claude", "../../escape"), todostore.MirrorID("codex", "9c9ba9d6-6429-46c2-b0bf-7aa2c7c873d5"), "claude-unknown"} {
		if got := s.AttachedTo(m); got != "" {
			t.Errorf("AttachedTo(%q) = %q, want none", m, got)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "..", "escape")); err == nil {
		t.Errorf("an agent session id wrote outside the store")
	}
}
