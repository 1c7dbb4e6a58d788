package main

// Temporary until the compactor lands; the compactor work replaces this file.

import (
	"context"

	"github.com/memoryd/memoryd/llm"
)

type compactJob struct{ c any }

func (compactJob) Compact(context.Context) error { return nil }

func newCompactor(f *folder, c llm.Completer) any { return nil }
