package clis

import (
	"bytes"
	"strings"
	"sync"

	"github.com/todosh/todosh/todolist"
)

// stderrBuffer keeps the first and the last max bytes written to it: a
// CLI's standard error, for the line that says why it failed. A usage
// complaint is at the start, before the help text; most errors at the end.
//
// Lines that tell of trouble as it happens (Gemini CLI's "Attempt 2 failed
// with status 429. Retrying with backoff...", Qwen Code's "[qwen-code]
// Waiting for API capacity... attempt 3, retry in 45s") also go to trouble,
// when it is not nil and has room, to be shown as the agent's status.
type stderrBuffer struct {
	mu         sync.Mutex
	head, tail []byte
	max        int
	cut        bool // bytes between head and tail were dropped
	trouble    chan string
	line       []byte // the line being written, up to maxTroubleLine bytes
}

// maxTroubleLine bounds a line of standard error kept to look for trouble.
const maxTroubleLine = 1 << 10

func (b *stderrBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.scanTrouble(p)
	n := len(p)
	if room := b.max - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	if over := len(b.tail) - b.max; over > 0 {
		b.tail = append(b.tail[:0], b.tail[over:]...)
		b.cut = true
	}
	return n, nil
}

// scanTrouble passes the trouble lines completed by p to b.trouble.
func (b *stderrBuffer) scanTrouble(p []byte) {
	if b.trouble == nil {
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if room := maxTroubleLine - len(b.line); room > 0 {
			b.line = append(b.line, seg[:min(room, len(seg))]...)
		}
		if i < 0 {
			return
		}
		if l := strings.TrimSpace(string(b.line)); troubleLine(l) {
			select {
			case b.trouble <- todolist.ShortLine(strings.TrimPrefix(l, "[qwen-code] "), 200):
			default: // the status is behind; the next line will do
			}
		}
		b.line, p = b.line[:0], p[i+1:]
	}
}

// troubleWords mark a line of standard error that tells of trouble the CLI
// is working through, in lower case.
var troubleWords = []string{"retrying", "retry in", "reconnecting", "rate limit", "waiting for api capacity", "status 429", "status 529", "overloaded"}

// troubleLine reports whether a line of standard error tells of trouble
// the CLI is working through.
func troubleLine(l string) bool {
	low := strings.ToLower(l)
	for _, w := range troubleWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// String is what was kept, with a line marking a gap.
func (b *stderrBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut {
		return string(b.head) + "\n…\n" + string(b.tail)
	}
	return string(b.head) + string(b.tail)
}

// meaningfulLine is the line of what was written that best says why the
// CLI failed, cut to one short line.
func (b *stderrBuffer) meaningfulLine() string {
	return todolist.ShortLine(meaningfulLine(b.String()), 300)
}

// meaningfulLine picks the line of a CLI's error output that names the
// cause: the last line that reads as an error ("Error: …", "fatal: …",
// "Unknown argument: verbose"), else the last line that is not help text
// (an option's description, a usage line), else the last line.
func meaningfulLine(text string) string {
	best, bestScore := "", -1
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "…" {
			continue
		}
		if score := lineScore(l); score >= bestScore {
			best, bestScore = l, score
		}
	}
	return best
}

// errorWords are what an error line of the CLIs says, in lower case.
var errorWords = []string{"error", "unknown", "invalid", "not found", "failed", "cannot", "can't", "denied", "refused", "missing", "unexpected", "not supported", "no such", "exceeded", "expired", "unauthorized", "forbidden"}

// lineScore ranks a line of error output: 3 an error's own line, 2 a line
// with an error word, 1 any other line, 0 help text.
func lineScore(l string) int {
	low := strings.ToLower(l)
	if strings.HasPrefix(low, "-") || strings.HasPrefix(low, "usage:") || (strings.HasSuffix(low, "]") && strings.Contains(low, "  ")) {
		return 0 // "-h, --help  Show help  [boolean]", "Usage: qwen [options]"
	}
	for _, p := range []string{"error", "fatal", "panic"} {
		if strings.HasPrefix(low, p) || strings.HasPrefix(low, "[error") {
			return 3
		}
	}
	for _, w := range errorWords {
		if strings.Contains(low, w) {
			return 2
		}
	}
	return 1
}
