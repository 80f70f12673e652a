package clis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/todosh/todosh/todolist"
)

// Codex's `exec --json` stream reports its plan as {text, completed}:
// in_progress and pending read the same (CodexParser). Its own record of
// the session, the rollout file ($CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<time>-<thread id>.jsonl), keeps each update_plan call's
// arguments with the real statuses. After a turn that changed the list the
// runner reads the last call there (the row's planStatuses), so the list
// the continuation counts and the person sees says which item Codex has in
// progress.

// codexPlanStep is one step of an update_plan call.
type codexPlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// codexRolloutMax is how much of a rollout's end is read: the last
// update_plan call of the turn that just ended is near it.
const codexRolloutMax = 8 << 20

// codexLastPlan returns the steps of the last update_plan call recorded in
// a rollout (response_item lines of type function_call); ok is false when
// there is none. Lines that do not decode are skipped: the first one may be
// cut where the read began.
func codexLastPlan(rollout []byte) (steps []codexPlanStep, ok bool) {
	for len(rollout) > 0 {
		i := bytes.LastIndexByte(bytes.TrimRight(rollout, "\n"), '\n')
		line := rollout[i+1:]
		rollout = rollout[:max(i, 0)]
		if !bytes.Contains(line, []byte(`"update_plan"`)) {
			continue
		}
		var rec struct {
			Type    string `json:"type"`
			Payload struct {
				Type      string `json:"type"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Type != "response_item" ||
			rec.Payload.Type != "function_call" || rec.Payload.Name != "update_plan" {
			continue
		}
		var args struct {
			Plan []codexPlanStep `json:"plan"`
		}
		if json.Unmarshal([]byte(rec.Payload.Arguments), &args) != nil || args.Plan == nil {
			continue
		}
		return args.Plan, true
	}
	return nil, false
}

// codexPlanStatuses gives todos (the list the stream reported last) the
// statuses of plan, Codex's own last update_plan call: an open item is
// in_progress or pending as the plan says. It changes nothing (ok false)
// unless plan is that same list: the same texts in the same order, the
// same items completed; so a call the stream did not report, or a list the
// person changed, is never taken for it.
func codexPlanStatuses(todos []todolist.Todo, plan []codexPlanStep) (out []todolist.Todo, ok bool) {
	if len(plan) != len(todos) {
		return nil, false
	}
	status := make([]todolist.Status, len(plan))
	for i, step := range plan {
		td, valid, _ := agentTodo(step.Step, todolist.Pending, "")
		if !valid || td.Content != todos[i].Content {
			return nil, false
		}
		switch step.Status {
		case "completed":
			status[i] = todolist.Completed
		case "in_progress":
			status[i] = todolist.InProgress
		case "pending":
			status[i] = todolist.Pending
		default:
			return nil, false
		}
		if (status[i] == todolist.Completed) != (todos[i].Status == todolist.Completed) {
			return nil, false
		}
	}
	changed := false
	for i := range todos {
		changed = changed || todos[i].Status != status[i]
	}
	if !changed {
		return nil, false
	}
	out = todolist.CloneTodos(todos)
	for i := range out {
		out[i].Status = status[i]
	}
	return out, true
}

// codexRolloutPlan corrects todos from the rollout of thread, found under
// Codex's home as the CLI's environment names it ($CODEX_HOME, else
// $HOME/.codex). A missing or unreadable rollout changes nothing.
func codexRolloutPlan(env []string, thread string, todos []todolist.Todo) ([]todolist.Todo, bool) {
	data, ok := codexRolloutTail(env, thread)
	if !ok {
		return nil, false
	}
	plan, ok := codexLastPlan(data)
	if !ok {
		return nil, false
	}
	return codexPlanStatuses(todos, plan)
}

// codexRolloutTail is the end of the rollout of thread (codexRolloutMax
// bytes at most); ok is false when it cannot be found or read.
func codexRolloutTail(env []string, thread string) (data []byte, ok bool) {
	path, err := codexRolloutPath(env, thread)
	if err != nil {
		return nil, false
	}
	data, err = ReadTail(path, codexRolloutMax)
	return data, err == nil
}

// codexRolloutPath finds the rollout file of thread.
func codexRolloutPath(env []string, thread string) (string, error) {
	if thread == "" || strings.Trim(thread, "0123456789abcdefABCDEF-") != "" {
		return "", fmt.Errorf("codex thread id %q is not a uuid", thread)
	}
	home, ok := lookupEnv(env, "CODEX_HOME")
	if !ok || home == "" {
		h, ok := lookupEnv(env, "HOME")
		if !ok || h == "" {
			return "", errors.New("no CODEX_HOME or HOME")
		}
		home = filepath.Join(h, ".codex")
	}
	matches, err := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+thread+".jsonl"))
	if err != nil || len(matches) == 0 {
		return "", fmt.Errorf("no rollout of codex thread %s under %s", thread, home)
	}
	return matches[len(matches)-1], nil
}

// ReadTail reads at most limit bytes from the end of the file at path:
// the end of an agent's record of its session (a rollout, a transcript).
func ReadTail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(fi.Size()-limit, 0)
	return io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
}
