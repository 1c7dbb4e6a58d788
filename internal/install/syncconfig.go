package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SetSyncEnabled makes the config file at path set sync.enabled to on,
// changing only that line: the value replaced where the key is, the key
// added under an existing sync: block, or a sync: block appended. The file
// must exist (Install writes it first). It reports Unchanged when the file
// says so already.
func SetSyncEnabled(path string, on bool) (Outcome, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("config %s does not exist", path)
	}
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	next, err := withSyncEnabled(data, on)
	if err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	if bytes.Equal(next, data) {
		return Unchanged, nil
	}
	if _, err := writeFollowing(path, next, 0o600); err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	return Updated, nil
}

// withSyncEnabled is data with sync.enabled set to on; see SetSyncEnabled.
func withSyncEnabled(data []byte, on bool) ([]byte, error) {
	value := strconv.FormatBool(on)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	var top *yaml.Node
	if len(doc.Content) > 0 {
		top = doc.Content[0]
	}
	if top != nil && top.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a mapping of keys; set sync.enabled in it by hand")
	}
	var syncKey, syncVal *yaml.Node
	for i := 0; top != nil && i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "sync" {
			syncKey, syncVal = top.Content[i], top.Content[i+1]
		}
	}
	if syncKey == nil {
		out := string(data)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return []byte(out + "sync:\n  enabled: " + value + "\n"), nil
	}
	if syncVal.Kind != yaml.MappingNode || syncVal.Style&yaml.FlowStyle != 0 {
		if syncVal.Kind == yaml.ScalarNode && syncVal.Tag == "!!null" && syncVal.Line == syncKey.Line {
			// "sync:" with nothing under it.
			indent := strings.Repeat(" ", syncKey.Column+1)
			return insertLine(lines, syncKey.Line, indent+"enabled: "+value+"\n"), nil
		}
		return nil, errors.New("sync: is not a block of keys; set sync.enabled in it by hand")
	}
	for i := 0; i+1 < len(syncVal.Content); i += 2 {
		k, v := syncVal.Content[i], syncVal.Content[i+1]
		if k.Value != "enabled" {
			continue
		}
		if v.Kind != yaml.ScalarNode || v.Line < 1 || v.Line > len(lines) {
			return nil, errors.New("sync.enabled is not a plain value; set it by hand")
		}
		line := lines[v.Line-1]
		start := v.Column - 1
		end := start + len(v.Value)
		if v.Style != 0 || end > len(line) || line[start:end] != v.Value {
			return nil, errors.New("sync.enabled is not a plain value; set it by hand")
		}
		if b, err := strconv.ParseBool(v.Value); err == nil && b == on {
			return data, nil
		}
		lines[v.Line-1] = line[:start] + value + line[end:]
		return []byte(strings.Join(lines, "")), nil
	}
	first := syncVal.Content[0]
	indent := strings.Repeat(" ", first.Column-1)
	return insertLine(lines, syncKey.Line, indent+"enabled: "+value+"\n"), nil
}

// insertLine puts l after the line numbered after (from 1).
func insertLine(lines []string, after int, l string) []byte {
	if after > 0 && after <= len(lines) && !strings.HasSuffix(lines[after-1], "\n") {
		lines[after-1] += "\n"
	}
	out := append(append(append([]string{}, lines[:after]...), l), lines[after:]...)
	return []byte(strings.Join(out, ""))
}
