package e2e_test

import (
	"strings"
	"testing"
)

// TestTerminalHistoryRevertEditMoveRestore drives the binary in a pty: a
// list is cleared, the clear reverted, an item edited and moved, the
// history shown, and an earlier list restored. Each step waits for what it
// expects on the screen.
func TestTerminalHistoryRevertEditMoveRestore(t *testing.T) {
	h := newHome(t)
	tm := h.startTerm(t, "--session", "hist")
	tm.expect("todosh › ")
	step := func(line string, want ...string) {
		t.Helper()
		tm.typ(line + enter)
		tm.expect(line + "\n")
		for _, w := range want {
			tm.expect(w)
		}
		tm.expect("› ")
	}
	step("/todo add write the parser", `+ 1 "write the parser" — 0/1 done`)
	step("/todo add write tests", `+ 2 "write tests" — 0/2 done`)
	step("/todo done 1", `✓ 1 "write the parser" — 1/2 done`)
	step("/todo clear", "Cleared 2 todos", "todosh › ")
	step("/todo revert", `Reverted change 4 (you: cleared 2 items) — 1/2 done`, "todosh 1/2 › ")
	step("/todo edit 2 write more tests", `~ 2 "write more tests" — 1/2 done`)
	step("/todo move 2 1", `↕ 1 "write more tests" (was 2) — 1/2 done`)
	step("/todo history", "7 changes", `moved 2 to 1`, `edited 2 "write more tests"`, "reverted change 4", "cleared 2 items", "completed 1", `added 2 "write tests"`, `added 1 "write the parser"`)
	step("/todo history show 2", "After change 2", "1. ○ write the parser", "2. ○ write tests")
	step("/todo restore 2", "Restored the list of change 2", "todosh 0/2 › ")
	tm.quit()
	h.assertList(t, "hist", "write the parser", "write tests")
	lines, err := h.store().History("hist")
	if err != nil || len(lines) != 8 || !strings.HasPrefix(lines[7].What, "restored the list of change 2") {
		t.Errorf("history on disk: %d lines, %v", len(lines), err)
	}
}

// TestScriptListShowsArchivedSession: a session whose list was cleared is
// listed with its last list, marked archived, and that list can be loaded.
func TestScriptListShowsArchivedSession(t *testing.T) {
	h := newHome(t)
	if r := h.script(t, h.dir, "", "--session", "old", "-c", "/todo add kept item", "-c", "/todo clear"); r.code != 0 {
		t.Fatalf("prepare: %+v", r)
	}
	r := h.script(t, h.dir, "", "--session", "new", "-c", "/todo list", "-c", "/todo load 2")
	if r.code != 0 {
		t.Fatalf("list and load: %+v", r)
	}
	if !strings.Contains(r.stdout, "empty; archived: 1 pending") || !strings.Contains(r.stdout, "kept item") {
		t.Errorf("/todo list did not show the archived list:\n%s", r.stdout)
	}
	h.assertList(t, "new", "kept item")
}

// TestScriptFailedPromptLeavesNothingToResume: a prompt to a new session
// whose agent cannot be reached writes no file, so --resume finds nothing
// to reopen.
func TestScriptFailedPromptLeavesNothingToResume(t *testing.T) {
	h := newHome(t)
	r := h.script(t, h.dir, "", "--agent", "openai", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "-c", "hello")
	if r.code == 0 {
		t.Fatalf("a prompt to an unreachable server succeeded: %+v", r)
	}
	if entries, err := h.store().List(); err != nil || len(entries) != 0 {
		t.Errorf("the failed prompt left sessions %v (%v)", entries, err)
	}
	if r := h.script(t, h.dir, "", "--resume", "-c", "/todo show"); r.code == 0 || !strings.Contains(r.stderr, "no session") {
		t.Errorf("--resume after a failed prompt: %+v", r)
	}
}
