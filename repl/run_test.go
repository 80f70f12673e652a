package repl

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/todostore"
)

// quietAgent answers every turn with nothing, or with err.
type quietAgent struct{ err error }

func (quietAgent) Name() string     { return "quiet" }
func (quietAgent) TodoTool() string { return "todo_write" }
func (a quietAgent) RunTurn(context.Context, agent.Turn, func(agent.Event)) (agent.Result, error) {
	return agent.Result{FinalText: "ok"}, a.err
}

func TestRunScript(t *testing.T) {
	tests := []struct {
		name       string
		commands   []string
		stdin      string
		agentErr   error
		noAgent    bool
		wantStatus int
		wantOut    string // in stdout
		wantErr    string // in stderr; "" means stderr must be empty
	}{
		{name: "commands", commands: []string{"/todo add a", "/todo show"}, wantStatus: ExitOK, wantOut: "○ a"},
		{name: "stdin", stdin: "# note\n\n/todo add b\n/todo show\n", wantStatus: ExitOK, wantOut: "○ b"},
		{name: "failed command", commands: []string{"/todo done 3", "/todo add c"}, wantStatus: ExitFailed, wantErr: "/todo done:"},
		{name: "quit stops", commands: []string{"/quit", "/todo done 3"}, wantStatus: ExitOK},
		{name: "prompt", commands: []string{"write it"}, wantStatus: ExitOK},
		{name: "failed prompt", commands: []string{"write it"}, agentErr: errors.New("server down"), wantStatus: ExitFailed, wantErr: "agent error: server down"},
		{name: "no agent", commands: []string{"write it"}, noAgent: true, wantStatus: ExitFailed, wantErr: "no agent is connected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := NewConfig()
			cfg.Root, cfg.SessionID, cfg.Cwd, cfg.Commands = t.TempDir(), "s1", "/src/project", tt.commands
			if !tt.noAgent {
				cfg.NewAgent = func(agent.Session) (agent.Agent, error) { return quietAgent{tt.agentErr}, nil }
			}
			var out, errOut bytes.Buffer
			status := Run(cfg, strings.NewReader(tt.stdin), &out, &errOut)
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d (stdout %q, stderr %q)", status, tt.wantStatus, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q, want %q in it", out.String(), tt.wantOut)
			}
			if (tt.wantErr == "") != (errOut.Len() == 0) || !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr %q, want %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

// A prompt sent to an agent records the session's directory, so that
// --resume finds a session only the agent wrote to.
func TestPromptRecordsCwdForResume(t *testing.T) {
	cfg := NewConfig()
	cfg.Root, cfg.Cwd, cfg.Commands = t.TempDir(), "/src/project", []string{"write it"}
	cfg.NewAgent = func(agent.Session) (agent.Agent, error) { return quietAgent{}, nil }
	var out, errOut bytes.Buffer
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitOK {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	id, err := todostore.Open(cfg.Root).MostRecentIn("/src/project")
	if err != nil || id == "" {
		t.Fatalf("MostRecentIn: %q, %v", id, err)
	}
	cfg.Resume, cfg.Commands = true, []string{"/todo add resumed"}
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitOK {
		t.Fatalf("resume: status %d: %s", status, errOut.String())
	}
	if sess, err := todostore.Open(cfg.Root).Load(id); err != nil || len(sess.Todos) != 1 {
		t.Errorf("resumed session %s: %+v, %v; want the added item", id, sess, err)
	}
}

// --resume prints the list as /todo show does, with receipts: an item the
// agent marked completed in a session where todosh saw its work, without
// a command or an edit, reads "(reported, no receipt)" (seen by hand: the
// resumed list showed a plain ✓ and the /todo show after it the note).
func TestResumeShowsReceipts(t *testing.T) {
	cfg := NewConfig()
	cfg.Root, cfg.Cwd, cfg.SessionID = t.TempDir(), "/src/project", "receipts-1"
	cfg.Commands = []string{"/todo add one", "/todo add two", "/todo done 1", "/todo start 2"}
	var out, errOut bytes.Buffer
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitOK {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	store := todostore.Open(cfg.Root)
	for _, l := range []todostore.WorkLine{{Sees: true}, {Tool: "Bash", Kind: todostore.WorkExecute, Target: "go test ./...", OK: true, Sees: true}} {
		if _, err := store.RecordWork("receipts-1", l); err != nil {
			t.Fatal(err)
		}
	}
	cfg.Commands = []string{"/todo done 2"}
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitOK {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	out.Reset()
	cfg.SessionID, cfg.Resume, cfg.Commands = "", true, nil
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitOK {
		t.Fatalf("resume: status %d: %s", status, errOut.String())
	}
	for item, want := range map[string]string{"1. ✓ one ": "(reported, no receipt)", "2. ✓ two ": "(seen: 1 command)"} {
		found := false
		for _, l := range strings.Split(out.String(), "\n") {
			found = found || strings.Contains(l, item) && strings.HasSuffix(l, want)
		}
		if !found {
			t.Errorf("resumed list without %q ending in %q:\n%s", item, want, out.String())
		}
	}
}

// An agent that cannot start (OPENAI_API_KEY set, no model chosen)
// refuses prompts only: a script of slash commands runs, and a prompt
// after them fails with the cause, sending nothing.
func TestRunSlashCommandsNeedNoAgent(t *testing.T) {
	cfg := NewConfig()
	cfg.Root, cfg.Cwd = t.TempDir(), "/src/project"
	cfg.NewAgent = func(agent.Session) (agent.Agent, error) { return nil, errors.New("no model") }
	cfg.Commands = []string{"/todo add x", "/todo show"}
	var out, errOut bytes.Buffer
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitOK || !strings.Contains(out.String(), "1. ○ x") {
		t.Fatalf("status %d, stdout %q, stderr %q; want the list", status, out.String(), errOut.String())
	}
	cfg.Commands = []string{"/todo add y", "write the parser"}
	out.Reset()
	errOut.Reset()
	if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitFailed || !strings.Contains(errOut.String(), "prompt not sent: start the agent: no model") {
		t.Errorf("status %d, stderr %q; want %d and the cause", status, errOut.String(), ExitFailed)
	}
}

func TestRunRefusesWhatCannotOpen(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"bad session id", func(c *Config) { c.SessionID = "../x" }, "invalid session id"},
		{"nothing to resume", func(c *Config) { c.Resume = true }, "no session was started in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := NewConfig()
			cfg.Root, cfg.Cwd, cfg.Commands = t.TempDir(), "/src/project", []string{"/todo add x"}
			tt.cfg(&cfg)
			var out, errOut bytes.Buffer
			if status := Run(cfg, strings.NewReader(""), &out, &errOut); status != ExitFailed || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("status %d, stderr %q; want %d and %q", status, errOut.String(), ExitFailed, tt.want)
			}
			if entries, _ := todostore.Open(cfg.Root).List(); len(entries) != 0 {
				t.Errorf("files written: %v", entries)
			}
		})
	}
}
