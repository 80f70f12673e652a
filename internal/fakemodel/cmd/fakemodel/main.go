// Command fakemodel serves the scripted fake model (package
// internal/fakemodel) on one address, for checking todosh against the real
// agent CLIs by hand:
//
//	fakemodel --addr 127.0.0.1:18001 --scenario lazy --log /tmp/lab/fake.jsonl [--dump DIR] [--prefer-mcp] [--usage IN,OUT]
//
// Point an agent at it with its base-URL setting: ANTHROPIC_BASE_URL for
// Claude Code, GOOGLE_GEMINI_BASE_URL for Gemini CLI, OPENAI_BASE_URL (or a
// provider's base_url, .../v1) for the OpenAI-speaking ones; docs/agents.md
// says what was checked this way. It runs until interrupted.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/todosh/todosh/internal/fakemodel"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:18000", "address to listen on")
	scenario := fs.String("scenario", "lazy", "behaviour: lazy, stuck, question, done, work (runs a command before each completion), remark (re-marks a finished item) or onego (writes its list done in one go)")
	logPath := fs.String("log", "", "append one JSON line per request to this file (default: none)")
	preferMCP := fs.Bool("prefer-mcp", false, "use todosh's MCP todo tools when offered, before the agent's own")
	dump := fs.String("dump", "", "write each request body to this directory as NNNN-<protocol>.json (default: none)")
	usage := fs.String("usage", "100,20", "the tokens every reply reports it spent, `IN,OUT` (input, output), in each protocol's own fields")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (all settings are flags; see -h)", fs.Arg(0))
	}
	sc, err := fakemodel.ParseScenario(*scenario)
	if err != nil {
		return fmt.Errorf("--scenario: %w", err)
	}
	var log io.Writer
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("--log: %w", err)
		}
		defer f.Close()
		log = f
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	fmt.Fprintf(os.Stderr, "fakemodel: scenario %s on http://%s\n", sc, ln.Addr())
	h := fakemodel.New(sc, log)
	h.PreferMCP = *preferMCP
	in, out, ok := strings.Cut(*usage, ",")
	if _, err := fmt.Sscan(in, &h.Usage.In); err != nil || !ok {
		return fmt.Errorf("--usage %q: want IN,OUT, two counts", *usage)
	}
	if _, err := fmt.Sscan(out, &h.Usage.Out); err != nil {
		return fmt.Errorf("--usage %q: want IN,OUT, two counts", *usage)
	}
	if *dump != "" {
		if err := os.MkdirAll(*dump, 0o755); err != nil {
			return fmt.Errorf("--dump: %w", err)
		}
		h.DumpDir = *dump
	}
	srv := &http.Server{Handler: h}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; srv.Close() }()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
