package extractor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memoryd/memoryd/internal/secrets"
	"github.com/memoryd/memoryd/internal/transcript"
)

// Made-up credentials in the shapes the real ones have, none of them valid.
var (
	formGitHub    = "ghp_R8kLm2Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2"
	formAWSSecret = "Tq8/Lm3+Zx7/Rv2Kp9/Wn4Ys6Bd1Hc5Jf0Ge8Ua3I"
	formAzureKey  = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	formHex64     = "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a"
)

// secretForm is one way a secret shows up in a session: text is how it was
// typed or run (it goes into a user message, a tool call's input and the
// tool's output), secret the part that must never leave the machine.
type secretForm struct{ name, text, secret string }

// cutForm puts secret where the tool-input limit cuts it, 20 bytes or so
// in: a cut that keeps the start of the secret leaves more than secretLeak needs
// to see.
func cutForm(name, secret string) secretForm {
	pad := "cd ~/src/acme/widgets && make build test lint && ./scripts/release.sh --channel stable --notes CHANGELOG.md"
	for len(pad) < 135 {
		pad += " -v"
	}
	if in := transcript.MaxToolInput - len("…") - len(pad+" "); in < 12 || in > len(secret)-4 {
		panic(fmt.Sprintf("%s: the limit falls %d bytes into the secret", name, in))
	}
	return secretForm{name, pad + " " + secret + " && echo released", secret}
}

var secretForms = []secretForm{
	// Keys that services issue with a fixed prefix.
	{"OpenAI project key", "export OPENAI_API_KEY=sk-proj-Qm4tR7vX2zK9pL3wN8bY5cH1dF6gJ0sA", "Qm4tR7vX2zK9pL3wN8bY5cH1dF6gJ0sA"},
	{"OpenAI key in prose", "my key is sk-T3BlbkFJx8Zq2Lm5Rn7Vp9Wc4Ys6Ud1Eg3Hk, keep it safe", "T3BlbkFJx8Zq2Lm5Rn7Vp9Wc4Ys6Ud1Eg3Hk"},
	{"Anthropic key", "use sk-ant-api03-Xk3mP9qR2tV7wZ5yB8nC4dF6gH1jL0sA-Qe2Wr4Ty6Ui8Op for claude", "Xk3mP9qR2tV7wZ5yB8nC4dF6gH1jL0sA-Qe2Wr4Ty6Ui8Op"},
	{"GitHub classic token", "gh auth login --with-token <<< " + formGitHub, formGitHub[4:]},
	{"GitHub OAuth token", "GITHUB_TOKEN=gho_Z2xC4vB6nM8qW0eR3tY5uI7oP9aS1dF3gH5j", "Z2xC4vB6nM8qW0eR3tY5uI7oP9aS1dF3gH5j"},
	{"GitHub fine-grained token", "gh secret set --body github_pat_11ABCDEFG0aB9cD8eF7gH6iJ5kL4mN3oP2qR1sT0uV9wX8yZ7", "aB9cD8eF7gH6iJ5kL4mN3oP2qR1sT0uV9wX8yZ7"},
	{"GitHub token in a remote URL", "git push https://x-access-token:ghs_Pq7Wm3Zx9Rv2Kt5Ln8Yc4Bd6Hs1Jf0Ga2Ue4@github.com/acme/widgets.git", "Pq7Wm3Zx9Rv2Kt5Ln8Yc4Bd6Hs1Jf0Ga2Ue4"},
	{"GitLab token", "curl --header 'PRIVATE-TOKEN: glpat-x9Yz8Wv7Ut6Sr5Qp4On3' https://gitlab.example.com/api/v4/projects", "x9Yz8Wv7Ut6Sr5Qp4On3"},
	{"AWS access key id", "aws_access_key_id = AKIAQWERTYUIOP123456", "AKIAQWERTYUIOP123456"},
	{"AWS secret key assigned", "export AWS_SECRET_ACCESS_KEY=" + formAWSSecret, formAWSSecret},
	{"AWS secret key with slashes alone", "the deploy account uses " + formAWSSecret + " for s3 sync", formAWSSecret},
	{"Slack bot token", "SLACK_BOT_TOKEN=xoxb-2048-1024-Zr8Qm3Lx9Vt2Kn7W", "2048-1024-Zr8Qm3Lx9Vt2Kn7W"},
	{"Slack app token", "socket mode uses xapp-1-A0123BCDE45-6789012345678-Qx7Vz4Tn9Wc3", "6789012345678-Qx7Vz4Tn9Wc3"},
	{"Slack webhook", "curl -X POST https://hooks.slack.com/services/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 -d @msg.json", "Zr8Qm3Lx9Vt2Kn7Wp4Yb6Hd1"},
	{"Google API key", "MAPS_KEY=AIzaSyBx7Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2", "SyBx7Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2"},
	{"Stripe secret key", "stripe login --api-key sk_live_51Hx7Qm3Lr9Vt2Kn7Wp4Yb6", "51Hx7Qm3Lr9Vt2Kn7Wp4Yb6"},
	{"Stripe webhook secret", "STRIPE_WEBHOOK=whsec_Zq8Rm3Lx9Vt2Kn7Wp4Yb6Hd1Jf0", "Zq8Rm3Lx9Vt2Kn7Wp4Yb6Hd1Jf0"},
	{"npm token", "//registry.npmjs.org/:_authToken=npm_Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2Lm4Rt6", "Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2Lm4Rt6"},
	{"PyPI token", "twine upload -u __token__ -p pypi-AgEIcHlwaS5vcmcCJDQ3Zx8Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2Xc5", "AgEIcHlwaS5vcmcCJDQ3Zx8Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2Xc5"},
	{"Hugging Face token", "huggingface-cli login hf_Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2Lm4Rt", "Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8Ke2Lm4Rt"},
	{"SendGrid key", "mail relay key SG.Qx7Vz4Tn9Wc3Yb6P.d1Hs5Jf0Ga8Ke2Lm4Rt6Uw9", "d1Hs5Jf0Ga8Ke2Lm4Rt6Uw9"},
	{"DigitalOcean token", "doctl auth init -t dop_v1_" + formHex64, formHex64},
	{"Shopify token", "SHOPIFY_TOKEN is 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", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"},
	{"Telegram bot token", "bot token 7012345678:AAHx7Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2", "AAHx7Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2"},
	{"age secret key", "AGE-SECRET-KEY-1QX7VZ4TN9WC3YB6PD1HS5JF0GA8KE2LM4RT6UW9XC5ZB7NM3QP2", "QX7VZ4TN9WC3YB6PD1HS5JF0GA8KE2LM4RT6UW9"},
	{"JWT", "use eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbmEiLCJyb2xlIjoiYWRtaW4ifQ.Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8 against staging", "Qx7Vz4Tn9Wc3Yb6Pd1Hs5Jf0Ga8"},
	{"GitHub token cut by the tool-input limit", "", formGitHub[4:]},
	{"AWS secret cut by the tool-input limit", "", formAWSSecret},

	// Headers.
	{"bearer header", "curl -H 'Authorization: Bearer Zq8Rm3Lx9Vt2Kn7Wp4Yb6' https://api.example.com", "Zq8Rm3Lx9Vt2Kn7Wp4Yb6"},
	{"basic auth header", "curl -H 'Authorization: Basic YW5hOlRyMHViNGRvciYz' https://ci.example.com/api", "YW5hOlRyMHViNGRvciYz"},
	{"token auth header", `curl -H "Authorization: token 9f8e7d6c5b4a39281706f5e4d3c2b1a0" https://api.github.com/user`, "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
	{"API key header", `curl -H "X-Api-Key: Zt9kW2mQ7xR4vL8p" https://api.example.com/v1/items`, "Zt9kW2mQ7xR4vL8p"},

	// Private keys.
	{"OpenSSH private key", "cat > ~/.ssh/id_ed25519 <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\nc2gtZWQyNTUxOQAAACDxQm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2\n-----END OPENSSH PRIVATE KEY-----\nEOF", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"},
	{"RSA private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAx7Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2Xc5Zb7Nm3Qp2\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEAx7Qm3Lr9Vt2Kn7Wp4Yb6"},
	{"PGP private key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGZx7Qm3Lr9Vt2Kn7Wp4Yb6Hd1Jf0Gs8Ue2\n-----END PGP PRIVATE KEY BLOCK-----", "lQOYBGZx7Qm3Lr9Vt2Kn7Wp4Yb6"},
	{"GCP service account JSON", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCx7Qm3Lr9Vt2Kn\n-----END PRIVATE KEY-----\n", "client_email": "ci@acme.iam.gserviceaccount.com"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCx7Qm3Lr9Vt2Kn"},

	// Passwords and secrets by name.
	{"password=", "db password=hunter2-Xy9 on staging", "hunter2-Xy9"},
	{"PGPASSWORD", "PGPASSWORD=s3cr3t-Pg42 psql -h db -U app", "s3cr3t-Pg42"},
	{"MYSQL_PWD", "MYSQL_PWD=Qz7my8Pw mysql -u root shop", "Qz7my8Pw"},
	{"DB_PASS", "DB_PASS=Lk4pass9Zr ./manage.py migrate", "Lk4pass9Zr"},
	{"YAML password", "database:\n  user: app\n  password: Wq3yamlPw7\n  host: db", "Wq3yamlPw7"},
	{"YAML password quoted", `password: "correct horse battery"`, "correct horse battery"},
	{"JSON password", `{"user": "app", "password": "Jx5jsonPw8!", "host": "db"}`, "Jx5jsonPw8!"},
	{"JSON api_key", `{"api_key": "a1b2c3d4e5f6g7h8i9", "region": "eu"}`, "a1b2c3d4e5f6g7h8i9"},
	{"JSON client_secret", `{"client_id": "acme-web", "client_secret": "Vc8Hx2Lq5Zt9Pm3W"}`, "Vc8Hx2Lq5Zt9Pm3W"},
	{"Ruby hash password", `config = { 'password' => 'Rb4hashPw6', 'pool' => 5 }`, "Rb4hashPw6"},
	{"Python constant", `SECRET_KEY = "django-insecure-Zx8Qm3Lr9Vt2Kn7Wp4Yb6"`, "Zx8Qm3Lr9Vt2Kn7Wp4Yb6"},
	{"client secret", "client_secret: 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706"},
	{"secret_key_base", "secret_key_base: " + formHex64 + formHex64, formHex64},
	{"kubectl literal", "kubectl create secret generic db --from-literal=password=Kb8lit3Pw", "Kb8lit3Pw"},
	{"docker env", "docker run -e POSTGRES_PASSWORD=Dk7envPw2 postgres:16", "Dk7envPw2"},
	{".netrc", "machine api.example.com login ana password Nr6netrcPw", "Nr6netrcPw"},
	{"passphrase in prose", "my password is correct horse battery staple", "correct horse battery staple"},
	{"passphrase after a colon", "wifi password: purple monkey dishwasher lamp", "purple monkey dishwasher lamp"},
	{"password in prose", "my password is Tr0ub4dor&3", "Tr0ub4dor&3"},
	{"passphrase word in prose", "the wifi passphrase is Xq9!rT2#vL", "Xq9!rT2#vL"},
	{"PIN", "bank PIN: 4821", "4821"},
	{"API key in prose", "my API key is Zx81kLmQ02pRt7Vw", "Zx81kLmQ02pRt7Vw"},
	{"64-hex key in prose", "the webhook signing key is " + formHex64 + " for prod", formHex64},
	{"0x hex private key", "wallet private key 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318", "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"},

	// Passwords in URLs and connection strings.
	{"postgres URL", "DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"},
	{"redis URL without user", "REDIS_URL=redis://:Rd5nouserPw@cache:6379/0", "Rd5nouserPw"},
	{"mongodb URL", "mongosh mongodb+srv://ana:Mg7srvPw3@cluster0.example.net/shop", "Mg7srvPw3"},
	{"Azure storage account key", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=" + formAzureKey + ";EndpointSuffix=core.windows.net", formAzureKey},
	{"Azure Service Bus key", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=Qx7Vz4Tn9Wc3/Yb6Pd1+Hs5Jf0Ga8Ke2Lm4Rt6Uw9=", "Qx7Vz4Tn9Wc3/Yb6Pd1+Hs5Jf0Ga8Ke2Lm4Rt6Uw9="},
	{"Azure SAS signature", "az storage blob download --blob-url 'https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&sig=Zr8%2Bq3Lm9Xv2Tn7Wk4Yb6Pd1Hs5Jf0%3D'", "Zr8%2Bq3Lm9Xv2Tn7Wk4Yb6Pd1Hs5Jf0"},

	// Passwords on command lines.
	{"mysql -p", "mysql -u root -pQz7mysqlPw shop", "Qz7mysqlPw"},
	{"mysqldump -p", "mysqldump -uroot -pDm4dumpPw --all-databases > all.sql", "Dm4dumpPw"},
	{"mysql --password=", "mysql --password=My8longPw -h db shop", "My8longPw"},
	{"curl -u", "curl -u admin:Cu9rlPw4x https://ci.example.com/api/json", "Cu9rlPw4x"},
	{"curl --user", "curl --user ana:Cv3userPw https://dav.example.com/files/", "Cv3userPw"},
	{"sshpass -p", "sshpass -p 'Ss5hpassPw' ssh deploy@web1", "Ss5hpassPw"},
	{"docker login -p", "docker login -u ana -p Dl6loginPw registry.example.com", "Dl6loginPw"},
	{"docker login --password", "docker login registry.example.com --username ana --password Dp2longPw", "Dp2longPw"},
	{"oc login -p", "oc login -u developer -p Oc3loginPw https://api.crc.testing:6443", "Oc3loginPw"},
	{"sqlcmd -P", "sqlcmd -S db -U sa -P 'Sq9cmdPw!'", "Sq9cmdPw!"},
	{"redis-cli -a", "redis-cli -h cache -a Rc4cliPw7 ping", "Rc4cliPw7"},
	{"openssl pass:", "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:Os8slPw3", "Os8slPw3"},
	{"keytool -storepass", "keytool -list -keystore app.jks -storepass Kt5storePw", "Kt5storePw"},
	{"--client-secret=", "az login --service-principal -u app-id --client-secret=Az7cliSecret9 --tenant acme", "Az7cliSecret9"},
	{"--token", "vault login --token Vt3tokenValue8 -address=https://vault.example.com", "Vt3tokenValue8"},
}

func init() {
	for i, f := range secretForms {
		switch f.name {
		case "GitHub token cut by the tool-input limit":
			secretForms[i] = cutForm(f.name, formGitHub)
			secretForms[i].secret = f.secret
		case "AWS secret cut by the tool-input limit":
			secretForms[i] = cutForm(f.name, formAWSSecret)
		}
	}
}

// secretLeak returns a piece of secret that text holds: the secret itself, or any
// ten bytes of it (a prefix left by a cut, a tail left by a redaction that
// stopped short); "" when there is none.
func secretLeak(text, secret string) string {
	n := min(len(secret), 10)
	for i := 0; i+n <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+n]) {
			return secret[i : i+n]
		}
	}
	return ""
}

func TestSecretFormsRedacted(t *testing.T) {
	if len(secretForms) < 60 {
		t.Fatalf("%d forms; the table covers at least 60", len(secretForms))
	}
	for _, f := range secretForms {
		got, n := secrets.Redact(f.text)
		if piece := secretLeak(got, f.secret); n == 0 || piece != "" {
			t.Errorf("%s: secrets.Redact(%q) = %q, %d: %q left", f.name, f.text, got, n, piece)
		}
		if !secrets.HasSecret(f.text) || len(secrets.FindSecrets(f.text)) == 0 {
			t.Errorf("%s: HasSecret/FindSecrets miss %q", f.name, f.text)
		}
		if r := rejectText("Keep this: "+f.text, "Keep this: "+f.text); r != "contains a secret" {
			t.Errorf("%s: the gate says %q", f.name, r)
		}
	}
}

// ordinaryFact is a fact that looks a little like a secret and is not one:
// it must reach the model as written and pass the gate's secret check.
// gate is the word of the gate's reason to reject it for something else
// ("commit"), or "" when the gate keeps it.
type ordinaryFact struct{ name, text, gate string }

var ordinaryFacts = []ordinaryFact{
	{"commit hash", "Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the flaky upload test.", "commit"},
	{"bare hash", "Bisect says the regression started at 9fceb02d0ae598e95dc970b74767f19372d61af8 last week.", "commit"},
	{"sha256 checksum", "The release tarball sha256 is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 on the mirror.", "commit"},
	{"image digest", "Pin the base image by digest sha256:9b2a6c1d8e7f4a5b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b in production.", "commit"},
	{"short hash", "The deploy branch is main and HEAD was at a1b2c3d before the release.", ""},
	{"UUID", "The staging tenant has the id 123e4567-e89b-12d3-a456-426614174000 in the admin console.", ""},
	{"UUID next to key", "The Key Vault resource id is 6F9619FF-8B86-D011-B42D-00C04FC964FF for the staging tenant.", ""},
	{"file paths", "Config lives in internal/config/config.go and is documented in docs/config.md for everyone.", ""},
	{"Go module path", "Imports use github.com/memoryd/memoryd/internal/gittest for isolated git in tests.", ""},
	{"long path with a date", "Reports are archived under aws/lambda/MyFunction-2024-01-15/v3/Handler by the nightly job.", ""},
	{"version strings", "The project builds with go1.23.4, node 20.11.1 and ships as v2.15.0-rc.1 for now.", ""},
	{"CamelCase identifier", "The regression test is TestExtractRedactsBeforeSendingAndKeepsFacts2 in the extractor package.", ""},
	{"base64 in prose", "Fixtures encode hello world as aGVsbG8gd29ybGQ= so the decoder test stays readable.", ""},
	{"SSH public key", "The CI deploy public key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@acme and may be shared.", ""},
	{"password policy", "The password policy requires 12 characters and a digit for every account.", ""},
	{"mysql -p alone", "Use `mysql -p` to be prompted for the password instead of typing it on the command line.", ""},
	{"curl -u without password", "Run curl -u admin https://ci.example.com and curl asks for the password itself.", ""},
	{"docker login from stdin", "CI runs docker login --password-stdin so the registry password never shows in logs.", ""},
	{"password from the environment", "password: ${DB_PASSWORD} comes from the environment in every deployment.", ""},
	{"password prose", "The password is stored in the team vault, never in the repository.", ""},
	{"password wrong", "When the password is wrong, try again later: the lockout lasts ten minutes.", ""},
	{"password manager", "My password manager is 1Password and the team shares one vault.", ""},
	{"secret prose", "The secret is to keep functions short and name them for what they return.", ""},
	{"token limits", "Set max_tokens=4000 for long answers; the tokenizer is cl100k_base.", ""},
	{"token prose", "The token is valid for 90 days and the model is gpt-4o-mini for summaries.", ""},
	{"token counts", "tokens: 1200 input, 300 output is the usual size of one extraction pass.", ""},
	{"API key location", "The API key lives in 1Password under 'OpenAI', never in the repo.", ""},
	{"key prose", "The key insight is that the watcher treats events as hints and rescans.", ""},
	{"reset link", "Reset your password at https://accounts.example.com/reset when it expires.", ""},
	{"URL with port", "The dashboard runs at http://localhost:8080/admin during development.", ""},
	{"email", "The user's email is ana@example.com and she prefers short answers.", ""},
	{"ssh port", "Deploys use ssh -p 2222 deploy@web1 because port 22 is closed.", ""},
	{"git flags", "Use git log -p to see patches and git push -u origin main to set upstream.", ""},
	{"secret name", "The Kubernetes secret name is db-credentials in the prod namespace.", ""},
	{"AWS prefix", "AWS access key ids start with AKIA and secret keys are 40 characters long.", ""},
	{"PIN prose", "The PIN pad is on the left of the door and opens the server room.", ""},
	{"settings about secrets", "The chart reads secret_name: db-credentials and token_url: https://auth.example.com/oauth/token from values.yaml.", ""},
	{"password policy setting", "Staging sets password_policy: strict and password_min_length: 14 for every tenant.", ""},
	{"flag in prose", "Pass the --token flag only in CI, and never use docker login -p in scripts.", ""},
	{"argon2 settings", "Passwords are hashed with argon2id using m=65536, t=3 and p=4 parameters.", ""},
}

func TestOrdinaryFactsPass(t *testing.T) {
	if len(ordinaryFacts) < 25 {
		t.Fatalf("%d facts; the table covers at least 25", len(ordinaryFacts))
	}
	for _, f := range ordinaryFacts {
		if got, n := secrets.Redact(f.text); n != 0 {
			t.Errorf("%s: secrets.Redact(%q) = %q", f.name, f.text, got)
		}
		if found := secrets.FindSecrets(f.text); len(found) != 0 || secrets.HasSecret(f.text) {
			t.Errorf("%s: found %+v in %q", f.name, found, f.text)
		}
		r := rejectText(f.text, f.text)
		if f.gate == "" && r != "" || f.gate != "" && !strings.Contains(r, f.gate) {
			t.Errorf("%s: the gate says %q, want %q", f.name, r, f.gate)
		}
	}
}

// TestFindSecretsLines: the entry point for scanning a file names the kind
// and line of each secret, and its offsets are the ones Redact replaces.
func TestFindSecretsLines(t *testing.T) {
	text := "# Deploy notes\nuser: app\npassword: Wq3yamlPw7\n\nCI pushes with " + formGitHub + ".\nplain line, [REDACTED] is no secret\n"
	got := secrets.FindSecrets(text)
	want := []struct {
		kind   string
		line   int
		secret string
	}{{"password", 3, "Wq3yamlPw7"}, {"GitHub token", 5, formGitHub}}
	if len(got) != len(want) {
		t.Fatalf("FindSecrets = %+v", got)
	}
	for i, w := range want {
		if g := got[i]; g.Kind != w.kind || g.Line != w.line || text[g.Start:g.End] != w.secret {
			t.Errorf("finding %d = %+v (%q), want %s on line %d", i, g, text[g.Start:g.End], w.kind, w.line)
		}
	}
	if _, n := secrets.Redact(text); n != len(got) {
		t.Errorf("Redact replaced %d, FindSecrets found %d", n, len(got))
	}
	if len(secrets.FindSecrets("the key is [REDACTED]")) != 0 || !secrets.HasSecret("the key is [REDACTED]") {
		t.Error("the redaction mark: not a secret to FindSecrets, but rejected by HasSecret")
	}
}

func BenchmarkRedactProse(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 24000 {
		sb.WriteString("[assistant] I changed internal/config/config.go so that the key and token settings are read once; ")
		sb.WriteString("commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 has it. Run `mysql -p` and curl -u admin https://x.\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		secrets.Redact(text)
	}
}
