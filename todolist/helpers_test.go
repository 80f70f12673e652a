package todolist

// texts is the texts of todos, in order.
func texts(todos []Todo) []string {
	var out []string
	for _, t := range todos {
		out = append(out, t.Content)
	}
	return out
}
