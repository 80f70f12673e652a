package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 26's scenarios, through the built binary: progress from facts and
// receipts, with the fake CLI and the fake ACP agent.

// receiptRun runs the fake claude on the TodoWrite transcripts, working
// (FAKECLI_WORK=1) or not, and then /todo show and /todo cost.
func receiptRun(t *testing.T, work string, extra ...string) (home, result) {
	t.Helper()
	h := newHome(t)
	transcripts := filepath.Join(clisTestdata, "transcripts", "claude-todowrite")
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join(transcripts, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	setFakeEnv(t, map[string]string{
		"FAKECLI_RUN1":    abs("claude-run1"),
		"FAKECLI_RESUME":  abs("claude-resume"),
		"FAKECLI_SESSION": "f3b303c4-9b82-483f-a4f8-445bb003551f",
		"FAKECLI_WORK":    work,
	})
	args := append([]string{"--session", "r1", "--agent", "claude", "--agent-bin", filepath.Join(fakeCLIDir(t), "claude")}, extra...)
	args = append(args, "-c", "Plan and start building csvkit-lite", "-c", "/todo show", "-c", "/todo cost")
	return h, h.script(t, h.dir, "", args...)
}

// "runs a command, then marks done": every completion has a receipt, the
// list is done, /todo show says what was seen, /todo cost adds up.
func TestReceiptsRunsACommandThenMarksDone(t *testing.T) {
	_, r := receiptRun(t, "1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutput(t, r.stdout, "continuing 1/3 — 2 open items", "all done",
		"1. ✓ Create project skeleton for csvkit-lite", "(seen: 1 command)",
		"unattributed (no item in progress)", "total")
	if strings.Contains(r.stdout, "reported, no receipt") || strings.Contains(r.stdout, "without a receipt") {
		t.Errorf("a completion with work was taken for a report:\n%s", r.stdout)
	}
}

// "marks done without working": the same agent, no command; its
// completions are not progress, todosh goes on naming the items, and
// stops after 3 attempts (not 20), the items "reported".
func TestReceiptsMarksDoneWithoutWorking(t *testing.T) {
	_, r := receiptRun(t, "0")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (no progress)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutput(t, r.stdout, "continuing 1/3 — 2 open items", "items done without a receipt",
		"stopped: 3 attempts without progress", "(reported, no receipt)")
	if strings.Contains(r.stdout, "all done") || strings.Contains(r.stdout, "seen:") {
		t.Errorf("a report without work was taken for done:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "continuing "); n != 3 {
		t.Errorf("%d continuations, want 3", n)
	}
}

// --output jsonl: each completed item's receipt, tool calls once each with
// their end as tool_result, and a cost event ending each turn whose rows
// add up to its total.
func TestReceiptsJSONL(t *testing.T) {
	for _, work := range []string{"1", "0"} {
		_, r := receiptRun(t, work, "--output", "jsonl")
		var lists, costs, bashCalls, bashEnds int
		var lastItems []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			tool, _ := ev["tool"].(map[string]any)
			switch ev["type"] {
			case "todo_list":
				lists++
				lastItems = nil
				for _, it := range ev["items"].([]any) {
					lastItems = append(lastItems, it.(map[string]any))
				}
			case "tool_call":
				if tool != nil && tool["name"] == "Bash" {
					bashCalls++
				}
			case "tool_result":
				if tool != nil && tool["name"] == "Bash" && tool["state"] == "succeeded" && tool["kind"] == "execute" {
					bashEnds++
				}
			case "cost":
				costs++
				ledger := ev["ledger"].(map[string]any)
				sum := ledger["unattributed"].(map[string]any)["tool_calls"].(float64)
				for _, it := range ledger["items"].([]any) {
					sum += it.(map[string]any)["tool_calls"].(float64)
				}
				if total := ledger["total"].(map[string]any)["tool_calls"].(float64); total != sum {
					t.Errorf("cost rows add up to %v tool calls, total %v", sum, total)
				}
			}
		}
		if lists == 0 || costs == 0 || bashCalls != bashEnds || (work == "1") != (bashCalls > 0) {
			t.Errorf("work=%s: %d lists, %d cost events, %d Bash calls, %d ends\n%s", work, lists, costs, bashCalls, bashEnds, r.stdout)
		}
		for _, it := range lastItems {
			rc, _ := it["receipt"].(map[string]any)
			if it["status"] == "completed" && (rc == nil || rc["seen"] != (work == "1")) {
				t.Errorf("work=%s: item %v has receipt %v", work, it["content"], rc)
			}
		}
	}
}

// "re-marks a finished item", through an ACP agent: after its first item,
// each continuation puts item 1 back in progress and completes it again.
// That is no progress: 3 continuations, not 20.
func TestReceiptsRemarkIsNoProgress(t *testing.T) {
	r := newACP(t, "FAKEACP_WORK=remark")
	res := r.script(t, "--session", "rm", "-c", "[[plan]] build csvkit-lite")
	if res.code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if n := strings.Count(res.stdout, "continuing "); n != 3 || !strings.Contains(res.stdout, "stopped: 3 attempts without progress") {
		t.Errorf("%d continuations, want 3 then a stop:\n%s", n, res.stdout)
	}
	if n := strings.Count(r.received(t), `"method":"session/prompt"`); n != 4 {
		t.Errorf("%d prompts, want the person's and 3 continuations", n)
	}
}

// An ACP agent that marks done without working: its plan says completed,
// todosh says reported.
func TestReceiptsACPWithoutWork(t *testing.T) {
	r := newACP(t, "FAKEACP_WORK=0")
	res := r.script(t, "--session", "nw", "-c", "[[plan]] build csvkit-lite", "-c", "/todo show")
	if res.code != 3 || !strings.Contains(res.stdout, "(reported, no receipt)") || strings.Contains(res.stdout, "all done") {
		t.Errorf("exit %d:\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	// The work log holds no receipt.
	log, err := r.h.store().Work("nw")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range log.Lines {
		if l.IsWork() {
			t.Errorf("the work log holds work: %+v", l)
		}
	}
}

// A session whose items the agent only reported done, reopened in a
// terminal with --resume: the list it prints says so, as /todo show does
// (seen by hand: a plain ✓ there, and on the list /todo list opens).
func TestReceiptsShownOnResumeInTerminal(t *testing.T) {
	h, r := receiptRun(t, "0")
	if r.code != 3 {
		t.Fatalf("prepare: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	tm := h.startTerm(t, "--resume")
	tm.expect("todosh session r1")
	tm.expect("(reported, no receipt)")
	tm.expect("› ")
	tm.quit()
}

// "writes its whole list done in one go": Claude's TodoWrite with every
// item completed, no tool call before it, and nothing more in each
// continuation. The items were never seen open and are new to the
// session: done without a receipt, named, 3 continuations, then a stop
// (exit 3), not "all done". The person's next prompt archives the
// finished list; the same items re-sent then are finished work the
// session had: "all done", no continuation.
func TestReceiptsListWrittenDoneInOneGo(t *testing.T) {
	h := newHome(t)
	src, err := os.ReadFile(filepath.Join(clisTestdata, "transcripts", "claude-todowrite", "claude-resume.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	// The init line, then "marking everything complete" with its
	// TodoWrite of the 3 items completed, its result and the last reply.
	oneGo := strings.Join(append([]string{lines[0]}, lines[4:]...), "\n") + "\n"
	if !strings.Contains(lines[5], `"TodoWrite"`) || strings.Count(lines[5], `"status":"completed"`) != 3 {
		t.Fatalf("transcript line 6 is not a TodoWrite of 3 completed items: %.200s", lines[5])
	}
	path := filepath.Join(t.TempDir(), "one-go.jsonl")
	if err := os.WriteFile(path, []byte(oneGo), 0o644); err != nil {
		t.Fatal(err)
	}
	setFakeEnv(t, map[string]string{
		"FAKECLI_RUN1":    path,
		"FAKECLI_RESUME":  path,
		"FAKECLI_SESSION": "f3b303c4-9b82-483f-a4f8-445bb003551f",
		"FAKECLI_WORK":    "0",
	})
	agent := []string{"--session", "og", "--agent", "claude", "--agent-bin", filepath.Join(fakeCLIDir(t), "claude")}
	r := h.script(t, h.dir, "", append(agent, "-c", "Plan and build csvkit-lite", "-c", "/todo show")...)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (no progress)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	wantOutput(t, r.stdout, "continuing 1/3 — 3 items done without a receipt", "continuing 3/3 — 3 items done without a receipt",
		"stopped: 3 attempts without progress", "(reported, no receipt)")
	if n := strings.Count(r.stdout, "continuing "); n != 3 || strings.Contains(r.stdout, "all done") {
		t.Errorf("%d continuations, want 3 and no \"all done\":\n%s", n, r.stdout)
	}
	r = h.script(t, h.dir, "", append(agent, "-c", "Anything left?")...)
	if r.code != 0 || !strings.Contains(r.stdout, "all done") || strings.Contains(r.stdout, "continuing ") {
		t.Errorf("the finished list re-sent after its archive: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
