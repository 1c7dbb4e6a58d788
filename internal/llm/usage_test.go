package llm

import (
	"strings"
	"testing"
)

// A usage report in any shape reads as a count or as unknown, never fails
// the answer, and never makes a call count less than its bytes say.
func TestUsageOfAnyShape(t *testing.T) {
	req := Request{System: "sys", Prompt: strings.Repeat("word ", 800)} // 4,003 bytes
	const estimate = (4003 + 6 + 3) / 4
	for usage, want := range map[string]int{
		`{"prompt_tokens": 1000, "completion_tokens": 24}`:                                 1024,
		`{"prompt_tokens": "1000", "completion_tokens": "24"}`:                             1024,
		`{"prompt_tokens": 1000.0, "completion_tokens": 24}`:                               1024,
		`{"prompt_tokens": 1000.5, "completion_tokens": 24}`:                               estimate,
		`{"prompt_tokens": -5000, "completion_tokens": 24}`:                                estimate,
		`{"prompt_tokens": 1e300, "completion_tokens": 24}`:                                estimate,
		`{"prompt_tokens": 9223372036854775807, "completion_tokens": 9223372036854775807}`: estimate,
		`{"prompt_tokens": 1, "completion_tokens": 1}`:                                     estimate,
		`{"prompt_tokens": "many", "completion_tokens": null}`:                             estimate,
		`{"prompt_tokens": {"n": 3}, "completion_tokens": [1]}`:                            estimate,
	} {
		resp, err := parseOpenAI([]byte(`{"choices":[{"message":{"content":"answer"}}],"usage":` + usage + `}`))
		if err != nil {
			t.Errorf("%s: %v", usage, err)
			continue
		}
		if got := resp.Tokens(req); got != want {
			t.Errorf("%s: Tokens = %d, want %d", usage, got, want)
		}
	}
}
