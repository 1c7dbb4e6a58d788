package search

import "strings"

// synonymGroups are words that people use for one another when they talk
// about software and the work around it: a query word finds the facts that
// say one of its group, ranked below those that say the word itself (see
// synonymWeight). Written by hand for memoryd, one group a line; every word
// is a folded term (stemmed when looked up), and abbreviations are as
// people type them. The list is small on purpose: a wrong synonym costs
// precision on every query with the word.
var synonymGroups = `
prod production live
staging preprod
dev development
db database
postgres postgresql pg
mysql mariadb
k8s kubernetes kube
repo repository
config configuration settings conf cfg
env environment
creds credentials credential secret secrets
password passphrase passwd
auth authentication authn
authz authorization permissions
deploy deployment rollout ship
approve approval signoff
owner maintainer
docs documentation doc
spec specification
flaky intermittent intermittently nondeterministic
bug defect
error exception
crash panic
pr pullrequest mr
ram memory
cpu processor
pod container
toggle flag
timeout deadline
throttle throttled throttling ratelimit
cache memoize memoise memoized
backup snapshot
retain retention keep kept
delete remove
start launch startup boot
run execute exec
region datacenter
js javascript
ts typescript
py python
golang go
team group squad
deprecated obsolete
outage incident downtime
variable var
command cmd
directory folder dir
enable activate
disable deactivate
metrics telemetry
`

// synonymWeight is how much a synonym's match counts against the word's
// own.
const synonymWeight = 0.5

// synonyms maps a stem to the stems of its synonyms.
var synonyms = func() map[string][]string {
	m := make(map[string][]string)
	for _, line := range strings.Split(synonymGroups, "\n") {
		var stems []string
		for _, w := range strings.Fields(line) {
			if s := stem(w); !containsString(stems, s) {
				stems = append(stems, s)
			}
		}
		for _, s := range stems {
			for _, o := range stems {
				if o != s && !containsString(m[s], o) {
					m[s] = append(m[s], o)
				}
			}
		}
	}
	return m
}()

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
