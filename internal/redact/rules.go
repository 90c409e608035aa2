package redact

import (
	"regexp"
	"strings"
	"sync"
)

// rule is one way of finding a kind of credential.
//
// A built-in rule's matches all start with one of its keywords, at the start of a word. Its
// expression is anchored (^) and tried only where a keyword occurs: Go's regexp cannot skip
// ahead to a literal behind \b or (?i), and running ten unanchored expressions over a 64 KB
// body costs milliseconds, most of it on bodies with no credential at all. User patterns
// (no keywords) run unanchored over the whole text.
type rule struct {
	kind     string
	re       func() *regexp.Regexp // compiled on first use
	group    int                   // submatch to redact when span is nil; 0 is the whole match
	keywords []string              // lowercase and matched in any case when fold
	fold     bool
	anywhere bool // a keyword counts inside a word too
	// span turns a match (submatch indices into seg) into the bytes to redact, or rejects it
	// when what matched the shape is not a credential. st is fresh for each text.
	span func(seg string, m []int, st *scanState) (start, end int, ok bool)
}

// builtin is the ordered list of built-in rules; on a tie (same start and end) the earlier rule
// names the finding, so specific token kinds come before the header rules that may cover the
// same bytes. Compiled on first use (sync.OnceValue), not at start-up: most ccc processes (a
// hook that decides nothing, --version) never redact.
var builtin = sync.OnceValue(func() []rule {
	return []rule{
		// A whole PEM or PGP block; an unterminated BEGIN runs to the end, since the rest of the
		// text is then most likely key material. Anywhere: in a JSON string the block follows an
		// escaped newline ("\n-----BEGIN").
		{
			kind:     KindPrivateKey,
			keywords: []string{"-----BEGIN"},
			anywhere: true,
			re:       lazyRegexp(`^-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\z)`),
		},
		// sk-ant-api03-…, sk-ant-admin01-…, sk-ant-oat01-…: before the OpenAI rule, which matches
		// the same bytes.
		{
			kind:     KindAnthropic,
			keywords: []string{"sk-ant-"},
			re:       lazyRegexp(`^sk-ant-[A-Za-z0-9_-]{20,}`),
			span:     randomBody(len("sk-ant-")),
		},
		// sk-<48 base62> (legacy), sk-proj-…, sk-svcacct-…, sk-admin-…, and the sk-<32 hex> keys of
		// OpenAI-compatible APIs. The random-run check keeps branch names like sk-1234-fix-login out.
		{
			kind:     KindOpenAI,
			keywords: []string{"sk-"},
			re:       lazyRegexp(`^sk-[A-Za-z0-9_-]{20,}`),
			span:     randomBody(len("sk-")),
		},
		// Prefixed tokens since 2021 are 36 base62 after the prefix and may grow; installation tokens
		// (ghs_) are moving to a longer form with '.', '_' and '-' (ghs_<app id>_<JWT>).
		{
			kind:     KindGitHub,
			keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
			re:       lazyRegexp(`^(?:ghs_[A-Za-z0-9._-]{36,}|gh[pousr]_[A-Za-z0-9]{36,})`),
			span:     githubToken,
		},
		// Fine-grained tokens: github_pat_<22>_<59>.
		{
			kind:     KindGitHub,
			keywords: []string{"github_pat_"},
			re:       lazyRegexp(`^github_pat_[A-Za-z0-9_]{22,}`),
		},
		// Personal API keys are lin_api_<40 base62>; OAuth tokens lin_oauth_<hex>. 32 leaves room for
		// format changes while "lin_api_test" and the like stay visible.
		{
			kind:     KindLinear,
			keywords: []string{"lin_api_", "lin_oauth_"},
			re:       lazyRegexp(`^lin_(?:api|oauth)_[A-Za-z0-9]{32,}`),
		},
		// Access key ids are exactly 20 characters: long-term AKIA…, temporary (STS) ASIA….
		{
			kind:     KindAWS,
			keywords: []string{"AKIA", "ASIA"},
			re:       lazyRegexp(`^(?:AKIA|ASIA)[A-Z0-9]{16}\b`),
		},
		// xoxb-<team>-<bot>-<secret>, xoxp-…, legacy xoxa/xoxr/xoxs, refresh xoxe, app-level xapp.
		// Real ones always carry digits; "xoxb-your-bot-token" does not.
		{
			kind:     KindSlack,
			keywords: []string{"xox", "xapp-"},
			re:       lazyRegexp(`^(?:xox[abprse]|xapp)-[A-Za-z0-9-]{10,}`),
			span:     slackToken,
		},
		// An Authorization (or Proxy-Authorization) header in any case, as written in HTTP, curl,
		// JSON, YAML or Markdown: the value is redacted, the header name and scheme stay visible.
		{
			kind:     KindAuthorization,
			keywords: []string{"authorization"},
			fold:     true,
			re:       lazyRegexp(`^(?i:authorization)(\*\*|__|["'])?[ \t]*:`),
			span:     authorizationValue,
		},
		// A bearer token outside a header (a log line, a code snippet); the word Bearer stays.
		{
			kind:     KindAuthorization,
			keywords: []string{"bearer"},
			fold:     true,
			re:       lazyRegexp(`^(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)`),
			span:     bearerToken,
		},
		// A JSON Web Token: three base64url segments, the header a JSON object ("eyJ" is `{"`).
		// After the header rules, which name a token they cover.
		{
			kind:     KindJWT,
			keywords: []string{"eyJ"},
			re:       lazyRegexp(`^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`),
		},
		// Google API keys: AIza and 35 more.
		{
			kind:     KindGoogle,
			keywords: []string{"AIza"},
			re:       lazyRegexp(`^AIza[0-9A-Za-z_-]{35}(?:[^0-9A-Za-z_-]|$)`),
			span:     trimLast(39),
		},
		// npm access tokens: npm_ and 36 base62.
		{
			kind:     KindNPM,
			keywords: []string{"npm_"},
			re:       lazyRegexp(`^npm_[A-Za-z0-9]{36,}`),
			span:     randomBody(len("npm_")),
		},
		// Stripe secret and restricted keys, live and test.
		{
			kind:     KindStripe,
			keywords: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"},
			re:       lazyRegexp(`^[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`),
			span:     randomBody(len("sk_live_")),
		},
		// An AWS secret access key is 40 characters of base64 with nothing to recognise it by but
		// its neighbours: a label (aws_secret_access_key, AWS_SECRET_ACCESS_KEY, "SecretAccessKey",
		// secret_key, secret:) or the access key id it belongs to, a few separators before it
		// (CSV, `aws configure` output, id:secret).
		{
			kind:     KindAWSSecret,
			keywords: []string{"aws", "secret"},
			fold:     true,
			anywhere: true,
			re:       lazyRegexp(`^(?i:(?:aws[ _-]?)?secret(?:[ _-]?access)?(?:[ _-]?key)?)["']?[ \t]*[:=][ \t]*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			span:     awsSecret,
		},
		{
			kind:     KindAWSSecret,
			keywords: []string{"AKIA", "ASIA"},
			// Separators (an aligned table, a padded column) and a few joining words may stand
			// between them: "AKIA… and <secret>".
			re:   lazyRegexp(`^(?:AKIA|ASIA)[A-Z0-9]{16}(?:[ \t,:;|=/"'` + "`" + `]|\b(?i:and|or|with|secret|key|is)\b){1,32}?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			span: awsSecret,
		},
		// Classic GitHub tokens of old (OAuth, 40 hex) look like a commit SHA, so they count only
		// where a token is expected: GITHUB_TOKEN= / GH_TOKEN= and the x-access-token: user of a
		// clone URL. ("Authorization: token <hex>" is the header rule's.)
		{
			kind:     KindGitHub,
			keywords: []string{"github_token", "gh_token"},
			fold:     true,
			anywhere: true,
			re:       lazyRegexp(`^(?i:github_token|gh_token)["']?[ \t]*[:=][ \t]*["']?([0-9a-f]{40})\b`),
			group:    1,
		},
		{
			kind:     KindGitHub,
			keywords: []string{"x-access-token:"},
			fold:     true,
			re:       lazyRegexp(`^(?i:x-access-token):([^\s@/]+)@`),
			group:    1,
		},
		// Any other 40-hex token after a token label, with or without a colon or '=' (token: <hex>,
		// VAULT_TOKEN=<hex>, access_token=<hex>, "vault token <hex>"); "the token for <hex>" and
		// "commit <hex>" stay. After the rules above, which name the same bytes more precisely.
		{
			kind:     KindToken,
			keywords: []string{"token"},
			fold:     true,
			anywhere: true,
			re:       lazyRegexp(`^(?i:token)["']?(?:[ \t]*[:=][ \t]*["']?|[ \t]+)([0-9a-f]{40})\b`),
			group:    1,
		},
		// A token as the whole userinfo of a URL (https://<token>@github.com, as git accepts it):
		// 40 hex, or a random-looking run of 20 or more; a user name (git@, deploy@) stays.
		{
			kind:     KindToken,
			keywords: []string{"://"},
			anywhere: true,
			re:       lazyRegexp(`^://([A-Za-z0-9._~-]{20,})@`),
			span:     userinfoToken,
		},
		// API keys and OAuth client secrets in assignments, headers and JSON (api_key=…,
		// X-Api-Key: …, WEATHER_API_KEY=…, client_secret: …, "clientSecret": "…"): the value, if it
		// is no placeholder and looks like a key (eight characters or more, a digit among them).
		{
			kind:     KindAPIKey,
			keywords: []string{"api_key", "api-key", "apikey"},
			fold:     true,
			anywhere: true,
			re:       lazyRegexp(`^(?i:api[_-]?key)(["']?)[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'&;,` + "`" + `]+))`),
			span:     keyValue,
		},
		{
			kind:     KindClientSecret,
			keywords: []string{"client_secret", "client-secret", "clientsecret"},
			fold:     true,
			anywhere: true,
			re:       lazyRegexp(`^(?i:client[_-]?secret)(["']?)[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'&;,` + "`" + `]+))`),
			span:     keyValue,
		},
		// The password of a URL's userinfo (scheme://user:password@host): the user stays. Greedy
		// to the authority's last '@', since an unencoded '@' in a password happens.
		{
			kind:     KindPassword,
			keywords: []string{"://"},
			anywhere: true,
			re:       lazyRegexp(`^://[^\s/?#@:]*:([^\s/?#]+)@`),
			group:    1,
		},
		// password=…, passwd: …, "password": "…", DB_PASSWORD=…: the value, to its closing quote
		// or the end of the word. Placeholders ($VAR, ${VAR}, <yours>, ****, %s) stay.
		{
			kind:     KindPassword,
			keywords: []string{"password", "passwd"},
			fold:     true,
			anywhere: true,
			re:       lazyRegexp(`^(?i:password|passwd)(["']?)[ \t]*[:=][ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'&;,` + "`" + `]+))`),
			span:     passwordValue,
		},
	}
})

// trimLast accepts a match of exactly n bytes and more that the expression needed to see its
// end (one byte, or none at the end of the text).
func trimLast(n int) func(string, []int, *scanState) (int, int, bool) {
	return func(seg string, m []int, _ *scanState) (int, int, bool) {
		return m[0], m[0] + n, m[1]-m[0] >= n
	}
}

// awsSecret accepts 40 characters that look random: upper and lower case and a digit, '/' or '+'.
func awsSecret(seg string, m []int, _ *scanState) (int, int, bool) {
	v := seg[m[2]:m[3]]
	return m[2], m[3], strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") &&
		strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(v, "0123456789/+")
}

// passwordPlaceholders are values after "password" that name no password.
var passwordPlaceholders = map[string]bool{
	"": true, "null": true, "none": true, "nil": true, "true": true, "false": true, "yes": true, "no": true,
	"required": true, "optional": true, "redacted": true, "hidden": true, "secret": true, "password": true,
}

func passwordValue(seg string, m []int, _ *scanState) (int, int, bool) {
	s, e := -1, -1
	for g := 2; g <= 4; g++ {
		if m[2*g] >= 0 {
			s, e = m[2*g], m[2*g+1]
		}
	}
	if s < 0 {
		return 0, 0, false
	}
	v := seg[s:e]
	if g := m[2*4]; g >= 0 {
		// Unquoted: a sentence's punctuation ends it.
		for e > s && strings.IndexByte(".)]:", seg[e-1]) >= 0 {
			e--
		}
		v = seg[s:e]
	}
	switch {
	case passwordPlaceholders[strings.ToLower(v)],
		strings.Trim(v, "*•xX.") == "",
		strings.HasPrefix(v, "$"), strings.HasPrefix(v, "<"), strings.HasPrefix(v, "{{"), strings.HasPrefix(v, "%"),
		strings.HasPrefix(v, markerPrefix):
		return 0, 0, false
	}
	return s, e, true
}

// keyValue is passwordValue for values that must also look like a key: eight characters or
// more with a digit, so "api_key: string" and "client_secret: your-secret" stay.
func keyValue(seg string, m []int, st *scanState) (int, int, bool) {
	s, e, ok := passwordValue(seg, m, st)
	return s, e, ok && e-s >= 8 && strings.ContainsAny(seg[s:e], "0123456789")
}

// userinfoToken accepts a URL's userinfo that is a token: 40 hex, or a run of 16 letters and
// digits that mixes both.
func userinfoToken(seg string, m []int, _ *scanState) (int, int, bool) {
	v := seg[m[2]:m[3]]
	hex := len(v) == 40 && strings.Trim(v, "0123456789abcdef") == ""
	return m[2], m[3], hex || hasMixedRun(v, 16)
}

// find returns the spans of seg to redact. Matches that the span function rejects and empty
// matches (a user pattern like `x*`) are dropped. Like regexp's FindAll, a match that starts
// inside the previous one is not tried, which also keeps the work linear on hostile input.
func (ru *rule) find(seg string) [][2]int {
	var out [][2]int
	st := &scanState{next: nextIndex{seg: seg}, lastRaw: -1}
	add := func(m []int) {
		var s, e int
		ok := true
		if ru.span != nil {
			s, e, ok = ru.span(seg, m, st)
		} else {
			s, e = m[2*ru.group], m[2*ru.group+1]
		}
		if ok && s >= 0 && e > s {
			out = append(out, [2]int{s, e})
		}
	}
	if len(ru.keywords) == 0 {
		for _, m := range ru.re().FindAllStringSubmatchIndex(seg, -1) {
			add(m)
		}
		return out
	}
	kw := keywordIndex{seg: seg, keywords: ru.keywords, fold: ru.fold}
	for from := 0; ; {
		p := kw.next(from)
		if p < 0 {
			return out
		}
		from = p + 1
		if !ru.anywhere && p > 0 && isWord(seg[p-1]) {
			continue
		}
		m := matchAt(ru.re(), seg[p:])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += p
			}
		}
		add(m)
		from = max(from, m[1])
	}
}

// matchAt runs an anchored expression at the start of s, first on a short window and on a
// longer one only when the match reaches the window's end. Go's regexp prepares state in
// proportion to the input it is given, so handing it the rest of a 64 KB text at every keyword
// would make the scan quadratic. The cost: a header name or "bearer" followed by more than
// ~250 blanks, or a BEGIN line longer than that, is not recognised.
func matchAt(re *regexp.Regexp, s string) []int {
	for w := 256; ; w *= 8 {
		win := s[:min(len(s), w)]
		m := re.FindStringSubmatchIndex(win)
		if m == nil || m[1] < len(win) || len(win) == len(s) {
			return m
		}
	}
}

// keywordIndex finds the next occurrence of any keyword at or after a position that only
// grows, remembering each keyword's last answer so the text is scanned once per keyword.
type keywordIndex struct {
	seg      string
	keywords []string
	fold     bool
	memo     []int // next occurrence per keyword; -1 none left, -2 not searched yet
}

func (k *keywordIndex) next(from int) int {
	if k.memo == nil {
		k.memo = make([]int, len(k.keywords))
		for i := range k.memo {
			k.memo[i] = -2
		}
	}
	best := -1
	for i, w := range k.keywords {
		p := k.memo[i]
		if p == -2 || p >= 0 && p < from {
			p = -1
			if from <= len(k.seg) {
				if k.fold {
					p = indexFold(k.seg[from:], w)
				} else {
					p = strings.Index(k.seg[from:], w)
				}
			}
			if p >= 0 {
				p += from
			}
			k.memo[i] = p
		}
		if p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}

// scanState carries what one rule learns about one text from match to match.
type scanState struct {
	next              nextIndex
	lastRaw, lastTrim int
}

// randomBody accepts a match whose body (after the prefix) contains a run of at least 8
// letters and digits that mixes both, as random keys do and hyphenated words do not.
func randomBody(prefix int) func(string, []int, *scanState) (int, int, bool) {
	return func(seg string, m []int, _ *scanState) (int, int, bool) {
		return m[0], m[1], hasMixedRun(seg[m[0]+prefix:m[1]], 8)
	}
}

func hasMixedRun(s string, min int) bool {
	n, letter, digit := 0, false, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isAlnum(s[i]) {
			n++
			letter = letter || !isDigit(s[i])
			digit = digit || isDigit(s[i])
			continue
		}
		if n >= min && letter && digit {
			return true
		}
		n, letter, digit = 0, false, false
	}
	return false
}

// githubToken drops a sentence's full stop from the end of a ghs_ match (a JWT never ends in
// '.') and re-checks the length.
func githubToken(seg string, m []int, _ *scanState) (int, int, bool) {
	end := m[1]
	for end > m[0] && seg[end-1] == '.' {
		end--
	}
	return m[0], end, end-m[0] >= len("ghs_")+36
}

func slackToken(seg string, m []int, _ *scanState) (int, int, bool) {
	bodyStart := m[0] + strings.IndexByte(seg[m[0]:m[1]], '-') + 1
	end := m[1]
	for end > bodyStart && seg[end-1] == '-' {
		end--
	}
	body := seg[bodyStart:end]
	return m[0], end, len(body) >= 10 && strings.ContainsAny(body, "0123456789")
}

func bearerToken(seg string, m []int, _ *scanState) (int, int, bool) {
	s, e := m[2], m[3]
	for e > s && seg[e-1] == '.' {
		e--
	}
	return s, e, e-s >= 16 && tokenish(seg[s:e])
}

// tokenish tells a token from an English word after "bearer": it has a digit, or capitals
// inside it as well as lower case.
func tokenish(s string) bool {
	var digit, lower, innerUpper bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digit = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z' && i > 0:
			innerUpper = true
		}
	}
	return digit || lower && innerUpper
}

// authSchemes stay visible after "Authorization:", so a reader still sees how the request
// authenticated.
var authSchemes = []string{"bearer", "basic", "digest", "token", "negotiate", "ntlm"}

// authorizationValue finds the header value after the colon: to the end of the line, or to
// the closing quote when the value or the whole header is quoted, or to a backtick (the end of
// inline code). Markdown bold around the header name is skipped. Searches go through st, so a
// line of thousands of "authorization:" is scanned once, not once per match.
func authorizationValue(seg string, m []int, st *scanState) (int, int, bool) {
	i := m[1]
	for i < len(seg) && (seg[i] == ' ' || seg[i] == '\t' || seg[i] == '*') {
		i++
	}
	end := min(st.next.of('\n', i), st.next.of('\r', i))
	if i < end && (seg[i] == '"' || seg[i] == '\'' || seg[i] == '`') {
		i++
		end = min(end, st.next.of(seg[i-1], i))
	} else {
		end = min(end, st.next.of('`', i))
		// -H "Authorization: Bearer x": the quote before the name closes after the value.
		if m[2] < 0 && m[0] > 0 && (seg[m[0]-1] == '"' || seg[m[0]-1] == '\'') {
			end = min(end, st.next.of(seg[m[0]-1], i))
		}
	}
	if end == st.lastRaw {
		end = max(st.lastTrim, i)
	} else {
		st.lastRaw = end
		for end > i && (seg[end-1] == ' ' || seg[end-1] == '\t') {
			end--
		}
		st.lastTrim = end
	}
	if n := schemeLen(seg[i:end]); n > 0 {
		i += n
		for i < end && (seg[i] == ' ' || seg[i] == '\t') {
			i++
		}
	}
	return i, end, i < end
}

// nextIndex finds the next occurrence of a byte at or after a position that only grows,
// remembering the last answer per byte.
type nextIndex struct {
	seg  string
	memo map[byte]int
}

func (n *nextIndex) of(c byte, from int) int {
	if n.memo == nil {
		n.memo = map[byte]int{}
	}
	if p, ok := n.memo[c]; ok && p >= from {
		return p
	}
	p := len(n.seg)
	if j := strings.IndexByte(n.seg[from:], c); j >= 0 {
		p = from + j
	}
	n.memo[c] = p
	return p
}

// schemeLen is the length of a leading authentication scheme word in v, or 0.
func schemeLen(v string) int {
	const longest = len("negotiate")
	k := strings.IndexAny(v[:min(len(v), longest+1)], " \t")
	if k < 0 {
		k = len(v)
	}
	if k > longest {
		return 0
	}
	for _, s := range authSchemes {
		if strings.EqualFold(v[:k], s) {
			return k
		}
	}
	return 0
}

// lazyRegexp compiles expr the first time a text holds its rule's keyword:
// most runs redact only texts that hold none (Clean), and compiling every
// rule cost each of them about a millisecond (issue 26).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// indexFold is strings.Index for a lowercase ASCII sub in any case. It jumps between the
// occurrences of sub's first byte in either case with strings.IndexByte, remembering the next
// one of each, so a text is read about twice, at memchr's speed, rather than byte by byte.
func indexFold(s, sub string) int {
	n := len(sub)
	if n == 0 {
		return 0
	}
	last := len(s) - n // the last place sub can start
	lo, up := sub[0], sub[0]
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	find := func(c byte, from int) int {
		if k := strings.IndexByte(s[from:last+1], c); k >= 0 {
			return from + k
		}
		return -1
	}
	pl, pu := -1, -1
	doneL, doneU := false, up == lo
	for i := 0; i <= last; {
		if !doneL && pl < i {
			pl = find(lo, i)
			doneL = pl < 0
		}
		if !doneU && pu < i {
			pu = find(up, i)
			doneU = pu < 0
		}
		p := -1
		if !doneL {
			p = pl
		}
		if !doneU && (p < 0 || pu < p) {
			p = pu
		}
		if p < 0 {
			return -1
		}
		j := 1
		for j < n && lowerASCII(s[p+j]) == sub[j] {
			j++
		}
		if j == n {
			return p
		}
		i = p + 1
	}
	return -1
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' }

// isWord is regexp's \b notion of a word byte.
func isWord(c byte) bool { return isAlnum(c) || c == '_' }
