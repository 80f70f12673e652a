package repl

import (
	"testing"

	"github.com/todosh/todosh/continuation"
)

// TestExitFor: every end reason's exit status, and every stop of the
// policy has an end reason.
func TestExitFor(t *testing.T) {
	for end, want := range map[string]int{EndDone: ExitOK, EndNoProgress: ExitNoProgress, EndCap: ExitNoProgress, EndPaused: ExitAsked,
		EndQuestion: ExitAsked, EndBudget: ExitBudget, EndCancelled: ExitCancelled, EndError: ExitFailed, "": ExitFailed} {
		if got := ExitFor(end); got != want {
			t.Errorf("ExitFor(%q) = %d, want %d", end, got, want)
		}
	}
	for _, r := range []continuation.StopReason{continuation.Aborted, continuation.Failed, continuation.Paused, continuation.NoOpenItems,
		continuation.AskedQuestion, continuation.NoProgress, continuation.PromptLimit, continuation.Disabled, continuation.TokenBudget, continuation.TimeBudget} {
		if endReasons[r] == "" {
			t.Errorf("stop reason %q has no end reason", r)
		}
	}
}
