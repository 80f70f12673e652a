package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds a request body; agents send their whole conversation.
const maxBody = 64 << 20

// Server is the fake model's http.Handler. Its zero value is not usable:
// build it with New.
type Server struct {
	scenario Scenario
	ids      idGen
	// DumpDir, when set, receives each request body as NNNN-<protocol>.json,
	// so one can show exactly what an agent sent.
	DumpDir string
	// PreferMCP makes the model use todosh's MCP tools when offered, before
	// the agent's own todo tool.
	PreferMCP bool
	// Usage is what every reply reports it spent; zero: 100 in, 20 out.
	Usage Usage
	dumps atomic.Int64

	mu  sync.Mutex
	log io.Writer
}

// New returns a server that plays scenario sc and writes one JSON line per
// request to log (nil for none).
func New(sc Scenario, log io.Writer) *Server {
	return &Server{scenario: sc, log: log}
}

// route is one endpoint: the protocol's parser and writer, or for token
// counts a count reply built from the body's size.
type route struct {
	protocol string
	parse    func([]byte) (Request, error)
	write    func(http.ResponseWriter, Request, Action, *idGen)
	count    func(tokens int) any
}

// routeFor picks the endpoint for a path; Gemini's method rides in the
// path after the model ("models/gemini-2.5-pro:streamGenerateContent").
func routeFor(path string) (route, bool) {
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		return route{protocol: "anthropic", count: func(n int) any { return map[string]int{"input_tokens": n} }}, true
	case strings.HasSuffix(path, "/messages"):
		return route{"anthropic", parseAnthropic, writeAnthropic, nil}, true
	case strings.HasSuffix(path, "/responses"):
		return route{"responses", parseResponses, writeResponses, nil}, true
	case strings.HasSuffix(path, "/chat/completions"):
		return route{"chat", parseChat, writeChat, nil}, true
	case strings.HasSuffix(path, ":countTokens"):
		return route{protocol: "gemini", count: func(n int) any { return map[string]int{"totalTokens": n} }}, true
	case strings.HasSuffix(path, ":streamGenerateContent"):
		return route{"gemini", parseGemini(path, true), writeGemini, nil}, true
	case strings.HasSuffix(path, ":generateContent"):
		return route{"gemini", parseGemini(path, false), writeGemini, nil}, true
	}
	return route{}, false
}

// logLine is what the log records of one request and its reply.
type logLine struct {
	Time     string       `json:"time"`
	Method   string       `json:"method"`
	Path     string       `json:"path"`
	Protocol string       `json:"protocol,omitempty"`
	Model    string       `json:"model,omitempty"`
	Stream   bool         `json:"stream,omitempty"`
	Tools    []string     `json:"tools,omitempty"`
	Deferred []string     `json:"deferred,omitempty"`
	LastUser string       `json:"last_user,omitempty"`
	Kind     string       `json:"kind,omitempty"`
	Text     string       `json:"text,omitempty"`
	Calls    []loggedCall `json:"calls,omitempty"`
	Status   int          `json:"status"`
	Error    string       `json:"error,omitempty"`
}

type loggedCall struct {
	Name string `json:"name"`
	Args any    `json:"args"`
}

// ServeHTTP answers one model request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	line := logLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Method: r.Method, Path: r.URL.Path}
	defer func() { s.record(line) }()
	if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		line.Status = http.StatusOK // Claude Code checks that the base URL answers
		io.WriteString(w, "fakemodel\n")
		return
	}
	rt, ok := routeFor(r.URL.Path)
	if !ok || r.Method != http.MethodPost {
		line.Status, line.Error = http.StatusNotFound, "no such endpoint"
		http.Error(w, `{"error":{"type":"not_found","message":"fakemodel: no such endpoint"}}`, http.StatusNotFound)
		return
	}
	line.Protocol = rt.protocol
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		line.Status, line.Error = http.StatusBadRequest, err.Error()
		http.Error(w, "fakemodel: read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	line.Status = http.StatusOK
	if s.DumpDir != "" {
		name := fmt.Sprintf("%04d-%s.json", s.dumps.Add(1), rt.protocol)
		if err := os.WriteFile(filepath.Join(s.DumpDir, name), body, 0o644); err != nil {
			line.Error = "dump: " + err.Error()
		}
	}
	if rt.count != nil {
		line.Kind = "count"
		writeJSON(w, rt.count(len(body)/4+1)) // about 4 bytes a token
		return
	}
	req, err := rt.parse(body)
	if err != nil {
		line.Status, line.Error = http.StatusBadRequest, err.Error()
		http.Error(w, "fakemodel: "+err.Error(), http.StatusBadRequest)
		return
	}
	a := Script{Scenario: s.scenario, PreferMCP: s.PreferMCP}.Decide(req)
	line.Model, line.Stream, line.LastUser = req.Model, req.Stream, lastUserText(req.Messages)
	for _, t := range withDeferred(req) {
		if t.Deferred {
			line.Deferred = append(line.Deferred, t.FullName())
		} else {
			line.Tools = append(line.Tools, t.FullName())
		}
	}
	line.Kind, line.Text = a.Kind, a.Text
	for _, c := range a.Calls {
		line.Calls = append(line.Calls, loggedCall{c.Tool.FullName(), c.Args})
	}
	a.Usage = s.Usage.or()
	rt.write(w, req, a, &s.ids)
}

// record writes one log line.
func (s *Server) record(l logLine) {
	if s.log == nil {
		return
	}
	b, _ := json.Marshal(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.Write(append(b, '\n'))
}

// lastUserText is the text of the last user message that is not only tool
// results; its last 300 bytes for the log, where the prompt
// follows the context agents put first.
func lastUserText(msgs []Msg) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role == "user" && len(m.Results) == 0 && m.Text != "" {
			t := strings.TrimSpace(reminders.ReplaceAllString(m.Text, ""))
			if len(t) > 300 {
				i := len(t) - 300
				for i < len(t) && !utf8RuneStart(t[i]) {
					i++
				}
				return "…" + t[i:]
			}
			return t
		}
	}
	return ""
}

// reminders are the context Claude Code wraps around a prompt.
var reminders = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)

// idGen hands out unique ids for messages and tool calls.
type idGen struct{ n atomic.Int64 }

func (g *idGen) next(prefix string) string {
	return fmt.Sprintf("%s%d", prefix, g.n.Add(1))
}

// chunks splits s in pieces of at most 24 bytes (on rune boundaries), so a
// streamed reply really arrives in several deltas.
func chunks(s string) []string {
	var out []string
	for len(s) > 24 {
		n := 24
		for n > 0 && !utf8RuneStart(s[n]) {
			n--
		}
		if n == 0 {
			n = 24
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// writeJSON sends v as a JSON response.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sseWriter writes server-sent events, flushing each one.
type sseWriter struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	return &sseWriter{w: w, f: f}
}

// event writes one event; an empty name writes a data-only event.
func (s *sseWriter) event(name string, v any) {
	b, _ := json.Marshal(v)
	s.raw(name, string(b))
}

func (s *sseWriter) raw(name, data string) {
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	if s.f != nil {
		s.f.Flush()
	}
}
