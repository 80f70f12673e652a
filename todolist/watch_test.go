package todolist

func texts(todos []Todo) []string {
	var out []string
	for _, t := range todos {
		out = append(out, t.Content)
	}
	return out
}
