package hooks

import (
	"errors"
	"strconv"
	"strings"
)

// Codex keeps what todosh's status must know in its config.toml: whether
// its todo tool is on ([tools.update_plan] enabled) and which hooks the
// person trusted ([hooks.state."FILE:EVENT:GROUP:HOOK"] trusted_hash).
// tomlKeys reads the plain key = value lines of such a file, which is all
// status needs: table headers, dotted and quoted keys, and one-line
// values (a string's text, any other value as written). Arrays of tables
// and values over several lines are skipped, never misread as keys.

// tomlKeys maps each key of doc, its table's keys and its own joined by
// "\x00", to its value.
func tomlKeys(doc string) (map[string]string, error) {
	out := map[string]string{}
	var table []string
	skip := false // inside an array of tables or a value over several lines
	for n, line := range strings.Split(doc, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		switch {
		case line == "" || line[0] == '#':
			continue
		case strings.HasPrefix(line, "[["):
			skip = true
			continue
		case line[0] == '[':
			keys, rest, err := tomlKey(line[1:])
			if err != nil || !strings.HasPrefix(strings.TrimSpace(rest), "]") {
				return nil, errors.New("line " + strconv.Itoa(n+1) + ": cannot read the table's name")
			}
			table, skip = keys, false
			continue
		case skip:
			continue
		}
		keys, rest, err := tomlKey(line)
		rest = strings.TrimSpace(rest)
		if err != nil || !strings.HasPrefix(rest, "=") {
			continue // the rest of a value over several lines
		}
		val := strings.TrimSpace(rest[1:])
		if s, err := strconv.Unquote(cutComment(val)); err == nil && strings.HasPrefix(val, `"`) {
			val = s
		} else if strings.HasPrefix(val, `'`) {
			val = strings.Trim(cutComment(val), `'`)
		} else {
			val = cutComment(val)
		}
		out[strings.Join(append(append([]string{}, table...), keys...), "\x00")] = val
	}
	return out, nil
}

// tomlKey reads a dotted key at the start of s: bare or quoted parts.
func tomlKey(s string) (keys []string, rest string, err error) {
	for {
		s = strings.TrimLeft(s, " \t")
		switch {
		case strings.HasPrefix(s, `"`):
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, "", errors.New("unterminated key")
			}
			k, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, "", err
			}
			keys, s = append(keys, k), s[end+1:]
		case strings.HasPrefix(s, `'`):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", errors.New("unterminated key")
			}
			keys, s = append(keys, s[1:end+1]), s[end+2:]
		default:
			end := strings.IndexFunc(s, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
			})
			if end < 0 {
				end = len(s)
			}
			if end == 0 {
				return nil, "", errors.New("no key")
			}
			keys, s = append(keys, s[:end]), s[end:]
		}
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, ".") {
			return keys, s, nil
		}
		s = s[1:]
	}
}

// cutComment is a value without a comment after it (not inside a string).
func cutComment(v string) string {
	in := byte(0)
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case in != 0 && c == '\\' && in == '"':
			i++
		case in != 0 && c == in:
			in = 0
		case in == 0 && (c == '"' || c == '\''):
			in = c
		case in == 0 && c == '#':
			return strings.TrimSpace(v[:i])
		}
	}
	return strings.TrimSpace(v)
}
