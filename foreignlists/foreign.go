// Package foreignlists reads the lists other agents saved on this machine
// (Claude Code, Qwen Code, llxprt-code), found by ForeignEntries and read
// as they are by LoadForeign, for /todo list and /todo load. It writes
// nothing and reads through todostore's file reader (ReadPath,
// ReadDirNames): size-limited, never a FIFO, a symlink followed since the
// file is not todosh's (ARCHITECTURE.md §3).
package foreignlists

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"
	"github.com/todosh/todosh/todostore"
)

// Sources of the lists other agents saved on this machine.
const (
	// SourceClaude is a Claude Code task list: a directory
	// ~/.claude/tasks/<list>/ with one <n>.json file per task.
	SourceClaude = "claude"
	// SourceClaudeTodos is a file of Claude Code's older TodoWrite lists,
	// ~/.claude/todos/<session>-agent-<session>.json, a bare array.
	SourceClaudeTodos = "claude-todos"
	// SourceQwen is a Qwen Code list, ~/.qwen/todos/<session>.json.
	SourceQwen = "qwen"
	// SourceLlxprt is an llxprt-code list, todo-<session>[-<agent>].json.
	SourceLlxprt = "llxprt"
)

// ForeignEntry is one list another agent saved, found by ForeignEntries
// before it is parsed. Path is the file, or for SourceClaude the list's
// directory; Name is the list's id (usually the agent's session id);
// Agent is the agent that saved it, as todosh's hooks name it ("claude").
type ForeignEntry struct {
	Source  string
	Path    string
	Name    string
	Agent   string
	ModTime time.Time
}

// Mirror is the todosh session a hook of e's agent would keep for e's
// list: the same list, when its hooks are installed.
func (e ForeignEntry) Mirror() string { return todostore.MirrorID(e.Agent, e.Name) }

// foreignDir is one directory ForeignEntries scans: its source and the
// agent that writes there.
type foreignDir struct {
	source, agent, dir string
}

// ForeignDirs returns the directories ForeignEntries scans, in order:
//   - Claude Code: $CLAUDE_CONFIG_DIR (else ~/.claude), tasks/ and todos/;
//   - Qwen Code: ~/.qwen/todos;
//   - llxprt-code: ~/.llxprt/todos (releases before the move to standard
//     paths) and <data>/todos, where <data> is $LLXPRT_DATA_HOME, else
//     $LLXPRT_CONFIG_HOME, else $XDG_DATA_HOME/llxprt-code, else
//     ~/.local/share/llxprt-code — llxprt's own rule, which ignores
//     relative or blank values.
//
// getenv is os.Getenv outside tests.
func ForeignDirs(home string, getenv func(string) string) []string {
	var out []string
	for _, d := range foreignDirs(home, getenv) {
		out = append(out, d.dir)
	}
	return out
}

func foreignDirs(home string, getenv func(string) string) []foreignDir {
	claude := absEnv(getenv, "CLAUDE_CONFIG_DIR")
	if claude == "" {
		claude = filepath.Join(home, ".claude")
	}
	data := absEnv(getenv, "LLXPRT_DATA_HOME")
	if data == "" {
		data = absEnv(getenv, "LLXPRT_CONFIG_HOME")
	}
	if data == "" {
		if xdg := absEnv(getenv, "XDG_DATA_HOME"); xdg != "" {
			data = filepath.Join(xdg, "llxprt-code")
		} else {
			data = filepath.Join(home, ".local", "share", "llxprt-code")
		}
	}
	dirs := []foreignDir{
		{SourceClaude, "claude", filepath.Join(claude, "tasks")},
		{SourceClaudeTodos, "claude", filepath.Join(claude, "todos")},
		{SourceQwen, "qwen", filepath.Join(home, ".qwen", "todos")},
		{SourceLlxprt, "llxprt", filepath.Join(home, ".llxprt", "todos")},
	}
	if d := filepath.Join(data, "todos"); d != dirs[len(dirs)-1].dir {
		dirs = append(dirs, foreignDir{SourceLlxprt, "llxprt", d})
	}
	return dirs
}

// absEnv is an environment variable that names an absolute path, or "".
func absEnv(getenv func(string) string, key string) string {
	v := strings.TrimSpace(getenv(key))
	if !filepath.IsAbs(v) {
		return ""
	}
	return filepath.Clean(v)
}

// ForeignEntries finds the lists other agents saved under home, newest
// first, without parsing them (see ForeignDirs for where it looks). A
// missing directory is fine and a bad file is still listed, to be reported
// by LoadForeign. The error, if any, names directories that exist but
// could not be read; the entries found elsewhere are returned with it.
func ForeignEntries(home string, getenv func(string) string) ([]ForeignEntry, error) {
	if !filepath.IsAbs(home) {
		// Relative to the working directory it would find someone else's.
		return nil, fmt.Errorf("find other agents' lists: home directory %q is not an absolute path (set HOME)", home)
	}
	var out []ForeignEntry
	var errs []error
	for _, d := range foreignDirs(home, getenv) {
		keep := func(name string) bool {
			_, ok := foreignName(d.source, name)
			return ok
		}
		names, stats, err := todostore.ReadDirNames(d.dir, keep)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for i, name := range names {
			st := stats[i]
			if !st.OK || !wantForeign(d.source, st) {
				continue
			}
			path := filepath.Join(d.dir, name)
			if d.source == SourceClaude && !hasTaskFile(path) {
				continue
			}
			list, _ := foreignName(d.source, name)
			out = append(out, ForeignEntry{Source: d.source, Path: path, Name: list, Agent: d.agent, ModTime: st.ModTime})
		}
	}
	slices.SortFunc(out, func(a, b ForeignEntry) int {
		return cmp.Or(b.ModTime.Compare(a.ModTime), strings.Compare(a.Source, b.Source), strings.Compare(a.Name, b.Name))
	})
	return out, errors.Join(errs...)
}

// foreignName returns the list name of a directory entry of a source, or
// false when the entry is not one of its lists.
func foreignName(source, name string) (string, bool) {
	if strings.HasPrefix(name, ".") {
		return "", false // .lock, .highwatermark, editors' temp files
	}
	if source == SourceClaude {
		return name, true // a task list directory, checked by wantForeign
	}
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok || stem == "" {
		return "", false
	}
	switch source {
	case SourceLlxprt:
		id, ok := strings.CutPrefix(stem, "todo-")
		if !ok || id == "" {
			return "", false
		}
		return id, true
	case SourceClaudeTodos:
		// <session>-agent-<session> for the main agent: show the session.
		if a, b, ok := strings.Cut(stem, "-agent-"); ok && a == b {
			return a, true
		}
	}
	return stem, true
}

// wantForeign filters entries by their stat: Claude task lists are
// directories, the others are files (a FIFO or other odd file is kept, to
// be shown as unreadable). Claude writes "[]" files for every session that
// never had a todo; they are not lists anyone wants to load.
func wantForeign(source string, st todostore.NameStat) bool {
	if source == SourceClaude {
		return st.Mode == fs.ModeDir
	}
	if st.Mode == fs.ModeDir {
		return false
	}
	return source != SourceClaudeTodos || st.Mode != 0 || st.Size > int64(len("[]\n"))
}

// hasTaskFile reports whether a Claude task list directory holds a task
// file. Claude Code (2.1.332) leaves a list's directory behind, empty or
// with only its .lock and .highwatermark, once its tasks are gone: like
// the "[]" files of its older lists, nothing anyone wants to load. A
// directory that cannot be read is kept, to be shown as unreadable.
func hasTaskFile(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return true
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(64)
		if slices.ContainsFunc(names, isTaskFile) {
			return true
		}
		if err == io.EOF {
			return false
		}
		if err != nil {
			return true
		}
	}
}

// LoadForeign reads one listed entry into our model: ids renumbered,
// derived statuses applied, every limit checked. It never writes. An
// unreadable or malformed list is an error naming its file.
func LoadForeign(e ForeignEntry) ([]todolist.Todo, error) {
	var todos []todolist.Todo
	var err error
	switch e.Source {
	case SourceClaude:
		todos, err = loadClaudeTasks(e.Path)
	case SourceClaudeTodos, SourceQwen, SourceLlxprt:
		var data []byte
		if data, err = readForeign(e.Path); err == nil {
			todos, err = decodeForeignList(data)
		}
	default:
		err = fmt.Errorf("unknown source %q", e.Source)
	}
	if err != nil {
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == e.Path {
			err = pe.Err // the path is said once
		}
		return nil, fmt.Errorf("load %s list %s: %w", e.Source, e.Path, err)
	}
	return todos, nil
}

// readForeign is todostore's ReadPath for a file not todosh's, without
// the recovery hint of todosh's own files (a CorruptError's): another
// agent's file is not ours to move aside.
func readForeign(path string) ([]byte, error) {
	data, err := todostore.ReadPath(path, false)
	var ce *todostore.CorruptError
	if errors.As(err, &ce) {
		err = ce.Err
	}
	return data, err
}

// foreignItem is the union of the item shapes of the agents' files:
// Claude's TodoWrite {content, status, activeForm}, Claude's tasks
// {id, subject, description, activeForm, status}, Qwen's {id, content,
// status}, llxprt's {id, content, status, subtasks:[{id, content}]}.
type foreignItem struct {
	Content     string `json:"content"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Status      string `json:"status"`
	ActiveForm  string `json:"activeForm"`
	Subtasks    []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"subtasks"`
}

// todo maps an item onto our model. deleted is true for Claude tasks with
// status "deleted", which are not part of the list.
func (it foreignItem) todo() (t todolist.Todo, deleted bool, err error) {
	if strings.EqualFold(it.Status, "deleted") {
		return todolist.Todo{}, true, nil
	}
	t.Content = it.Content
	if t.Content == "" {
		t.Content = it.Subject
	}
	if t.Content == "" {
		t.Content = it.Description
	}
	t.ActiveForm = it.ActiveForm
	if t.Status, err = foreignStatus(it.Status); err != nil {
		return todolist.Todo{}, false, err
	}
	for _, s := range it.Subtasks {
		st, err := foreignStatus(s.Status)
		if err != nil {
			return todolist.Todo{}, false, err
		}
		if st != todolist.Completed {
			st = todolist.Pending // a checklist: ticked or not
		}
		t.Subtasks = append(t.Subtasks, todolist.Subtask{Content: s.Content, Status: st})
	}
	return t, false, nil
}

// foreignStatus accepts a missing status as pending (llxprt's subtasks
// have none) and every spelling todolist.ParseStatus knows.
func foreignStatus(s string) (todolist.Status, error) {
	if s == "" {
		return todolist.Pending, nil
	}
	return todolist.ParseStatus(s)
}

// decodeForeignList parses a list file of Claude Code's TodoWrite, Qwen
// Code or llxprt-code: a bare array of items, or an object whose "todos"
// is that array (todosh's own files parse too). The result is normalized
// and valid, or an error says what is wrong.
func decodeForeignList(data []byte) ([]todolist.Todo, error) {
	data = bytes.TrimSpace(data)
	var items []foreignItem
	switch {
	case len(data) == 0:
		return nil, errors.New("file is empty")
	case data[0] == '[':
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
	case data[0] == '{':
		var obj struct {
			Todos []foreignItem `json:"todos"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		items = obj.Todos
	default:
		return nil, errors.New("parse: not a JSON object or array")
	}
	return adoptItems(items, itemNumber)
}

// adoptItems converts items in order and checks the result; where(i)
// names item i in an error.
func adoptItems(items []foreignItem, where func(i int) string) ([]todolist.Todo, error) {
	todos := []todolist.Todo{}
	for i, it := range items {
		t, deleted, err := it.todo()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where(i), err)
		}
		if !deleted {
			todos = append(todos, t)
		}
	}
	todolist.Normalize(todos)
	if err := todolist.Validate(todos); err != nil {
		return nil, err
	}
	return todos, nil
}

// itemNumber names an item of a list file by its position.
func itemNumber(i int) string { return "item " + strconv.Itoa(i+1) }

// decodeClaudeTask parses one task file of a Claude Code task list.
func decodeClaudeTask(data []byte) (foreignItem, error) {
	var it foreignItem
	if err := json.Unmarshal(data, &it); err != nil {
		return it, fmt.Errorf("parse: %w", err)
	}
	return it, nil
}

// loadClaudeTasks reads a task list directory: every <n>.json, in the
// order of n (Claude names each task's file by its id, numbered as
// created), deleted tasks left out.
func loadClaudeTasks(dir string) ([]todolist.Todo, error) {
	if info, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !info.IsDir() {
		return nil, errors.New("not a directory")
	}
	names, stats, err := todostore.ReadDirNames(dir, isTaskFile)
	if err != nil {
		return nil, err
	}
	// Sized before anything is read: a list can only be loaded if it fits
	// a session file, so a directory of huge or countless task files is
	// refused from its stats instead of read whole.
	var total int64
	for i, st := range stats {
		if st.Size > todolist.MaxFileSize {
			return nil, fmt.Errorf("%s: file is %d bytes, over the limit of %d: %w", filepath.Join(dir, names[i]), st.Size, todolist.MaxFileSize, todolist.ErrLimit)
		}
		total += st.Size
	}
	if total > todolist.MaxFileSize || len(names) > maxClaudeTaskFiles {
		return nil, fmt.Errorf("%d task files of %s in all, over the limit of %d files and %s: %w",
			len(names), byteSize(total), maxClaudeTaskFiles, byteSize(todolist.MaxFileSize), todolist.ErrLimit)
	}
	slices.SortFunc(names, compareTaskNames)
	items := make([]foreignItem, 0, len(names))
	for _, name := range names {
		p := filepath.Join(dir, name)
		data, err := readForeign(p)
		if err == nil {
			var it foreignItem
			if it, err = decodeClaudeTask(data); err == nil {
				items = append(items, it)
				continue
			}
		}
		if pe := (*fs.PathError)(nil); !errors.As(err, &pe) { // a PathError names p already
			err = fmt.Errorf("%s: %w", p, err)
		}
		return nil, err
	}
	taskFile := func(i int) string { return filepath.Join(dir, names[i]) }
	return adoptItems(items, taskFile)
}

// isTaskFile reports whether a name in a Claude task list directory is a
// task's file, <n>.json (not .lock, .highwatermark or a temp file).
func isTaskFile(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".json")
}

// compareTaskNames orders "2.json" before "10.json"; names that are not
// numbers come last, by name.
func compareTaskNames(a, b string) int {
	na, errA := strconv.Atoi(strings.TrimSuffix(a, ".json"))
	nb, errB := strconv.Atoi(strings.TrimSuffix(b, ".json"))
	switch {
	case errA == nil && errB == nil && na != nb:
		if na < nb {
			return -1
		}
		return 1
	case errA == nil && errB != nil:
		return -1
	case errA != nil && errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// maxClaudeTaskFiles bounds the files of one Claude task list: deleted
// tasks keep their files, so it is above todolist.MaxTodos, but not without limit.
const maxClaudeTaskFiles = 10 * todolist.MaxTodos

// byteSize writes a size for people: "900 KiB", "1.1 GiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
