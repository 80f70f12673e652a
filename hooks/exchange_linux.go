package hooks

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the files a and b in one step (renameat2 with
// RENAME_EXCHANGE), so that what b held is then at a to be checked;
// swapped is false when this file system cannot.
func exchange(a, b string) (swapped bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return err == nil, err
}
