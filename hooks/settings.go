package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// newFile is what install writes when the settings file does not exist;
// an uninstall that leaves exactly this removes the file again.
const newFile = "{}\n"

// Command is the shell command an entry runs: todosh (by its absolute
// path, quoted for the shell the agent runs it with) with
// `hook AGENT KIND`.
func Command(exe, agent string, k Kind) string {
	if windowsCommands {
		a, _ := Lookup(agent)
		return windowsQuote(windowsPath(exe), a.winShell) + " hook " + agent + " " + string(k)
	}
	return shellQuote(exe) + " hook " + agent + " " + string(k)
}

// The shells the agents run a hook command with on Windows (each one's
// source says so; docs/hooks.md names the versions).
const (
	winBash       = "bash"       // Claude Code: Git Bash (PowerShell without it)
	winCmd        = "cmd"        // Codex: %COMSPEC% /C; Qwen Code: cmd /d /s /c (bash in Git Bash)
	winPowerShell = "powershell" // Gemini CLI: powershell -Command
)

// windowsQuote writes path, a program's path in forward slashes, as the
// first word of a command for shell. A path of plain characters (8.3
// short names have no spaces) is written bare: it runs alike under Git
// Bash, cmd and PowerShell, whichever the agent (or its fallback) uses.
// Otherwise it is quoted for the agent's shell: single quotes for bash,
// double quotes for cmd (which Git Bash also reads), and PowerShell's
// call operator before single quotes, since a quoted string alone is a
// value there, not a command.
func windowsQuote(path, shell string) string {
	if path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:~") == "" {
		return path
	}
	switch shell {
	case winPowerShell:
		return "& '" + strings.ReplaceAll(path, "'", "''") + "'"
	case winCmd:
		return `"` + path + `"` // a Windows path has no '"'
	}
	return shellQuote(path)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ourCommand reads a command that runs `todosh hook AGENT KIND`: the
// executable (unquoted) and the agent and kind. Any executable whose
// name starts with "todosh" counts, so a todosh that moved is still
// recognised (and its entries updated or removed).
func ourCommand(cmd string) (exe, agent string, k Kind, ok bool) {
	cmd = strings.TrimSpace(cmd)
	i := strings.LastIndex(cmd, " hook ")
	if i < 0 {
		return "", "", "", false
	}
	args := strings.Fields(cmd[i+len(" hook "):])
	if _, _, _, err := ParseHookArgs(args); err != nil {
		return "", "", "", false
	}
	exe = strings.TrimSpace(cmd[:i])
	powershell := strings.HasPrefix(exe, "& '")
	exe = strings.TrimPrefix(exe, "& ")
	switch {
	case len(exe) >= 2 && exe[0] == '\'' && exe[len(exe)-1] == '\'' && powershell:
		exe = strings.ReplaceAll(exe[1:len(exe)-1], "''", "'")
	case len(exe) >= 2 && exe[0] == '\'' && exe[len(exe)-1] == '\'':
		exe = strings.ReplaceAll(exe[1:len(exe)-1], `'\''`, "'")
	case len(exe) >= 2 && exe[0] == '"' && exe[len(exe)-1] == '"':
		exe = exe[1 : len(exe)-1]
	}
	if !strings.HasPrefix(strings.ToLower(filepath.Base(exe)), "todosh") { // TODOSH~1.EXE: an 8.3 name
		return "", "", "", false
	}
	kind, err := ParseKind(args[1])
	if err != nil {
		return "", "", "", false
	}
	return exe, args[0], kind, true
}

// entry is one hook todosh adds: a group of its own with one command.
type entry struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []command `json:"hooks"`
}

type command struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
}

// found is one of todosh's commands in a settings file.
type found struct {
	event          string // the agent's event name
	group, hook    int    // indexes in the event's array and the group's hooks
	kind           Kind
	exe            string
	command        *jnode // the command's string value
	groupHookCount int
}

// settings is a parsed settings file.
type settings struct {
	doc   []byte
	root  *jnode
	hooks *jnode // the "hooks" object, nil when absent
}

func parseSettings(doc []byte, jsonc bool) (*settings, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte(newFile)
	}
	root, err := parseDoc(doc, jsonc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, errors.New("it is not a JSON object")
	}
	s := &settings{doc: doc, root: root, hooks: root.member("hooks")}
	if s.hooks != nil && s.hooks.kind != '{' {
		return nil, errors.New(`its "hooks" is not an object`)
	}
	return s, nil
}

// ours lists todosh's commands for agent a, in file order.
func (s *settings) ours(a Agent) []found {
	if s.hooks == nil {
		return nil
	}
	var out []found
	for _, m := range s.hooks.members {
		if m.val.kind != '[' {
			continue
		}
		for gi, g := range m.val.elems {
			hs := g.member("hooks")
			if g.kind != '{' || hs == nil || hs.kind != '[' {
				continue
			}
			for hi, h := range hs.elems {
				c := h.member("command")
				if h.kind != '{' || c == nil || c.kind != '"' {
					continue
				}
				exe, agent, k, ok := ourCommand(c.str)
				if ok && agent == a.Name {
					out = append(out, found{event: m.key, group: gi, hook: hi, kind: k, exe: exe, command: c, groupHookCount: len(hs.elems)})
				}
			}
		}
	}
	return out
}

// install returns doc with todosh's entries for agent a, each running
// exe. Entries already there stay where they are (a moved todosh's
// command is rewritten in place); missing ones are added at the end of
// their event's list. Installing twice is installing once.
func install(doc []byte, a Agent, exe string) ([]byte, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte(newFile)
	}
	for _, ev := range a.Events {
		s, err := parseSettings(doc, a.jsonc)
		if err != nil {
			return nil, err
		}
		want := Command(exe, a.Name, ev.Kind) + a.stopArgs(ev.Kind)
		var e *edit
		for _, f := range s.ours(a) {
			if f.kind != ev.Kind || f.event != ev.Name {
				continue
			}
			if f.command.str != want {
				q, err := render(want, "", "")
				if err != nil {
					return nil, err
				}
				e = &edit{start: f.command.start, end: f.command.end, text: q}
			} else {
				e = &edit{start: 0, end: 0}
			}
			break
		}
		if e == nil {
			add, err := s.addEntry(a, ev, want)
			if err != nil {
				return nil, err
			}
			e = &add
		}
		e.text = withLineBreaks(s.doc, e.text)
		doc = e.apply(s.doc)
	}
	return widenMatcher(doc, a)
}

// widenMatcher rewrites the matcher of todosh's tool entry when it is not
// the one install writes now: entries installed before the receipts of
// issue 26 matched only the todo tools, and the stop gate needs to see
// every tool. An entry whose group holds other hooks too keeps its
// matcher (widening it would run them for every tool).
func widenMatcher(doc []byte, a Agent) ([]byte, error) {
	want, err := a.matcher()
	if err != nil {
		return nil, err
	}
	s, err := parseSettings(doc, a.jsonc)
	if err != nil {
		return nil, err
	}
	for _, f := range s.ours(a) {
		ev, ok := a.Event(f.kind)
		if !ok || !ev.Tools || ev.Name != f.event || f.groupHookCount > 1 {
			continue
		}
		m := s.hooks.member(f.event).elems[f.group].member("matcher")
		if m == nil || m.kind != '"' || m.str == want {
			continue
		}
		q, err := render(want, "", "")
		if err != nil {
			return nil, err
		}
		return edit{start: m.start, end: m.end, text: q}.apply(s.doc), nil
	}
	return s.doc, nil
}

// addEntry is the edit that adds todosh's entry for ev, creating the
// event's list and the "hooks" object when they are missing.
func (s *settings) addEntry(a Agent, ev Event, cmd string) (edit, error) {
	en := entry{Hooks: []command{{Type: "command", Command: cmd}}}
	if ev.Tools {
		m, err := a.matcher()
		if err != nil {
			return edit{}, err
		}
		en.Matcher = m
	}
	if a.named {
		en.Hooks[0].Name = "todosh " + string(ev.Kind)
	}
	unit := indentUnit(s.doc, s.root)
	key := func(k string) string { q, _ := render(k, "", ""); return q }
	switch list := s.hookList(ev.Name); {
	case list != nil && list.kind != '[':
		return edit{}, fmt.Errorf("its hooks.%s is not a list", ev.Name)
	case list != nil:
		return appendItem(s.doc, list, unit, func(ind string) (string, error) { return render(en, ind, unit) })
	case s.hooks != nil:
		return appendItem(s.doc, s.hooks, unit, func(ind string) (string, error) {
			v, err := render([]entry{en}, ind, unit)
			return key(ev.Name) + ": " + v, err
		})
	default:
		return appendItem(s.doc, s.root, unit, func(ind string) (string, error) {
			v, err := render(map[string][]entry{ev.Name: {en}}, ind, unit)
			return key("hooks") + ": " + v, err
		})
	}
}

// hookList is the value of the event name in "hooks", nil when absent.
func (s *settings) hookList(name string) *jnode {
	if s.hooks == nil {
		return nil
	}
	return s.hooks.member(name)
}

// uninstall returns doc without todosh's entries for agent a. A group
// that held only todosh's command goes, an event list left empty goes,
// and a "hooks" object left empty goes, so that uninstalling what
// install added gives back the file byte for byte.
func uninstall(doc []byte, a Agent) ([]byte, error) {
	for {
		s, err := parseSettings(doc, a.jsonc)
		if err != nil {
			return nil, err
		}
		fs := s.ours(a)
		if len(fs) == 0 {
			return s.doc, nil
		}
		f := fs[0]
		var e edit
		list := s.hooks.member(f.event)
		switch {
		case f.groupHookCount > 1:
			e = removeItem(s.doc, list.elems[f.group].member("hooks"), f.hook)
		case len(list.elems) > 1:
			e = removeItem(s.doc, list, f.group)
		case len(s.hooks.members) > 1:
			i := slices.IndexFunc(s.hooks.members, func(m jmember) bool { return m.key == f.event })
			e = removeItem(s.doc, s.hooks, i)
		default:
			i := slices.IndexFunc(s.root.members, func(m jmember) bool { return m.key == "hooks" })
			e = removeItem(s.doc, s.root, i)
		}
		doc = e.apply(s.doc)
	}
}

// Report is what is installed for one agent in one settings file.
type Report struct {
	Agent Agent
	Scope Scope
	Path  string
	// Exists is false when there is no file.
	Exists bool
	// Err is why the file could not be read, nil when it could.
	Err error
	// Installed are the kinds installed, Missing the kinds not.
	Installed, Missing []Kind
	// Stale are the executables of entries that no longer exist.
	Stale []string
	// Disabled is true when the file turns every hook off.
	Disabled bool
	// ToolOn is false when the agent's todo tool is off by default and
	// this file does not turn it on (ShareToolOn widens it to the other
	// scope's file and the environment).
	ToolOn bool
	// What the installed hooks need when they run (Reports checks it):
	// NotExec are executables that are there but cannot run, StoreErr why
	// the hooks cannot write todosh's store (StoreFix the command that
	// fixes it), Untrusted the kinds the agent has not trusted yet, and
	// ConfigErr why the agent's own config could not be read.
	NotExec   []string
	StoreErr  error
	StoreFix  string
	Untrusted []Kind
	ConfigErr error
	entries   []entryAt
}

// entryAt is one of todosh's commands in a settings file: its kind, its
// event, and where it is (the event's group and the group's hook).
type entryAt struct {
	kind        Kind
	event       string
	group, hook int
	exe         string
}

// inspect reports what doc holds for agent a; exists says whether exe
// paths exist.
func inspect(doc []byte, a Agent, exists func(string) bool) (Report, error) {
	r := Report{Agent: a}
	s, err := parseSettings(doc, a.jsonc)
	if err != nil {
		return r, err
	}
	have := map[Kind]bool{}
	for _, f := range s.ours(a) {
		r.entries = append(r.entries, entryAt{kind: f.kind, event: f.event, group: f.group, hook: f.hook, exe: f.exe})
		if ev, ok := a.Event(f.kind); ok && ev.Name == f.event {
			have[f.kind] = true
		}
		if !exists(f.exe) && !slices.Contains(r.Stale, f.exe) {
			r.Stale = append(r.Stale, f.exe)
		}
	}
	for _, ev := range a.Events {
		if have[ev.Kind] {
			r.Installed = append(r.Installed, ev.Kind)
		} else {
			r.Missing = append(r.Missing, ev.Kind)
		}
	}
	if len(a.disabled) > 0 {
		n := s.root
		for _, k := range a.disabled {
			if n = n.member(k); n == nil {
				break
			}
		}
		r.Disabled = n != nil && string(s.doc[n.start:n.end]) == a.disabledValue
	}
	r.ToolOn = a.toolOn == nil || a.toolOn.inFile(s)
	return r, nil
}

// inFile reports whether the settings turn the tool on.
func (t *toolSwitch) inFile(s *settings) bool {
	if t.toml != "" {
		return false // read by Reports from the agent's own config
	}
	n := s.root
	for _, k := range t.path {
		if n = n.member(k); n == nil {
			return false
		}
	}
	v := string(s.doc[n.start:n.end])
	if n.kind == '"' {
		v = n.str
	}
	return t.isOn(v)
}

func (t *toolSwitch) isOn(v string) bool {
	v = strings.TrimSpace(v)
	for _, on := range t.on {
		if strings.EqualFold(v, on) {
			return true
		}
	}
	return false
}

// ShareToolOn marks the agent's todo tool on in every report of reps when
// one of their files, or the environment, turns it on: the agent merges
// its user and project settings.
func ShareToolOn(reps []Report, getenv func(string) string) {
	on := false
	for _, r := range reps {
		sw := r.Agent.toolOn
		on = on || r.ToolOn || sw != nil && sw.env != "" && sw.isOn(getenv(sw.env))
	}
	if on {
		for i := range reps {
			reps[i].ToolOn = true
		}
	}
}

// State is the one word of a report: "installed", "broken" (installed,
// but the hooks cannot run as they are: Todo says why), "partly
// installed", "not installed" or "unreadable".
func (r Report) State() string {
	switch {
	case r.Err != nil:
		return "unreadable"
	case len(r.Missing) == 0 && r.broken():
		return "broken"
	case len(r.Missing) == 0:
		return "installed"
	case len(r.Installed) > 0:
		return "partly installed"
	}
	return "not installed"
}

// broken reports whether installed hooks cannot do their work as things
// are: their todosh is gone or cannot run, the store cannot be written,
// the file turns every hook off, or the agent does not run them yet.
func (r Report) broken() bool {
	return len(r.Stale) > 0 || len(r.NotExec) > 0 || r.StoreErr != nil || r.Disabled || len(r.Untrusted) > 0
}

// Line is the report as `todosh hooks status` prints it, with what the
// person still must do, indented below.
func (r Report) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %-8s %-17s %s", r.Agent.Name, r.Scope, r.State(), r.Path)
	for _, t := range r.Todo() {
		b.WriteString("\n        → " + t)
	}
	return b.String()
}

// Todo is what the person still must do for the hooks of the report to
// run, one line each.
func (r Report) Todo() []string {
	var todo []string
	switch st := r.State(); {
	case r.Err != nil:
		todo = append(todo, fmt.Sprintf("fix the file: %v", r.Err))
	case st == "partly installed":
		todo = append(todo, fmt.Sprintf("missing %s: run todosh hooks install %s%s", kindList(r.Missing), r.Agent.Name, scopeFlag(r.Scope)))
	}
	if len(r.Installed) > 0 {
		for _, exe := range r.Stale {
			todo = append(todo, fmt.Sprintf("hooks %s: %s no longer exists: run todosh hooks install %s%s again",
				kindList(r.kindsOf(exe)), exe, r.Agent.Name, scopeFlag(r.Scope)))
		}
		for _, exe := range r.NotExec {
			todo = append(todo, fmt.Sprintf("hooks %s: %s cannot run (not an executable file): run chmod +x %s",
				kindList(r.kindsOf(exe)), exe, shellQuote(exe)))
		}
		if r.StoreErr != nil {
			todo = append(todo, fmt.Sprintf("hooks %s: they cannot write todosh's store (%v): run %s",
				kindList(r.Installed), r.StoreErr, r.StoreFix))
		}
		if r.Disabled {
			todo = append(todo, fmt.Sprintf("the file turns every hook off (%s): change it, or the hooks never run", strings.Join(r.Agent.disabled, ".")))
		}
		if r.ConfigErr != nil {
			todo = append(todo, fmt.Sprintf("cannot read %s's own config (%v): fix it, or %s may not run the hooks", r.Agent.Title, r.ConfigErr, r.Agent.Title))
		}
		if len(r.Untrusted) > 0 {
			todo = append(todo, fmt.Sprintf("hooks %s: not trusted in Codex yet, so Codex does not run them: start codex and accept them in its hook review "+
				"(codex exec runs hooks nobody trusted only with --dangerously-bypass-hook-trust)", kindList(r.Untrusted)))
		}
		if !r.ToolOn && r.Err == nil && r.Agent.toolOn != nil {
			todo = append(todo, r.Agent.toolOn.todo)
		}
	}
	return todo
}

// kindsOf are the kinds whose entries run exe.
func (r Report) kindsOf(exe string) []Kind {
	var ks []Kind
	for _, e := range r.entries {
		if e.exe == exe && !slices.Contains(ks, e.kind) {
			ks = append(ks, e.kind)
		}
	}
	return ks
}

func kindList(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func scopeFlag(s Scope) string {
	if s == ScopeProject {
		return " --project"
	}
	return ""
}
