package facts

import (
	"slices"
	"testing"

	"github.com/memoryd/memoryd/internal/index"
)

// A name two facts share is not offered; file names always are; the
// inbox is not.
func TestNames(t *testing.T) {
	mems := []*index.Memory{
		{File: "user-tabs.md", Name: "tabs"},
		{File: "project-deploy.md", Name: "deploy"},
		{File: "app/project-deploy.md", Name: "deploy"},
		{File: "_inbox/user-typo.md", Name: "typo"},
	}
	if got := Names(mems, ""); !slices.Equal(got, []string{"app/project-deploy", "project-deploy", "tabs", "user-tabs"}) {
		t.Errorf("Names = %q", got)
	}
	if got := Names(mems, "ta"); !slices.Equal(got, []string{"tabs"}) {
		t.Errorf("Names(ta) = %q", got)
	}
}
