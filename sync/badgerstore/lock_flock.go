//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package badgerstore

import (
	"fmt"
	"os"
	"syscall"
)

// lockDir takes the lock Badger takes on a database's folder (flock on the
// folder itself), shared if shared, and returns a function that releases
// it. It fails at once, with an error wrapping ErrLocked, if another
// process, or another open database in this one, holds the folder.
func lockDir(dir string, shared bool) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: cannot lock the folder: %v", ErrLocked, err)
	}
	return func() { f.Close() }, nil
}
