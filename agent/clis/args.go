package clis

import (
	"strings"

	"github.com/todosh/todosh/agent"
)

// buildArgs is the command line of one turn, without the executable:
//
//	claude -p PROMPT --output-format stream-json --verbose [--resume ID] [--append-system-prompt CONTEXT] ARGS...
//	codex exec --json -c tools.update_plan.enabled=true [--skip-git-repo-check] ARGS... [resume ID] PROMPT
//	gemini -p PROMPT --output-format stream-json [--resume ID] ARGS...
//
// Claude gets the todo context as extra system prompt; Codex and Gemini
// have no such flag, so it goes before the prompt. noGit adds Codex's
// --skip-git-repo-check, which it needs outside a git repository.
func buildArgs(kind string, extra []string, turn agent.Turn, resume string, noGit bool) []string {
	prompt := turn.Prompt
	if kind != "claude" {
		prompt = withTodoContext(turn.TodoContext, prompt)
	}
	prompt = safePrompt(prompt)
	var args []string
	switch kind {
	case "claude":
		args = []string{"-p", prompt, "--output-format", "stream-json", "--verbose"}
		if resume != "" {
			args = append(args, "--resume", resume)
		}
		if strings.TrimSpace(turn.TodoContext) != "" {
			args = append(args, "--append-system-prompt", turn.TodoContext)
		}
		args = append(args, extra...)
	case "codex":
		args = []string{"exec", "--json", "-c", "tools.update_plan.enabled=true"}
		if noGit {
			args = append(args, "--skip-git-repo-check")
		}
		args = append(args, extra...)
		if resume != "" {
			args = append(args, "resume", resume)
		}
		args = append(args, prompt)
	case "gemini":
		args = []string{"-p", prompt, "--output-format", "stream-json"}
		if resume != "" {
			args = append(args, "--resume", resume)
		}
		args = append(args, extra...)
	}
	return args
}

// withTodoContext puts the todo context before the prompt, separated by
// a blank line. The context comes from the shell already complete: a line
// that says what it is and the list inside its delimited block, with any
// delimiter in todo text neutralised (continuation.TodoContext).
func withTodoContext(ctx, prompt string) string {
	if strings.TrimSpace(ctx) == "" {
		return prompt
	}
	return strings.TrimRight(ctx, "\n") + "\n\n" + prompt
}

// safePrompt keeps a prompt that starts with "-" from being read as an
// option by the CLI's argument parser.
func safePrompt(p string) string {
	if strings.HasPrefix(p, "-") {
		return " " + p
	}
	return p
}
