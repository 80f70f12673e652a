// Package doctor is `todosh doctor`: one screen a person can paste into a
// bug report. For each agent of the backend table it says whether the
// agent is installed (and where), its version, which todo tools and
// whether todosh's MCP tools it will have (the table's version rules),
// then the store under TODOSH_HOME and the terminal. The exit status says
// whether what the chosen --agent needs is there. The checks read the
// disk and run `--version`; they change nothing.
// Its place in the whole is ARCHITECTURE.md §4.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/todostore"
)

// Options are what the checks depend on.
type Options struct {
	// Agent is --agent ("" for the default choice); Bin is --agent-bin,
	// the chosen agent's executable instead of its row's.
	Agent, Bin string
	Getenv     func(string) string
	// Root is TODOSH_HOME resolved; Self is todosh's own executable, the
	// MCP server every agent is given.
	Root, Self string
	// TTY, Width describe standard output; Version is todosh's own.
	TTY     bool
	Width   int
	Version string
	// VersionTimeout bounds one `--version`; zero means 5 s.
	VersionTimeout time.Duration
}

// Agent is what the checks found of one backend with an executable.
type Agent struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // "cli" or "acp"
	Found   bool   `json:"found"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	// TodoTools and MCP are the row's version rules at that version.
	TodoTools string `json:"todo_tools,omitempty"`
	MCP       string `json:"mcp,omitempty"`
	// Usage says whether the agent reports the tokens it spends, from
	// its row (backends.Caps.Usage): what budgets can hold it.
	Usage    string             `json:"usage,omitempty"`
	Notes    []string           `json:"notes,omitempty"`
	Problems []backends.Problem `json:"problems,omitempty"`
	Chosen   bool               `json:"chosen,omitempty"`
}

// Home is the store's health.
type Home struct {
	Root     string `json:"root"`
	Exists   bool   `json:"exists"`
	Writable bool   `json:"writable"`
	RootMode string `json:"root_mode,omitempty"`
	DirMode  string `json:"todos_mode,omitempty"`
	Private  bool   `json:"private"`
	Sessions int    `json:"sessions"`
	Bytes    int64  `json:"bytes"`
}

// Terminal is what todosh sees of the terminal.
type Terminal struct {
	TTY   bool   `json:"tty"`
	Term  string `json:"term"`
	Width int    `json:"width,omitempty"`
	Color bool   `json:"color"`
}

// Report is everything doctor found; OK is the exit status's answer.
type Report struct {
	Todosh   string             `json:"todosh"`
	OS       string             `json:"os"`
	Agent    string             `json:"agent"` // the chosen --agent
	MCP      string             `json:"mcp"`   // todosh's MCP server: "todosh mcp" and whether it answers
	Agents   []Agent            `json:"agents"`
	Home     Home               `json:"home"`
	Terminal Terminal           `json:"terminal"`
	Problems []backends.Problem `json:"problems"` // what the chosen agent needs and lacks
	OK       bool               `json:"ok"`
}

// Run does every check.
func Run(o Options) Report {
	if o.VersionTimeout <= 0 {
		o.VersionTimeout = 5 * time.Second
	}
	r := Report{Todosh: o.Version, OS: runtime.GOOS + "/" + runtime.GOARCH, Agent: o.Agent, Problems: []backends.Problem{}}
	chosen, _, err := backends.Lookup(o.Agent)
	if o.Agent == "" {
		chosen, err = nil, nil
		r.Agent = "(default: " + defaultAgent(o.Getenv) + ")"
	}
	if err != nil {
		r.Problems = append(r.Problems, backends.Problem{What: err.Error(), Fix: "name one of the agents listed by todosh --help"})
	}
	r.MCP = checkMCP(o.Self)
	for i := range backends.Table {
		b := &backends.Table[i]
		if b.Bin == "" && !(b == chosen && o.Bin != "") {
			continue
		}
		a := checkAgent(b, o, b == chosen)
		if a.Chosen {
			if !a.Found {
				r.Problems = append(r.Problems, backends.Problem{What: b.Name + ": " + orDefault(a.Path, binOf(b, o)) + " not found", Fix: installFix(b)})
			}
			r.Problems = append(r.Problems, a.Problems...)
			if b.Caps.MCP && !strings.HasPrefix(r.MCP, "ok") {
				r.Problems = append(r.Problems, backends.Problem{What: "todosh's MCP server: " + r.MCP, Fix: "run todosh from a path that exists (go install, see README)"})
			}
		}
		r.Agents = append(r.Agents, a)
	}
	h := todostore.Open(o.Root).Health()
	r.Home = Home{Root: h.Root, Exists: h.Exists, Writable: h.Writable, Private: h.Private, Sessions: h.Sessions, Bytes: h.Bytes}
	if h.Exists {
		r.Home.RootMode = fmt.Sprintf("%04o", h.RootMode)
		if h.DirMode != 0 {
			r.Home.DirMode = fmt.Sprintf("%04o", h.DirMode)
		}
	}
	if h.Problem != "" {
		r.Problems = append(r.Problems, backends.Problem{What: "TODOSH_HOME: " + h.Problem, Fix: "see the line above"})
	}
	term := o.Getenv("TERM")
	r.Terminal = Terminal{TTY: o.TTY, Term: term, Width: o.Width,
		Color: o.TTY && o.Getenv("NO_COLOR") == "" && term != "dumb"}
	r.OK = len(r.Problems) == 0
	return r
}

// defaultAgent is what --agent defaults to (backends.Choose's rule).
func defaultAgent(getenv func(string) string) string {
	if getenv("OPENAI_BASE_URL") != "" || getenv("OPENAI_API_KEY") != "" {
		return "openai"
	}
	return "none"
}

func orDefault(s, d string) string {
	if s != "" {
		return s
	}
	return d
}

// binOf is the executable doctor looks for: --agent-bin for the chosen
// agent, else the row's.
func binOf(b *backends.Backend, o Options) string {
	if o.Bin != "" && o.Agent == b.Name {
		return o.Bin
	}
	return b.Bin
}

// installFix is how to get an agent that is not found.
func installFix(b *backends.Backend) string {
	if b.Package == "" {
		return "install " + b.Bin + ", or give its path with --agent-bin"
	}
	return "npm install -g " + b.Package + ", or give its path with --agent-bin"
}

// checkAgent finds one agent, reads its version and applies its rules.
func checkAgent(b *backends.Backend, o Options, chosen bool) Agent {
	a := Agent{Name: b.Name, Kind: "cli", Chosen: chosen}
	if strings.HasPrefix(b.Name, "acp") {
		a.Kind = "acp"
	}
	path, err := exec.LookPath(binOf(b, o))
	if err != nil {
		a.Notes = append(a.Notes, "not found: "+installFix(b))
		return a
	}
	a.Found, a.Path = true, path
	a.Usage = usageWords(b)
	a.Version = packageVersion(path, b.Package)
	if a.Version == "" && b.VersionFlag != "" {
		line, answered := runVersion(path, b.VersionFlag, o.VersionTimeout)
		switch a.Version = versionIn(line, b.VersionLine); {
		case !answered:
			// Slow (a node agent under load) or failing: not known, and
			// not another program for all that.
			a.Notes = append(a.Notes, fmt.Sprintf("%s %s did not answer within %s: version unknown", path, b.VersionFlag, o.VersionTimeout))
		case a.Version == "":
			a.Problems = append(a.Problems, notTheAgent(b, path, line))
			return a
		}
	}
	if b.Check != nil {
		c := b.Check(a.Version, o.Getenv)
		a.TodoTools, a.MCP, a.Problems = c.TodoTools, c.MCP, c.Problems
		a.Notes = append(a.Notes, c.Notes...)
	}
	return a
}

// packageVersion is the version in the package.json of npm package pkg
// that holds path (after symlinks), "" when there is none.
func packageVersion(path, pkg string) string {
	if pkg == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		var p struct{ Name, Version string }
		if json.Unmarshal(data, &p) == nil && p.Name == pkg {
			return p.Version
		}
	}
	return ""
}

// runVersion runs path flag with nothing on stdin and returns the first
// line it prints, without the spaces around it: on stdout, else on stderr
// (pi 0.73 prints its version there); answered is false when it did not
// end within timeout.
func runVersion(path, flag string, timeout time.Duration) (line string, answered bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, flag)
	cmd.WaitDelay = time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	if strings.TrimSpace(string(out)) == "" {
		out = []byte(stderr.String())
	}
	line, _, _ = strings.Cut(strings.TrimLeft(string(out), " \t\r\n"), "\n")
	return strings.TrimSpace(line), ctx.Err() == nil
}

// versionIn is the version number of line, the first line an agent's
// --version printed, when line has the agent's shape (shape, with %s for
// the number); "" when it has not: another program, whatever number it
// prints, is not the agent.
func versionIn(line, shape string) string {
	v := findVersion(line)
	if v == "" || shape != "" && line != fmt.Sprintf(shape, v) {
		return ""
	}
	return v
}

// notTheAgent is the problem of an executable whose --version is not
// the agent's: what it printed, and what the agent prints.
func notTheAgent(b *backends.Backend, path, line string) backends.Problem {
	what := fmt.Sprintf("%s: %s does not look like %s: its %s printed %q, where %s prints %q",
		b.Name, path, b.Bin, b.VersionFlag, todolist.ShortLine(line, 60), b.Bin, fmt.Sprintf(b.VersionLine, "1.2.3"))
	if line == "" {
		what = fmt.Sprintf("%s: %s does not look like %s: its %s printed nothing", b.Name, path, b.Bin, b.VersionFlag)
	}
	fix := "give the path of " + b.Bin + " itself with --agent-bin"
	if b.Package != "" {
		fix += ", or install it: npm install -g " + b.Package
	}
	return backends.Problem{What: what, Fix: fix}
}

// checkMCP says whether todosh's own MCP server can be started: the
// executable is there and `todosh mcp --help` answers.
func checkMCP(self string) string {
	if self == "" {
		return "todosh's own executable is unknown"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "mcp", "--help")
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "todosh mcp") {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return self + " mcp does not answer: " + ee.ProcessState.String()
		}
		return self + " mcp does not answer: " + fmt.Sprint(err)
	}
	return "ok: " + self + " mcp"
}

// WriteText writes the report as one screen.
func (r Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "todosh %s on %s; --agent %s\n", r.Todosh, r.OS, r.Agent)
	fmt.Fprintf(w, "MCP server: %s\n", r.MCP)
	for _, kind := range []string{"cli", "acp"} {
		if kind == "cli" {
			fmt.Fprintln(w, "agents:")
		} else {
			fmt.Fprintln(w, "ACP adapters:")
		}
		for _, a := range r.Agents {
			if a.Kind != kind {
				continue
			}
			mark := " "
			if a.Chosen {
				mark = "*"
			}
			if !a.Found {
				fmt.Fprintf(w, " %s%-11s not found\n", mark, a.Name)
				continue
			}
			fmt.Fprintf(w, " %s%-11s %s %s\n", mark, a.Name, orDefault(a.Version, "(version unknown)"), a.Path)
			if a.TodoTools != "" {
				fmt.Fprintf(w, "   %-11s todo: %s\n", "", a.TodoTools)
			}
			if a.MCP != "" {
				fmt.Fprintf(w, "   %-11s mcp: %s\n", "", a.MCP)
			}
			if a.Usage != "" {
				fmt.Fprintf(w, "   %-11s usage: %s\n", "", a.Usage)
			}
			for _, n := range a.Notes {
				fmt.Fprintf(w, "   %-11s note: %s\n", "", n)
			}
		}
	}
	h := r.Home
	switch {
	case !h.Exists:
		fmt.Fprintf(w, "TODOSH_HOME: %s (not made yet; writable: %v)\n", h.Root, h.Writable)
	default:
		fmt.Fprintf(w, "TODOSH_HOME: %s: writable %v, modes %s/%s, private %v, %d sessions, %s\n",
			h.Root, h.Writable, h.RootMode, orDefault(h.DirMode, "-"), h.Private, h.Sessions, size(h.Bytes))
	}
	t := r.Terminal
	fmt.Fprintf(w, "terminal: tty %v, TERM=%s, %d columns, colour %v\n", t.TTY, orDefault(t.Term, "(unset)"), t.Width, t.Color)
	if r.OK {
		fmt.Fprintln(w, "ok: everything --agent "+r.Agent+" needs is there")
		return
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n  fix: %s\n", p.What, p.Fix)
	}
}

// WriteJSON writes the report as one JSON object on one line.
func (r Report) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(r)
}

// size is a byte count for people: "340 KiB".
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// findVersion is the first version number in s: MAJOR.MINOR, an optional
// .PATCH, and an optional -pre-release or +build suffix of letters,
// digits and dots ("2.1.3", "0.61.0-nightly.2"). Plain string code, not
// a regular expression compiled at every start of todosh.
func findVersion(s string) string {
	digits := func(i int) int { // the end of the digits from i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i
	}
	for i := 0; i < len(s); i++ {
		major := digits(i)
		if major == i {
			continue
		}
		minor := major + 1
		if minor >= len(s) || s[major] != '.' || digits(minor) == minor {
			i = major // no version starts inside these digits either
			continue
		}
		end := digits(minor)
		if end+1 < len(s) && s[end] == '.' && digits(end+1) > end+1 {
			end = digits(end + 1)
		}
		if end+1 < len(s) && (s[end] == '-' || s[end] == '+') {
			suffix := end + 1
			for suffix < len(s) && (s[suffix] == '.' || '0' <= s[suffix] && s[suffix] <= '9' || 'a' <= s[suffix]|0x20 && s[suffix]|0x20 <= 'z') {
				suffix++
			}
			if suffix > end+1 {
				end = suffix
			}
		}
		return s[i:end]
	}
	return ""
}

// usageWords is what doctor says of an agent's usage reports.
func usageWords(b *backends.Backend) string {
	if b.Caps.Usage {
		return "reported: --budget-tokens and --budget-time hold it"
	}
	return "not reported: --budget-time only"
}
