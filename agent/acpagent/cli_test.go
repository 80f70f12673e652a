package acpagent

import (
	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/clis"
	"github.com/todosh/todosh/internal/testenv"
)

// newCLI is a wrapped claude CLI played by the clis package's fake, for
// BenchmarkContinuationStart.
func newCLI(bin string, sess agent.Session, run1, dir string) (agent.Agent, error) {
	return clis.New("claude", clis.Config{Bin: bin, Dir: dir, Env: testenv.Env(dir, "FAKECLI_RUN1="+run1, "FAKECLI_KIND=claude")}, sess)
}
