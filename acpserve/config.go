package acpserve

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/todosh/todosh/agent/acpagent"
	"github.com/todosh/todosh/backends"
	"github.com/todosh/todosh/continuation"
	"github.com/todosh/todosh/todolist"
)

// This file is a session's settings as the editor sees them: the inner
// agent's modes, models and config options, relayed both ways, and
// todosh's own config options beside them.

// settings are todosh's own options of one session, set by the editor
// (session/set_config_option) and read by each prompt.
type settings struct {
	Continue bool
	Attempts int // attempts without progress before continuation stops
	// Budget is each prompt's (continuation.Policy.SetBudget); flagBudget
	// the one todosh acp started with, kept among the choices.
	Budget, flagBudget continuation.Budget
	// usage: the inner agent reports the tokens it spends
	// (backends.Caps.Usage), so a token budget can hold it.
	usage bool
	// RequireEvidence is --require-evidence; evidence says the agent
	// serves todosh's todo tools, which hold it; evidenceChosen that the
	// editor chose it, so the session's store setting is written.
	RequireEvidence, evidence, evidenceChosen bool
}

// The ids of todosh's own config options: one id, one option builder,
// one setter each.
const (
	optContinue     = "todosh_continue"
	optAttempts     = "todosh_attempts"
	optBudgetTokens = "todosh_budget_tokens"
	optBudgetTime   = "todosh_budget_time"
	optEvidence     = "todosh_require_evidence"
)

// The budgets the editor offers besides none and the flag's: a select
// option carries fixed values (ACP's SessionConfigSelectOption).
var (
	tokenChoices = []int64{10_000, 50_000, 200_000}
	timeChoices  = []time.Duration{5 * time.Minute, 15 * time.Minute, time.Hour}
)

// noBudget is the value of a budget option that sets no limit.
const noBudget = "none"

// maxAttemptsChoice is the highest "attempts without progress" the editor
// offers.
const maxAttemptsChoice = 10

// ownOption is one of todosh's config options: how it shows and how the
// editor's choice changes the settings.
type ownOption struct {
	id    string
	build func(settings) acp.SessionConfigOption
	set   func(*settings, acp.SetSessionConfigOptionRequest) error
	// offered says whether the session has the option (nil: always).
	offered func(settings) bool
}

// ownOptions is the one table of todosh's config options, shown after the
// inner agent's.
var ownOptions = []ownOption{
	boolRow(optContinue, "todosh: continue a lazy agent",
		"Continue the agent inside the prompt while todo items stay open (todosh acp --no-continue turns it off)",
		func(s settings) bool { return s.Continue }, func(s *settings, v bool) { s.Continue = v }, nil),
	{optAttempts, func(s settings) acp.SessionConfigOption {
		var opts []acp.SessionConfigSelectOption
		for n := 1; n <= maxAttemptsChoice; n++ {
			opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(strconv.Itoa(n)), Name: strconv.Itoa(n)})
		}
		return acp.SessionConfigOption{Select: &acp.SessionConfigOptionSelect{Id: optAttempts, Type: "select",
			Name: "todosh: attempts without progress", CurrentValue: acp.SessionConfigValueId(strconv.Itoa(s.Attempts)),
			Description: acp.Ptr("How many continuations in a row may make no progress before todosh stops and waits for you"),
			Options:     acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&opts)}}}
	}, func(s *settings, r acp.SetSessionConfigOptionRequest) error {
		if r.ValueId == nil {
			return fmt.Errorf("want a value from 1 to %d", maxAttemptsChoice)
		}
		n, err := strconv.Atoi(string(r.ValueId.Value))
		if err != nil || n < 1 || n > maxAttemptsChoice {
			return fmt.Errorf("value %q: want a number from 1 to %d", todoShort(string(r.ValueId.Value)), maxAttemptsChoice)
		}
		s.Attempts = n
		return nil
	}, nil},
	budgetRow(budgetLimit[int64]{optBudgetTokens, "todosh: token budget per prompt",
		"Stop continuing a prompt once its turns spent this many tokens, as the agent reports them (todosh acp --budget-tokens; /todo budget +N raises it for one prompt)",
		tokenChoices, func(b *continuation.Budget) *int64 { return &b.Tokens }, tokenValue, tokenName},
		func(s settings) bool { return s.usage }),
	budgetRow(budgetLimit[time.Duration]{optBudgetTime, "todosh: time budget per prompt",
		"Stop continuing a prompt once its turns took this long (todosh acp --budget-time; /todo budget +10m raises it for one prompt)",
		timeChoices, func(b *continuation.Budget) *time.Duration { return &b.Time }, timeValue, timeValue}, nil),
	boolRow(optEvidence, "todosh: require evidence",
		"Refuse to complete a todo without evidence, and where todosh sees the agent's work, without a receipt (todosh acp --require-evidence)",
		func(s settings) bool { return s.RequireEvidence }, func(s *settings, v bool) { s.RequireEvidence, s.evidenceChosen = v, true },
		func(s settings) bool { return s.evidence }),
}

// boolRow is the ownOptions row of an on/off setting.
func boolRow(id, name, desc string, get func(settings) bool, set func(*settings, bool), offered func(settings) bool) ownOption {
	return ownOption{id, func(s settings) acp.SessionConfigOption {
		return acp.SessionConfigOption{Boolean: &acp.SessionConfigOptionBoolean{Id: acp.SessionConfigId(id), Type: "boolean",
			Name: name, CurrentValue: get(s), Description: acp.Ptr(desc)}}
	}, func(s *settings, r acp.SetSessionConfigOptionRequest) error {
		v, err := boolValue(r)
		if err == nil {
			set(s, v)
		}
		return err
	}, offered}
}

// budgetLimit is one limit of continuation.Budget as an option: its
// choices besides none, the flag's and the current one, and how a limit
// is written as a value and shown.
type budgetLimit[T int64 | time.Duration] struct {
	id, name, desc string
	choices        []T
	field          func(*continuation.Budget) *T
	value, show    func(T) string
}

// budgetRow is the ownOptions row of a budget limit: a select of none
// and each limit in order.
func budgetRow[T int64 | time.Duration](l budgetLimit[T], offered func(settings) bool) ownOption {
	limits := func(s settings) []T {
		ls := append(slices.Clone(l.choices), *l.field(&s.flagBudget), *l.field(&s.Budget))
		slices.Sort(ls)
		return slices.DeleteFunc(slices.Compact(ls), func(v T) bool { return v <= 0 })
	}
	build := func(s settings) acp.SessionConfigOption {
		opts := []acp.SessionConfigSelectOption{{Value: noBudget, Name: noBudget}}
		for _, v := range limits(s) {
			opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(l.value(v)), Name: l.show(v)})
		}
		current := noBudget
		if v := *l.field(&s.Budget); v > 0 {
			current = l.value(v)
		}
		return acp.SessionConfigOption{Select: &acp.SessionConfigOptionSelect{Id: acp.SessionConfigId(l.id), Type: "select",
			Name: l.name, CurrentValue: acp.SessionConfigValueId(current), Description: acp.Ptr(l.desc),
			Options: acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&opts)}}}
	}
	set := func(s *settings, r acp.SetSessionConfigOptionRequest) error {
		values := []string{noBudget}
		for _, v := range limits(*s) {
			values = append(values, l.value(v))
		}
		if r.ValueId != nil {
			if string(r.ValueId.Value) == noBudget {
				*l.field(&s.Budget) = 0
				return nil
			}
			for _, v := range limits(*s) {
				if l.value(v) == string(r.ValueId.Value) {
					*l.field(&s.Budget) = v
					return nil
				}
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(values, ", "))
	}
	return ownOption{l.id, build, set, offered}
}

// tokenValue is a token budget as an option value: 10000.
func tokenValue(n int64) string { return strconv.FormatInt(n, 10) }

// tokenName shows a token budget: 10k tokens, 1,500 tokens.
func tokenName(n int64) string {
	if n%1000 == 0 {
		return todolist.Thousands(n/1000) + "k tokens"
	}
	return todolist.Thousands(n) + " tokens"
}

// timeValue is a time budget as an option value and its name: 5m, 1h,
// 1h30m, 90s is 1m30s.
func timeValue(d time.Duration) string {
	v := d.String()
	if strings.HasSuffix(v, "m0s") {
		v = strings.TrimSuffix(v, "0s")
	}
	if strings.HasSuffix(v, "h0m") {
		v = strings.TrimSuffix(v, "0m")
	}
	return v
}

// boolValue reads a boolean option's value: a boolean, or "true"/"false"
// from a client that sends every value as an id.
func boolValue(r acp.SetSessionConfigOptionRequest) (bool, error) {
	switch {
	case r.Boolean != nil:
		return r.Boolean.Value, nil
	case r.ValueId != nil && (r.ValueId.Value == "true" || r.ValueId.Value == "false"):
		return r.ValueId.Value == "true", nil
	}
	return false, fmt.Errorf("want true or false")
}

func todoShort(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// configID is the option a set_config_option names.
func configID(r acp.SetSessionConfigOptionRequest) string {
	switch {
	case r.Boolean != nil:
		return string(r.Boolean.ConfigId)
	case r.ValueId != nil:
		return string(r.ValueId.ConfigId)
	}
	return ""
}

// MergeOptions is the config option list the editor gets: the inner
// agent's options, then todosh's (from s), none of the agent's that take
// an id of todosh's.
func MergeOptions(inner []acp.SessionConfigOption, s settings) []acp.SessionConfigOption {
	out := make([]acp.SessionConfigOption, 0, len(inner)+len(ownOptions))
	for _, o := range inner {
		if !strings.HasPrefix(optionID(o), "todosh_") {
			out = append(out, o)
		}
	}
	for _, o := range ownOptions {
		if o.offered == nil || o.offered(s) {
			out = append(out, o.build(s))
		}
	}
	return out
}

// optionID is an option's id, whatever its type.
func optionID(o acp.SessionConfigOption) string {
	switch {
	case o.Select != nil:
		return string(o.Select.Id)
	case o.Boolean != nil:
		return string(o.Boolean.Id)
	}
	return ""
}

// settingsNow are the session's settings.
func (ss *session) settingsNow() settings {
	ss.cfgMu.Lock()
	defer ss.cfgMu.Unlock()
	return ss.set
}

// innerConfig is the inner agent's settings as last heard, and whether it
// told any yet.
func (ss *session) innerConfig() (acpagent.SessionConfig, bool) {
	ss.cfgMu.Lock()
	defer ss.cfgMu.Unlock()
	return ss.inner, ss.hasInner
}

// options is the session's whole config option list.
func (ss *session) options() []acp.SessionConfigOption {
	ss.cfgMu.Lock()
	defer ss.cfgMu.Unlock()
	return MergeOptions(InnerOptions(ss.inner), ss.set)
}

// The ids of the options todosh makes of an agent's modes and models.
const (
	optMode  = "mode"
	optModel = "model"
)

// InnerOptions are the inner agent's config options; an agent that
// offers modes and models but no config options (Gemini CLI 0.61) gets
// them as two options, mode and model, so an editor that learns them
// after session/new (the agent starts later: config_option_update) or
// reads only config options still shows them. Setting one is set_mode or
// set_model (SetSessionConfigOption).
func InnerOptions(c acpagent.SessionConfig) []acp.SessionConfigOption {
	if len(c.Options) > 0 {
		return c.Options
	}
	var out []acp.SessionConfigOption
	if m := c.Modes; m != nil && len(m.AvailableModes) > 0 {
		opts := acp.SessionConfigSelectOptionsUngrouped{}
		for _, x := range m.AvailableModes {
			opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(x.Id), Name: x.Name, Description: x.Description})
		}
		out = append(out, madeSelect(optMode, "Mode", string(m.CurrentModeId), opts))
	}
	if m := c.Models; m != nil && len(m.AvailableModels) > 0 {
		opts := acp.SessionConfigSelectOptionsUngrouped{}
		for _, x := range m.AvailableModels {
			opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(x.ModelId), Name: x.Name, Description: x.Description})
		}
		out = append(out, madeSelect(optModel, "Model", string(m.CurrentModelId), opts))
	}
	return out
}

// madeSelect is the select option todosh makes of the inner agent's modes
// or models: its id is also its category.
func madeSelect(id, name, current string, opts acp.SessionConfigSelectOptionsUngrouped) acp.SessionConfigOption {
	cat := acp.SessionConfigOptionCategory(id)
	return acp.SessionConfigOption{Select: &acp.SessionConfigOptionSelect{Id: acp.SessionConfigId(id), Name: name, Type: "select", Category: &cat,
		CurrentValue: acp.SessionConfigValueId(current), Options: acp.SessionConfigSelectOptions{Ungrouped: &opts}}}
}

// madeOption reports whether option id is one todosh made of the inner
// agent's modes or models (it has no config options of its own).
func (ss *session) madeOption(id string) bool {
	ss.cfgMu.Lock()
	defer ss.cfgMu.Unlock()
	return len(ss.inner.Options) == 0 && (id == optMode && ss.inner.Modes != nil || id == optModel && ss.inner.Models != nil)
}

// applySettings gives the policy the editor's choices; prompt calls it
// under the turn lock, where the policy is used.
func (ss *session) applySettings() {
	s := ss.settingsNow()
	ss.policy.SetEnabled(s.Continue)
	ss.policy.SetMaxNoProgress(s.Attempts)
	ss.policy.SetBudget(s.Budget)
	if s.evidenceChosen {
		// Recorded in the store, where todosh's todo tools read it at
		// each call, also in the todosh mcp the agent started.
		if _, err := ss.store.SetRequireEvidence(ss.id, s.RequireEvidence); err != nil {
			ss.say("todosh: require evidence not applied: " + err.Error() + "\n\n")
		}
	}
}

// innerSettled records the inner agent's settings when its session opens
// and shows them to the editor: its options merged with todosh's, its
// mode. The server keeps them for the next session/new, which answers
// before any agent starts.
func (ss *session) innerSettled(c acpagent.SessionConfig) {
	ss.cfgMu.Lock()
	ss.inner, ss.hasInner = c, true
	ss.cfgMu.Unlock()
	ss.srv.rememberInner(c)
	ss.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: ss.options()}})
	if c.Modes != nil {
		ss.send(acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: c.Modes.CurrentModeId}})
	}
}

// innerOptionsChanged takes the inner agent's config_option_update: its
// options, merged with todosh's, go to the editor.
func (ss *session) innerOptionsChanged(opts []acp.SessionConfigOption) {
	ss.cfgMu.Lock()
	ss.inner.Options, ss.hasInner = opts, true
	ss.cfgMu.Unlock()
	ss.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: ss.options()}})
}

// rememberInner keeps the inner agent's last settings for the answers of
// later session/new and session/load.
func (s *Server) rememberInner(c acpagent.SessionConfig) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastInner, s.hasInner = c, true
}

// knownInner is the inner agent's settings as last heard in any session.
func (s *Server) knownInner() (acpagent.SessionConfig, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastInner, s.hasInner
}

// settingsAgent is an inner agent whose settings the editor can change
// (acpagent.Agent).
type settingsAgent interface {
	Open(context.Context) error
	SetMode(context.Context, acp.SessionModeId) error
	SetModel(context.Context, acp.UnstableModelId) error
	SetConfigOption(context.Context, acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error)
}

// settingsOf is the session's inner agent as a settingsAgent, or an error
// the editor reads.
func (ss *session) settingsOf(method string) (settingsAgent, error) {
	if a, ok := ss.agent.(settingsAgent); ok {
		return a, nil
	}
	name := "no agent"
	if ss.srv.cfg.Backend != nil && ss.agent != nil {
		name = ss.srv.cfg.Backend.Name
	}
	return nil, invalidParams(fmt.Sprintf("%s: %s has no modes, models or options of its own (only an ACP agent has)", method, name))
}

// SetSessionConfigOption implements acp.Agent: todosh's own options are
// set here and apply from the next turn; any other goes to the inner
// agent (starting it when it has not started). The answer is the whole
// list.
func (s *Server) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	sid := acp.SessionId("")
	switch {
	case p.Boolean != nil:
		sid = p.Boolean.SessionId
	case p.ValueId != nil:
		sid = p.ValueId.SessionId
	}
	ss, err := s.known(sid, acp.AgentMethodSessionSetConfigOption)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	id := configID(p)
	for _, o := range ownOptions {
		if o.id != id || o.offered != nil && !o.offered(ss.settingsNow()) {
			continue
		}
		ss.cfgMu.Lock()
		next := ss.set
		err := o.set(&next, p)
		if err == nil {
			ss.set = next
		}
		ss.cfgMu.Unlock()
		if err != nil {
			return acp.SetSessionConfigOptionResponse{}, invalidParams(fmt.Sprintf("session/set_config_option %s: %v", id, err))
		}
		return acp.SetSessionConfigOptionResponse{ConfigOptions: ss.options()}, nil
	}
	a, err := ss.settingsOf(acp.AgentMethodSessionSetConfigOption)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	// Started first: which options are the agent's own and which todosh
	// made of its modes is known once its session opened.
	if err := a.Open(ctx); err != nil {
		return acp.SetSessionConfigOptionResponse{}, internalError(acp.AgentMethodSessionSetConfigOption + ": " + err.Error())
	}
	if ss.madeOption(id) && p.ValueId != nil {
		if err := ss.setMade(ctx, a, id, string(p.ValueId.Value)); err != nil {
			return acp.SetSessionConfigOptionResponse{}, err
		}
		return acp.SetSessionConfigOptionResponse{ConfigOptions: ss.options()}, nil
	}
	opts, err := a.SetConfigOption(ctx, p)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, relayError(acp.AgentMethodSessionSetConfigOption, err)
	}
	ss.cfgMu.Lock()
	ss.inner.Options, ss.hasInner = opts, true
	ss.cfgMu.Unlock()
	return acp.SetSessionConfigOptionResponse{ConfigOptions: ss.options()}, nil
}

// setMade sets the agent's mode or model (set_mode, set_model: the
// editor's own, or an option todosh made of them) and records it.
func (ss *session) setMade(ctx context.Context, a settingsAgent, id, value string) error {
	if id == optMode {
		if err := a.SetMode(ctx, acp.SessionModeId(value)); err != nil {
			return relayError(acp.AgentMethodSessionSetMode, err)
		}
		ss.noteMode(acp.SessionModeId(value))
		return nil
	}
	if err := a.SetModel(ctx, acp.UnstableModelId(value)); err != nil {
		return relayError(acp.AgentMethodSessionSetModel, err)
	}
	ss.cfgMu.Lock()
	if ss.inner.Models != nil {
		m := *ss.inner.Models
		m.CurrentModelId = acp.ModelId(value)
		ss.inner.Models = &m
	}
	ss.cfgMu.Unlock()
	return nil
}

// noteMode records the inner agent's current mode; made options follow
// it (config_option_update).
func (ss *session) noteMode(mode acp.SessionModeId) {
	ss.cfgMu.Lock()
	changed := ss.inner.Modes != nil && ss.inner.Modes.CurrentModeId != mode
	if ss.inner.Modes != nil {
		m := *ss.inner.Modes
		m.CurrentModeId = mode
		ss.inner.Modes = &m
	}
	made := len(ss.inner.Options) == 0
	ss.cfgMu.Unlock()
	if changed && made {
		ss.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: ss.options()}})
	}
}

// SetSessionMode implements acp.Agent: relayed to the inner agent.
func (s *Server) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, s.setRelayed(ctx, p.SessionId, acp.AgentMethodSessionSetMode, optMode, string(p.ModeId))
}

// UnstableSetSessionModel is session/set_model, relayed to the inner
// agent (the SDK finds it by this name).
func (s *Server) UnstableSetSessionModel(ctx context.Context, p acp.UnstableSetSessionModelRequest) (acp.UnstableSetSessionModelResponse, error) {
	return acp.UnstableSetSessionModelResponse{}, s.setRelayed(ctx, p.SessionId, acp.AgentMethodSessionSetModel, optModel, string(p.ModelId))
}

// setRelayed is set_mode and set_model: session id's inner agent is set
// (setMade) option opt to value, or the error says why not.
func (s *Server) setRelayed(ctx context.Context, id acp.SessionId, method, opt, value string) error {
	ss, err := s.known(id, method)
	if err != nil {
		return err
	}
	a, err := ss.settingsOf(method)
	if err != nil {
		return err
	}
	return ss.setMade(ctx, a, opt, value)
}

// relayError is the inner agent's refusal of a relayed request: its own
// JSON-RPC error as it is, else a one-line internal error.
func relayError(method string, err error) error {
	if re, ok := err.(*acp.RequestError); ok {
		return re
	}
	return internalError(method + ": " + err.Error())
}

// initialSettings are a new session's settings from todosh acp's flags.
func initialSettings(cfg Config) settings {
	return settings{Continue: cfg.Continue, Attempts: continuation.MaxNoProgress, Budget: cfg.Budget, flagBudget: cfg.Budget,
		usage:           cfg.Backend != nil && cfg.Backend.Caps.Usage,
		RequireEvidence: cfg.RequireEvidence, evidence: cfg.Backend != nil && slices.Contains(cfg.Backend.Flags, backends.FlagEvidence)}
}
