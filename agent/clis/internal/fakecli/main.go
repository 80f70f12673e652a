// Command fakecli stands in for claude, codex and gemini in the tests of
// package clis. It finds which CLI it plays from its name (or FAKECLI_KIND),
// reads that CLI's resume flag, records its arguments, and replays a
// recorded transcript: FAKECLI_RUN1 for a new session, FAKECLI_RESUME when
// asked to resume FAKECLI_SESSION (any other id fails as the real CLIs do).
//
// FAKECLI_LINE_DELAY (a duration) paces the replay line by line.
// FAKECLI_MODE changes what it does: "fail" writes FAKECLI_STDERR and exits
// 3; "sleep" starts a child in its process group, writes "pid child" to
// FAKECLI_PIDFILE and sleeps (FAKECLI_IGNORE_TERM=1 makes both ignore
// SIGTERM); "stray" replays, then exits leaving such a child; "child" is
// that child.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("FAKECLI_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	mode := os.Getenv("FAKECLI_MODE")
	if mode == "child" {
		time.Sleep(time.Hour)
		return
	}
	kind := os.Getenv("FAKECLI_KIND")
	if kind == "" {
		kind = filepath.Base(os.Args[0])
	}
	args := os.Args[1:]
	resume := resumeID(kind, args)
	if err := record(args, resume); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(2)
	}
	switch mode {
	case "fail":
		fmt.Fprint(os.Stderr, os.Getenv("FAKECLI_STDERR"))
		os.Exit(3)
	case "sleep":
		sleepWithChild()
		return
	case "stray":
		// Replay, then leave a child holding standard output and exit.
		defer startChild()
	}
	src := os.Getenv("FAKECLI_RUN1")
	if resume != "" {
		if want := os.Getenv("FAKECLI_SESSION"); resume != want {
			fmt.Fprintf(os.Stderr, "No conversation found with session ID: %s\n", resume)
			os.Exit(1)
		}
		src = os.Getenv("FAKECLI_RESUME")
	}
	if err := replay(src, os.Getenv("FAKECLI_LINE_DELAY")); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(2)
	}
}

// replay copies the transcript at src to standard output, waiting delay
// (a time.ParseDuration string, or empty for none) before each line, the
// way a CLI waits for its model.
func replay(src, delay string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	if delay == "" {
		_, err = io.Copy(os.Stdout, f)
		return err
	}
	d, err := time.ParseDuration(delay)
	if err != nil {
		return err
	}
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			time.Sleep(d)
			if _, werr := os.Stdout.Write(line); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// resumeID is the session the arguments ask to resume, as each CLI reads it:
// `--resume ID` for claude and gemini, `exec ... resume ID PROMPT` for codex.
func resumeID(kind string, args []string) string {
	for i, a := range args {
		if kind == "codex" && a == "resume" && i+1 < len(args) {
			return args[i+1]
		}
		if kind != "codex" && a == "--resume" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// record appends one JSON line about this run to FAKECLI_RECORD.
func record(args []string, resume string) error {
	path := os.Getenv("FAKECLI_RECORD")
	if path == "" {
		return nil
	}
	stdinNull := false
	if fi, err := os.Stdin.Stat(); err == nil {
		if null, err := os.Stat(os.DevNull); err == nil {
			stdinNull = os.SameFile(fi, null)
		}
	}
	wd, _ := os.Getwd()
	line, err := json.Marshal(map[string]any{"argv": args, "resume": resume, "stdinNull": stdinNull, "dir": wd})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(append(line, '\n'))
	return err
}

func sleepWithChild() {
	fmt.Println(`{"type":"system","subtype":"init","session_id":"sleepy","tools":[]}`)
	startChild()
	time.Sleep(time.Hour)
}

// startChild starts a child that holds standard output open, as a stray
// tool process would, and writes "pid child" to FAKECLI_PIDFILE.
func startChild() {
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "FAKECLI_MODE=child")
	child.Stdout = os.Stdout
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fakecli:", err)
		os.Exit(2)
	}
	pids := fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)
	if err := os.WriteFile(os.Getenv("FAKECLI_PIDFILE")+".tmp", []byte(pids), 0o644); err == nil {
		_ = os.Rename(os.Getenv("FAKECLI_PIDFILE")+".tmp", os.Getenv("FAKECLI_PIDFILE"))
	}
}
