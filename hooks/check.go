package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"
)

// What `todosh hooks status` checks besides the entries: what each
// installed hook needs when the agent runs it. The executable at the
// installed path, a store it can write, the agent's todo tool switched on,
// and, for Codex, the person's trust, read from Codex's own config.

// Env is where status looks: the person's home, the current directory
// (for project files), the environment and todosh's store.
type Env struct {
	Home, Cwd string
	Getenv    func(string) string
	// Store is todosh's store directory, as the hooks resolve it.
	Store string
}

// Reports are the agent's settings files, user then project, with what
// their hooks need at run time checked. The agent's todo tool counts as
// on when either file, its own config or the environment turns it on, as
// the agent merges them.
func Reports(a Agent, env Env) []Report {
	var reps []Report
	for _, sc := range []Scope{ScopeUser, ScopeProject} {
		reps = append(reps, Status(a.Path(sc, env.Home, env.Cwd, env.Getenv), a, sc))
	}
	configDir := filepath.Dir(a.Path(ScopeUser, env.Home, env.Cwd, env.Getenv))
	var config map[string]string
	var configErr error
	if a.trustIn != "" || a.toolOn != nil && a.toolOn.toml != "" {
		config, configErr = readConfig(filepath.Join(configDir, a.configFile()))
	}
	if sw := a.toolOn; sw != nil && sw.toml != "" && sw.isOn(config[strings.Join(sw.path, "\x00")]) {
		reps[0].ToolOn = true
	}
	ShareToolOn(reps, env.Getenv)
	storeErr, storeFix := checkStore(env.Store)
	for i := range reps {
		r := &reps[i]
		if len(r.Installed) == 0 || r.Err != nil {
			continue
		}
		for _, e := range r.entries {
			if slices.Contains(r.Stale, e.exe) || slices.Contains(r.NotExec, e.exe) {
				continue
			}
			if info, err := os.Stat(e.exe); err == nil && (!info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0) {
				r.NotExec = append(r.NotExec, e.exe)
			}
		}
		r.StoreErr, r.StoreFix = storeErr, storeFix
		r.ConfigErr = configErr
		if a.trustIn != "" && configErr == nil {
			r.Untrusted = untrusted(*r, config)
		}
	}
	return reps
}

// configFile is the agent's own config file that status reads.
func (a Agent) configFile() string {
	if a.trustIn != "" {
		return a.trustIn
	}
	return a.toolOn.toml
}

// readConfig reads the keys of the agent's TOML config; a missing file
// has none.
func readConfig(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := tomlKeys(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// untrusted are the kinds of r's entries that Codex has no trust recorded
// for: it keeps a trusted_hash under hooks.state."FILE:EVENT:GROUP:HOOK"
// (the event in snake case, the group in the event's list and the hook in
// the group counted from 0). A changed command needs trust again; Codex
// says so itself in its hook review.
func untrusted(r Report, config map[string]string) []Kind {
	var ks []Kind
	for _, e := range r.entries {
		key := fmt.Sprintf("%s:%s:%d:%d", r.Path, snakeCase(e.event), e.group, e.hook)
		if config[strings.Join([]string{"hooks", "state", key, "trusted_hash"}, "\x00")] == "" && !slices.Contains(ks, e.kind) {
			ks = append(ks, e.kind)
		}
	}
	return ks
}

// snakeCase is an event's name as Codex writes it in its config:
// "PostToolUse" is "post_tool_use".
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkStore reports why the hooks could not write todosh's store at dir,
// and the one command that fixes it; nil when they can. A store that does
// not exist yet is checked where the hooks would create it.
func checkStore(dir string) (error, string) {
	if dir == "" {
		return nil, ""
	}
	d := dir
	for {
		info, err := os.Stat(d)
		if err == nil {
			if !info.IsDir() {
				return fmt.Errorf("%s is not a directory", d), "mv " + shellQuote(d) + " " + shellQuote(d+".old")
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) || filepath.Dir(d) == d {
			return err, "ls -ld " + shellQuote(d)
		}
		d = filepath.Dir(d)
	}
	f, err := os.CreateTemp(d, ".todosh-status-*")
	if err == nil {
		f.Close()
		os.Remove(f.Name())
		return nil, ""
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", d, pe.Err)
	}
	return err, storeFix(d)
}

// storeFix is the command that makes dir writable for this user: its
// owner back when someone else owns it (a todosh run with sudo), else its
// mode.
func storeFix(dir string) string {
	info, err := os.Stat(dir)
	if err == nil {
		if ownerOf(info).other() {
			name := strconv.Itoa(os.Getuid())
			if u, err := user.Current(); err == nil {
				name = u.Username
			}
			return "sudo chown -R " + name + " " + shellQuote(dir)
		}
	}
	return "chmod -R u+rwX " + shellQuote(dir)
}
