package clis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/internal/benchcpu"
	"github.com/todosh/todosh/internal/testenv"
	"github.com/todosh/todosh/todostore"
)

// benchStreamSize is the size of the synthetic streams of BenchmarkParse*.
const benchStreamSize = 100 << 20

// The synthetic streams are turns of real transcript lines: the CLI's
// opening line, benchTurnLines other lines, its closing line; every
// benchTodoEvery lines a group of todo lines (a run of consecutive ones in
// a transcript, so tool calls and their results stay together) goes in.
const (
	benchTurnLines = 200
	benchTodoEvery = 1000
)

var (
	benchStreamsMu sync.Mutex
	benchStreams   = map[string][]byte{}
)

// isTodoLine says whether a transcript line changes the list: a todo tool
// call, a Task tool result, a Codex todo_list item.
func isTodoLine(line []byte) bool {
	for _, m := range []string{`"name":"TodoWrite"`, `"name":"TaskCreate"`, `"name":"TaskUpdate"`, `"tool_use_result":{"task"`, `"statusChange"`, `"type":"todo_list"`, `"tool_name":"write_todos"`} {
		if bytes.Contains(line, []byte(m)) {
			return true
		}
	}
	return false
}

// lineRole sorts the other lines: the opening of a turn, its end, or body.
func lineRole(line []byte) string {
	switch {
	case bytes.Contains(line, []byte(`"subtype":"init"`)), bytes.HasPrefix(line, []byte(`{"type":"init"`)), bytes.HasPrefix(line, []byte(`{"type":"thread.started"`)):
		return "head"
	case bytes.HasPrefix(line, []byte(`{"type":"result"`)), bytes.HasPrefix(line, []byte(`{"type":"turn.completed"`)):
		return "tail"
	}
	return "body"
}

// benchToolOutput is, per CLI, the shape of a tool result line holding
// %s (a JSON string body), after each CLI's documented stream format. The
// recordings have no such lines; the *WithToolOutput benchmarks add them.
var benchToolOutput = map[string]string{
	"claude": `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_bench","type":"tool_result","content":"%s"}]},"parent_tool_use_id":null,"session_id":"f3b303c4-9b82-483f-a4f8-445bb003551f","uuid":"2a485b74-95a7-4ba7-aa87-668861a029a8"}`,
	"codex":  `{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"bash -lc 'cat data.jsonl'","aggregated_output":"%s","exit_code":0,"status":"completed"}}`,
	"gemini": `{"type":"tool_result","timestamp":"2026-11-21T22:38:15.558Z","tool_id":"run_shell_command_1","status":"success","output":"%s"}`,
}

// benchOutputLine is a tool result line of kind holding ~16 KiB of
// transcript text, escaped as JSON escapes it.
func benchOutputLine(b *testing.B, kind string) []byte {
	var raw []byte
	for _, f := range transcriptFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		raw = append(raw, data...)
	}
	for len(raw) < 16<<10 {
		raw = append(raw, raw...)
	}
	quoted, err := json.Marshal(string(raw[:16<<10]))
	if err != nil {
		b.Fatal(err)
	}
	return []byte(fmt.Sprintf(benchToolOutput[kind], quoted[1:len(quoted)-1]))
}

// benchStream builds, once per CLI, a ~100 MB stream from the transcripts
// in folders (see benchTurnLines). With output set, every tenth body line
// is a tool output line (benchOutputLine).
func benchStream(b *testing.B, output string, folders ...string) []byte {
	b.Helper()
	key := fmt.Sprint(output, folders)
	benchStreamsMu.Lock()
	defer benchStreamsMu.Unlock()
	if s, ok := benchStreams[key]; ok {
		return s
	}
	var groups [][][]byte
	roles := map[string][][]byte{}
	for _, folder := range folders {
		files, _ := filepath.Glob(filepath.Join("testdata", "transcripts", folder, "*.jsonl"))
		for _, f := range files {
			inGroup := false
			for _, line := range readLines(b, f) {
				if !isTodoLine(line) {
					inGroup = false
					roles[lineRole(line)] = append(roles[lineRole(line)], line)
					continue
				}
				if !inGroup {
					groups = append(groups, nil)
					inGroup = true
				}
				groups[len(groups)-1] = append(groups[len(groups)-1], line)
			}
		}
	}
	if len(groups) == 0 || len(roles["head"]) == 0 || len(roles["tail"]) == 0 || len(roles["body"]) == 0 {
		b.Fatalf("transcripts %v lack a kind of line", folders)
	}
	var outLine []byte
	if output != "" {
		outLine = benchOutputLine(b, output)
	}
	buf := make([]byte, 0, benchStreamSize+64<<10)
	add := func(line []byte) { buf = append(append(buf, line...), '\n') }
	n := 0
	for turn := 0; len(buf) < benchStreamSize; turn++ {
		add(roles["head"][turn%len(roles["head"])])
		for i := 0; i < benchTurnLines; i++ {
			if n++; n%benchTodoEvery == 0 {
				for _, line := range groups[(n/benchTodoEvery)%len(groups)] {
					add(line)
				}
			}
			if outLine != nil && n%10 == 0 {
				add(outLine)
				continue
			}
			add(roles["body"][n%len(roles["body"])])
		}
		add(roles["tail"][turn%len(roles["tail"])])
	}
	benchStreams[key] = buf
	return buf
}

// cpuTime is the CPU time the process has used, which unlike wall time
// does not grow when other programs share the machine.
func cpuTime() time.Duration { return benchcpu.Self() }

func benchParse(b *testing.B, newParser func() Parser, output string, folders ...string) {
	stream := benchStream(b, output, folders...)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	todos := 0
	for i := 0; i < b.N; i++ {
		if err := ParseStream(bytes.NewReader(stream), "bench", newParser(), func(u Update) {
			if u.Kind == UpdateTodos {
				todos++
			}
		}); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(stream))*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
	if todos == 0 {
		b.Fatal("no todo event parsed")
	}
}

func BenchmarkParseClaude(b *testing.B) {
	benchParse(b, func() Parser { return &ClaudeParser{} }, "", "claude-todowrite", "claude-tasks")
}

func BenchmarkParseCodex(b *testing.B) {
	benchParse(b, func() Parser { return &CodexParser{} }, "", "codex")
}

func BenchmarkParseGemini(b *testing.B) {
	benchParse(b, func() Parser { return &GeminiParser{} }, "", "gemini")
}

// The WithToolOutput variants add a 16 KiB tool result line every tenth
// body line, as real sessions that read files and run commands have.
func BenchmarkParseClaudeWithToolOutput(b *testing.B) {
	benchParse(b, func() Parser { return &ClaudeParser{} }, "claude", "claude-todowrite", "claude-tasks")
}

func BenchmarkParseCodexWithToolOutput(b *testing.B) {
	benchParse(b, func() Parser { return &CodexParser{} }, "codex", "codex")
}

func BenchmarkParseGeminiWithToolOutput(b *testing.B) {
	benchParse(b, func() Parser { return &GeminiParser{} }, "gemini", "gemini")
}

// BenchmarkFakeTurnOverhead compares one turn through RunTurn (parse,
// merge, durable store writes, events) with running the same fake CLI
// directly and reading its output, and reports the difference in percent.
// "instant" replays the recording at once, so fixed costs dominate;
// "paced" waits benchPace before each line, near the recordings' own pace
// (126-211 ms per turn of about a dozen lines, with a scripted model).
// Set BENCH_STORE_DIR (e.g. /dev/shm) to keep the store off the disk.
func BenchmarkFakeTurnOverhead(b *testing.B) {
	const benchPace = "10ms"
	for _, pace := range []string{"", benchPace} {
		for _, c := range []struct{ kind, folder, file string }{
			{"claude", "claude-todowrite", "claude-run1.jsonl"},
			{"codex", "codex", "codex-run1.jsonl"},
			{"gemini", "gemini", "gemini-run1.jsonl"},
		} {
			name := "instant/" + c.kind
			if pace != "" {
				name = "paced/" + c.kind
			}
			b.Run(name, func(b *testing.B) { benchTurn(b, c.kind, transcript("transcripts", c.folder, c.file), pace) })
		}
	}
}

func benchTurn(b *testing.B, kind, run1, pace string) {
	env := testenv.Env(b.TempDir(), "FAKECLI_RUN1="+run1, "FAKECLI_LINE_DELAY="+pace)
	bin := filepath.Join(fakeDir, kind)
	dir := b.TempDir()
	if d := os.Getenv("BENCH_STORE_DIR"); d != "" {
		var err error
		if dir, err = os.MkdirTemp(d, "bench"); err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	store := todostore.Open(filepath.Join(dir, "home"))
	turn := agent.Turn{Prompt: "Plan and start building csvkit-lite"}
	row, err := lookup(kind)
	if err != nil {
		b.Fatal(err)
	}
	args := row.args(argsIn{noGit: kind == "codex"})
	var direct, wrapped time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(row.stdinText(turn))
		cmd.Env = env
		cmd.Dir = dir
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, out); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		a, err := New(kind, Config{Bin: bin, Dir: dir, Env: env}, agent.Session{Store: store, ID: fmt.Sprintf("b%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.RunTurn(context.Background(), turn, func(agent.Event) {}); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		direct += t1.Sub(t0)
		wrapped += t2.Sub(t1)
	}
	b.ReportMetric(float64(direct.Microseconds())/float64(b.N), "direct-µs/turn")
	b.ReportMetric(float64(wrapped.Microseconds())/float64(b.N), "runturn-µs/turn")
	b.ReportMetric(100*float64(wrapped-direct)/float64(direct), "overhead-%")
}

// nopParser takes every line and does nothing with it.
type nopParser struct{}

func (nopParser) Line([]byte, func(Update)) error { return nil }

// BenchmarkLineSplit is the floor under BenchmarkParse*: ParseStream
// reading the Codex stream and cutting it into lines, with no parsing.
func BenchmarkLineSplit(b *testing.B) {
	stream := benchStream(b, "", "codex")
	b.SetBytes(int64(len(stream)))
	for i := 0; i < b.N; i++ {
		if err := ParseStream(bytes.NewReader(stream), "bench", nopParser{}, func(Update) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLongLine200MB streams one 200 MB line (an assistant text with
// no newline) and a normal line after it through ParseStream: the issue's
// measure of a bounded reader (under 2 s and under 64 MB RSS). maxRSS-MB
// is the process's peak resident size after the runs.
func BenchmarkLongLine200MB(b *testing.B) {
	const n = 200 << 20
	b.SetBytes(n)
	for i := 0; i < b.N; i++ {
		end := false
		if err := ParseStream(newEndlessLine(n), "claude", &ClaudeParser{}, func(u Update) { end = end || u.Kind == UpdateTurnEnd }); err != nil || !end {
			b.Fatalf("err %v, turn end %v", err, end)
		}
	}
	benchcpu.ReportMaxRSS(b, "maxRSS-MB")
}

// BenchmarkRecordedTurnJSON is what parsing costs on the recorded real
// streams, one recorded turn at a time, against that turn's own wall time
// (Claude's result line says it: duration_ms, 114-211 ms with a scripted
// model that answers at once; a real model takes seconds): "parser" is
// the stream's parser as it is, "stdlib" decodes every line whole with
// encoding/json into generic values, more than any parser needs.
// pct-of-turn is the cost against the fastest recorded turn, 114 ms.
func BenchmarkRecordedTurnJSON(b *testing.B) {
	const fastestTurn = 114 * time.Millisecond
	for _, c := range []struct {
		kind, folder, file string
		parser             func() Parser
	}{
		{"claude", "claude-todowrite", "claude-run1.jsonl", func() Parser { return &ClaudeParser{} }},
		{"claude-tasks", "claude-tasks", "claude-run1.jsonl", func() Parser { return &ClaudeParser{} }},
		{"codex", "codex", "codex-run1.jsonl", func() Parser { return &CodexParser{} }},
		{"gemini", "gemini", "gemini-run1.jsonl", func() Parser { return &GeminiParser{} }},
	} {
		data, err := os.ReadFile(transcript("transcripts", c.folder, c.file))
		if err != nil {
			b.Fatal(err)
		}
		report := func(b *testing.B) {
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(per.Nanoseconds())/1e3, "µs/turn")
			b.ReportMetric(100*float64(per)/float64(fastestTurn), "pct-of-turn")
		}
		b.Run(c.kind+"/parser", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if err := ParseStream(bytes.NewReader(data), c.kind, c.parser(), func(Update) {}); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
		b.Run(c.kind+"/stdlib", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				for line := range bytes.Lines(data) {
					var v any
					if err := json.Unmarshal(line, &v); err != nil {
						b.Fatal(err)
					}
				}
			}
			report(b)
		})
	}
}
