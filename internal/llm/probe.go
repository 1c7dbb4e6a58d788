package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// DefaultBaseURL is the base URL of a provider when llm.base_url is empty
// ("" for providers without one).
func DefaultBaseURL(provider string) string {
	return map[string]string{"openai": defaultOpenAIBase, "anthropic": defaultAnthropicBase}[provider]
}

// ErrBadBaseURL means a base URL could not be used.
var ErrBadBaseURL = errors.New("not a URL")

// Dial checks that the server at base (a provider's base URL) accepts a TCP
// connection, without sending a request (no cost). It reports whether the
// host is this machine, where an API key is often not needed.
func Dial(ctx context.Context, base string) (loopback bool, err error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return false, fmt.Errorf("llm.base_url %q is %w", base, ErrBadBaseURL)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return false, err
	}
	conn.Close()
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback()), nil
}
