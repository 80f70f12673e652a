package acpagent

import (
	"context"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent"
)

// SessionConfig is what the agent's session/new (or session/load,
// session/resume) answered about the session's settings: its modes, its
// models and its config options, each nil when it sent none. Behind
// `todosh acp` they go to the editor, whose choices come back through
// SetMode, SetModel and SetConfigOption.
type SessionConfig struct {
	Modes   *acp.SessionModeState
	Models  *acp.SessionModelState
	Options []acp.SessionConfigOption
}

// sessionState is a process's open session as other goroutines than the
// turn's read it: its id and its settings, which the editor changes while
// a turn runs.
type sessionState struct {
	mu     sync.Mutex
	id     acp.SessionId
	config SessionConfig
}

// openID is the id of p's open session, "" before it is open.
func (p *process) openID() acp.SessionId {
	p.state.mu.Lock()
	defer p.state.mu.Unlock()
	return p.state.id
}

// setOpen records p's open session and what it answered, and tells the
// relay.
func (a *Agent) setOpen(p *process, id acp.SessionId, c SessionConfig) {
	p.id = id
	p.state.mu.Lock()
	p.state.id, p.state.config = id, c
	p.state.mu.Unlock()
	if a.relay != nil {
		a.relay.Config(c)
	}
}

// editConfig changes p's recorded settings under their lock.
func (p *process) editConfig(f func(*SessionConfig)) {
	p.state.mu.Lock()
	defer p.state.mu.Unlock()
	f(&p.state.config)
}

// Config is the agent's session settings, and whether its session is open
// (before it is, the agent has said nothing of them).
func (a *Agent) Config() (SessionConfig, bool) {
	p := a.live.Load()
	if p == nil || p.openID() == "" {
		return SessionConfig{}, false
	}
	p.state.mu.Lock()
	defer p.state.mu.Unlock()
	return p.state.config, true
}

// opened returns the running agent with its session open, starting it
// when there is none, for a setting the editor changed: a setting cannot
// wait for the next turn, whose prompt it should already shape. A turn
// that runs holds a.mu; its process is used without it.
func (a *Agent) opened(ctx context.Context) (*process, error) {
	if p := a.live.Load(); p != nil && p.openID() != "" {
		return p, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, err := a.sess.Load()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.cfg.Name, err)
	}
	return a.start(ctx, cur, func(agent.Event) {})
}

// Open starts the agent and opens its session when that has not been
// done, so its settings are known (the relay's Config).
func (a *Agent) Open(ctx context.Context) error {
	_, err := a.opened(ctx)
	return err
}

// SetMode relays the editor's session/set_mode to the agent.
func (a *Agent) SetMode(ctx context.Context, mode acp.SessionModeId) error {
	p, err := a.opened(ctx)
	if err != nil {
		return err
	}
	if _, err := p.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: p.openID(), ModeId: mode}); err != nil {
		return err
	}
	p.editConfig(func(c *SessionConfig) {
		if c.Modes != nil { // a copy: the relay holds the one it was given
			m := *c.Modes
			m.CurrentModeId = mode
			c.Modes = &m
		}
	})
	return nil
}

// SetModel relays the editor's session/set_model to the agent.
func (a *Agent) SetModel(ctx context.Context, model acp.UnstableModelId) error {
	p, err := a.opened(ctx)
	if err != nil {
		return err
	}
	if _, err := p.conn.UnstableSetSessionModel(ctx, acp.UnstableSetSessionModelRequest{SessionId: p.openID(), ModelId: model}); err != nil {
		return err
	}
	p.editConfig(func(c *SessionConfig) {
		if c.Models != nil {
			m := *c.Models
			m.CurrentModelId = acp.ModelId(model)
			c.Models = &m
		}
	})
	return nil
}

// SetConfigOption relays the editor's session/set_config_option for one
// of the agent's own options and returns the agent's options as they are
// now.
func (a *Agent) SetConfigOption(ctx context.Context, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	p, err := a.opened(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Boolean != nil:
		req.Boolean.SessionId = p.openID()
	case req.ValueId != nil:
		req.ValueId.SessionId = p.openID()
	}
	resp, err := p.conn.SetSessionConfigOption(ctx, req)
	if err != nil {
		return nil, err
	}
	p.editConfig(func(c *SessionConfig) { c.Options = resp.ConfigOptions })
	return resp.ConfigOptions, nil
}
