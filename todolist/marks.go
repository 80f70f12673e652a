package todolist

// Mark is the list's one-character mark for status (ARCHITECTURE.md §6),
// "?" for a status todosh does not know.
func Mark(s Status) string {
	if m := StatusMarks[s]; m != "" {
		return m
	}
	return "?"
}
