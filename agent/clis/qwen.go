package clis

// NewQwenParser reads `qwen --output-format stream-json` (Qwen Code). Its
// stream has Claude Code's shape (packages/cli/src/nonInteractive in
// QwenLM/qwen-code): a `system`/`init` line with session_id and the tool
// names, `assistant` lines whose content blocks hold text and tool_use,
// `user` lines with tool results, and a `result` line whose failure is in
// .error.message. Its todo tool is todo_write, whose input is the whole
// list {todos: [{id, content, status}]} on every call; it has no Task
// tools and no tool_use_result. Its usage is its own (usage.go,
// newQwenUsage).
func NewQwenParser() *ClaudeParser {
	return &ClaudeParser{cli: "qwen", todoWrite: "todo_write", usage: newQwenUsage()}
}
