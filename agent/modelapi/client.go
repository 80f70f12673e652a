package modelapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/todosh/todosh/todolist"

	"github.com/todosh/todosh/agent"
	"github.com/todosh/todosh/agent/todotools"
)

// DefaultBaseURL is Ollama's OpenAI-compatible endpoint, used when neither
// --base-url nor OPENAI_BASE_URL is set.
const DefaultBaseURL = "http://127.0.0.1:11434/v1"

// Model is one source of assistant replies: the HTTP client, or a script
// played from a file. The turn loop, tool execution and continuation are the
// same for both.
type Model interface {
	// Complete returns the next assistant message for the conversation in
	// req, passing pieces of its text to onText as they arrive. It returns
	// ctx.Err() when ctx is cancelled.
	Complete(ctx context.Context, req Request, onText func(string)) (Message, error)
}

// Request is what a Model is asked: the whole conversation, system message
// first, and the tools it may call.
type Request struct {
	Messages []Message
	Tools    []todotools.Spec
	// OnUsage, when not nil, gets the tokens the request spent, when the
	// server reports them (the chat completions API's usage: in the last
	// chunk of a stream, asked for with stream_options.include_usage);
	// the counts are as the server wrote them, unchecked.
	OnUsage func(agent.Usage)
}

// Client is the Model that speaks the OpenAI-compatible chat completions API
// with streaming and tool calls (Ollama, llama.cpp server, vLLM, LM Studio,
// OpenRouter, OpenAI).
type Client struct {
	BaseURL string // up to and including /v1
	APIKey  string // sent as a bearer token when set
	Model   string
	// HTTP is the client to use; nil means one whose connections time out
	// after ConnectTimeout. The request as a whole has no time limit, since
	// a turn lasts as long as the model writes and Ctrl-C cancels it.
	HTTP *http.Client
	// ConnectTimeout bounds connecting (TCP and TLS) when HTTP is nil;
	// IdleTimeout bounds every wait for the server, for its answer and for
	// each next piece of the stream, so a stalled server never hangs a
	// script. Zero means DefaultConnectTimeout and DefaultIdleTimeout.
	ConnectTimeout, IdleTimeout time.Duration

	once    sync.Once
	defHTTP *http.Client
}

// Defaults of --connect-timeout and --idle-timeout. The idle limit is long
// because a local server may load the model, or read a long prompt, before
// its first byte.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultIdleTimeout    = 5 * time.Minute
)

// errIdle is the cause of a request cancelled by the idle timeout.
var errIdle = errors.New("idle timeout")

// httpClient is c.HTTP, or a client whose connections time out.
func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	c.once.Do(func() {
		connect := c.ConnectTimeout
		if connect <= 0 {
			connect = DefaultConnectTimeout
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
		tr.TLSHandshakeTimeout = connect
		c.defHTTP = &http.Client{Transport: tr}
	})
	return c.defHTTP
}

// idleBody cancels the request when no byte arrives for d: every read that
// returns data restarts the timer.
type idleBody struct {
	io.ReadCloser
	timer *time.Timer
	d     time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	return n, err
}

type chatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Stream   bool      `json:"stream"`
	// StreamOptions asks for the usage chunk (OpenAI, Ollama, vLLM,
	// llama.cpp server and OpenRouter know it).
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Tools         []apiTool      `json:"tools,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type apiTool struct {
	Type     string      `json:"type"`
	Function apiFunction `json:"function"`
}

type apiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Complete posts the conversation to {BaseURL}/chat/completions with
// "stream": true and assembles the streamed reply.
func (c *Client) Complete(parent context.Context, req Request, onText func(string)) (msg Message, err error) {
	idle := c.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	timer := time.AfterFunc(idle, func() { cancel(errIdle) })
	defer timer.Stop()
	defer func() {
		if err != nil && parent.Err() == nil && context.Cause(ctx) == errIdle {
			msg, err = Message{}, fmt.Errorf("%s sent nothing for %s: gave up on this reply (the server stalled or is overloaded; --idle-timeout sets the limit)", c.BaseURL, idle)
		}
	}()
	body := chatRequest{Model: c.Model, Messages: req.Messages, Stream: true, StreamOptions: &streamOptions{IncludeUsage: true}}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, apiTool{Type: "function", Function: apiFunction(t)})
	}
	data, err := json.Marshal(body)
	if err != nil {
		return Message{}, fmt.Errorf("encode request: %w", err)
	}
	endpoint := strings.TrimRight(c.BaseURL, "/") + "/chat/completions"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return Message{}, fmt.Errorf("bad base url %q: %v (set --base-url or OPENAI_BASE_URL)", c.BaseURL, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := c.httpClient().Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Message{}, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Message{}, fmt.Errorf("cannot reach %s: %s (is the server running? set --base-url or OPENAI_BASE_URL)",
			c.BaseURL, todolist.ShortLine(err.Error(), 200))
	}
	resp.Body = &idleBody{ReadCloser: resp.Body, timer: timer, d: idle}
	timer.Reset(idle) // the headers came: the body gets its own wait
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if ctx.Err() != nil {
			return Message{}, ctx.Err()
		}
		return Message{}, statusError(resp.StatusCode, msg)
	}
	var reply Message
	var usage json.RawMessage
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json"):
		reply, usage, err = decodeCompletion(resp.Body, onText)
	case strings.HasPrefix(ct, "text/html"):
		return Message{}, fmt.Errorf("%s answered with a web page, not the chat completions API: check --base-url (it usually ends in /v1)", endpoint)
	default:
		reply, usage, err = decodeStream(resp.Body, onText)
	}
	if ctx.Err() != nil {
		return Message{}, ctx.Err()
	}
	if u, ok := usageOf(usage); ok && err == nil && req.OnUsage != nil {
		req.OnUsage(u)
	}
	return reply, err
}

// statusError is the one-line error for a response that is not 200: the
// status, the server's own message when the body has one, and what to do.
func statusError(code int, body []byte) error {
	msg := strings.TrimSpace(string(body))
	var o struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &o) == nil {
		switch {
		case given(o.Error):
			msg = errorText(o.Error)
		case o.Message != "":
			msg = o.Message
		case given(o.Detail):
			msg = errorText(o.Detail)
		}
	}
	var hint string
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		hint = "check OPENAI_API_KEY"
	case code == http.StatusNotFound:
		hint = "check --base-url (it usually ends in /v1) and --model"
	case code == http.StatusTooManyRequests:
		hint = "rate limited or out of quota: wait and try again"
	case code == http.StatusBadRequest:
		hint = "the server refused the request: does the model support tool calling?"
	case code >= 500:
		hint = "the server failed: try again, or check its log"
	default:
		hint = "check --base-url and --model"
	}
	status := fmt.Sprintf("%d %s", code, http.StatusText(code))
	if msg = todolist.ShortLine(msg, 300); msg != "" {
		return fmt.Errorf("%s: %s (%s)", status, msg, hint)
	}
	return fmt.Errorf("%s (%s)", status, hint)
}
