package logfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTee: standard error has every line until Quiet; the attached file
// has the lines from Attach on and the error that ends the run.
func TestTee(t *testing.T) {
	var stderr bytes.Buffer
	tee := NewTee(&stderr)
	tee.Write([]byte("before\n"))
	path := filepath.Join(t.TempDir(), "daemon.log")
	f, err := Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	tee.Attach(f)
	tee.Write([]byte("both\n"))
	tee.Quiet()
	tee.Write([]byte("file only\n"))
	tee.Failed(errors.New("the folder is gone"))
	tee.Close()
	tee.Write([]byte("after close\n"))
	data, _ := os.ReadFile(path)
	if got := string(data); !strings.HasPrefix(got, "both\nfile only\n") || !strings.Contains(got, "the folder is gone") || strings.Contains(got, "after") {
		t.Errorf("log file:\n%s", got)
	}
	if got := stderr.String(); got != "before\nboth\n" {
		t.Errorf("standard error:\n%s", got)
	}
}
