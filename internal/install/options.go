package install

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// This file is what Options derive: the output, the command runner, the
// platform and the checks before install and uninstall.

func outcome(changed bool, ifChanged Outcome) Outcome {
	if changed {
		return ifChanged
	}
	return Unchanged
}

func (o *Options) out() io.Writer {
	if o.Stdout == nil {
		return io.Discard
	}
	return o.Stdout
}

func (o *Options) runner() runner { return runner{path: CleanPath(o.Path), env: o.Env} }

// check validates the options an operation needs.
func (o *Options) check(install bool) error {
	abs := [][2]string{{"home", o.Home}}
	if install {
		abs = append(abs, [2]string{"binary", o.Binary}, [2]string{"config path", o.ConfigPath}, [2]string{"memory folder", o.MemoryDir})
	} else if o.MemoryDir != "" {
		abs = append(abs, [2]string{"memory folder", o.MemoryDir})
	}
	for _, a := range abs {
		if !filepath.IsAbs(a[1]) {
			return fmt.Errorf("install: %s must be an absolute path (got %q)", a[0], a[1])
		}
	}
	if !install {
		return nil
	}
	if fi, err := os.Stat(o.Binary); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("install: binary %s is not an executable file", o.Binary)
	}
	if CleanPath(o.Path) == "" {
		return errors.New("install: PATH for the service is empty (it needs the folders of git and opencode)")
	}
	return nil
}

func (o *Options) goos() string {
	if o.GOOS == "" {
		return runtime.GOOS
	}
	return o.GOOS
}

// configHome is $XDG_CONFIG_HOME when absolute (the XDG rule), else ~/.config.
func configHome(home, xdg string) string {
	if filepath.IsAbs(xdg) {
		return xdg
	}
	return filepath.Join(home, ".config")
}
