// Package clis wraps the agent CLIs people already use — Claude Code, Codex,
// Gemini CLI, Qwen Code and pi — behind agent.Agent. Each turn runs the CLI
// once in its headless streaming mode, maps its todo events onto the
// session's list (whole lists merged with agent.ApplyAgentList so the
// person's items survive, task tools applied one item at a time) and saves
// the CLI's own session id so every later turn resumes it.
//
// One file per part: table.go (one row per CLI: command line, parser, todo
// tools, hooks), the pure stream parsers (claude.go, codex.go, gemini.go,
// qwen.go, pi.go over stream.go and jsonline.go, a line decoded once by
// encoding/json), turn.go (the turn loop: a turn's updates applied to the
// session), process.go (the CLI's process group: start, read, wait, end)
// and stderr.go (what its standard error says). The runner reads a CLI's row, never its name.
// Its place in the whole is ARCHITECTURE.md §4.
package clis
