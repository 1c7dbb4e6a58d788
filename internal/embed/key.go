package embed

import "net/url"

// OpenAIBaseURL is the openai provider's endpoint when llm.base_url is empty.
const OpenAIBaseURL = "https://api.openai.com/v1"

// Key is the key sent to the embeddings endpoint baseURL: key
// (embed.api_key), else llmKey (llm.api_key) when the provider is openai
// and the endpoint is on its host (llmBaseURL, OpenAIBaseURL when empty).
// A key is never sent to another server than the one it was given for.
func Key(baseURL, key, provider, llmBaseURL, llmKey string) string {
	if key != "" || provider != "openai" {
		return key
	}
	if llmBaseURL == "" {
		llmBaseURL = OpenAIBaseURL
	}
	if sameHost(baseURL, llmBaseURL) {
		return llmKey
	}
	return ""
}

// sameHost reports whether URLs a and b name the same scheme, host and port.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}
