// Command fakeshell is the todosh shell with a fake agent instead of a
// model. The end-to-end tests build it to drive agent turns, Ctrl-C during
// a turn and the countdown before a continuation in a real terminal, with
// no network. It is not installed or documented for people.
//
// The agent answers a prompt by running one tool call, putting two open
// items on an empty list and stopping (a lazy model), so the shell continues it; the prompt "block"
// makes a turn that waits for Ctrl-C. FAKESHELL_DELAY sets the countdown.
package main

import (
	"context"
	"os"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/repl"
	"github.com/todosh/todosh/todostore"
)

func main() {
	cfg := repl.NewConfig()
	cfg.Root = os.Getenv("TODOSH_HOME")
	cfg.SessionID = "fake"
	cfg.Getenv = os.Getenv
	if d, err := time.ParseDuration(os.Getenv("FAKESHELL_DELAY")); err == nil {
		cfg.ContinueDelay = d
	}
	cfg.NewAgent = func(s agent.Session) (agent.Agent, error) { return lazy{s}, nil }
	os.Exit(repl.Run(cfg, os.Stdin, os.Stdout, os.Stderr))
}

// lazy is an agent that plans and then never makes progress.
type lazy struct{ sess agent.Session }

func (lazy) Name() string     { return "fake" }
func (lazy) TodoTool() string { return "todo_write" }

func (l lazy) RunTurn(ctx context.Context, turn agent.Turn, emit func(agent.Event)) (agent.Result, error) {
	switch {
	case turn.Continuation:
		emit(agent.Event{Kind: agent.EventText, Text: "continued, no progress\n"})
		return agent.Result{FinalText: "Still on it."}, nil
	case turn.Prompt == "block":
		emit(agent.Event{Kind: agent.EventText, Text: "blocking until Ctrl-C\n"})
		<-ctx.Done()
		return agent.Result{}, ctx.Err()
	}
	emit(agent.Event{Kind: agent.EventText, Text: "got: " + turn.Prompt + "\n"})
	// A tool call, so the status line has an activity to drop at the end
	// of the turn.
	emit(agent.Event{Kind: agent.EventToolCall, Text: "Bash ls -la"})
	sess, err := l.sess.Update(func(s *todostore.Session) error {
		if len(s.Todos) == 0 {
			s.Todos = []todolist.Todo{
				{Content: "plan the work", Status: todolist.Pending},
				{Content: "do the work", Status: todolist.Pending},
			}
		}
		return nil
	})
	if err != nil {
		return agent.Result{}, err
	}
	emit(agent.Event{Kind: agent.EventTodos, Todos: sess.Todos})
	return agent.Result{FinalText: "I planned it."}, nil
}
