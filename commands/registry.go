// Package commands is todosh's slash-command layer: one command table that
// drives dispatch, /help and Tab completion, the /todo subcommands, and the
// parsing of positions and arguments. It writes to the store only through
// todostore.Store.Commit (as the person), Revert and Restore.
// Its place in the whole is ARCHITECTURE.md §6.
package commands

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/todosh/todosh/textwidth"
	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/board/boardcmd"
	"github.com/todosh/todosh/todostore"
)

// Env is what a command needs from the shell.
type Env struct {
	Store     *todostore.Store
	SessionID string
	// Cwd is recorded in the session file when a command writes it and the
	// file has no cwd yet.
	Cwd string
	// Out receives what a command prints. Err is not used for command
	// errors: those are returned.
	Out, Err io.Writer
	// Ask reads one line from the person (used by /todo list to choose a
	// number to load). It is nil when not interactive (script mode): /todo
	// list then only prints.
	Ask func(prompt string) (string, error)
	// Now is the clock for ages and archive times; nil means time.Now.
	Now func() time.Time
	// Home is the person's home directory, where other agents (Claude
	// Code, Qwen Code, llxprt-code) keep their saved lists; "" leaves them
	// out of /todo list. Getenv reads the variables that move those
	// directories; nil means none is set.
	Home   string
	Getenv func(string) string
	// LastGood returns the last usable list the shell saw, shown by
	// /todo show while the session file cannot be used; nil (or a nil
	// result) shows nothing more than the error.
	LastGood func() *todostore.Session
	// Quiet (--quiet) keeps commands to what was asked for: the one-line
	// change messages are not printed; /todo show and /todo list are.
	Quiet bool
	// Width is the terminal's width in columns, read when a command
	// prints; nil or 0 means unknown (a script): nothing is wrapped.
	Width func() int
	// Agent is the line /help shows about the connected agent, from its
	// row of the backend table ("agent: claude — …"); "" shows none.
	Agent string
	// Seen is the list the person last saw (the shell's record of what it
	// showed), against which the positions they type resolve; ok false,
	// or Seen nil, resolves them against the list as it is. Shown is told
	// every list a command shows, whole or as its change line, so the
	// shell's record follows; nil tells no one.
	Seen  func() (todos []todolist.Todo, ok bool)
	Shown func(todos []todolist.Todo)
	// CanSwitch: the shell can open another session in place of this one
	// (the terminal), so /todo list opens an agent's mirrored list as
	// itself (SwitchTo) instead of copying it.
	CanSwitch bool
	// Budget is the prompt's budget, for /todo budget; nil with no agent.
	Budget Budget
}

// width is Env.Width, 0 when unknown.
func (e *Env) width() int {
	if e.Width == nil {
		return 0
	}
	return e.Width()
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// ErrQuit is returned, unwrapped, by /quit and /exit.
var ErrQuit = errors.New("quit")

// SwitchTo is returned (wrapped with the command's name) when the person picks in /todo list a
// session that is opened as itself rather than copied: an agent's own
// list that its hooks keep (ARCHITECTURE.md §9). The shell then opens
// that session in place of this one (Env.CanSwitch).
type SwitchTo struct{ ID string }

func (s *SwitchTo) Error() string { return "switch to session " + s.ID }

// command is one row of the command table; subcommands are rows too.
type command struct {
	name    string // without the slash: "todo", or a subcommand: "add"
	args    string // argument synopsis, "[POS] TEXT"; empty when it takes none
	summary string // one line for /help
	example string // one runnable line for /help
	// aliases are other names of the same command ("set" for "start"):
	// they dispatch, complete with Tab and are shown by /help as such.
	aliases []string
	subs    []*command
	words   []string // keywords Tab completes as the first argument ("show")
	def     string   // subcommand run when none is given
	run     func(x *call) error
}

// takesArgs is whether Tab should leave a space after the name.
func (c *command) takesArgs() bool { return c.args != "" }

// find returns the command called name, by its name or an alias.
func find(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.name == name || slices.Contains(c.aliases, name) {
			return c
		}
	}
	return nil
}

// names lists every name a command answers to, aliases included, for
// suggestions.
func names(cmds []*command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.name)
		out = append(out, c.aliases...)
	}
	return out
}

// Registry is the command table and the little state commands share
// within one shell: the rows of the last /todo list, so that /todo load N
// loads the row the person saw even if other sessions changed since.
type Registry struct {
	cmds    []*command
	sources []rowSource

	mu      sync.Mutex
	listing *listing
}

// NewRegistry returns the registry with every built-in command.
func NewRegistry() *Registry {
	r := &Registry{sources: []rowSource{storeRows, foreignRows}}
	todo := &command{
		name: "todo", args: "[SUBCOMMAND]", def: "show",
		summary: "this session's todo list; bare /todo is /todo show, /help todo lists the subcommands",
		example: `/todo add last "write tests"`,
		subs: []*command{
			{name: "show", summary: "print the list with positions and statuses", example: "/todo show", run: runShow},
			{name: "add", args: "[POS] TEXT", summary: "add an item, or a subtask with N.M or N.last; without POS it is appended", example: `/todo add 1.last "edge cases"`, run: runAdd},
			{name: "delete", args: "POS", summary: "remove items (with their subtasks) or subtasks", example: "/todo delete 2-4", run: runDelete},
			{name: "done", args: "POS", summary: "mark items or subtasks completed", example: "/todo done 2", run: runDone},
			{name: "undo", args: "POS", aliases: []string{"unset"}, summary: "mark items or subtasks pending again, a cancelled item too (to take back a whole change, use /todo revert)", example: "/todo undo 1-3", run: runUndo},
			{name: "start", args: "POS", aliases: []string{"set"}, summary: "mark items in progress; a subtask starts its item", example: "/todo start 2", run: runStart},
			{name: "cancel", args: "POS", summary: "mark items cancelled (undo reopens them)", example: "/todo cancel 3", run: runCancel},
			{name: "edit", args: "POS TEXT", summary: "change an item's or subtask's text; its status, subtasks and evidence stay", example: `/todo edit 2 "write more tests"`, run: runEdit},
			{name: "move", args: "POS TO", summary: "move an item to item position TO, or a subtask within its item (2.3 to 2.1)", example: "/todo move 3 1", run: runMove},
			{name: "clear", summary: "empty the list (it stays in this session's history: /todo revert brings it back)", example: "/todo clear", run: runClear},
			{name: "cost", summary: "what each item cost: time in progress, tokens and tool calls todosh saw, and what no item was in progress for", example: "/todo cost", run: runCost},
			{name: "history", args: "[PAGE|show N]", words: []string{"show"}, summary: "this session's changes, newest first, numbered: when, who, what; show N prints the list after change N", example: "/todo history show 3", run: runHistory},
			{name: "revert", summary: "take back the last change to the list, whoever made it; again goes one more change back (undo POS only reopens items)", example: "/todo revert", run: runRevert},
			{name: "restore", args: "N", summary: "make the list what it was after change N of /todo history", example: "/todo restore 3", run: runRestore},
			{name: "list", args: "[PAGE]", summary: "saved lists, this session first, then newest first; choose one to load", example: "/todo list 2", run: r.runList},
			{name: "load", args: "N", summary: "copy list N of /todo list into this session (the current list stays in its history)", example: "/todo load 3", run: r.runLoad},
			{name: "prune", args: "WHICH", summary: "remove saved sessions: N or N-M as /todo list numbers them, all, or older AGE (30d); never this one or other agents' lists; asks first (scripts add --yes)", example: "/todo prune older 30d", run: r.runPrune},
			{name: "budget", args: "[+N|+DURATION]", summary: "what this prompt spent of its budget and what is left; +N tokens or +DURATION raises it and continues a list that stopped at it", example: "/todo budget +5000", run: runBudget},
		},
	}
	r.cmds = []*command{
		todo,
		{name: "board", args: "COMMAND", words: boardcmd.Verbs(), summary: "the project's shared board: claim, done, show... as todosh board --help lists", example: "/board claim --next", run: runBoard},
		{name: "help", args: "[COMMAND]", summary: "list the commands, or explain one", example: "/help todo", run: r.runHelp},
		{name: "quit", summary: "leave todosh (Ctrl-D on an empty line does too)", example: "/quit", run: runQuit},
		{name: "exit", summary: "leave todosh, like /quit", example: "/exit", run: runQuit},
	}
	return r
}

// IsCommand reports whether a line is a slash command rather than a prompt
// for the agent: its first non-space character is "/".
func IsCommand(line string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, spaceChars), "/")
}

// call is one running command: where it prints, its arguments, and the
// name its errors carry ("/todo add").
type call struct {
	env *Env
	// before is the list as update last read it, before the command's
	// change: printList derives its one line from it.
	before []todolist.Todo
	// unseen: the list update last read was not the one the person last
	// saw (another process changed it), so printList shows it whole and
	// positions resolve against seenList, the one they saw (seen.go).
	unseen   bool
	seenList []todolist.Todo
	args     *Args
	cmd      *command
	name     string
}

// cmdError is a command's error as the person sees it: one line that names
// the command. It unwraps, so callers can still find a
// *todostore.CorruptError.
type cmdError struct {
	name string
	err  error
}

func (e *cmdError) Error() string { return e.name + ": " + oneLine(plainLimit(e.err.Error())) }
func (e *cmdError) Unwrap() error { return e.err }

// plainLimit drops the ": limit exceeded" that todolist appends to limit
// errors for errors.Is; the rest of the message already says it.
func plainLimit(msg string) string {
	return strings.TrimSuffix(msg, ": "+todolist.ErrLimit.Error())
}

// oneLine keeps an error on one line whatever a path or a file contained.
func oneLine(s string) string { return todolist.DisplayLine(s) }

// Run runs one slash-command line. Errors are one line that names the
// command; /quit and /exit return ErrQuit.
func (r *Registry) Run(env *Env, line string) error {
	a := NewArgs(line)
	w, ok, err := a.Next()
	if err != nil {
		return &cmdError{name: firstField(line), err: err}
	}
	if !ok || !strings.HasPrefix(w.Value, "/") {
		return errors.New("not a command: slash commands start with / (type /help for the list)")
	}
	cmd := find(r.cmds, w.Value[1:])
	if cmd == nil {
		return fmt.Errorf("unknown command %s (%s)", oneLine(w.Value), suggest("/", w.Value[1:], names(r.cmds), "type /help for the list"))
	}
	name := "/" + cmd.name
	if len(cmd.subs) > 0 {
		sw, ok, err := a.Next()
		if err != nil {
			return &cmdError{name: name, err: err}
		}
		subName := cmd.def
		if ok {
			subName = sw.Value
		}
		sub := find(cmd.subs, subName)
		if sub == nil {
			return fmt.Errorf("%s: unknown subcommand %q (%s)", name, subName,
				suggest(name+" ", subName, names(cmd.subs), "/help "+cmd.name+" lists them"))
		}
		cmd, name = sub, name+" "+subName // an alias is named as typed
	}
	x := &call{env: env, args: a, cmd: cmd, name: name}
	if err := cmd.run(x); err != nil {
		if errors.Is(err, ErrQuit) {
			return err
		}
		return &cmdError{name: name, err: err}
	}
	return nil
}

// firstField is the command word as typed, for an error about a line
// that could not even be split.
func firstField(line string) string {
	s := strings.TrimLeft(line, spaceChars)
	if i := strings.IndexAny(s, spaceChars); i >= 0 {
		return s[:i]
	}
	return s
}

// suggest is the parenthesised hint of an unknown-name error: the closest
// known name, or the fallback.
func suggest(prefix, name string, known []string, fallback string) string {
	if c := closest(name, known); c != "" {
		return "did you mean " + prefix + c + "?"
	}
	return fallback
}

// closest returns the known name the person most likely meant: the only
// one that starts with name, or else the nearest by edit distance (a
// swap of two letters counts as one edit) if it is at most 2 edits away,
// fewer edits than name has letters, and closer than any other. It
// returns "" when nothing is close or the prefix is ambiguous.
func closest(name string, known []string) string {
	if name == "" {
		return ""
	}
	var prefixed []string
	for _, k := range known {
		if strings.HasPrefix(k, name) {
			prefixed = append(prefixed, k)
		}
	}
	switch len(prefixed) {
	case 0:
	case 1:
		return prefixed[0]
	default:
		return "" // ambiguous: "/todo d" could be delete or done
	}
	best, bestD, tie := "", 3, false
	for _, k := range known {
		d := editDistance(strings.ToLower(name), k)
		switch {
		case d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || bestD >= len(name) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b,
// in bytes: insertions, deletions, substitutions and adjacent swaps.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // nothing that long is a typo of a command name
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Complete returns the full lines Tab may turn line into: command names
// after "/", subcommand names after "/todo ", and command names as /help's
// argument. Leading spaces and the spacing typed so far are kept.
func (r *Registry) Complete(line string) []string {
	body := strings.TrimLeft(line, spaceChars)
	if !strings.HasPrefix(body, "/") {
		return nil
	}
	// Word boundaries by whitespace are enough here: no command or
	// subcommand name contains quotes.
	start := len(line) - len(body)
	var words []string
	var starts []int
	for i := start; i <= len(line); {
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		words, starts = append(words, line[i:j]), append(starts, i)
		if j == len(line) {
			break
		}
		for j < len(line) && isSpace(line[j]) {
			j++
		}
		i = j
	}
	head := func(k int) string { return line[:starts[k]] }
	switch {
	case len(words) == 1:
		return completeNames(line[:start]+"/", words[0][1:], r.cmds, true)
	case len(words) == 2 || len(words) == 3:
		cmd := find(r.cmds, words[0][1:])
		if cmd == nil {
			return nil
		}
		if len(words) == 2 && len(cmd.subs) > 0 {
			return completeNames(head(1), words[1], cmd.subs, true)
		}
		if sub := find(cmd.subs, words[1]); len(words) == 3 && sub != nil {
			var out []string
			for _, w := range sub.words {
				if strings.HasPrefix(w, words[2]) {
					out = append(out, head(2)+w+" ")
				}
			}
			return out
		}
		if cmd.name != "help" {
			return nil
		}
		if len(words) == 2 {
			return completeNames(head(1), strings.TrimPrefix(words[1], "/"), r.cmds, false)
		}
		if target := find(r.cmds, strings.TrimPrefix(words[1], "/")); target != nil {
			return completeNames(head(2), words[2], target.subs, false)
		}
	}
	return nil
}

// completeNames lists head+name for every command whose name starts with
// partial, with a trailing space when arguments follow and spaced is set.
// Aliases complete like names.
func completeNames(head, partial string, cmds []*command, spaced bool) []string {
	var out []string
	for _, c := range cmds {
		for _, name := range append([]string{c.name}, c.aliases...) {
			if !strings.HasPrefix(name, partial) {
				continue
			}
			s := head + name
			if spaced && (c.takesArgs() || len(c.subs) > 0) {
				s += " "
			}
			out = append(out, s)
		}
	}
	return out
}

// example is the command's example as typed: an alias shows itself
// ("/todo set 2", not "/todo start 2").
func (x *call) example() string {
	i := strings.LastIndexByte(x.name, ' ')
	if i < 0 {
		return x.cmd.example
	}
	canonical := x.name[:i+1] + x.cmd.name
	if canonical == x.name {
		return x.cmd.example
	}
	return strings.Replace(x.cmd.example, canonical, x.name, 1)
}

// noMoreArgs refuses anything typed after the arguments a command took.
func (x *call) noMoreArgs() error {
	rest := x.args.Rest()
	switch {
	case rest == "":
		return nil
	case x.cmd.args == "":
		return fmt.Errorf("takes no arguments, got %q", rest)
	}
	return fmt.Errorf("unexpected %q (usage: %s %s, e.g. %s)", rest, x.name, x.cmd.args, x.example())
}

func runQuit(x *call) error {
	if err := x.noMoreArgs(); err != nil {
		return err
	}
	return ErrQuit
}

// runHelp prints every command with its summary and example, or one
// command (/help todo, /help todo add) in more detail.
func (r *Registry) runHelp(x *call) error {
	path, err := x.args.Words()
	if err != nil {
		return err
	}
	for i := range path {
		path[i] = strings.TrimPrefix(path[i], "/")
	}
	var b strings.Builder
	switch len(path) {
	case 0:
		b.WriteString("Commands (Tab completes them; a line not starting with / is a prompt; Alt-Enter types a line break):\n")
		writeEntries(&b, "/", r.cmds)
		if x.env.Agent != "" {
			b.WriteString(x.env.Agent + "\n")
		}
		return x.printFit(b.String())
	case 1, 2:
	default:
		return fmt.Errorf("takes at most a command and a subcommand, e.g. /help todo add")
	}
	cmd := find(r.cmds, path[0])
	if cmd == nil {
		return fmt.Errorf("unknown command %q (%s)", path[0], suggest("/", path[0], names(r.cmds), "/help lists them"))
	}
	if len(path) == 2 {
		sub := find(cmd.subs, path[1])
		if sub == nil {
			return fmt.Errorf("unknown subcommand %q of /%s (%s)", path[1], cmd.name,
				suggest("/"+cmd.name+" ", path[1], names(cmd.subs), "/help "+cmd.name+" lists them"))
		}
		writeEntries(&b, "/"+cmd.name+" ", []*command{sub})
		if sub.args != "" && strings.Contains(sub.args, "POS") {
			b.WriteString(positionHelp)
		}
		return x.printFit(b.String())
	}
	writeEntries(&b, "/", []*command{cmd})
	if len(cmd.subs) > 0 {
		b.WriteString("Subcommands:\n")
		writeEntries(&b, "/"+cmd.name+" ", cmd.subs)
		b.WriteString(positionHelp)
	}
	return x.printFit(b.String())
}

// positionHelp explains positions under the help of the commands that
// take one.
const positionHelp = `Positions: N is item N, last the last item (for add: after it), N.M subtask M of item N, N.last its last subtask.
delete, done, undo, start and cancel also take a range, N-M (items N to M; N-last to the end) or N.A-N.B (subtasks of item N), or all.
In /todo add a first word shaped like a position is one; quote text that starts with a number: /todo add last "2 apples".
`

// writeEntries renders commands as two lines each: synopsis and summary,
// then an example, with the summaries aligned.
func writeEntries(b *strings.Builder, prefix string, cmds []*command) {
	synopsis := make([]string, len(cmds))
	width := 0
	for i, c := range cmds {
		synopsis[i] = prefix + c.name
		if c.args != "" {
			synopsis[i] += " " + c.args
		}
		width = max(width, len(synopsis[i]))
	}
	for i, c := range cmds {
		fmt.Fprintf(b, "  %-*s  %s\n", width, synopsis[i], c.summary)
		for _, a := range c.aliases {
			fmt.Fprintf(b, "  %-*s  %s%s is another name for it\n", width, "", prefix, a)
		}
		fmt.Fprintf(b, "  %-*s  e.g. %s\n", width, "", c.example)
	}
}

// printFit is print with every line wrapped to the terminal's width.
func (x *call) printFit(s string) error {
	return x.print(textwidth.FitLines(s, x.env.width()))
}

// print writes s in one Write, so readline redraws its prompt once.
func (x *call) print(s string) error {
	if x.env.Out == nil || s == "" {
		return nil
	}
	_, err := io.WriteString(x.env.Out, s)
	return err
}
