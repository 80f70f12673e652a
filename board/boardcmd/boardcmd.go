// Package boardcmd is `todosh board …` and `/board …`: one table of verbs
// (init, add, ready, claim, release, done, drop, edit, show, list, watch,
// export, import, and the git merge driver), their flags and output, run
// the same from the command line and from the shell. It also links a
// claimed item into a session's todo list (link.go) and serves the board
// tools of `todosh mcp` (tools.go). See docs/board.md.
package boardcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"

	flag "github.com/spf13/pflag"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/files"
	"github.com/todosh/todosh/board/postgres"
)

// URLEnv names the PostgreSQL board when --board-url is not given.
const URLEnv = "TODOSH_BOARD_URL"

// Env is what a board command needs from its caller (main or the shell).
type Env struct {
	Cwd    string
	Getenv func(string) string
	In     io.Reader
	Out    io.Writer
	// Err receives notices (a broken item file, a claim lost in a merge);
	// errors are returned.
	Err io.Writer
	// Who claims: the session, its agent, the host. Session empty means
	// the person ($USER).
	Who board.Who
	// Link, when set, puts a claimed item on the session's todo list
	// linked to the board (link.go): the shell, or todosh run by an agent
	// with TODOSH_SESSION.
	Link func(it board.Item, where string) error
	// Exe is the path of todosh, written into the git merge driver's
	// configuration by init.
	Exe string
	// Terminal says Out is a terminal: watch redraws in place.
	Terminal bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// ExitError is a failure with its exit status: 1 for a refused or failed
// command (a lost claim), 2 for a usage error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

func usageErr(format string, a ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, a...)}
}

// verb is one row of the table.
type verb struct {
	name, args, summary string
	// flags defines the verb's flags on fs and returns the values read.
	run func(ctx context.Context, x *call) error
	// noBoard verbs open no board (init opens its own, the merge driver
	// works on files).
	noBoard bool
	hidden  bool
}

// call is one running verb.
type call struct {
	env   *Env
	fs    *flag.FlagSet
	args  []string
	eng   board.Engine
	url   string
	who   board.Who
	lease time.Duration
	// link is Env.Link, unless --as names someone else.
	link func(board.Item, string) error
	// flag values
	next       bool
	leaseFlag  string
	evidence   string
	text       string
	notes      []string
	blockedBy  []string
	setBlocked bool
	output     string
}

// verbs is the one table of board commands: dispatch, help and the
// shell's completion come from it.
var verbs []verb

func init() {
	verbs = []verb{
		{name: "init", summary: "make the board: .todosh/board/ at the checkout's root with git's merge driver, or the schema on PostgreSQL", run: runInit, noBoard: true},
		{name: "add", args: "TEXT [--blocked-by ID]...", summary: "add an open item", run: runAdd},
		{name: "ready", summary: "items open (or whose lease ended) and not blocked, in order", run: runReady},
		{name: "claim", args: "ID | --next [--lease DURATION]", summary: "take an item (default lease 1h); a lost claim exits 1", run: runClaim},
		{name: "release", args: "ID", summary: "give a claimed item back", run: runRelease},
		{name: "done", args: "ID [--evidence TEXT]", summary: "mark an item done", run: runDone},
		{name: "drop", args: "ID", summary: "mark an item dropped (unblocks what waits on it)", run: runDrop},
		{name: "edit", args: "ID [--text TEXT] [--notes TEXT] [--blocked-by ID]...", summary: "change the text or what it waits on; --notes adds a note", run: runEdit},
		{name: "show", args: "[ID]", summary: "one item in full, or the board grouped by ready, claimed, blocked and done", run: runShow},
		{name: "list", args: "[--output jsonl]", summary: "every item, one line each", run: runList},
		{name: "watch", summary: "the grouped board, redrawn as any process changes it (Ctrl-C ends)", run: runWatch},
		{name: "export", summary: "every item as JSON lines on stdout, for import", run: runExport},
		{name: "import", args: "[FILE]", summary: "add the items of an export (stdin or FILE) that the board lacks", run: runImport},
		{name: "merge-driver", args: "BASE OURS THEIRS [PATH]", summary: "git's merge driver for item files (init registers it)", run: runMergeDriver, noBoard: true, hidden: true},
	}
}

// Usage is the verbs' synopsis, for --help and /help board.
func Usage(prefix string) string {
	var b strings.Builder
	for _, v := range verbs {
		if v.hidden {
			continue
		}
		fmt.Fprintf(&b, "  %s\n      %s\n", strings.TrimSpace(prefix+" "+v.name+" "+v.args), v.summary)
	}
	return b.String()
}

// Verbs are the verbs' names, for completion.
func Verbs() []string {
	var out []string
	for _, v := range verbs {
		if !v.hidden {
			out = append(out, v.name)
		}
	}
	return out
}

// Run runs one board command: args are the verb and its arguments, with
// --board-url anywhere.
func Run(ctx context.Context, env *Env, args []string) error {
	// --board-url and --as may come before the verb too.
	var pre []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "--" {
		a := args[0]
		pre, args = append(pre, a), args[1:]
		if name := strings.TrimLeft(a, "-"); (name == "board-url" || name == "as") && len(args) > 0 {
			pre, args = append(pre, args[0]), args[1:]
		}
	}
	if len(args) > 0 {
		args = append([]string{args[0]}, append(pre, args[1:]...)...)
	}
	if len(args) == 0 {
		return usageErr("which command? %s", strings.Join(Verbs(), ", "))
	}
	var v *verb
	for i := range verbs {
		if verbs[i].name == args[0] {
			v = &verbs[i]
		}
	}
	if v == nil {
		return usageErr("unknown command %q: want one of %s", args[0], strings.Join(Verbs(), ", "))
	}
	x := &call{env: env, who: env.Who}
	// GNU flags, as every subcommand's (spf13/pflag), anywhere among the
	// arguments ("add TEXT --blocked-by ID"); "--" ends them.
	fs := flag.NewFlagSet(v.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&x.url, "board-url", "", "")
	fs.StringVar(&x.who.Session, "as", x.who.Session, "")
	switch v.name {
	case "claim":
		fs.BoolVar(&x.next, "next", false, "")
		fs.StringVar(&x.leaseFlag, "lease", "1h", "")
	case "done":
		fs.StringVar(&x.evidence, "evidence", "", "")
	case "add", "edit":
		fs.Func("blocked-by", "", func(s string) error {
			x.setBlocked = true
			for _, id := range strings.Split(s, ",") {
				if id = strings.TrimSpace(id); id != "" {
					x.blockedBy = append(x.blockedBy, id)
				}
			}
			return nil
		})
		if v.name == "edit" {
			fs.Func("text", "", func(s string) error { x.text = s; return nil })
			fs.Func("notes", "", func(s string) error { x.notes = append(x.notes, s); return nil })
		}
	case "list":
		fs.StringVar(&x.output, "output", "text", "")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageErr("%v", err)
	}
	x.args = fs.Args()
	x.fs = fs
	x.link = env.Link
	if x.who.Session != env.Who.Session {
		// Claiming as someone else (--as) joins no session's list.
		x.link = nil
	}
	if x.who.Session == "" {
		x.who.Session = "person"
		if u := env.Getenv("USER"); u != "" {
			x.who.Session = u
		}
	}
	if x.who.Host == "" {
		x.who.Host, _ = os.Hostname()
	}
	if x.url == "" && env.Getenv != nil {
		x.url = env.Getenv(URLEnv)
	}
	if x.url != "" && !postgres.IsURL(x.url) {
		return usageErr("--board-url %s: want postgres://USER@HOST/DATABASE", postgres.Redact(x.url))
	}
	if !v.noBoard {
		eng, err := Open(ctx, x.url, env.Cwd)
		if err != nil {
			return err
		}
		defer eng.Close()
		x.eng = eng
		x.tellLost(ctx)
	}
	return v.run(ctx, x)
}

// Open opens the board: PostgreSQL at url, else the files board of the
// checkout holding cwd.
func Open(ctx context.Context, url, cwd string) (board.Engine, error) {
	if url != "" {
		return postgres.Open(ctx, url)
	}
	dir, err := files.Find(cwd)
	if err != nil {
		return nil, err
	}
	return files.Open(dir), nil
}

// list reads the board and names each broken item on Err.
func (x *call) list(ctx context.Context) ([]board.Item, error) {
	items, problems, err := x.eng.List(ctx)
	for _, p := range problems {
		fmt.Fprintf(x.env.Err, "todosh board: skipped %v\n", p)
	}
	return items, err
}

// tellLost tells who of claims a git merge gave to another claimant, once.
func (x *call) tellLost(ctx context.Context) {
	fb, ok := x.eng.(*files.Board)
	if !ok {
		return // only a git merge loses a claim
	}
	ids, _ := fb.LostBy(x.who)
	for _, id := range ids {
		it, _, err := x.eng.Update(ctx, id, board.ForgetLost(x.who))
		if err != nil {
			continue
		}
		winner := "nobody"
		if it.Claim != nil {
			winner = it.Claim.Who.String()
		}
		fmt.Fprintf(x.env.Err, "todosh board: your claim on %s (%s) was lost in a git merge: it is %s by %s\n",
			it.ID, todolist.DisplayLine(todolist.ShortLine(it.Text, 60)), it.Status, winner)
	}
}

func (x *call) one(name string) (string, error) {
	if len(x.args) != 1 {
		return "", usageErr("want one item id (%s ID)", name)
	}
	return x.args[0], board.ValidID(x.args[0])
}

func runInit(ctx context.Context, x *call) error {
	if len(x.args) > 0 {
		return usageErr("takes no arguments")
	}
	if x.url != "" {
		eng, err := postgres.Open(ctx, x.url)
		if err != nil {
			return err
		}
		defer eng.Close()
		fmt.Fprintf(x.env.Out, "board at %s (schema version %d)\n", eng.Where(), postgres.Version)
		return nil
	}
	root, git := files.Root(x.env.Cwd)
	dir, created, err := files.Init(root)
	if err != nil {
		return err
	}
	word := "made"
	if !created {
		word = "found"
	}
	fmt.Fprintf(x.env.Out, "%s the board %s\n", word, dir)
	if !git {
		fmt.Fprintln(x.env.Out, "not a git checkout: no merge driver registered")
		return nil
	}
	if err := RegisterMergeDriver(root, x.env.Exe); err != nil {
		return err
	}
	fmt.Fprintf(x.env.Out, "registered git's merge driver %q (.git/config) for %s/*.json (.gitattributes)\n", DriverName, files.Dir)
	return nil
}

func runAdd(ctx context.Context, x *call) error {
	if len(x.args) == 0 {
		return usageErr("what is the item? todosh board add TEXT")
	}
	text := strings.Join(x.args, " ")
	it, err := board.New(text, x.blockedBy, x.env.now())
	if err != nil {
		return err
	}
	if err := x.eng.Add(ctx, it); err != nil {
		return err
	}
	fmt.Fprintf(x.env.Out, "added %s: %s\n", it.ID, todolist.DisplayLine(it.Text))
	return nil
}

func runReady(ctx context.Context, x *call) error {
	items, problems, err := x.eng.Ready(ctx)
	for _, p := range problems {
		fmt.Fprintf(x.env.Err, "todosh board: skipped %v\n", p)
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriter(x.env.Out)
	defer w.Flush()
	for _, it := range items {
		w.WriteString(it.ID + "  " + todolist.DisplayLine(it.Text) + "\n")
	}
	return nil
}

func runClaim(ctx context.Context, x *call) error {
	lease, err := board.ParseLease(x.leaseFlag)
	if err != nil {
		return usageErr("%v", err)
	}
	var it board.Item
	switch {
	case x.next && len(x.args) > 0:
		return usageErr("give an ID or --next, not both")
	case x.next:
		it, err = x.eng.ClaimNext(ctx, x.who, lease)
		if errors.Is(err, board.ErrNoneReady) {
			return &ExitError{Code: 1, Err: err}
		}
	default:
		id, err := x.one("claim")
		if err != nil {
			return err
		}
		it, err = x.eng.Claim(ctx, id, x.who, lease)
		if err != nil {
			return &ExitError{Code: 1, Err: err}
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(x.env.Out, "claimed %s until %s: %s\n", it.ID, it.Claim.Until.Local().Format(time.DateTime), todolist.DisplayLine(it.Text))
	if x.link != nil {
		if err := x.link(it, x.eng.Where()); err != nil {
			return fmt.Errorf("claimed %s, but could not put it on the session's list: %w", it.ID, err)
		}
		fmt.Fprintf(x.env.Out, "it is on the todo list of session %s, in progress: complete it there (in your todo tool) and the board marks it done\n", x.who.Session)
	}
	return nil
}

func (x *call) change(ctx context.Context, name string, ch board.Change, say string) error {
	id, err := x.one(name)
	if err != nil {
		return err
	}
	it, changed, err := x.eng.Update(ctx, id, ch)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	if !changed {
		say = "unchanged"
	}
	fmt.Fprintf(x.env.Out, "%s %s: %s\n", say, it.ID, todolist.DisplayLine(it.Text))
	return nil
}

func runRelease(ctx context.Context, x *call) error {
	return x.change(ctx, "release", board.Release(x.who), "released")
}

func runDone(ctx context.Context, x *call) error {
	return x.change(ctx, "done", board.Finish(x.who, board.Done, x.evidence), "done")
}

func runDrop(ctx context.Context, x *call) error {
	return x.change(ctx, "drop", board.Finish(x.who, board.Dropped, ""), "dropped")
}

func runEdit(ctx context.Context, x *call) error {
	var chs []board.Change
	if x.text != "" {
		chs = append(chs, board.EditText(x.text))
	}
	for _, n := range x.notes {
		chs = append(chs, board.AddNote(x.who, n))
	}
	if x.setBlocked {
		chs = append(chs, board.SetBlockedBy(x.blockedBy))
	}
	if len(chs) == 0 {
		return usageErr("say what changes: --text, --notes or --blocked-by")
	}
	return x.change(ctx, "edit", func(it *board.Item, now time.Time, get func(string) (board.Item, bool)) error {
		for _, ch := range chs {
			if err := ch(it, now, get); err != nil {
				return err
			}
		}
		return nil
	}, "edited")
}

func runShow(ctx context.Context, x *call) error {
	if len(x.args) == 0 {
		items, err := x.list(ctx)
		if err != nil {
			return err
		}
		io.WriteString(x.env.Out, Grouped(items, x.env.now()))
		return nil
	}
	id, err := x.one("show")
	if err != nil {
		return err
	}
	it, err := x.eng.Get(ctx, id)
	if err != nil {
		return err
	}
	io.WriteString(x.env.Out, Detail(&it))
	return nil
}

func runList(ctx context.Context, x *call) error {
	if x.output != "text" && x.output != "jsonl" {
		return usageErr("--output %q: want text or jsonl", x.output)
	}
	items, err := x.list(ctx)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(x.env.Out)
	defer w.Flush()
	if x.output == "jsonl" {
		return writeJSONL(w, items)
	}
	now := x.env.now()
	for i := range items {
		w.WriteString(Line(&items[i], now) + "\n")
	}
	return nil
}

func writeJSONL(w io.Writer, items []board.Item) error {
	for i := range items {
		b, err := json.Marshal(&items[i])
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func runExport(ctx context.Context, x *call) error {
	items, err := x.list(ctx)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(x.env.Out)
	defer w.Flush()
	return writeJSONL(w, items)
}

func runImport(ctx context.Context, x *call) error {
	in := x.env.In
	name := "stdin"
	if len(x.args) == 1 {
		f, err := os.Open(x.args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, x.args[0]
	} else if len(x.args) > 1 {
		return usageErr("at most one FILE")
	}
	items, err := ReadJSONL(in, name)
	if err != nil {
		return err
	}
	n, err := x.eng.Import(ctx, items)
	if err != nil {
		return err
	}
	fmt.Fprintf(x.env.Out, "imported %d of %d items into %s (%d already there)\n", n, len(items), x.eng.Where(), len(items)-n)
	return nil
}

// ReadJSONL reads an export: one item per line; a bad line is an error
// naming it, and nothing is imported.
func ReadJSONL(r io.Reader, name string) ([]board.Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var items []board.Item
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		it, err := files.Decode([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w (nothing imported)", name, n, err)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return items, nil
}

func runWatch(ctx context.Context, x *call) error {
	draw := func() {
		items, problems, err := x.eng.List(ctx)
		var b strings.Builder
		if x.env.Terminal {
			b.WriteString("\x1b[H\x1b[2J")
		}
		fmt.Fprintf(&b, "board %s at %s\n", x.eng.Where(), x.env.now().Format(time.TimeOnly))
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		}
		for _, p := range problems {
			fmt.Fprintf(&b, "skipped %v\n", p)
		}
		b.WriteString(Grouped(items, x.env.now()))
		if !x.env.Terminal {
			b.WriteString("\n")
		}
		io.WriteString(x.env.Out, b.String())
	}
	draw()
	return x.eng.Watch(ctx, draw)
}
