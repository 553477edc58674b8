package raftbench_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// syncTrace counts the sync system calls of this process from the output
// of strace, which `make bench` runs it under in a counting pass:
//
//	strace -f --seccomp-bpf -qq -e signal=none -e trace=fsync,fdatasync,msync,sync_file_range,syncfs -o FILE
//
// with SYNCTRACE=FILE. A sync call is an fsync, fdatasync, sync_file_range
// or syncfs, or an msync with MS_SYNC (how Badger syncs its memory-mapped
// write-ahead and value logs). To count the calls of one run and not those
// of the cluster's start, mark makes a marker call strace logs in order with
// the others: fsync of a descriptor that cannot be open. bench/etcd
// counts etcd's calls with the same code (synctrace_test.go), so the
// two figures count the same thing.
type syncTrace struct {
	f     *os.File
	rest  []byte // an incomplete last line
	calls int64  // sync calls read so far
	marks int
}

// openSyncTrace opens the file SYNCTRACE names, or returns nil when it is
// not set: then there is nothing to count.
func openSyncTrace() (*syncTrace, error) {
	name := os.Getenv("SYNCTRACE")
	if name == "" {
		return nil, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open strace output: %w", err)
	}
	return &syncTrace{f: f}, nil
}

// markerBase is the first descriptor mark fsyncs: far above any open one.
const markerBase = 1 << 30

// mark makes a marker call and returns how many sync calls strace logged
// before it, since the trace began.
func (t *syncTrace) mark() (int64, error) {
	fd := markerBase + t.marks
	t.marks++
	if err := syscall.Fsync(fd); !errors.Is(err, syscall.EBADF) {
		return 0, fmt.Errorf("marker fsync(%d): %v, want EBADF", fd, err)
	}
	// strace writes "fsync(FD) = -1 EBADF", or "fsync(FD <unfinished ...>"
	// when another thread's call comes between its start and its end.
	marker, unfinished := fmt.Appendf(nil, "fsync(%d)", fd), fmt.Appendf(nil, "fsync(%d <", fd)
	buf := make([]byte, 1<<16)
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := t.f.Read(buf)
		t.rest = append(t.rest, buf[:n]...)
		for {
			i := bytes.IndexByte(t.rest, '\n')
			if i < 0 {
				break
			}
			line := t.rest[:i]
			t.rest = t.rest[i+1:]
			if bytes.Contains(line, marker) || bytes.Contains(line, unfinished) {
				return t.calls, nil
			}
			if isSyncCall(line) {
				t.calls++
			}
		}
		switch {
		case err != nil && err != io.EOF:
			return 0, fmt.Errorf("read strace output: %w", err)
		case time.Now().After(deadline):
			return 0, fmt.Errorf("strace did not log marker %s within 30 s: is the process running under strace -o $SYNCTRACE?", marker)
		case n == 0:
			time.Sleep(time.Millisecond)
		}
	}
}

// isSyncCall reports whether a line of strace output is the start of a
// sync call: "PID  fsync(5) = 0" or "PID  fsync(5 <unfinished ...>", not
// the "<... fsync resumed>" that ends an unfinished one, nor a marker.
func isSyncCall(line []byte) bool {
	line = bytes.TrimLeft(line, "0123456789 ")
	name, args, ok := bytes.Cut(line, []byte("("))
	if !ok {
		return false
	}
	switch string(name) {
	case "fsync":
		var fd int
		if _, err := fmt.Sscanf(string(args), "%d", &fd); err == nil && fd >= markerBase {
			return false
		}
		return true
	case "fdatasync", "sync_file_range", "syncfs":
		return true
	case "msync":
		return bytes.Contains(args, []byte("MS_SYNC"))
	}
	return false
}
