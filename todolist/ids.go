package todolist

import (
	"strconv"
	"strings"
)

// IsPosition reports whether id is a position ("3", "2.1") rather than a
// stable id ("t7", "s12").
func IsPosition(id string) bool {
	id = strings.TrimSpace(id)
	if id == "" {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// FindUID finds the item (sub -1) or subtask with stable id uid.
func FindUID(todos []Todo, uid string) (item, sub int, ok bool) {
	uid = strings.TrimSpace(uid)
	if uid == "" {
		return 0, 0, false
	}
	for i, t := range todos {
		if t.UID == uid {
			return i, -1, true
		}
		for j, st := range t.Subtasks {
			if st.UID == uid {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// UIDNumber is the number of a stable id ("t7" → 7), or 0.
func UIDNumber(uid string) int {
	if len(uid) < 2 || (uid[0] != 't' && uid[0] != 's') {
		return 0
	}
	n, err := strconv.Atoi(uid[1:])
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// SameUIDs reports whether two lists hold the same stable ids in the same
// places.
func SameUIDs(a, b []Todo) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i].UID != b[i].UID || len(a[i].Subtasks) != len(b[i].Subtasks) {
			return false
		}
		if SameArray(a[i].Subtasks, b[i].Subtasks) {
			continue
		}
		for j := range a[i].Subtasks {
			if a[i].Subtasks[j].UID != b[i].Subtasks[j].UID {
				return false
			}
		}
	}
	return true
}

// ClearUIDs takes the stable ids off a list copied from another session
// (/todo load), so todostore's Commit gives its entries ids of this
// session: an id of the other session could name an entry this one
// removed.
func ClearUIDs(todos []Todo) {
	for i := range todos {
		todos[i].UID, todos[i].Rev = "", 0
		OwnSubtasks(&todos[i]) // they may be shared (copy on write)
		for j := range todos[i].Subtasks {
			todos[i].Subtasks[j].UID, todos[i].Subtasks[j].Rev = "", 0
		}
	}
}
