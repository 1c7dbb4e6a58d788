package transcript

import "testing"

func TestWantsRemember(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Remember that I prefer tabs over spaces.", true},
		{"please REMEMBER: the staging host is db2", true},
		{"Also, remember this for next time", true},
		{"can you remember that I use fish?", true},
		{"Don't forget to run the linter before committing", true},
		{"don’t forget: tests first", true},
		{"do not forget the changelog", true},
		{"Save this: we deploy on Fridays", true},
		{"keep in mind that the API is v2", true},
		{"Please make a note that I'm on UTC+2", true},
		{"memorize my email address", true},
		{"for future reference, use pnpm", true},
		{"记住，我喜欢用制表符", true},
		{"请记住我的邮箱", true},
		{"别忘了跑测试", true},
		{"以后不要忘记更新文档", true},
		{"これを覚えておいて", true},
		{"fix the bug\n\nremember to add a test", true},

		{"", false},
		{"fix the failing test", false},
		{"I don't remember why we did this", false},
		{"do not remember this", false},
		{"No need to remember any of that", false},
		{"don't remember that", false},
		{"I remember we fixed this before", false},
		{"do you remember the flag name?", false},
		{"the remembered value is wrong", false},
		{"rememberMe flag in the login form", false},
		{"call remember() here", false},
		{"use `remember` as the name", false},
		{"```\n// remember to free\nfree(p)\n```\nwhat does this do?", false},
		{"~~~go\nremember := true\n~~~", false},
		{"```\nremember\n", false},
		{"不用记住这个", false},
		{"不要记住这个", false},
		{"I forget the syntax", false},
		{"save the file", false},
	}
	for _, tt := range tests {
		if got := WantsRemember(tt.text); got != tt.want {
			t.Errorf("WantsRemember(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestStripCode(t *testing.T) {
	got := stripCode("a `b` c\n```\nd\n```\ne `f\n")
	if got != "a   c\n\n\n\ne `f\n" {
		t.Errorf("stripCode = %q", got)
	}
}
