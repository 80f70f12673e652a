// Command fakecli stands in for the wrapped CLIs (claude, codex, gemini,
// qwen, pi) in tests. It finds which CLI it plays from its name (or
// FAKECLI_KIND), reads that CLI's resume flag, reads its prompt from stdin
// as the real CLIs do, records its arguments, prompt and todo context
// file, and replays a recorded transcript: FAKECLI_RUN1 for a new session,
// FAKECLI_RESUME when asked to resume FAKECLI_SESSION (any other id fails
// with the message the real CLI prints for a session that is gone).
//
// FAKECLI_LINE_DELAY (a duration) paces the replay line by line.
// FAKECLI_MODE changes what it does: "fail" writes FAKECLI_STDERR (say, a
// usage complaint and the help text) and exits 3; "sleep" starts a child in
// its process group, writes "pid child" to FAKECLI_PIDFILE and falls silent
// (FAKECLI_IGNORE_TERM=1 makes both ignore SIGTERM); "retry" starts such a
// child and then reports, every FAKECLI_LINE_DELAY (default 20ms) forever,
// the kind's own retry line (Claude's api_retry, Codex's "Reconnecting...",
// pi's auto_retry_start; Gemini CLI's and Qwen Code's retry lines on
// standard error); "stray" replays, then exits leaving such a child;
// "child" is that child.
//
// FAKECLI_USAGE=IN,OUT is the "reports usage" scenario (usage.go).
//
// FAKECLI_CLAUDE_RULE=1 plays Claude Code 2.1.328's rule for claude: its
// init line lists the todo tools (TodoWrite, TaskCreate, TaskGet,
// TaskList, TaskUpdate) only when CLAUDE_CODE_ENABLE_TODO_TOOLS=1 is in its
// environment, and lists the tools of an --mcp-config server (their names
// from --allowedTools) with the server's status (FAKECLI_MCP_STATUS,
// default "connected"; a server that is not connected lends no tools).
// Without the todo tools the model has none to call: the turn is one
// reply in prose.
//
// FAKECLI_WORK=1 makes the agent work ("runs a command, then marks done"):
// before every transcript line that marks something done, the kind's own
// lines of a command (WorkCommand) that ran and succeeded, so todosh's
// receipts see work for the item in progress. Without it a transcript
// recorded against a scripted model marks items done without working.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("FAKECLI_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	mode := os.Getenv("FAKECLI_MODE")
	if mode == "child" {
		time.Sleep(time.Hour)
		return
	}
	kind := os.Getenv("FAKECLI_KIND")
	if kind == "" {
		kind = filepath.Base(os.Args[0])
	}
	args := os.Args[1:]
	resume := resumeID(kind, args)
	stdin, _ := io.ReadAll(os.Stdin)
	if err := record(args, resume, string(stdin), contextFile(args)); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(2)
	}
	switch mode {
	case "fail":
		fmt.Fprint(os.Stderr, os.Getenv("FAKECLI_STDERR"))
		os.Exit(3)
	case "sleep":
		sleepWithChild()
		return
	case "retry":
		retryForever(kind)
		return
	case "stray":
		// Replay, then leave a child holding standard output and exit.
		defer startChild()
	}
	src := os.Getenv("FAKECLI_RUN1")
	if resume != "" {
		if want := os.Getenv("FAKECLI_SESSION"); resume != want {
			fmt.Fprintln(os.Stderr, goneMessage(kind, resume))
			os.Exit(1)
		}
		src = os.Getenv("FAKECLI_RESUME")
	}
	if kind == "claude" && os.Getenv("FAKECLI_CLAUDE_RULE") == "1" {
		var err error
		if src, err = claudeRule(src, args); err != nil {
			fmt.Fprintln(os.Stderr, "fakecli:", err)
			os.Exit(2)
		}
		defer os.Remove(src)
	}
	if os.Getenv("FAKECLI_WORK") == "1" {
		var err error
		if src, err = withWork(src, kind); err != nil {
			fmt.Fprintln(os.Stderr, "fakecli:", err)
			os.Exit(2)
		}
		defer os.Remove(src)
	}
	if err := replay(src, os.Getenv("FAKECLI_LINE_DELAY"), newUsagePlay(kind)); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(2)
	}
}

// claudeTodoTools are the tools Claude Code 2.1.328 hides without
// CLAUDE_CODE_ENABLE_TODO_TOOLS=1.
var claudeTodoTools = map[string]bool{"TodoWrite": true, "TaskCreate": true, "TaskGet": true, "TaskList": true, "TaskUpdate": true}

// claudeRule writes the stream Claude Code 2.1.328 would write for the
// transcript at src with these arguments and environment (see the package
// doc) to a temporary file and returns its path.
func claudeRule(src string, args []string) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	first, rest, _ := strings.Cut(string(data), "\n")
	var init map[string]any
	if err := json.Unmarshal([]byte(first), &init); err != nil {
		return "", fmt.Errorf("%s: the first line is no init line: %w", src, err)
	}
	enabled := os.Getenv("CLAUDE_CODE_ENABLE_TODO_TOOLS") == "1"
	var tools []any
	for _, t := range init["tools"].([]any) {
		if name, _ := t.(string); enabled || !claudeTodoTools[name] {
			tools = append(tools, t)
		}
	}
	status := os.Getenv("FAKECLI_MCP_STATUS")
	if status == "" {
		status = "connected"
	}
	servers := []any{}
	for i, a := range args {
		if a == "--mcp-config" && i+1 < len(args) {
			var cfg struct {
				MCPServers map[string]any `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(args[i+1]), &cfg); err != nil {
				return "", fmt.Errorf("--mcp-config: %w", err)
			}
			for name := range cfg.MCPServers {
				servers = append(servers, map[string]any{"name": name, "status": status})
			}
		}
		if a == "--allowedTools" && i+1 < len(args) && status == "connected" {
			for _, t := range strings.Split(args[i+1], ",") {
				if strings.HasPrefix(t, "mcp__") {
					tools = append(tools, t)
				}
			}
		}
	}
	init["tools"], init["mcp_servers"] = tools, servers
	line, err := json.Marshal(init)
	if err != nil {
		return "", err
	}
	out := string(line) + "\n"
	if enabled {
		out += rest
	} else {
		id, _ := init["session_id"].(string)
		out += `{"type":"assistant","message":{"id":"msg_plain","type":"message","role":"assistant","content":[{"type":"text","text":"I have no todo tool here, so the plan is in prose: skeleton, parser, tests."}],"stop_reason":null},"parent_tool_use_id":null,"session_id":"` + id + `"}` + "\n" +
			`{"type":"result","subtype":"success","is_error":false,"stop_reason":"end_turn","session_id":"` + id + `","result":"I have no todo tool here, so the plan is in prose: skeleton, parser, tests."}` + "\n"
	}
	f, err := os.CreateTemp("", "fakecli-claude-*.jsonl")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(out)
	return f.Name(), err
}

// replay copies the transcript at src to standard output, waiting delay
// (a time.ParseDuration string, or empty for none) before each line, the
// way a CLI waits for its model.
func replay(src, delay string, usage *usagePlay) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	if delay == "" && usage == nil {
		_, err = io.Copy(os.Stdout, f)
		return err
	}
	var d time.Duration
	if delay != "" {
		if d, err = time.ParseDuration(delay); err != nil {
			return err
		}
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			time.Sleep(d)
			if usage != nil {
				nl := line[len(line)-1] == '\n'
				line = usage.line(bytes.TrimSuffix(line, []byte("\n")))
				if nl {
					line = append(line, '\n')
				}
			}
			if _, werr := os.Stdout.Write(line); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// resumeID is the session the arguments ask to resume, as each CLI reads it:
// `--resume ID` for claude, gemini and qwen, `exec ... resume ID -` for
// codex, `--session ID` for pi.
func resumeID(kind string, args []string) string {
	flag := map[string]string{"codex": "resume", "pi": "--session"}[kind]
	if flag == "" {
		flag = "--resume"
	}
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// goneMessage is what each real CLI prints when the session it was asked
// to resume does not exist (from their sources and recorded runs).
func goneMessage(kind, id string) string {
	switch kind {
	case "codex":
		return "Reading prompt from stdin...\nError: thread/resume: thread/resume failed: no rollout found for thread id " + id + " (code -32600)"
	case "gemini":
		return "Error resuming session: Invalid session identifier \"" + id + "\"."
	case "qwen":
		return "No saved session found with ID " + id + "."
	case "pi":
		return "No session found matching '" + id + "'"
	}
	return "No conversation found with session ID: " + id
}

// contextFile is the path given to the todo context flag, if any.
func contextFile(args []string) string {
	for i, a := range args {
		if (a == "--append-system-prompt-file" || a == "--append-system-prompt") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// retryForever plays a CLI that cannot reach its model and never gives up.
func retryForever(kind string) {
	startChild()
	d, err := time.ParseDuration(os.Getenv("FAKECLI_LINE_DELAY"))
	if err != nil {
		d = 20 * time.Millisecond
	}
	switch kind {
	case "codex":
		fmt.Println(`{"type":"thread.started","thread_id":"t-retry"}`)
	case "pi":
		fmt.Println(`{"type":"session","version":3,"id":"p-retry","timestamp":"2026-11-23T10:00:00.000Z","cwd":"/tmp"}`)
	case "gemini":
		fmt.Println(`{"type":"init","timestamp":"2026-11-23T10:00:00.000Z","session_id":"g-retry","model":"gemini-2.5-pro"}`)
	case "qwen":
		fmt.Println(`{"type":"system","subtype":"init","uuid":"q-retry","session_id":"q-retry","tools":["todo_write"]}`)
	default:
		fmt.Println(`{"type":"system","subtype":"init","session_id":"c-retry","tools":["TodoWrite"]}`)
	}
	for i := 1; ; i++ {
		switch kind {
		case "codex":
			fmt.Printf(`{"type":"error","message":"Reconnecting... %d/5 (stream disconnected before completion: error sending request)"}`+"\n", i%5+1)
		case "pi":
			fmt.Printf(`{"type":"auto_retry_start","attempt":%d,"maxAttempts":3,"delayMs":2000,"errorMessage":"Connection error."}`+"\n", i)
		case "gemini":
			// Gemini CLI's retries show only on its standard error.
			fmt.Fprintf(os.Stderr, "Attempt %d failed with status 429. Retrying with backoff... ApiError: Resource has been exhausted\n", i)
		case "qwen":
			fmt.Fprintf(os.Stderr, "[qwen-code] Waiting for API capacity... attempt %d, retry in 45s\n", i)
		default:
			fmt.Printf(`{"type":"system","subtype":"api_retry","attempt":%d,"max_retries":10,"retry_delay_ms":600,"error_status":null,"error":"unknown","session_id":"c-retry"}`+"\n", i)
		}
		time.Sleep(d)
	}
}

// record appends one JSON line about this run to FAKECLI_RECORD: its
// arguments, its prompt, the todo context file's text and mode, and the
// TODOSH_SESSION it was given.
func record(args []string, resume, stdin, ctxFile string) error {
	path := os.Getenv("FAKECLI_RECORD")
	if path == "" {
		return nil
	}
	wd, _ := os.Getwd()
	todoTools, set := os.LookupEnv("CLAUDE_CODE_ENABLE_TODO_TOOLS")
	if !set {
		todoTools = "(unset)"
	}
	rec := map[string]any{"argv": args, "resume": resume, "stdin": stdin, "dir": wd, "todoshSession": os.Getenv("TODOSH_SESSION"),
		"claudeTodoTools": todoTools}
	if ctxFile != "" {
		if fi, err := os.Stat(ctxFile); err == nil {
			data, _ := os.ReadFile(ctxFile)
			rec["context"], rec["contextMode"] = string(data), fmt.Sprintf("%o", fi.Mode().Perm())
		}
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

func sleepWithChild() {
	fmt.Println(`{"type":"system","subtype":"init","session_id":"sleepy","tools":[]}`)
	startChild()
	time.Sleep(time.Hour)
}

// startChild starts a child that holds standard output open, as a stray
// tool process would, and writes "pid child" to FAKECLI_PIDFILE.
func startChild() {
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "FAKECLI_MODE=child")
	child.Stdout = os.Stdout
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(2)
	}
	pids := fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)
	if err := os.WriteFile(os.Getenv("FAKECLI_PIDFILE")+".tmp", []byte(pids), 0o644); err == nil {
		_ = os.Rename(os.Getenv("FAKECLI_PIDFILE")+".tmp", os.Getenv("FAKECLI_PIDFILE"))
	}
}

// WorkCommand is the command FAKECLI_WORK=1 runs; tests leave its tool
// lines out of what they compare with the transcripts' golden files.
const WorkCommand = "fake-work"

// workLines are a command that started and succeeded, in each kind's
// stream; %[1]d numbers the call.
var workLines = map[string]string{
	"claude": `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_work_%[1]d","name":"Bash","input":{"command":"` + WorkCommand + `"}}]},"parent_tool_use_id":null}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_work_%[1]d","content":"ok","is_error":false}]},"parent_tool_use_id":null}` + "\n",
	"codex": `{"type":"item.started","item":{"id":"work_%[1]d","type":"command_execution","command":"` + WorkCommand + `","aggregated_output":"","exit_code":null,"status":"in_progress"}}` + "\n" +
		`{"type":"item.completed","item":{"id":"work_%[1]d","type":"command_execution","command":"` + WorkCommand + `","aggregated_output":"ok","exit_code":0,"status":"completed"}}` + "\n",
	"gemini": `{"type":"tool_use","tool_name":"run_shell_command","tool_id":"work_%[1]d","parameters":{"command":"` + WorkCommand + `"}}` + "\n" +
		`{"type":"tool_result","tool_id":"work_%[1]d","status":"success","output":"ok"}` + "\n",
	"pi": `{"type":"tool_execution_start","toolCallId":"work_%[1]d","toolName":"bash","args":{"command":"` + WorkCommand + `"}}` + "\n" +
		`{"type":"tool_execution_end","toolCallId":"work_%[1]d","toolName":"bash","result":{},"isError":false}` + "\n",
}

// withWork writes a copy of the transcript src with a command's lines
// before each line that marks something done, and returns its path.
func withWork(src, kind string) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	work := workLines[kind]
	if kind == "qwen" {
		work = workLines["claude"]
	}
	var b strings.Builder
	n := 0
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.Contains(line, `"completed"`) || strings.Contains(line, `"done":true`) {
			n++
			fmt.Fprintf(&b, work, n)
		}
		b.WriteString(line)
	}
	f, err := os.CreateTemp("", "fakecli-work-*.jsonl")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(b.String())
	return f.Name(), err
}
