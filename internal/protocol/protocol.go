// Package protocol holds PROTOCOL.md, the write protocol that tells an agent
// how to write memory files: the format, the four types, the bar for what is
// worth keeping and what must never be written.
//
// The protocol lives in one place. It ships inside the binary (Default), is
// written into the memory folder once (Ensure) so that OpenCode loads it next
// to MEMORY.md, and the extraction and compaction prompts read the folder's
// copy at run time (Load), so a user's edits reach every consumer.
package protocol

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memoryd/memoryd/internal/atomicfile"
)

// File is the protocol's file name inside a memory folder.
const File = "PROTOCOL.md"

// maxSize bounds how much of a folder's copy Load reads. A larger file is not
// a protocol anyone wrote by hand, so Load falls back to Default.
const maxSize = 256 << 10

// Default is the protocol as shipped, byte for byte the embedded PROTOCOL.md.
// Callers must not modify it.
//
//go:embed PROTOCOL.md
var Default []byte

// Ensure writes Default to dir/PROTOCOL.md when no such file exists, and
// reports whether it wrote. An existing entry of any kind (an edited copy, a
// symlink, even an empty file) is left alone: the user's copy wins. dir must
// exist. The check and the atomic write are two steps, so a file created in
// between by another process is replaced; nothing else writes that name.
func Ensure(dir string) (written bool, err error) {
	if _, err := os.Lstat(filepath.Join(dir, File)); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("ensure protocol: %w", err)
	}
	if _, err := atomicfile.Write(dir, File, Default, 0o644); err != nil {
		return false, fmt.Errorf("ensure protocol: %w", err)
	}
	return true, nil
}

// Load returns the protocol the agent should follow for the memory folder
// dir: the folder's PROTOCOL.md when it can be read, is not blank and is at
// most 256 KiB; otherwise Default. It never fails, so a broken copy can not
// stop extraction or compaction; `memoryd doctor` is where such a copy is
// reported.
func Load(dir string) []byte {
	f, err := os.Open(filepath.Join(dir, File))
	if err != nil {
		return Default
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil || len(data) > maxSize || strings.TrimSpace(string(data)) == "" {
		return Default
	}
	return data
}
