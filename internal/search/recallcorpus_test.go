package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
)

// The recall benchmark's corpus: facts an agent would keep about the
// services of a company, written from templates, and questions about them
// as a user would ask them. Every template is about one topic (who approves
// deploys, which port, where the secrets are...), and every service has a
// fact of most topics, so a question competes with the same topic's facts
// about other services and with the same service's other facts: several
// facts per topic, and names, dates, numbers and identifiers in the
// answers.
//
// Each fact has two questions. The first names the service as the fact
// writes it, an identifier like billingApi, and says the rest in its own
// words, sometimes the fact's. The second is reworded throughout: it names
// the service the way people say it ("billing api", "billing-api") and the
// topic in other words. A question is "paraphrased" when it shares no
// content word with its fact at all — no word, as the plain BM25 baseline
// splits and lower-cases them, outside the stop words — which
// newRecallCorpus checks for each, requiring minParaphrasedPercent of them;
// the others, reworded ones that still share a word (a fact that spells
// out SMS_SCHEDULER shares "sms" with "the sms scheduler"), are "partial". These were written before
// the ranking was tuned, as a user would ask; none was changed to suit it.
//
// The corpus is nested: the facts of a smaller store are the first facts
// of a larger one, and every store is asked the questions of its first
// recallQuestionFacts facts, so the sizes differ only in distractors.

// recallTemplate is one topic: the fact's name, description and body, and
// the two questions. Placeholders: {S} the service as an identifier
// (billingApi), {s} lower-cased (billingapi), {W} as people say it
// (billing api, or billing-api), {U} upper-cased with an underscore
// (BILLING_API), {S2} another service, {P} a person, {T} a team, {D} a
// date, {M} a month, {N} a number, {V} a version.
type recallTemplate struct {
	name, description, body string
	partial, paraphrased    string
}

var recallTemplates = []recallTemplate{
	{"{s}-deploy-approval", "Production deploys of {S} need approval from {P}",
		"Every production deploy of `{S}` must be approved by {P} before the pipeline runs. Staging deploys need no approval.\n\nWhy: a bad release of {S} cost a whole day in {M}.\nHow to apply: ask {P} in #releases before merging to main.",
		"who approves {S} production deploys?", "who has to sign off before we ship the {W} to prod?"},
	{"{s}-owner", "{P} owns {S} and is its on-call contact",
		"{P} is the owner of `{S}`; page them through PagerDuty when it breaks. The backup owner rotates weekly.",
		"who owns {S}?", "which person maintains the {W} and should get paged?"},
	{"{s}-port", "{S} listens on port {N}",
		"Locally `{S}` listens on port {N}; the docker-compose file maps it to the same host port.",
		"what port does {S} listen on locally?", "which tcp socket number is the {W} bound to on my laptop?"},
	{"{s}-database", "{S} stores its data in PostgreSQL {V}",
		"`{S}` keeps its data in a PostgreSQL {V} database named {s}_prod; migrations live in db/migrations.",
		"which database does {S} use?", "what postgres release backs the {W}?"},
	{"{s}-kubernetes-move", "{S} moved to Kubernetes on {D}",
		"We migrated `{S}` from the old VM fleet to Kubernetes on {D}. The rollback plan was kept for two weeks.",
		"when was {S} migrated to kubernetes?", "what day did the {W} move onto k8s?"},
	{"{s}-tests", "Run the tests of {S} with make test-{s}",
		"Tests for `{S}` run with `make test-{s}`; they need a local Redis on port 6379. Use -race in CI.",
		"how do I run the {S} tests?", "command for testing the {W}"},
	{"{s}-flaky-integration", "The {S} integration tests are flaky on CI",
		"The integration suite of `{S}` fails about one run in ten on CI because of a timing race in the retry helper. Rerun before investigating.",
		"are the {S} integration tests flaky?", "why does the {W} pipeline fail intermittently?"},
	{"{s}-config-path", "{S} reads its configuration from config/{s}.yaml",
		"`{S}` reads its configuration from `config/{s}.yaml`; environment variables prefixed with {U}_ override any key.",
		"where is the {S} config file?", "location of the settings for the {W}"},
	{"{s}-secrets", "{S} secrets are kept in Vault under secret/{s}",
		"API keys and passwords for `{S}` are stored in Vault at `secret/{s}`; never commit them to the repository.",
		"where are the {S} secrets stored?", "where do the {W} credentials live?"},
	{"{s}-formatter", "The {S} codebase is formatted with gofumpt",
		"All Go files of `{S}` are formatted with gofumpt, and the linter fails on any diff. Run it before pushing.",
		"which formatter does {S} use?", "how should I format code in the {W}?"},
	{"{s}-logs", "{S} logs go to Loki with label app={s}",
		"Logs from `{S}` are shipped to Loki; filter with the label app={s} in Grafana. Debug logging is off in production.",
		"where do I find the {S} logs?", "how can I view the {W} log output?"},
	{"{s}-rate-limit", "{S} allows {N} requests per minute per client",
		"`{S}` rate-limits each client to {N} requests per minute; over that it answers 429 with a Retry-After header.",
		"what is the rate limit of {S}?", "how many calls can each caller send the {W} before getting throttled?"},
	{"{s}-production-version", "{S} is at version {V} in production",
		"The current production release of `{S}` is {V}, tagged on {D}. The next release waits for the schema change.",
		"what version of {S} is in production?", "which build of the {W} is live right now?"},
	{"{s}-depends-on-{s2}", "{S} depends on {S2}",
		"`{S}` calls `{S2}` synchronously on every request; when {S2} is down, {S} returns 503.",
		"what does {S} depend on?", "which upstream does the {W} call?"},
	{"{s}-latency-alert", "Alert when {S} p99 latency exceeds {N} ms",
		"The latency alert of `{S}` fires when the p99 latency stays above {N} ms for five minutes.",
		"what is the latency alert threshold for {S}?", "when do we get paged about slow responses from the {W}?"},
	{"{s}-feature-flag", "The new {S} flow is behind the flag {s}_v2",
		"The rewritten flow in `{S}` is gated by the feature flag `{s}_v2`, off by default; enable it per tenant in LaunchDarkly.",
		"which feature flag controls the new {S} flow?", "what toggle turns on the redesigned {W}?"},
	{"{s}-team", "{S} belongs to the {T} team",
		"`{S}` is maintained by the {T} team; their channel is #{t}-eng.",
		"which team maintains {S}?", "what group is responsible for the {W}?"},
	{"{s}-backups", "The {S} database is backed up nightly at 02:00 UTC",
		"Backups of the `{S}` database run nightly at 02:00 UTC and are kept for {N} days in S3.",
		"when are {S} backups taken?", "how long do we retain snapshots of the {W} data?"},
	{"{s}-openapi", "{S} API docs are at docs/{s}/openapi.yaml",
		"The OpenAPI spec for `{S}` lives in `docs/{s}/openapi.yaml`; regenerate the clients with make gen.",
		"where is the {S} openapi spec?", "where can I find the {W} endpoint documentation?"},
	{"{s}-timeout", "{S} client timeout is {N} seconds",
		"Calls from `{S}` to its upstreams time out after {N} seconds; raise it only with the SRE team's approval.",
		"what timeout does {S} use for upstream calls?", "how long before the {W} gives up waiting on a dependency?"},
	{"{s}-outage-{d}", "{S} outage on {D} was caused by an expired certificate",
		"On {D} `{S}` was down for two hours: its TLS certificate expired. Renewal is now automated with cert-manager.",
		"what caused the {S} outage?", "why did the {W} break last time?"},
	{"{s}-language", "{S} is written in Go {V}",
		"`{S}` is a Go {V} service built with ko; the Dockerfile is only for local runs.",
		"what language is {S} written in?", "which programming language was used to implement the {W}?"},
	{"{s}-cache-ttl", "{S} caches responses in Redis for {N} seconds",
		"`{S}` caches upstream responses in Redis with a TTL of {N} seconds; flush with `redis-cli FLUSHDB` on the {s} instance.",
		"how long does {S} cache responses?", "how long are the {W} results memoized?"},
	{"{s}-kafka-topic", "{S} consumes events from the Kafka topic {s}.events",
		"`{S}` reads events from the Kafka topic `{s}.events` with consumer group {s}-cg; lag above {N} pages the on-call.",
		"which kafka topic does {S} consume?", "what stream does the {W} listen to for messages?"},
	{"{s}-env-token", "{S} needs {U}_TOKEN set to start",
		"`{S}` refuses to start without the environment variable `{U}_TOKEN`; get it from the team vault.",
		"what environment variable does {S} need?", "which env setting must be exported before launching the {W}?"},
	{"{s}-reviewers", "Changes to {S} need two reviewers",
		"Pull requests touching `{S}` need approval from two reviewers, one of them from the {T} team.",
		"how many reviewers do {S} changes need?", "how many approvals must a PR to the {W} get?"},
	{"{s}-v1-deprecated", "The {S} v1 endpoints are deprecated since {D}",
		"The v1 endpoints of `{S}` have been deprecated since {D} and will be removed after the next quarter.",
		"when were the {S} v1 endpoints deprecated?", "since when is the old {W} interface obsolete?"},
	{"{s}-region", "{S} runs in eu-west-1",
		"`{S}` is hosted in AWS eu-west-1 with a standby in eu-central-1.",
		"which region does {S} run in?", "which datacenter location serves the {W}?"},
	{"{s}-dashboard", "The {S} dashboard is Grafana board {N}",
		"The Grafana dashboard for `{S}` is board {N}; it shows the error rate, saturation and queue depth.",
		"where is the {S} dashboard?", "where can I watch charts of the {W} health?"},
	{"{s}-memory-limit", "{S} pods are limited to {N} MiB of memory",
		"Each `{S}` pod has a memory limit of {N} MiB; it is OOM-killed above that, so watch the heap after big imports.",
		"what is the memory limit of {S} pods?", "how much RAM may a single {W} container use?"},
}

var (
	recallServicePrefixes = []string{"billing", "payment", "invoice", "ledger", "search", "catalog", "checkout", "cart", "profile",
		"account", "session", "login", "email", "sms", "push", "report", "export", "import", "media", "image", "video", "chat",
		"review", "rating", "coupon"}
	recallServiceSuffixes = []string{"Api", "Worker", "Gateway", "Store", "Queue", "Cron", "Proxy", "Indexer", "Scheduler",
		"Bridge", "Sync", "Cache", "Router", "Monitor"}
	recallFirstNames = []string{"Dana", "Ravi", "Mei", "Tomas", "Aisha", "Lars", "Noor", "Kenji", "Elena", "Samir", "Ingrid",
		"Kofi", "Lucia", "Oren", "Priya", "Mateo", "Hana", "Yusuf", "Greta", "Idris"}
	recallLastNames = []string{"Okafor", "Lindqvist", "Tanaka", "Novak", "Haddad", "Moreau", "Silva", "Kowalski", "Nakamura",
		"Petrov", "Osei", "Fischer", "Rahman", "Costa", "Ivanova", "Brennan", "Sato", "Keller", "Mensah", "Dubois"}
	recallTeams  = []string{"Payments", "Platform", "Growth", "Storefront", "Identity", "Insights", "Messaging", "Infra"}
	recallMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
		"November", "December"}
)

// recallQuestionFacts is how many facts of each store are asked about.
const recallQuestionFacts = 100

type recallFact struct {
	fact
	updated string
}

type recallQuestion struct {
	words       string
	phrasings   []string // other phrasings of it, searched with it (Query.Phrasings)
	gold        string   // the file of the fact that answers it
	paraphrased bool     // shares no content word with the fact
}

type recallCorpus struct {
	facts     []recallFact
	questions []recallQuestion
}

// newRecallCorpus returns the first n facts of the benchmark's corpus and
// the questions about its first recallQuestionFacts. It panics when a
// paraphrased question shares a content word with its fact.
func newRecallCorpus(n int) recallCorpus {
	type pair struct{ template, service int }
	var pairs []pair
	for t := range recallTemplates {
		for s := range len(recallServicePrefixes) * len(recallServiceSuffixes) {
			pairs = append(pairs, pair{t, s})
		}
	}
	rng := rand.New(rand.NewPCG(19, 2025))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	if n > len(pairs) {
		panic(fmt.Sprintf("the recall corpus has %d facts at most", len(pairs)))
	}
	var c recallCorpus
	for i, p := range pairs[:n] {
		// Everything a fact says comes from its own generator, so the
		// first facts are the same at every size.
		r := rand.New(rand.NewPCG(uint64(p.template), uint64(p.service)))
		svc := func(k int) (ident, said string) {
			pre, suf := recallServicePrefixes[k/len(recallServiceSuffixes)], recallServiceSuffixes[k%len(recallServiceSuffixes)]
			sep := " "
			if r.IntN(2) == 0 {
				sep = "-"
			}
			return pre + suf, pre + sep + strings.ToLower(suf)
		}
		S, W := svc(p.service)
		S2, _ := svc((p.service + 1 + r.IntN(300)) % (len(recallServicePrefixes) * len(recallServiceSuffixes)))
		team := recallTeams[r.IntN(len(recallTeams))]
		date := fmt.Sprintf("%d-%02d-%02d", 2022+r.IntN(4), 1+r.IntN(12), 1+r.IntN(28))
		repl := strings.NewReplacer(
			"{S2}", S2, "{s2}", strings.ToLower(S2),
			"{S}", S, "{s}", strings.ToLower(S), "{W}", W, "{U}", upperSnake(S),
			"{P}", recallFirstNames[r.IntN(len(recallFirstNames))]+" "+recallLastNames[r.IntN(len(recallLastNames))],
			"{T}", team, "{t}", strings.ToLower(team),
			"{D}", date, "{d}", strings.ReplaceAll(date, "-", ""),
			"{M}", recallMonths[r.IntN(12)]+" "+fmt.Sprint(2022+r.IntN(4)),
			"{N}", fmt.Sprint(100+r.IntN(9900)),
			"{V}", fmt.Sprintf("%d.%d", 1+r.IntN(16), r.IntN(10)),
		)
		t := recallTemplates[p.template]
		typ := "project"
		if r.IntN(4) == 0 {
			typ = "reference"
		}
		f := recallFact{
			fact: fact{typ: typ, name: repl.Replace(t.name), description: repl.Replace(t.description),
				body: repl.Replace(t.body)},
			updated: fmt.Sprintf("%d-%02d-%02d", 2023+r.IntN(3), 1+r.IntN(12), 1+r.IntN(28)),
		}
		c.facts = append(c.facts, f)
		if i >= recallQuestionFacts {
			continue
		}
		partial, reworded := repl.Replace(t.partial), repl.Replace(t.paraphrased)
		shared := sharedWords(reworded, f.name+" "+f.description+" "+f.body)
		c.questions = append(c.questions,
			recallQuestion{words: partial, gold: f.file()},
			recallQuestion{words: reworded, gold: f.file(), paraphrased: len(shared) == 0})
	}
	para := 0
	for _, q := range c.questions {
		if q.paraphrased {
			para++
		}
	}
	if para*100 < len(c.questions)*minParaphrasedPercent {
		panic(fmt.Sprintf("%d of %d questions are fully paraphrased, want %d%% at least", para, len(c.questions), minParaphrasedPercent))
	}
	return c
}

// minParaphrasedPercent is the share of questions, in percent, that must
// share no content word with their fact.
const minParaphrasedPercent = 35

func (f recallFact) content() string {
	return strings.Replace(f.fact.content(), "\n---\n", "\n  updated: "+f.updated+"\n---\n", 1)
}

// upperSnake is billingApi as BILLING_API.
func upperSnake(ident string) string {
	var b strings.Builder
	for i, r := range ident {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// sharedWords returns the content words, as the baseline reads them, that
// question and text share.
func sharedWords(question, text string) []string {
	in := make(map[string]bool)
	for _, w := range plainWords(text) {
		in[w] = true
	}
	var out []string
	for _, w := range plainWords(question) {
		if in[w] {
			out = append(out, w)
		}
	}
	return out
}
