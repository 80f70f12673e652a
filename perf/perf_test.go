package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/internal/benchcpu"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/mcpserver"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

// pair times floor and op alternately, b.N times each, so a change in the
// machine's load hits both alike, and reports each one's mean wall time,
// the ratio op/floor of wall time (the figure docs/performance.md gives)
// and of CPU time (this process's, every thread; with children's for
// programs it runs), which a busy machine disturbs less.
func pair(b *testing.B, floor func() error, op func(i int) error) {
	b.Helper()
	pairUpTo(b, 0, floor, op)
}

// pairUpTo is pair for a slow pair: at most limit of the b.N iterations
// run it (0: all), so one -benchtime serves every benchmark of the
// package.
func pairUpTo(b *testing.B, limit int, floor func() error, op func(i int) error) {
	b.Helper()
	// A test binary's changes check that they left the store's cache as it
	// was (todostore/apply.go), copying the list: not what is measured.
	b.Setenv("TODOSH_NO_SHARED_CHECK", "1")
	var tf, to, cf, co time.Duration
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if limit > 0 && i >= limit {
			continue
		}
		c0, t0 := cpu(), time.Now()
		if err := floor(); err != nil {
			b.Fatal(err)
		}
		c1, t1 := cpu(), time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		to += time.Since(t1)
		co += cpu() - c1
		tf += t1.Sub(t0)
		cf += c1 - c0
		i++
	}
	n := float64(i)
	b.ReportMetric(float64(tf.Microseconds())/n, "floor-µs")
	b.ReportMetric(float64(to.Microseconds())/n, "todosh-µs")
	b.ReportMetric(float64(cf.Microseconds())/n, "floor-cpu-µs")
	b.ReportMetric(float64(co.Microseconds())/n, "todosh-cpu-µs")
	b.ReportMetric(float64(to)/float64(tf), "ratio")
	b.ReportMetric(float64(co)/float64(max(cf, 1)), "cpu-ratio")
}

// cpu is the CPU time of this process and its waited-for children.
func cpu() time.Duration { return benchcpu.WithChildren() }

// list is n items of typical text, each with subs subtasks.
func list(n, subs int) []todolist.Todo {
	var l []todolist.Todo
	for i := 0; i < n; i++ {
		t := todolist.Todo{Content: fmt.Sprintf("item %d: implement the part of the feature that handles case %d", i, i), Status: todolist.Pending}
		for j := 0; j < subs; j++ {
			t.Subtasks = append(t.Subtasks, todolist.Subtask{Content: fmt.Sprintf("step %d of item %d, checked by its test", j, i), Status: todolist.Pending})
		}
		l = append(l, t)
	}
	todolist.Normalize(l)
	return l
}

func newStore(b *testing.B, id string, todos []todolist.Todo) *todostore.Store {
	b.Helper()
	s := todostore.Open(b.TempDir())
	if _, err := s.Update(id, func(sess *todostore.Session) error { sess.Todos = todos; return nil }); err != nil {
		b.Fatal(err)
	}
	return s
}

// floorFor is the floor of a change to session id: the same bytes as its
// file and its last history line.
func floorFor(b *testing.B, s *todostore.Store, id string) *Floor {
	b.Helper()
	data, err := os.ReadFile(s.Path(id))
	if err != nil {
		b.Fatal(err)
	}
	hist, err := os.ReadFile(s.SessionHistoryPath(id))
	if err != nil {
		b.Fatal(err)
	}
	line := hist
	if i := lastLineStart(hist); i >= 0 {
		line = hist[i:]
	}
	return &Floor{Dir: b.TempDir(), Data: data, Line: line}
}

func lastLineStart(h []byte) int {
	for i := len(h) - 2; i >= 0; i-- {
		if h[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// BenchmarkChange is one change made through the store (a status toggle,
// or a subtask ticked) at list sizes up to the largest, against the floor
// writing the same bytes. Target: ratio ≤ 1.3 at every size.
func BenchmarkChange(b *testing.B) {
	for _, size := range []struct{ items, subs int }{{1, 0}, {10, 0}, {100, 0}, {20, 50}} {
		b.Run(fmt.Sprintf("items=%d,subtasks=%d", size.items, size.items*size.subs), func(b *testing.B) {
			s := newStore(b, "bench", list(size.items, size.subs))
			change := func(i int) error {
				_, changed, err := s.Commit("bench", todolist.ByYou, func(sess *todostore.Session) error {
					k := i % size.items
					if size.subs > 0 {
						st := todolist.Completed
						if sess.Todos[k].Subtasks[0].Status == st {
							st = todolist.Pending
						}
						return todolist.SetSubtaskStatus(sess.Todos, k, 0, st)
					}
					st := todolist.Completed
					if sess.Todos[k].Status == st {
						st = todolist.Pending
					}
					return todolist.SetStatus(sess.Todos, k, st)
				})
				if err == nil && !changed {
					err = fmt.Errorf("change %d changed nothing", i)
				}
				return err
			}
			if err := change(0); err != nil { // so the floor copies a change's history line
				b.Fatal(err)
			}
			fl := floorFor(b, s, "bench")
			pair(b, fl.Change, func(i int) error { return change(i + 1) })
		})
	}
}

// BenchmarkMCPTick is a todo_tick through todosh's MCP server (in
// memory, over pipes, from the MCP Go SDK's client: the JSON-RPC framing
// both ways, the tool and the store) on a list of 20 items of 50
// subtasks, against the floor. Target: ratio ≤ 2.
func BenchmarkMCPTick(b *testing.B) {
	s := newStore(b, "mcp", list(20, 50))
	ctx := context.Background()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go func() {
		mcpserver.New(mcpserver.Config{Store: s, Cwd: "/src"}, "mcp").Run(ctx, &mcpserver.Stdio{In: sr, Out: sw})
		sw.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	tick := func(i int) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_tick", Arguments: map[string]any{"id": fmt.Sprintf("%d.%d", i%20+1, i/20%50+1)}})
		if err == nil && res.IsError {
			data, _ := json.Marshal(res.Content)
			err = fmt.Errorf("todo_tick: %s", data)
		}
		return err
	}
	// The agent reads the list first: a tick by position is taken only on
	// a list it has seen (agent/todotools), and each tick's reply keeps
	// it seen.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_read", Arguments: map[string]any{}}); err != nil {
		b.Fatal(err)
	}
	if err := tick(0); err != nil {
		b.Fatal(err)
	}
	fl := floorFor(b, s, "mcp")
	pair(b, fl.Change, func(i int) error { return tick(i + 1) })
}

// lazy is an agent that replies and changes nothing.
type lazy struct{}

func (lazy) Name() string     { return "lazy" }
func (lazy) TodoTool() string { return "todo_write" }
func (lazy) RunTurn(_ context.Context, _ agent.Turn, emit func(agent.Event)) (agent.Result, error) {
	emit(agent.Event{Kind: agent.EventText, Text: "nothing to do"})
	return agent.Result{FinalText: "nothing to do"}, nil
}

// BenchmarkUnchangedTurn is a prompt whose turn changes nothing, with 100
// open items against an empty list: what the shell costs around a turn
// (the prompt's rule, loads, the todo context, the render). Target:
// ratio ≤ 1.5.
func BenchmarkUnchangedTurn(b *testing.B) {
	runner := func(todos []todolist.Todo) *repl.TurnRunner {
		s := todostore.Open(b.TempDir())
		if len(todos) > 0 {
			s = newStore(b, "t", todos)
		}
		return &repl.TurnRunner{Agent: lazy{}, Session: agent.Session{Store: s, ID: "t"}, Policy: continuation.New(), Out: io.Discard}
	}
	empty, full := runner(nil), runner(list(100, 0))
	ctx := context.Background()
	pair(b, func() error { _, err := empty.RunPrompt(ctx, "go on"); return err },
		func(int) error { _, err := full.RunPrompt(ctx, "go on"); return err })
}

// BenchmarkHistory1000 makes 1,000 changes to a 99-item list and reports
// how many of them the history keeps and its size. Target: kept = 1000.
// The figures are counts: the changes are made once, whatever b.N is, so
// one -benchtime serves every benchmark here.
func BenchmarkHistory1000(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		if i > 0 {
			continue
		}
		s := newStore(b, "h", list(99, 0))
		for i := 0; i < 1000; i++ {
			if _, err := s.Update("h", func(sess *todostore.Session) error {
				k := i % 99
				st := todolist.Completed
				if sess.Todos[k].Status == st {
					st = todolist.Pending
				}
				return todolist.SetStatus(sess.Todos, k, st)
			}); err != nil {
				b.Fatal(err)
			}
		}
		lines, err := s.History("h")
		if err != nil {
			b.Fatal(err)
		}
		info, _ := os.Stat(s.SessionHistoryPath("h"))
		b.ReportMetric(float64(len(lines)-1), "kept") // the first line is the list's start, not a change
		b.ReportMetric(float64(info.Size())/1024, "KiB")
	}
}

// build compiles pkg to a binary in dir with the given environment.
func build(b *testing.B, dir, name, pkg string, env ...string) string {
	b.Helper()
	out := testenv.Exe(filepath.Join(dir, name))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// BenchmarkStartup execs `todosh --version`, built as the install command
// builds it (CGO_ENABLED=0), and a static hello world, alternately (40
// pairs at most).
// Target: ratio ≤ 1.5. The cgo sub-benchmark is the default build, for
// comparison.
func BenchmarkStartup(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("measured on Linux")
	}
	dir := b.TempDir()
	hello := build(b, dir, "hello", "github.com/todosh/todosh/perf/hello", "CGO_ENABLED=0")
	for _, v := range []struct{ name, cgo string }{{"static", "CGO_ENABLED=0"}, {"cgo", "CGO_ENABLED=1"}} {
		todosh := build(b, dir, "todosh-"+v.name, "github.com/todosh/todosh", v.cgo)
		b.Run(v.name, func(b *testing.B) {
			run := func(bin string, args ...string) func() error {
				return func() error {
					cmd := exec.Command(bin, args...)
					cmd.Env = []string{"HOME=" + dir, "TODOSH_HOME=" + dir}
					return cmd.Run()
				}
			}
			pairUpTo(b, 40, run(hello), func(int) error { return run(todosh, "--version")() })
		})
	}
}

// BenchmarkHook is a hook's whole run as an agent starts it, `todosh
// hook claude Stop` with Claude Code's Stop payload on stdin (the session
// it names has no list, so todosh lets the agent stop), against a static
// hello: process start-up, the payload, the store and the decision.
func BenchmarkHook(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("measured on Linux")
	}
	dir := b.TempDir()
	hello := build(b, dir, "hello", "github.com/todosh/todosh/perf/hello", "CGO_ENABLED=0")
	todosh := build(b, dir, "todosh", "github.com/todosh/todosh", "CGO_ENABLED=0")
	payload := `{"session_id":"73d441fa-64db-4d2f-974c-e9b3ed4d7cd3","transcript_path":"` + filepath.Join(dir, "t.jsonl") +
		`","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,` +
		`"last_assistant_message":"I've set up the project skeleton and started on the parser. I'll stop here for now."}` + "\n"
	run := func(bin string, stdin string, args ...string) func() error {
		return func() error {
			cmd := exec.Command(bin, args...)
			cmd.Env = []string{"HOME=" + dir, "TODOSH_HOME=" + filepath.Join(dir, "store")}
			cmd.Stdin = strings.NewReader(stdin)
			return cmd.Run()
		}
	}
	pairUpTo(b, 40, run(hello, ""), func(int) error { return run(todosh, payload, "hook", "claude", "Stop")() })
}

// BenchmarkList10000 is the store's listing of 10,000 sessions against
// its floor, a readdir and a stat of each entry (10 pairs at most).
// Target: ratio ≤ 1.1.
func BenchmarkList10000(b *testing.B) {
	s := todostore.Open(b.TempDir())
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"version":1,"todos":[{"id":"1","content":"first","status":"pending"}]}` + "\n")
	for i := 0; i < 10000; i++ {
		id := fmt.Sprintf("20261121-%06d-%04x", i, i)
		if err := os.WriteFile(s.Path(id), data, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(s.SessionHistoryPath(id), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	floor := func() error {
		entries, err := os.ReadDir(s.Dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if _, err := os.Lstat(filepath.Join(s.Dir, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	pairUpTo(b, 10, floor, func(int) error {
		entries, err := s.List()
		if err == nil && len(entries) != 10000 {
			err = fmt.Errorf("listed %d sessions", len(entries))
		}
		return err
	})
}
