//go:build unix && !linux && !darwin

package procgroup

// Members cannot list a group here (no /proc, no reader written for this
// system): ok is false, and Alive asks the kernel instead.
func Members(pgid int) (members []Member, ok bool) { return nil, false }
