package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// maxCallTokens bounds the tokens one call can be reported to use: more
// than any model reads and writes in a call. A larger count is not one.
const maxCallTokens = 10_000_000

// tokenCount is a token count in a provider's usage report, read whatever
// the provider wrote: a number, a number in a string, a float with no
// fraction. Anything else — a negative, a fraction, a count over
// maxCallTokens, a word — reads as -1, unknown, and never fails the
// answer: the answer has been paid for and must be counted
// (Response.Tokens estimates it then).
type tokenCount int

// UnmarshalJSON implements json.Unmarshaler; it never returns an error.
func (c *tokenCount) UnmarshalJSON(b []byte) error {
	*c = -1
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*c = 0
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		b = bytes.TrimSpace([]byte(s))
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > maxCallTokens || f != math.Trunc(f) {
		return nil
	}
	*c = tokenCount(f)
	return nil
}

// sumTokens adds counts of one report: -1 when any is unknown.
func sumTokens(counts ...tokenCount) int {
	n := 0
	for _, c := range counts {
		if c < 0 {
			return -1
		}
		n += int(c)
	}
	return n
}
