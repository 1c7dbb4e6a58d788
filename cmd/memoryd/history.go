package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/memoryd/memoryd/compactor"
)

func init() {
	register(&command{
		name:    "history",
		args:    "[-n N]",
		summary: "List the memory folder's commits, newest first; checkpoints and compactions are marked.",
		flags:   func(fs *flag.FlagSet) { fs.Int("n", 20, "number of commits to show") },
		run:     runHistory,
	})
}

func runHistory(ctx context.Context, e env, fs *flag.FlagSet, args []string) error {
	n, _ := strconv.Atoi(fs.Lookup("n").Value.String())
	if n <= 0 {
		return usageError{"-n must be positive"}
	}
	f, err := openFolder(e, fs)
	if err != nil {
		return err
	}
	repo, err := f.needRepo()
	if err != nil {
		return err
	}
	commits, err := repo.History(n)
	if err != nil {
		return err
	}
	for _, c := range commits {
		mark := " "
		switch {
		case c.Subject == compactor.CheckpointSubject:
			mark = "C"
		case strings.HasPrefix(c.Subject, compactor.CompactionPrefix):
			mark = "*"
		}
		fmt.Fprintf(e.stdout, "%s %s %s  %s\n", mark, c.Hash[:min(12, len(c.Hash))], c.When.Local().Format("2006-01-02 15:04"), c.Subject)
	}
	if len(commits) == 0 {
		fmt.Fprintln(e.stdout, "no commits touch the memory folder yet")
	}
	return nil
}
