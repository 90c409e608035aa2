package redact

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/testutil"
)

// fake returns n deterministic pseudo-random characters from alphabet (base62 when empty).
// Test tokens are built at run time from split prefixes so that no token-shaped literal sits
// in the source for secret scanners to flag.
func fake(seed string, n int, alphabet string) string {
	if alphabet == "" {
		alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	}
	h := uint32(2166136261)
	for i := 0; i < len(seed); i++ {
		h = (h ^ uint32(seed[i])) * 16777619
	}
	b := make([]byte, n)
	for i := range b {
		h ^= h << 13
		h ^= h >> 17
		h ^= h << 5
		b[i] = alphabet[h%uint32(len(alphabet))]
	}
	return string(b)
}

const (
	hexDigits = "0123456789abcdef"
	upperNum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

var (
	ghp          = "gh" + "p_" + fake("ghp", 36, "")
	gho          = "gh" + "o_" + fake("gho", 36, "")
	ghu          = "gh" + "u_" + fake("ghu", 36, "")
	ghs          = "gh" + "s_" + fake("ghs", 36, "")
	ghr          = "gh" + "r_" + fake("ghr", 36, "")
	jwt          = "eyJ" + fake("jwt1", 33, "") + "." + fake("jwt2", 60, "") + "." + fake("jwt3", 43, "")
	ghsJWT       = "gh" + "s_" + "1234567_" + jwt
	pat          = "github" + "_pat_" + fake("pat1", 22, "") + "_" + fake("pat2", 59, "")
	linKey       = "lin" + "_api_" + fake("lin", 40, "")
	linOAuth     = "lin" + "_oauth_" + fake("linoauth", 64, hexDigits)
	akia         = "AKIA" + "IOSFODNN7EXAMPLE" // AWS's documented example id
	asia         = "ASIA" + fake("asia", 16, upperNum)
	slackBot     = "xox" + "b-" + "263594206564-2343594206574-" + fake("slackbot", 24, "")
	slackUser    = "xox" + "p-" + "41684372915-1320496754-45609968301-" + fake("slackuser", 32, hexDigits)
	oaiLegacy    = "sk-" + fake("oai", 48, "")
	oaiProj      = "sk-" + "proj-" + fake("p1", 58, "") + "_" + fake("p2", 40, "") + "-" + fake("p3", 56, "")
	oaiHex       = "sk-" + fake("deepseek", 32, hexDigits)
	anthropic    = "sk-" + "ant-api03-" + fake("ant", 93, "") + "AA"
	pemBody      = fake("pem1", 64, "") + "\n" + fake("pem2", 64, "") + "\n" + fake("pem3", 20, "") + "=="
	rsaKey       = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + pemBody + "\n-----END RSA " + "PRIVATE KEY-----"
	sshKey       = "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + pemBody + "\n-----END OPENSSH " + "PRIVATE KEY-----"
	pgpKey       = "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\n\n" + pemBody + "\n-----END PGP " + "PRIVATE KEY BLOCK-----"
	basicCred    = "dXNlcjpwYXNzd29yZA=="
	opaque       = fake("opaque", 24, "")
	awsSecretKey = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY" // AWS's documented example secret
	google       = "AI" + "za" + fake("google", 35, "")
	npmTok       = "np" + "m_" + fake("npm", 36, "")
	stripe       = "sk" + "_live_" + fake("stripe", 24, "")
	stripeRK     = "rk" + "_live_" + fake("stripe-rk", 24, "")
	hex40        = fake("classic", 40, hexDigits)
	password     = fake("password", 12, "")
)

// redactCases are true positives and near misses, with the exact output of the built-in rules.
var redactCases = []struct {
	name, in, want string
	n              int
}{
	// GitHub
	{"ghp in prose", "use " + ghp + " for CI", "use [REDACTED:github-token] for CI", 1},
	{"gho", "oauth " + gho, "oauth [REDACTED:github-token]", 1},
	{"ghu", "user-to-server " + ghu + " here", "user-to-server [REDACTED:github-token] here", 1},
	{"ghs", "installation " + ghs, "installation [REDACTED:github-token]", 1},
	{"ghr", "refresh " + ghr, "refresh [REDACTED:github-token]", 1},
	{"ghs stateless form before a full stop", "it was " + ghsJWT + ".", "it was [REDACTED:github-token].", 1},
	{"ghp before a full stop", "revoked " + ghp + ".", "revoked [REDACTED:github-token].", 1},
	{"fine-grained pat in a code block", "```sh\nexport GH_TOKEN=" + pat + "\n```\n", "```sh\nexport GH_TOKEN=[REDACTED:github-token]\n```\n", 1},
	{"in brackets", "[" + ghp + "]", "[[REDACTED:github-token]]", 1},
	{"longer than 36", "ghp_" + fake("long", 50, ""), "[REDACTED:github-token]", 1},
	// Linear
	{"linear key in a URL query", "https://example.com/hook?token=" + linKey + "&x=1", "https://example.com/hook?token=[REDACTED:linear-key]&x=1", 1},
	{"linear oauth in angle brackets", "<" + linOAuth + ">", "<[REDACTED:linear-key]>", 1},
	{"linear key at start of text", linKey + " leaked", "[REDACTED:linear-key] leaked", 1},
	// AWS
	{"akia at start", akia + " is the key", "[REDACTED:aws-access-key] is the key", 1},
	{"asia at end", "aws_access_key_id = " + asia, "aws_access_key_id = [REDACTED:aws-access-key]", 1},
	{"akia in yaml quotes", "key: '" + akia + "'", "key: '[REDACTED:aws-access-key]'", 1},
	// Slack
	{"slack bot in parentheses", "(" + slackBot + "),", "([REDACTED:slack-token]),", 1},
	{"slack user token", "SLACK_TOKEN=" + slackUser + ";", "SLACK_TOKEN=[REDACTED:slack-token];", 1},
	{"slack app token", "app " + "xapp-" + "1-A052FGTS2DL-5171572773297-" + fake("xapp", 64, hexDigits), "app [REDACTED:slack-token]", 1},
	// OpenAI and Anthropic
	{"openai legacy in quotes", `OPENAI_API_KEY="` + oaiLegacy + `"`, `OPENAI_API_KEY="[REDACTED:openai-key]"`, 1},
	{"openai project key", "key " + oaiProj + " set", "key [REDACTED:openai-key] set", 1},
	{"openai-compatible hex key", "deepseek " + oaiHex, "deepseek [REDACTED:openai-key]", 1},
	{"anthropic key", "x-api-key: " + anthropic, "x-api-key: [REDACTED:anthropic-key]", 1},
	{"sk- after a hyphen is a key when the rest looks random", "task-sk-" + fake("task", 24, ""), "task-[REDACTED:openai-key]", 1},
	// Private keys
	{"rsa block in text", "before\n" + rsaKey + "\nafter", "before\n[REDACTED:private-key]\nafter", 1},
	{"openssh block", sshKey, "[REDACTED:private-key]", 1},
	{"pgp block", "k:\n" + pgpKey + "\n", "k:\n[REDACTED:private-key]\n", 1},
	{"unterminated block runs to the end", "key:\n-----BEGIN EC " + "PRIVATE KEY-----\n" + pemBody + "\n\n## Next\n- more", "key:\n[REDACTED:private-key]", 1},
	{"json-escaped block", `{"private_key":"\n` + strings.ReplaceAll(rsaKey, "\n", `\n`) + `\n","id":1}`, `{"private_key":"\n[REDACTED:private-key]\n","id":1}`, 1},
	{"two blocks", rsaKey + "\nand\n" + sshKey, "[REDACTED:private-key]\nand\n[REDACTED:private-key]", 2},
	// Authorization headers and bearer tokens
	{"header with bearer jwt", "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED:authorization]", 1},
	{"lowercase header basic", "authorization: Basic " + basicCred, "authorization: Basic [REDACTED:authorization]", 1},
	{"header without scheme", "AUTHORIZATION: " + opaque + "\nnext line", "AUTHORIZATION: [REDACTED:authorization]\nnext line", 1},
	{"short bearer in a header", "Authorization: Bearer abc", "Authorization: Bearer [REDACTED:authorization]", 1},
	{"curl header", `curl -H "Authorization: token abc123" https://api.example.com`, `curl -H "Authorization: token [REDACTED:authorization]" https://api.example.com`, 1},
	{"json header", `{"Authorization": "Bearer abc", "Accept": "json"}`, `{"Authorization": "Bearer [REDACTED:authorization]", "Accept": "json"}`, 1},
	{"markdown bold and inline code", "**Authorization:** `Bearer xyz123` is sent", "**Authorization:** `Bearer [REDACTED:authorization]` is sent", 1},
	{"proxy header", "Proxy-Authorization: Basic " + basicCred, "Proxy-Authorization: Basic [REDACTED:authorization]", 1},
	{"crlf", "Authorization: Bearer abc\r\nHost: x", "Authorization: Bearer [REDACTED:authorization]\r\nHost: x", 1},
	{"header with a github token names the token", "Authorization: token " + ghp, "Authorization: token [REDACTED:github-token]", 1},
	{"bearer in a log line", "sent bearer " + jwt + " to api", "sent bearer [REDACTED:authorization] to api", 1},
	// AWS secret access keys: never by shape alone, by their label or their key id.
	{"aws secret in a credentials file", "[default]\naws_secret_access_key = " + awsSecretKey + "\n", "[default]\naws_secret_access_key = [REDACTED:aws-secret-key]\n", 1},
	{"aws secret env", "export AWS_SECRET_ACCESS_KEY=" + awsSecretKey, "export AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]", 1},
	{"aws secret json", `{"AccessKeyId": "x", "SecretAccessKey": "` + awsSecretKey + `"}`, `{"AccessKeyId": "x", "SecretAccessKey": "[REDACTED:aws-secret-key]"}`, 1},
	{"aws secret after secret:", "secret: " + awsSecretKey, "secret: [REDACTED:aws-secret-key]", 1},
	{"aws secret beside its id", akia + ":" + awsSecretKey, "[REDACTED:aws-access-key]:[REDACTED:aws-secret-key]", 2},
	{"aws secret in csv beside its id", "user," + akia + "," + awsSecretKey + "\n", "user,[REDACTED:aws-access-key],[REDACTED:aws-secret-key]\n", 2},
	// JWT
	{"bare jwt", "token " + jwt + " expired", "token [REDACTED:jwt] expired", 1},
	{"jwt in a query", "https://x.example/cb?id_token=" + jwt + "&state=1", "https://x.example/cb?id_token=[REDACTED:jwt]&state=1", 1},
	// URL userinfo
	{"url password", "git clone https://bob:" + password + "@git.example.com/r.git", "git clone https://bob:[REDACTED:password]@git.example.com/r.git", 1},
	{"url password with an at sign", "postgres://app:p@ss" + password + "@db:5432/x", "postgres://app:[REDACTED:password]@db:5432/x", 1},
	{"url x-access-token", "https://x-access-token:" + hex40 + "@github.com/o/r", "https://x-access-token:[REDACTED:github-token]@github.com/o/r", 1},
	// password assignments
	{"password=", "mysql -u root password=" + password + " -h db", "mysql -u root password=[REDACTED:password] -h db", 1},
	{"passwd:", "passwd: " + password + "\n", "passwd: [REDACTED:password]\n", 1},
	{"DB_PASSWORD=", "DB_PASSWORD=" + password, "DB_PASSWORD=[REDACTED:password]", 1},
	{"json password", `{"password": "two words!"}`, `{"password": "[REDACTED:password]"}`, 1},
	{"password in a query", "/login?user=a&password=" + password + "&next=/", "/login?user=a&password=[REDACTED:password]&next=/", 1},
	{"password before a full stop", "the password: " + password + ".", "the password: [REDACTED:password].", 1},
	// Google, npm, Stripe
	{"google api key", "key=" + google + "&q=1", "key=[REDACTED:google-api-key]&q=1", 1},
	{"npm token", "//registry.npmjs.org/:_authToken=" + npmTok, "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]", 1},
	{"stripe live", "STRIPE_KEY=" + stripe, "STRIPE_KEY=[REDACTED:stripe-key]", 1},
	{"stripe restricted", "(" + stripeRK + ")", "([REDACTED:stripe-key])", 1},
	// Classic 40-hex GitHub tokens, only where a token is expected
	{"GITHUB_TOKEN= hex", "GITHUB_TOKEN=" + hex40 + " make release", "GITHUB_TOKEN=[REDACTED:github-token] make release", 1},
	{"gh_token yaml hex", "gh_token: '" + hex40 + "'", "gh_token: '[REDACTED:github-token]'", 1},
	{"authorization token hex", "Authorization: token " + hex40, "Authorization: token [REDACTED:authorization]", 1},
	// A 40-hex token after a token label, with or without a colon.
	{"token: hex", "token: " + hex40, "token: [REDACTED:token]", 1},
	{"vault token hex", "vault token " + hex40 + " expires", "vault token [REDACTED:token] expires", 1},
	{"access_token= hex in a query", "/cb?access_token=" + hex40 + "&x=1", "/cb?access_token=[REDACTED:token]&x=1", 1},
	{"TOKEN=\"hex\"", `VAULT_TOKEN="` + hex40 + `"`, `VAULT_TOKEN="[REDACTED:token]"`, 1},
	// A token as the whole userinfo of a URL (no colon, no password).
	{"url userinfo hex token", "git clone https://" + hex40 + "@github.com/o/r.git", "git clone https://[REDACTED:token]@github.com/o/r.git", 1},
	{"url userinfo random token", "https://" + opaque + "@gitlab.example.com/x", "https://[REDACTED:token]@gitlab.example.com/x", 1},
	// API keys and client secrets in assignments.
	{"api_key=", "curl 'https://x.example/v1?api_key=" + opaque + "'", "curl 'https://x.example/v1?api_key=[REDACTED:api-key]'", 1},
	{"API_KEY env", "export WEATHER_API_KEY=" + opaque, "export WEATHER_API_KEY=[REDACTED:api-key]", 1},
	{"x-api-key header", "X-Api-Key: " + opaque, "X-Api-Key: [REDACTED:api-key]", 1},
	{"client_secret yaml", "client_secret: " + opaque + "\n", "client_secret: [REDACTED:client-secret]\n", 1},
	{"clientSecret json", `{"clientSecret": "` + opaque + `"}`, `{"clientSecret": "[REDACTED:client-secret]"}`, 1},
	// An AWS secret further from its key id than a few separators.
	{"aws secret after padding", akia + "        " + awsSecretKey, "[REDACTED:aws-access-key]        [REDACTED:aws-secret-key]", 2},
	{"aws secret in an aligned table", "| " + akia + " |\t\t\t| " + awsSecretKey + " |", "| [REDACTED:aws-access-key] |\t\t\t| [REDACTED:aws-secret-key] |", 2},
	{"aws secret after and", akia + " and " + awsSecretKey, "[REDACTED:aws-access-key] and [REDACTED:aws-secret-key]", 2},
	// Several in one text
	{"several", "a " + ghp + " b " + akia + " c " + slackBot + "\nd " + anthropic, "a [REDACTED:github-token] b [REDACTED:aws-access-key] c [REDACTED:slack-token]\nd [REDACTED:anthropic-key]", 4},
	{"same token twice", ghp + "," + ghp, "[REDACTED:github-token],[REDACTED:github-token]", 2},
	{"a marker of an unknown kind hides nothing", "[REDACTED:" + ghp + "]", "[REDACTED:[REDACTED:github-token]]", 1},

	// Near misses: unchanged.
	{"commit sha", "fixed in 3f2a9c0d1e4b5a6978877665544332211ffeeddc", "", 0},
	{"uuid", "id 123e4567-e89b-12d3-a456-426614174000", "", 0},
	{"sk- inside words", "risk-assessment-for-the-launch-plan, a desk-lamp, ask-me-anything-about-the-project-2024", "", 0},
	{"sk- branch name", "branch sk-1234-fix-login-redirect-loop", "", 0},
	{"sk- placeholder", "sk-ant-your-key-goes-here and sk-your-openai-key-here", "", 0},
	{"ghp too short", "ghp_abc123 and ghp_" + fake("short", 20, ""), "", 0},
	{"ghp glued to a word", "xghp_" + fake("glued", 36, ""), "", 0},
	{"akia alone", "AKIA is the prefix of long-term keys, ASIA of temporary ones", "", 0},
	{"akia too long", "AKIAIOSFODNN7EXAMPLEABCD", "", 0},
	{"bearer of news heading", "## Bearer of news\nThe bearer responsibilities are clear.", "", 0},
	{"bearer placeholder", "Bearer YOUR_ACCESS_TOKEN", "", 0},
	{"authorization as a word", "Authorization is handled by the gateway; see the authorization docs.", "", 0},
	{"authorization header without a value", "Authorization:\nnext", "", 0},
	{"authorization scheme without credentials", "Authorization: Bearer", "", 0},
	{"base64 image", "![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)", "", 0},
	{"sri hash", `integrity="sha512-` + fake("sri", 86, "") + `=="`, "", 0},
	{"slack placeholder", "xoxb-your-bot-token-here", "", 0},
	{"slack hugs", "love, xoxo-forever", "", 0},
	{"linear placeholder", "LINEAR_API_KEY=lin_api_XXXX", "", 0},
	{"public key block", "-----BEGIN PUBLIC KEY-----\n" + pemBody + "\n-----END PUBLIC KEY-----", "", 0},
	{"private key in prose", "the PRIVATE KEY lives in the vault", "", 0},
	{"empty", "", "", 0},
	{"40 hex after commit", "commit " + hex40 + "\nAuthor: a", "", 0},
	{"40 hex sha in a url", "https://github.com/o/r/commit/" + hex40, "", 0},
	{"40 hex beside a word token", "the token for " + hex40 + " is rotated", "", 0},
	{"aws secret shape alone", "checksum " + awsSecretKey, "", 0},
	{"aws secret label with a sha", "secret: " + hex40, "", 0},
	{"jwt header alone", "eyJhbGciOiJIUzI1NiJ9 is a header", "", 0},
	{"jwt too short", "eyJ.abc.def and eyJabc.de.f", "", 0},
	{"url without userinfo", "http://localhost:8080/@me and https://example.com/u@x", "", 0},
	{"url user only", "ssh://git@github.com/o/r.git", "", 0},
	{"password placeholders", "password=$DB_PASS password: ${PW} password=<yours> password: ******** password=%s \"password\": \"\"", "", 0},
	{"token words", "the token for " + hex40 + ", tokens: " + hex40 + ", token: none", "", 0},
	{"git user in urls", "ssh://git@github.com/o/r and https://deploy@example.com/x and https://user.name@example.com", "", 0},
	{"api key placeholders", "api_key=$API_KEY api_key: <your key> api_key: required API_KEY=${{ secrets.KEY }} api_key=os.environ", "", 0},
	{"api key words", "the api_key field and apikey: string; client_secret is optional", "", 0},
	{"akia then prose", akia + " and the rest of the sentence is plain English words here", "[REDACTED:aws-access-key] and the rest of the sentence is plain English words here", 1},
	{"password words", "passwordless login; the password is required; password: required", "", 0},
	{"password field without a value", "password:\nnext", "", 0},
	{"google prefix alone", "AIza is Google's prefix; AIzaShort", "", 0},
	{"npm placeholder", "npm_config_cache and npm_token_here", "", 0},
	{"stripe placeholder", "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx and sk_test_yourkeygoeshere", "", 0},
}

func TestRedact(t *testing.T) {
	r, err := New(nil, nil)
	require.NoError(t, err)
	for _, tc := range redactCases {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if tc.n == 0 {
				want = tc.in
			}
			got, n := r.Redact(tc.in)
			assert.Equal(t, want, got)
			assert.Equal(t, tc.n, n)
		})
	}
}

func TestRedactIsIdempotent(t *testing.T) {
	r, err := New([]string{"hunter2hunter2", linKey}, []Pattern{{Name: "ticket", Regexp: `TKT-[0-9]{6}`}, {Regexp: `(?i)internal-[a-z]{8}`}})
	require.NoError(t, err)
	inputs := []string{"hunter2hunter2 TKT-123456 Internal-abcdefgh " + linKey}
	for _, tc := range redactCases {
		inputs = append(inputs, tc.in)
	}
	for _, in := range inputs {
		once, _ := r.Redact(in)
		twice, n := r.Redact(once)
		assert.Equal(t, once, twice, "input %q", in)
		assert.Zero(t, n, "input %q", in)
	}
}

// TestMarkersMatchNoRule checks the markers themselves: no rule's expression matches a marker,
// even without the protection that Find gives existing markers.
func TestMarkersMatchNoRule(t *testing.T) {
	kinds := []string{KindSecret, KindLinear, KindGitHub, KindAWS, KindSlack, KindOpenAI, KindAnthropic, KindPrivateKey, KindAuthorization, KindToken, KindAPIKey, KindClientSecret, KindCustom}
	for _, k := range kinds {
		marker := "[REDACTED:" + k + "]"
		for _, ru := range builtin() {
			assert.Empty(t, ru.find(marker), "rule %s matches %s", ru.kind, marker)
		}
	}
	// In the contexts the rules keep visible, an existing marker is not redacted again.
	r, err := New(nil, nil)
	require.NoError(t, err)
	for _, in := range []string{
		"Authorization: [REDACTED:authorization]",
		"Authorization: Bearer [REDACTED:authorization]",
		`curl -H "Authorization: token [REDACTED:github-token]"`,
		"bearer [REDACTED:secret] and sk-[REDACTED:openai-key]",
		"[REDACTED:private-key]\n-----END RSA PRIVATE KEY-----",
	} {
		assert.Empty(t, r.Find(in), in)
	}
}

func TestHeldSecrets(t *testing.T) {
	meta := `p4ss.w*rd+(x)[y]{2}|^$\`
	r, err := New([]string{
		"hunter2hunter2",           // matches no pattern
		"",                         // ignored
		"abc",                      // too short: would redact half a text
		"  spaced-secret-value \n", // trimmed
		meta,                       // regexp metacharacters are literal
		linKey,                     // also a pattern: the held secret names it
		"hunter2hunter2",           // duplicates are harmless
	}, nil)
	require.NoError(t, err)
	cases := []struct {
		name, in, want string
		n              int
	}{
		{"no pattern", "pw=hunter2hunter2;", "pw=[REDACTED:secret];", 1},
		{"twice", "hunter2hunter2hunter2hunter2", "[REDACTED:secret][REDACTED:secret]", 2},
		{"short values ignored", "abc abcabc", "abc abcabc", 0},
		{"trimmed", "x spaced-secret-value y", "x [REDACTED:secret] y", 1},
		{"metacharacters", "a " + meta + " b", "a [REDACTED:secret] b", 1},
		{"metacharacters not a regexp", "p4ssXw*rd+(x)[y]{2}|^$\\ p4ss.wwrd", "p4ssXw*rd+(x)[y]{2}|^$\\ p4ss.wwrd", 0},
		{"held secret wins over its pattern", "key " + linKey, "key [REDACTED:secret]", 1},
		{"held secret inside a header", "Authorization: hunter2hunter2", "Authorization: [REDACTED:secret]", 1},
		{"held secret glued to a word", "xhunter2hunter2x", "x[REDACTED:secret]x", 1},
		// Once the secret is a marker the key id starts a word, as a second pass would see.
		{"token glued to a held secret", "0hunter2hunter2" + akia + "0", "0[REDACTED:secret]" + akia + "0", 1},
		{"token after a held secret", "0hunter2hunter2" + akia, "0[REDACTED:secret][REDACTED:aws-access-key]", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := r.Redact(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.n, n)
		})
	}
}

// A held secret is also found base64- and URL-encoded, the forms it takes
// in an Authorization: Basic header, a `base64` pipe or a logged URL.
func TestHeldSecretsEncoded(t *testing.T) {
	const secret = "ghs_fakeInstallationToken0123456789abcd/+?&="
	r, err := New([]string{secret}, nil)
	require.NoError(t, err)
	b64 := func(enc *base64.Encoding, s string) string { return enc.EncodeToString([]byte(s)) }
	for name, in := range map[string]string{
		"base64":                     "b64 " + b64(base64.StdEncoding, secret) + " end",
		"base64 of echo with a line": "b64 " + b64(base64.StdEncoding, secret+"\n") + " end",
		"base64 url alphabet":        "b64 " + b64(base64.URLEncoding, secret) + " end",
		"base64 unpadded":            "b64 " + strings.TrimRight(b64(base64.RawStdEncoding, secret), "=") + " end",
		"query escaped":              "https://x.example/?t=" + url.QueryEscape(secret) + " end",
		"path escaped":               "https://x.example/" + url.PathEscape(secret) + " end",
		"basic auth":                 "Authorization: Basic " + b64(base64.StdEncoding, secret),
	} {
		t.Run(name, func(t *testing.T) {
			got, n := r.Redact(in)
			assert.Positive(t, n, got)
			for _, form := range []string{secret, b64(base64.StdEncoding, secret)[:40], url.QueryEscape(secret)} {
				assert.NotContains(t, got, form)
			}
		})
	}
	got, n := r.Redact("aGVsbG8gd29ybGQ= is just base64")
	assert.Zero(t, n, got)
}

// A held secret is found in the forms that render as it or decode to it: Markdown-escaped,
// split by zero-width characters, and base64-encoded inside a longer text at each of the three
// byte offsets (a Basic header's "user:<secret>", a server echoing a JSON body).
func TestHeldSecretsDisguised(t *testing.T) {
	key := linKey
	r, err := New([]string{key}, nil)
	require.NoError(t, err)
	escaped := strings.ReplaceAll(key, "_", `\_`)
	zw := key[:8] + "\u200b" + key[8:20] + "\u2060" + key[20:30] + "\ufeff\u200c" + key[30:]
	cases := map[string]string{
		"markdown-escaped":         "key " + escaped + " here",
		"markdown-escaped in bold": "**" + escaped + "**",
		"escaped asterisk":         `a\*` + "hunter" + key,
		"zero-width split":         "key " + zw + " here",
		"zero-width and escaped":   "key " + strings.ReplaceAll(zw, "_", `\_`) + ".",
	}
	for k := 0; k < 3; k++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
			plain := strings.Repeat("x", k) + `{"echo":"` + key + `","n":1}`
			cases[fmt.Sprintf("base64 offset %d %p", k, enc)] = "echo: " + enc.EncodeToString([]byte(plain))
		}
		cases[fmt.Sprintf("basic auth offset %d", k)] = "Authorization: Basic " +
			base64.StdEncoding.EncodeToString([]byte(strings.Repeat("u", k+3)+":"+key))
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			got, n := r.Redact(in)
			assert.Positive(t, n, got)
			assert.Contains(t, got, "[REDACTED:secret]")
			assert.NotContains(t, got, key[len(key)-12:])
			// Nothing that decodes to a third of the key is left.
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				for k := 0; k < 3; k++ {
					frag := enc.EncodeToString(append(make([]byte, k), key[10:30]...))[4:20]
					assert.NotContains(t, got, frag)
				}
			}
			again, n2 := r.Redact(got)
			assert.Equal(t, got, again)
			assert.Zero(t, n2)
		})
	}
	// Near misses: a backslash or zero-width character elsewhere changes nothing, and neither
	// does base64 of other text.
	for _, in := range []string{
		`C:\path\_dir and a\_b` + "\u200b",
		base64.StdEncoding.EncodeToString([]byte(`{"echo":"` + linOAuth + `"}`)),
		key[:20] + "\u200b",
	} {
		got, n := r.Redact(in)
		assert.Equal(t, in, got)
		assert.Zero(t, n)
	}
}

// HeldOnly keeps the held secrets, in every form, and drops the patterns.
func TestHeldOnly(t *testing.T) {
	r, err := New([]string{"hunter2hunter2"}, []Pattern{{Regexp: `TKT-[0-9]{6}`}})
	require.NoError(t, err)
	in := "a " + ghp + " hunter2\u200bhunter2 TKT-123456 " + base64.StdEncoding.EncodeToString([]byte("hunter2hunter2"))
	got, n := r.HeldOnly().Redact(in)
	assert.Equal(t, "a "+ghp+" [REDACTED:secret] TKT-123456 [REDACTED:secret]", got)
	assert.Equal(t, 2, n)
}

func TestSecretsFromEnv(t *testing.T) {
	env := map[string]string{
		"LINEAR_API_KEY":     "k1-linear-api",
		"LINEAR_OAUTH_TOKEN": "",
		"GITHUB_TOKEN":       "k3-github",
		"GH_TOKEN":           "k4-gh",
		"OTHER_TOKEN":        "not-ours",
	}
	got := SecretsFromEnv(func(k string) string { return env[k] })
	assert.Equal(t, []string{"k1-linear-api", "k3-github", "k4-gh"}, got)
	assert.Empty(t, SecretsFromEnv(func(string) string { return "" }))
}

func TestCustomPatterns(t *testing.T) {
	r, err := New(nil, []Pattern{
		{Name: "ticket-secret", Regexp: `TKT-[0-9]{6}`},
		{Regexp: `(?i)\binternal-[a-z]{8}\b`},
		{Name: "password", Regexp: `password=(\S+)`},
		{Name: "empty-match", Regexp: `z*`},
		{Name: "overlap", Regexp: `leak:[A-Za-z_]{6}`},
	})
	require.NoError(t, err)
	cases := []struct {
		name, in, want string
		n              int
	}{
		{"named", "see TKT-123456.", "see [REDACTED:ticket-secret].", 1},
		{"unnamed is custom", "host Internal-abcdefgh up", "host [REDACTED:custom] up", 1},
		{"group only", "password=s3cret! rest", "password=[REDACTED:password] rest", 1},
		{"empty matches ignored", "zzz", "[REDACTED:empty-match]", 1},
		{"no match", "plain text", "plain text", 0},
		// The custom match and the token overlap: one marker covers both, so nothing of
		// either survives, named by the earliest match.
		{"overlap with a built-in", "leak:ghp_" + fake("ov", 36, ""), "[REDACTED:overlap]", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := r.Redact(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.n, n)
		})
	}
	// A custom marker already in the text is kept.
	got, n := r.Redact("[REDACTED:ticket-secret] TKT-654321")
	assert.Equal(t, "[REDACTED:ticket-secret] [REDACTED:ticket-secret]", got)
	assert.Equal(t, 1, n)
}

func TestNewRejectsBadPatterns(t *testing.T) {
	cases := []struct {
		name     string
		patterns []Pattern
		wantErr  string
		syntax   bool
	}{
		{"invalid regexp named", []Pattern{{Name: "ok", Regexp: `x`}, {Name: "aws-secret", Regexp: `[a-z`}}, `redact: pattern 2 "aws-secret": error parsing regexp: missing closing ]`, true},
		{"invalid regexp unnamed", []Pattern{{Regexp: `(?P<x`}}, `redact: pattern 1 "custom": error parsing regexp`, true},
		{"empty regexp", []Pattern{{Name: "e"}}, `redact: pattern 1 "e": empty regexp`, false},
		{"bad name", []Pattern{{Name: "has space", Regexp: `x`}}, `redact: pattern 1 "has space": name must be`, false},
		{"marker-breaking name", []Pattern{{Name: "a]b", Regexp: `x`}}, `redact: pattern 1 "a]b": name must be`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New([]string{"some-held-secret"}, tc.patterns)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.NotContains(t, err.Error(), "some-held-secret")
			var se *syntax.Error
			assert.Equal(t, tc.syntax, errors.As(err, &se))
		})
	}
}

func TestFindOffsets(t *testing.T) {
	r, err := New([]string{"held-secret-1"}, []Pattern{{Name: "wide", Regexp: `AAA[^ ]* held`}})
	require.NoError(t, err)
	text := "x " + akia + " y held-secret-1 z AAA-" + ghp + " held"
	got := r.Find(text)
	a := strings.Index(text, akia)
	s := strings.Index(text, "held-secret-1")
	w := strings.Index(text, "AAA")
	assert.Equal(t, []Finding{
		{Kind: KindAWS, Start: a, End: a + len(akia)},
		{Kind: KindSecret, Start: s, End: s + len("held-secret-1")},
		// The custom match covers the token and starts earlier: one finding, its kind.
		{Kind: "wide", Start: w, End: len(text)},
	}, got)
}

func TestNilRedactorUsesBuiltins(t *testing.T) {
	var r *Redactor
	got, n := r.Redact("t " + ghp)
	assert.Equal(t, "t [REDACTED:github-token]", got)
	assert.Equal(t, 1, n)
}

func TestConcurrentUse(t *testing.T) {
	r, err := New([]string{"hunter2hunter2"}, []Pattern{{Regexp: `TKT-[0-9]{6}`}})
	require.NoError(t, err)
	in := "a " + ghp + " hunter2hunter2 TKT-123456"
	want := "a [REDACTED:github-token] [REDACTED:secret] [REDACTED:custom]"
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, n := r.Redact(in)
				assert.Equal(t, want, got)
				assert.Equal(t, 3, n)
			}
		}()
	}
	wg.Wait()
}

// TestGoldenStatusBody redacts a realistic status body: what reaches the tracker is the golden
// file.
func TestGoldenStatusBody(t *testing.T) {
	in := statusBody()
	r, err := New([]string{"hunter2hunter2"}, nil)
	require.NoError(t, err)
	got, n := r.Redact(in)
	assert.Equal(t, 9, n)
	testutil.Golden(t, filepath.Join("testdata", "status.golden.md"), got)
}

// statusBody is a checkpoint comment in which an agent pasted credentials, with the near
// misses a real one carries (SHAs, UUIDs, hyphenated words).
func statusBody() string {
	return "## Checkpoint Status\n\n" +
		"**Updated:** 2026-11-21T13:45:00Z\n" +
		"**Task:** 3 of 7 — wire the deploy job (risk-assessment done, desk-check pending)\n" +
		"**Status:** In Progress\n\n" +
		"**Decisions:** use the bot token " + slackBot + " for alerts; commit 3f2a9c0d1e4b5a6978877665544332211ffeeddc\n" +
		"**Blockers:** CI fails with `Authorization: Bearer " + jwt + "` rejected\n" +
		"**Next:** rotate " + ghp + " and " + akia + "; request id 123e4567-e89b-12d3-a456-426614174000\n\n" +
		"```sh\n" +
		"export OPENAI_API_KEY=" + oaiProj + "\n" +
		"export ANTHROPIC_API_KEY=" + anthropic + "\n" +
		"curl -H \"Authorization: token hunter2hunter2\" https://api.example.com/v1\n" +
		"```\n\n" +
		"<details><summary>deploy key</summary>\n\n" + sshKey + "\n\n</details>\n\n" +
		"Linear: " + linKey + " — Authorization is handled by the gateway.\n" +
		"<!-- ccc:checkpoint agent=main -->\n"
}

// Values replaces the literal values of four characters or more, and only
// them: no patterns, no kinds.
func TestValues(t *testing.T) {
	assert.Equal(t, "dial [redacted] as [redacted]", Values("dial lin_api_x as ghp_y", []string{"lin_api_x", "ghp_y", "as", ""}))
	assert.Equal(t, "sk-ant-api03-abcdefghijklmnop", Values("sk-ant-api03-abcdefghijklmnop", nil))
}

// TestClean: Clean is false wherever a scan could find something (a rule's
// keyword in any case where the rule folds it, a held secret in any form, an
// escape or zero-width character that could hide one, a marker, a user
// pattern), and true for ordinary task text, so a record's thousands of tasks
// skip the full scan.
func TestClean(t *testing.T) {
	t.Parallel()
	r, err := New([]string{"s3cr3t-h3ld-v4lue"}, nil)
	require.NoError(t, err)
	for _, text := range []string{
		"task 1: migrate endpoint /api/v1/resource1 ✓\nthe current task — in progress",
		"",
		"write the parser; run go test ./parser/",
	} {
		assert.True(t, r.Clean(text), "%q", text)
		assert.Empty(t, r.Find(text))
	}
	for _, text := range []string{
		"s3cr3t-h3ld-v4lue",
		"s3cr3t\\-h3ld-v4lue", // an escape: the skeleton could hold it
		"a\u200bb",
		"[REDACTED:secret]",
		"see AKIA",
		"Set the PASSWORD", // a folded keyword
		"-----BEGIN",
		"https://example.com",
	} {
		assert.False(t, r.Clean(text), "%q", text)
	}
	withPattern, err := New(nil, []Pattern{{Name: "ticket", Regexp: `TKT-[0-9]{6}`}})
	require.NoError(t, err)
	assert.False(t, withPattern.Clean("nothing here"), "a user pattern has no keywords to look for")
	assert.True(t, (*Redactor)(nil).Clean("nothing here"))
}

// TestIndexFold: indexFold finds what strings.Index finds in the text with
// its ASCII letters lowered, first byte in either case included.
func TestIndexFold(t *testing.T) {
	t.Parallel()
	lower := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			b[i] = lowerASCII(c)
		}
		return string(b)
	}
	for _, tc := range []struct{ s, sub string }{
		{"", "a"}, {"a", ""}, {"A", "a"}, {"xxPassWord", "password"}, {"pasSpassword", "password"},
		{"PPPassword", "password"}, {"p", "pw"}, {"-----BEGIN", "-----begin"}, {"a://b", "://"},
		{"Secret secret", "secret"}, {"sECRE", "secret"}, {"ÄPASSWORD", "password"}, {"tokeN", "token"},
	} {
		assert.Equal(t, strings.Index(lower(tc.s), tc.sub), indexFold(tc.s, tc.sub), "%q in %q", tc.sub, tc.s)
	}
}

// TestBuiltinRulesCompile: the built-in rules compile on first use, so a
// test compiles them all.
func TestBuiltinRulesCompile(t *testing.T) {
	t.Parallel()
	for _, ru := range builtin() {
		assert.NotNil(t, ru.re(), ru.kind)
	}
}

// A redactor of held secrets alone (HeldOnly) finds them in every form
// Clean looks for before its keyword screen, so it builds no screen and
// runs none: a rule's keyword is clean to it, a held secret, its escape or
// a marker is not (issue 26: 0.5 MB screened for nothing per checkpoint).
func TestCleanHeldOnlyRunsNoScreen(t *testing.T) {
	t.Parallel()
	r, err := New([]string{"s3cr3t-h3ld-v4lue"}, nil)
	require.NoError(t, err)
	held := r.HeldOnly()
	for _, text := range []string{"see AKIA", "Set the PASSWORD", "https://example.com", "task 1"} {
		assert.True(t, held.Clean(text), "%q", text)
		assert.Empty(t, held.Find(text))
	}
	for _, text := range []string{"s3cr3t-h3ld-v4lue", "s3cr3t\\-h3ld-v4lue", "a\u200bb", "[REDACTED:secret]"} {
		assert.False(t, held.Clean(text), "%q", text)
	}
	assert.True(t, held.words == nil, "no keyword screen built")
}
