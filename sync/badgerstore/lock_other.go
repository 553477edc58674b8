//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package badgerstore

// lockDir does nothing on platforms without flock: OpenDB checks the folder
// unlocked there, and Badger takes its own lock when it opens.
func lockDir(string, bool) (func(), error) { return func() {}, nil }
