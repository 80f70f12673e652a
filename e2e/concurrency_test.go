package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/todostore"
)

// mcpPipe is `todosh mcp` spoken to in raw JSON-RPC, one request at a
// time: its stdin stays open until every reply is read, so the test does
// not depend on what the server does at end of input.
type mcpPipe struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
	nextID int
}

// startMCPPipe starts `todosh mcp --session id` and initializes it.
func (h home) startMCPPipe(t *testing.T, id string) *mcpPipe {
	t.Helper()
	m := &mcpPipe{cmd: exec.Command(binary, "mcp", "--session", id)}
	m.cmd.Env, m.cmd.Dir = h.env(), h.dir
	var out io.ReadCloser
	m.in, out, m.stderr = startPiped(t, m.cmd)
	m.out = bufio.NewReaderSize(out, 1<<20)
	t.Cleanup(func() {
		m.in.Close()
		m.cmd.Process.Kill()
		m.cmd.Wait()
	})
	if _, err := m.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}}); err != nil {
		t.Fatalf("initialize: %v (stderr %q)", err, m.stderr.String())
	}
	if err := m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *mcpPipe) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = m.in.Write(append(data, '\n'))
	return err
}

// call sends one request and reads lines until its reply (skipping the
// server's notifications), and returns the reply's result.
func (m *mcpPipe) call(method string, params any) (json.RawMessage, error) {
	m.nextID++
	id := m.nextID
	if err := m.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := m.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("no reply to %s %d: %w", method, id, err)
		}
		var reply struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &reply); err != nil {
			return nil, fmt.Errorf("reply %q: %w", line, err)
		}
		if reply.ID == nil || *reply.ID != id {
			continue // a notification
		}
		if reply.Error != nil {
			return nil, fmt.Errorf("%s: error %d %s", method, reply.Error.Code, reply.Error.Message)
		}
		return reply.Result, nil
	}
}

// writeList calls todo_write with these pending items and returns the
// tool's text; a tool error is an error.
func (m *mcpPipe) writeList(items []string) (string, error) {
	todos := make([]map[string]any, len(items))
	for i, it := range items {
		todos[i] = map[string]any{"content": it, "status": "pending"}
	}
	text, isErr, err := m.callTool("todo_write", map[string]any{"todos": todos})
	if err == nil && isErr {
		err = fmt.Errorf("todo_write: %s", text)
	}
	return text, err
}

// ackedAdd is the change line of a /todo add that succeeded.
var ackedAdd = regexp.MustCompile(`(?m)^\+ \d+ "([a-z0-9-]+)"`)

// TestConcurrentStore runs, against one store, shells adding to session P
// (each a todosh process reading /todo add lines from stdin), an agent
// writing session M through `todosh mcp`, and a shell pruning every other
// session (/todo prune all --yes) once for each add the first shell
// acknowledges. Nothing is timed: each party runs a fixed number of
// operations, and then every acknowledged change is checked by count:
//   - no writer, MCP call or prune fails but for "nothing to prune";
//   - each shell's adds in P are a gap-free run ending at its last one (a
//     prune removes a whole prefix; a lost update would leave a hole), and
//     the adds made after the pruner stopped are all there;
//   - M holds every item the agent ever wrote (each todo_write restates
//     the whole list, so a prune is undone by the next write);
//   - no history line is torn, and each history ends with its file's list.
func TestConcurrentStore(t *testing.T) {
	const (
		shells   = 3
		perShell = 25 // then 5 more after the pruner stops: 90 items at most
		after    = 5
		agentOps = 40
	)
	h := newHome(t)
	for _, id := range []string{"P", "M"} {
		if r := h.script(t, h.dir, "", "--session", id, "-c", "/todo add seed"); r.code != 0 {
			t.Fatalf("prepare %s: %+v", id, r)
		}
	}
	// shell runs one todosh on session P that adds names, and returns the
	// names it acknowledged; each acknowledgement is also sent to acks
	// when it is not nil, as soon as it is printed.
	shell := func(names []string, acks chan<- string) ([]string, error) {
		var in strings.Builder
		for _, n := range names {
			in.WriteString("/todo add " + n + "\n")
		}
		cmd := exec.Command(binary, "--session", "P")
		cmd.Env, cmd.Dir = h.env(), h.dir
		cmd.Stdin = strings.NewReader(in.String())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		var acked []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := ackedAdd.FindStringSubmatch(sc.Text()); m != nil {
				acked = append(acked, m[1])
				if acks != nil {
					acks <- m[1]
				}
			}
		}
		err = cmd.Wait()
		if err != nil || stderr.Len() > 0 || len(acked) != len(names) {
			return acked, fmt.Errorf("%v, %d of %d adds acknowledged, stderr %q", err, len(acked), len(names), stderr.String())
		}
		return acked, nil
	}
	name := func(s, n int) string { return fmt.Sprintf("w%d-%d", s, n) }

	agent := h.startMCPPipe(t, "M")
	var agentList []string
	agentWrite := func() error {
		next := append(append([]string(nil), agentList...), fmt.Sprintf("m-%d", len(agentList)))
		if _, err := agent.writeList(next); err != nil {
			return err
		}
		agentList = next
		return nil
	}

	// The pruner prunes once for every add shell 0 acknowledges, so its
	// removals fall among the writes by count, whatever the machine's speed.
	acks := make(chan string)
	var wg sync.WaitGroup
	errs := make(chan error, shells+2)
	acked := make([][]string, shells)
	for s := 0; s < shells; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var names []string
			for n := 0; n < perShell; n++ {
				names = append(names, name(s, n))
			}
			var to chan<- string
			if s == 0 {
				to = acks
				defer close(acks)
			}
			got, err := shell(names, to)
			acked[s] = got
			if err != nil {
				errs <- fmt.Errorf("shell %d: %w", s, err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < agentOps; k++ {
			if err := agentWrite(); err != nil {
				errs <- fmt.Errorf("agent write %d: %w", k, err)
				return
			}
		}
	}()
	removals, prunes := 0, 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		cmd := exec.Command(binary, "--session", "pruner")
		cmd.Env, cmd.Dir = h.env(), h.dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		in, err := cmd.StdinPipe()
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			errs <- fmt.Errorf("pruner: %w", err)
			for range acks {
			}
			return
		}
		for range acks {
			io.WriteString(in, "/todo prune all --yes\n")
			prunes++
		}
		in.Close()
		cmd.Wait()
		removals = strings.Count(stdout.String(), "Removed ")
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			if line != "" && !strings.Contains(line, "nothing to prune") {
				errs <- fmt.Errorf("pruner: %s", line)
			}
		}
	}()
	wg.Wait()

	// The pruner has stopped: what is written now must all stay.
	for s := 0; s < shells; s++ {
		var names []string
		for n := perShell; n < perShell+after; n++ {
			names = append(names, name(s, n))
		}
		got, err := shell(names, nil)
		acked[s] = append(acked[s], got...)
		if err != nil {
			errs <- fmt.Errorf("shell %d after the pruner: %w", s, err)
		}
	}
	for k := 0; k < after; k++ {
		if err := agentWrite(); err != nil {
			errs <- fmt.Errorf("agent write after the pruner: %w", err)
		}
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if removals == 0 {
		t.Errorf("the pruner removed nothing (P and M existed when it started)")
	}

	store := h.store()
	p := loadItems(t, store, "P")
	for s := 0; s < shells; s++ {
		total := perShell + after
		first := -1
		for n := 0; n < total; n++ {
			in := p[name(s, n)]
			switch {
			case in > 1:
				t.Errorf("%s is in P %d times", name(s, n), in)
			case in == 1 && first < 0:
				first = n
			case in == 0 && first >= 0:
				t.Errorf("lost update: %s is not in P, though %s (added before it) and later adds are", name(s, n), name(s, first))
			}
		}
		if first < 0 || first > perShell {
			t.Errorf("shell %d: its adds after the pruner stopped are not all in P (first kept: %d)", s, first)
		}
		if len(acked[s]) != total {
			t.Errorf("shell %d: %d adds acknowledged, want %d", s, len(acked[s]), total)
		}
	}
	m := loadItems(t, store, "M")
	if len(m) != len(agentList) {
		t.Errorf("M holds %d items, the agent wrote %d", len(m), len(agentList))
	}
	for _, it := range agentList {
		if m[it] != 1 {
			t.Errorf("the agent's %s is in M %d times, want once", it, m[it])
		}
	}
	for _, id := range []string{"P", "M"} {
		lines, err := store.History(id)
		if err != nil {
			t.Errorf("history of %s: %v", id, err)
		}
		sess, _ := store.Load(id)
		if n := len(lines); n == 0 || sess == nil || !todolist.SameTodos(lines[n-1].Todos, sess.Todos) {
			t.Errorf("history of %s does not end with its file's list", id)
		}
	}
	t.Logf("%d shells × %d adds, %d agent writes, %d prune commands removing %d times; P holds %d items, M %d", shells, perShell+after, len(agentList), prunes, removals, len(p), len(m))

	concurrentPositions(t, h)
}

// callTool calls one todo tool through the pipe and returns its text and
// whether it is an error result.
func (m *mcpPipe) callTool(name string, args map[string]any) (string, bool, error) {
	raw, err := m.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", false, err
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	return b.String(), res.IsError, nil
}

var (
	// personAck is the change line of a /todo add N.last that succeeded.
	personAck = regexp.MustCompile(`^\+ \d+\.\d+ "(p\d+-\d+)"`)
	// firstItem is item 1 of a list the shell printed.
	firstItem = regexp.MustCompile(`^ *1\. \S+ (a\d)\b`)
	// stableIDs is the line of a todo_read reply that gives each
	// position's stable id.
	stableIDs = regexp.MustCompile(`(\d+\.\d+) (s\d+)`)
)

// concurrentPositions runs, on one session an agent's hooks mirror
// (claude-H), hook runs that reorder the agent's ten items (each a
// `todosh hook claude tool` process with Claude's TodoWrite), shells that
// each show the list and add a person's subtask to its item 1 (/todo add
// 1.last), and an MCP client that ticks subtasks by the positions its
// todo_read showed. Then, counted: every acknowledged person subtask is
// there once, under the item that was 1 in the list its shell showed last
// (never another); every acknowledged tick is on the subtask its position
// named when it was read, and no other subtask is ticked.
func concurrentPositions(t *testing.T, h home) {
	const (
		id      = "claude-H"
		items   = 10
		hooks   = 20
		shells  = 3
		perShel = 8
		ticks   = 12
	)
	hook := func(order []int) error {
		var todos []map[string]string
		for _, k := range order {
			todos = append(todos, map[string]string{"content": fmt.Sprintf("a%d", k), "status": "pending", "activeForm": "doing it"})
		}
		in, _ := json.Marshal(map[string]any{"session_id": "H", "cwd": h.dir, "hook_event_name": "PostToolUse",
			"tool_name": "TodoWrite", "tool_input": map[string]any{"todos": todos}, "tool_response": map[string]any{}})
		c := exec.Command(binary, "hook", "claude", "tool")
		c.Env, c.Dir, c.Stdin = h.env(), h.dir, bytes.NewReader(in)
		if out, err := c.CombinedOutput(); err != nil || len(out) > 0 {
			return fmt.Errorf("hook: %v %q", err, out)
		}
		return nil
	}
	order := make([]int, items)
	for k := range order {
		order[k] = k
	}
	if err := hook(order); err != nil {
		t.Fatal(err)
	}
	// The agent's subtasks, through its MCP server: a<k>-x<j>.
	mc := h.startMCPPipe(t, id)
	var todos []map[string]any
	for k := 0; k < items; k++ {
		var subs []map[string]any
		for j := 0; j < 3; j++ {
			subs = append(subs, map[string]any{"content": fmt.Sprintf("a%d-x%d", k, j), "status": "pending"})
		}
		todos = append(todos, map[string]any{"content": fmt.Sprintf("a%d", k), "status": "pending", "subtasks": subs})
	}
	if text, isErr, err := mc.callTool("todo_write", map[string]any{"todos": todos}); err != nil || isErr {
		t.Fatalf("todo_write: %v %s", err, text)
	}

	var wg sync.WaitGroup
	errs := make(chan error, hooks+shells+1)
	wg.Add(1)
	go func() { // the hooks: each a rotation of the list, reversed every other time
		defer wg.Done()
		for r := 1; r <= hooks; r++ {
			next := make([]int, items)
			for k := range next {
				next[k] = (k + r) % items
				if r%2 == 1 {
					next[k] = (items - 1 - k + r) % items
				}
			}
			if err := hook(next); err != nil {
				errs <- err
				return
			}
		}
	}()
	// The shells: for each add, the item it was meant for (item 1 of the
	// list the shell showed last) and the acknowledgement.
	type add struct{ name, meant string }
	adds := make([][]add, shells)
	for sh := 0; sh < shells; sh++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var in strings.Builder
			for n := 0; n < perShel; n++ {
				fmt.Fprintf(&in, "/todo show\n/todo add 1.last p%d-%d\n", sh, n)
			}
			cmd := exec.Command(binary, "--session", id)
			cmd.Env, cmd.Dir = h.env(), h.dir
			cmd.Stdin = strings.NewReader(in.String())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs <- fmt.Errorf("shell %d: %v %s", sh, err, stderr.String())
				return
			}
			meant := ""
			for _, line := range strings.Split(string(out), "\n") {
				if m := firstItem.FindStringSubmatch(line); m != nil {
					meant = m[1]
				}
				if m := personAck.FindStringSubmatch(line); m != nil {
					adds[sh] = append(adds[sh], add{m[1], meant})
				}
			}
			// A refusal names what left the list; nothing else may fail.
			for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if line != "" && !strings.Contains(line, "which is no longer on the list") {
					errs <- fmt.Errorf("shell %d: %s", sh, line)
				}
			}
		}()
	}
	// The MCP client: read, then tick by the position the read showed.
	ticked := map[string]string{} // stable id → the position it was ticked by
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < ticks; k++ {
			text, isErr, err := mc.callTool("todo_read", map[string]any{})
			if err != nil || isErr {
				errs <- fmt.Errorf("todo_read: %v %s", err, text)
				return
			}
			// The k-th agent subtask not ticked yet, by its position.
			pos, uid := "", ""
			for _, m := range stableIDs.FindAllStringSubmatch(text, -1) {
				if _, done := ticked[m[2]]; !done && strings.Contains(text, m[1]+" [ ] \"a") {
					pos, uid = m[1], m[2]
					break
				}
			}
			if pos == "" {
				errs <- fmt.Errorf("no open agent subtask in %s", text)
				return
			}
			if text, isErr, err := mc.callTool("todo_tick", map[string]any{"id": pos}); err != nil {
				errs <- err
				return
			} else if !isErr {
				ticked[uid] = pos
			} else if !strings.Contains(text, "no longer on the list") {
				errs <- fmt.Errorf("todo_tick %s: %s", pos, text)
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	sess, err := h.store().Load(id)
	if err != nil {
		t.Fatal(err)
	}
	parent := map[string]string{} // person subtask → its item
	count := map[string]int{}
	for _, td := range sess.Todos {
		for _, st := range td.Subtasks {
			if st.Origin == todolist.OriginPerson {
				parent[st.Content] = td.Content
				count[st.Content]++
			}
			_, want := ticked[st.UID]
			if got := st.Status == todolist.Completed; got != want {
				t.Errorf("subtask %s %q: completed %v, acknowledged tick %v (a tick by position landed on another subtask)", st.UID, st.Content, got, want)
			}
		}
	}
	acked := 0
	for sh := range adds {
		for _, a := range adds[sh] {
			acked++
			switch {
			case count[a.name] != 1:
				t.Errorf("the person's %s is on the list %d times, want once", a.name, count[a.name])
			case parent[a.name] != a.meant:
				t.Errorf("the person's %s is under %s, but item 1 of the list its shell showed was %s", a.name, parent[a.name], a.meant)
			}
		}
	}
	if len(count) != acked {
		t.Errorf("%d person subtasks on the list, %d acknowledged", len(count), acked)
	}
	if acked == 0 || len(ticked) == 0 {
		t.Errorf("%d person subtasks and %d ticks acknowledged: nothing was tested", acked, len(ticked))
	}
	t.Logf("%d hook runs reordering; %d of %d person subtasks acknowledged, %d of %d ticks by position (each checked above)",
		hooks, acked, shells*perShel, len(ticked), ticks)
}

// loadItems counts the items of session id by text (the seed excluded).
func loadItems(t *testing.T, store *todostore.Store, id string) map[string]int {
	t.Helper()
	sess, err := store.Load(id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	items := map[string]int{}
	for _, td := range sess.Todos {
		if td.Content != "seed" {
			items[td.Content]++
		}
	}
	return items
}
