//go:build !unix

package atomicfile

import "os"

// Without flock, temporary files are not locked and Sweep removes none.
const holdOpen = false

func lock(*os.File) error { return nil }

func tryLock(*os.File) (bool, error) { return false, nil }
