package config

import "fmt"

// Source is the layer that set a value: the built-in default, the YAML
// file, an environment variable or a command-line flag. Later layers win.
type Source int

// The layers, in the order they are applied.
const (
	FromDefault Source = iota
	FromFile
	FromEnv
	FromFlag
)

func (s Source) String() string {
	switch s {
	case FromFile:
		return "file"
	case FromEnv:
		return "env"
	case FromFlag:
		return "flag"
	}
	return "default"
}

// Origin says where a value came from, in the words the user would look
// for it: the file and line, the environment variable, or the flag.
type Origin struct {
	Source Source
	File   string // FromFile: the file's path as given
	Line   int    // FromFile: the line of the key
	Name   string // FromEnv: the variable; FromFlag: the flag as written, e.g. --memory-dir
}

// String is "default", "PATH:LINE", "env NAME" or "flag NAME".
func (o Origin) String() string {
	switch o.Source {
	case FromFile:
		return fmt.Sprintf("%s:%d", o.File, o.Line)
	case FromEnv:
		return "env " + o.Name
	case FromFlag:
		return "flag " + o.Name
	}
	return "default"
}

// KeyError is a problem with one configuration key. Its text leads with
// where the value came from (unless it is the default), then the key:
//
//	/home/me/.config/memoryd/config.yaml:7: extract.modle: unknown key (did you mean extract.model?)
//	env MEMORY_COMPACT_CHURN: compact.churn: must be at least 1 (got 0)
type KeyError struct {
	Origin Origin
	Key    string
	Msg    string
}

func (e *KeyError) Error() string {
	if e.Origin.Source == FromDefault {
		return e.Key + ": " + e.Msg
	}
	return e.Origin.String() + ": " + e.Key + ": " + e.Msg
}
