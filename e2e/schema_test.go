package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The ACP schema (testdata/acp-schema, @agentclientprotocol/sdk 2.4.0)
// every message between the test editor and todosh acp is checked
// against: the whole message against the schema's Agent or Client side,
// and a response's result against the response type of the method it
// answers.

// acpSchema is the vendored schema, resolved once.
type acpSchema struct {
	agent, client *jsonschema.Resolved
	// results are the response types by side ("agent", "client") and
	// method, and the request and notification types by "params" and
	// method.
	results map[string]*jsonschema.Resolved
}

var (
	schemaOnce sync.Once
	schemaVal  *acpSchema
	schemaErr  error
)

// loadSchema reads and resolves the vendored schema.
func loadSchema() (*acpSchema, error) {
	schemaOnce.Do(func() { schemaVal, schemaErr = readSchema() })
	return schemaVal, schemaErr
}

func readSchema() (*acpSchema, error) {
	data, err := os.ReadFile(filepath.Join("testdata", "acp-schema", "schema.json"))
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var sides []json.RawMessage
	if err := json.Unmarshal(doc["anyOf"], &sides); err != nil || len(sides) < 2 {
		return nil, fmt.Errorf("schema: want anyOf [Agent, Client, ...]: %v", err)
	}
	// resolve builds a schema of the document's $defs with root as its
	// top.
	resolve := func(root map[string]json.RawMessage) (*jsonschema.Resolved, error) {
		root["$schema"] = doc["$schema"]
		root["$defs"] = doc["$defs"]
		b, err := json.Marshal(root)
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, err
		}
		return s.Resolve(nil)
	}
	out := &acpSchema{results: map[string]*jsonschema.Resolved{}}
	for i, dst := range []**jsonschema.Resolved{&out.agent, &out.client} {
		var root map[string]json.RawMessage
		if err := json.Unmarshal(sides[i], &root); err != nil {
			return nil, err
		}
		if *dst, err = resolve(root); err != nil {
			return nil, fmt.Errorf("schema side %d: %w", i, err)
		}
	}
	var defs map[string]struct {
		Side   string `json:"x-side"`
		Method string `json:"x-method"`
	}
	if err := json.Unmarshal(doc["$defs"], &defs); err != nil {
		return nil, err
	}
	for name, d := range defs {
		key := ""
		switch {
		case d.Method == "":
			continue
		case strings.HasSuffix(name, "Response"):
			key = d.Side + " " + d.Method
		case strings.HasSuffix(name, "Request"), strings.HasSuffix(name, "Notification"):
			key = "params " + d.Method
		default:
			continue
		}
		rs, err := resolve(map[string]json.RawMessage{"$ref": json.RawMessage(`"#/$defs/` + name + `"`)})
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		out.results[key] = rs
	}
	return out, nil
}

// schemaCheck checks the messages of one connection, both ways.
type schemaCheck struct {
	s *acpSchema

	mu sync.Mutex
	// methods are the requests of each side by id, for their answers.
	methods    map[string]string
	count      int
	violations []string
	// agentLines are todosh's messages in the order written.
	agentLines []string
}

func newSchemaCheck(t testing.TB) *schemaCheck {
	t.Helper()
	s, err := loadSchema()
	if err != nil {
		t.Fatalf("the ACP schema: %v", err)
	}
	return &schemaCheck{s: s, methods: map[string]string{}}
}

// check validates one line sent by side ("agent": todosh, "client": the
// editor).
func (c *schemaCheck) check(side string, line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count++
	if side == "agent" {
		c.agentLines = append(c.agentLines, string(line))
	}
	var inst any
	if err := json.Unmarshal(line, &inst); err != nil {
		c.violations = append(c.violations, fmt.Sprintf("%s sent a line that is not JSON: %s", side, short(line)))
		return
	}
	root := c.s.agent
	if side == "client" {
		root = c.s.client
	}
	if err := root.Validate(inst); err != nil {
		c.violations = append(c.violations, fmt.Sprintf("%s: %v\n\t%s", side, err, short(line)))
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(line, &m)
	if rs := c.s.results["params "+m.Method]; rs != nil && m.Method != "" {
		var params any
		_ = json.Unmarshal(m.Params, &params)
		if err := rs.Validate(params); err != nil {
			c.violations = append(c.violations, fmt.Sprintf("%s's %s: %v\n\t%s", side, m.Method, err, short(line)))
		}
	}
	switch {
	case m.Method != "" && m.ID != nil:
		c.methods[side+" "+string(m.ID)] = m.Method
	case m.Method == "" && m.ID != nil && m.Result != nil:
		other := "agent"
		if side == "agent" {
			other = "client"
		}
		method := c.methods[other+" "+string(m.ID)]
		if rs := c.s.results[side+" "+method]; rs != nil {
			var res any
			_ = json.Unmarshal(m.Result, &res)
			if err := rs.Validate(res); err != nil {
				c.violations = append(c.violations, fmt.Sprintf("%s's answer to %s: %v\n\t%s", side, method, err, short(line)))
			}
		}
	}
}

func short(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// report fails t with every violation.
func (c *schemaCheck) report(t testing.TB) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range c.violations {
		t.Errorf("ACP schema violation: %s", v)
	}
}

// tapWriter passes writes on and checks each whole line.
type tapWriter struct {
	w    io.WriteCloser
	c    *schemaCheck
	side string
	buf  []byte
}

func (t *tapWriter) Write(b []byte) (int, error) {
	t.buf = append(t.buf, b...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.c.check(t.side, t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	return t.w.Write(b)
}

func (t *tapWriter) Close() error { return t.w.Close() }

// tapReader checks each whole line read through it.
type tapReader struct {
	r    io.Reader
	c    *schemaCheck
	side string
	buf  []byte
}

func (t *tapReader) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	t.buf = append(t.buf, b[:n]...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.c.check(t.side, t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	return n, err
}

// TestSchemaCheckCatches: the checker itself finds a message the schema
// refuses (a plan entry without its priority, an answer to session/new
// without its session id), and passes good ones.
func TestSchemaCheckCatches(t *testing.T) {
	c := newSchemaCheck(t)
	c.check("agent", []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"x","status":"pending","priority":"medium"}]}}}`))
	c.check("client", []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`))
	c.check("agent", []byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`))
	if len(c.violations) != 0 {
		t.Fatalf("good messages refused: %q", c.violations)
	}
	c.check("agent", []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"x","status":"pending"}]}}}`))
	c.check("client", []byte(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`))
	c.check("agent", []byte(`{"jsonrpc":"2.0","id":2,"result":{"modes":null}}`))
	c.check("agent", []byte(`{"jsonrpc":"1.0","id":3,"result":{}}`))
	if len(c.violations) != 3 {
		t.Errorf("%d violations, want 3 (a plan entry without priority, an answer without sessionId, jsonrpc 1.0): %q", len(c.violations), c.violations)
	}
}

// lines are todosh's messages so far, in order.
func (c *schemaCheck) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.agentLines...)
}
