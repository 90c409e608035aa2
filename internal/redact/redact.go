// Package redact finds credentials in text that is about to leave the machine (a status body
// for a tracker, a commit message) and replaces each with a [REDACTED:<kind>] marker, so a key
// pasted into the progress file never reaches a shared comment or the git history.
//
// Three sources of credentials are recognised: the values of the secrets ccc itself holds
// (matched first, whatever they look like, and in the forms a copy of them takes: Markdown-escaped,
// split by zero-width characters, base64- and URL-encoded), built-in patterns for well-known
// token formats, and user patterns from the preferences. Markers that are already in the text are
// left alone and never matched, so redacting twice changes nothing.
//
// Everything that leaves a ccc process goes through one Redactor: tracker bodies and the outbox,
// report lines and --json, the CI step summary and annotations, records and the continuation
// prompt. Default is the process's own, built once from the environment's credentials.
//
// Prefixes (sk-, ghp_, AKIA, ...) count only at the start of a word: the byte before them must
// not be an ASCII letter, digit or underscore. A hyphen is a word boundary, so in "task-sk-…" the
// "sk-…" is treated as a key when the rest looks like one (a run of 8 or more letters mixed with
// digits): a pasted key is more often glued to something than a hyphenated word is followed by
// twenty random characters, and leaking costs more than over-redacting.
//
// A Redactor is immutable after New and safe for concurrent use. Values is the one other
// replacement: a sink's own credentials in the text of its errors become [redacted].
package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Kinds, as they appear in the marker [REDACTED:<kind>] and in Finding.Kind.
const (
	KindSecret        = "secret"         // a value ccc itself holds (LINEAR_API_KEY, GITHUB_TOKEN, ...)
	KindLinear        = "linear-key"     // lin_api_…, lin_oauth_…
	KindGitHub        = "github-token"   // ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
	KindAWS           = "aws-access-key" // AKIA…, ASIA…
	KindSlack         = "slack-token"    // xoxa-, xoxb-, xoxp-, xoxr-, xoxs-, xoxe-, xapp-
	KindOpenAI        = "openai-key"     // sk-…, sk-proj-…
	KindAnthropic     = "anthropic-key"  // sk-ant-…
	KindPrivateKey    = "private-key"    // -----BEGIN … PRIVATE KEY----- blocks
	KindAuthorization = "authorization"  // Authorization: header values and Bearer tokens
	KindAWSSecret     = "aws-secret-key" // 40 characters beside an access key id or a secret-key label
	KindJWT           = "jwt"            // eyJ….eyJ….<signature>
	KindPassword      = "password"       // https://user:<password>@host, password=…, passwd: …
	KindGoogle        = "google-api-key" // AIza…
	KindNPM           = "npm-token"      // npm_…
	KindStripe        = "stripe-key"     // sk_live_…, rk_live_…, sk_test_…, rk_test_…
	KindToken         = "token"          // a 40-hex token after a token label; a token as a URL's whole userinfo
	KindAPIKey        = "api-key"        // api_key=…, X-Api-Key: …, *_API_KEY=…
	KindClientSecret  = "client-secret"  // client_secret: …, clientSecret=…
	KindCustom        = "custom"         // a user pattern without a name
)

// MinSecretLen is the shortest held secret that is matched: a shorter value ("abc") would
// redact parts of ordinary words and tell a reader where the real secret is used.
const MinSecretLen = 8

// Finding is one credential in a text, as byte offsets [Start, End) into it.
type Finding struct {
	Kind       string
	Start, End int
}

// Pattern is a user pattern from the preferences (redact.patterns). Regexp is Go regexp syntax;
// when it has a capture group, only the first group is redacted (so `password=(\S+)` keeps
// "password=" visible), otherwise the whole match. Name is the marker's kind, "custom" when
// empty; it may hold letters, digits, '-', '_' and '.'.
type Pattern struct {
	Name   string `yaml:"name,omitempty" json:"name,omitempty"`
	Regexp string `yaml:"regexp" json:"regexp"`
}

// Redactor finds and replaces credentials. Build it with New; a nil *Redactor applies the
// built-in patterns only, so a forgotten constructor never means "redaction off".
type Redactor struct {
	secrets []form
	rules   []rule
	kinds   map[string]bool // marker kinds recognised as already redacted
	screen  sync.Once       // builds words, for Clean
	words   *keywordScreen
}

var (
	nameRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })
	markerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[REDACTED:([A-Za-z0-9_.-]+)\]`) })
)

const markerPrefix = "[REDACTED:"

// New builds a redactor. secrets are the exact values ccc itself holds; surrounding blanks are
// trimmed, and empty values and values shorter than MinSecretLen are ignored. extra are user
// patterns; an invalid one is an error naming it (its position, name and expression; the
// expression comes from the preferences file and never holds a secret).
func New(secrets []string, extra []Pattern) (*Redactor, error) {
	r := &Redactor{kinds: map[string]bool{KindSecret: true}}
	seen := map[string]bool{}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < MinSecretLen || seen[s] {
			continue
		}
		for _, f := range append([]form{{text: s}}, encodedForms(s)...) {
			if !seen[f.text] {
				seen[f.text] = true
				r.secrets = append(r.secrets, f)
			}
		}
	}
	r.rules = append(r.rules, builtin()...)
	for _, b := range builtin() {
		r.kinds[b.kind] = true
	}
	for i, p := range extra {
		name := p.Name
		if name == "" {
			name = KindCustom
		}
		if !nameRe().MatchString(name) {
			return nil, fmt.Errorf("redact: pattern %d %q: name must be letters, digits, '-', '_' or '.' (at most 64)", i+1, p.Name)
		}
		if p.Regexp == "" {
			return nil, fmt.Errorf("redact: pattern %d %q: empty regexp", i+1, name)
		}
		re, err := regexp.Compile(p.Regexp)
		if err != nil {
			return nil, fmt.Errorf("redact: pattern %d %q: %w", i+1, name, err)
		}
		group := 0
		if re.NumSubexp() > 0 {
			group = 1
		}
		r.rules = append(r.rules, rule{kind: name, re: func() *regexp.Regexp { return re }, group: group})
		r.kinds[name] = true
	}
	return r, nil
}

// form is one way a held secret appears in text; a base64 form takes the '=' padding that
// follows it with it.
type form struct {
	text string
	b64  bool
}

// minShiftedForm is the shortest base64 form of a secret seen inside a longer encoded text that
// is matched: a shorter run of base64 characters turns up by chance in ordinary encoded data.
const minShiftedForm = 16

// encodedForms are the ways a held secret commonly appears in text other than as itself:
// URL-escaped (in a query string or a URL a log printed) and base64 (an Authorization: Basic
// header, `echo $TOKEN | base64` with or without its newline, a server echoing the credential,
// standard or URL alphabet, padded or not).
//
// A secret inside a longer encoded text ("x-access-token:<secret>" in a Basic header) is encoded
// from a byte offset of 0, 1 or 2 modulo 3, and its characters mix with its neighbours' only in
// the first and last group of four; the groups between depend on the secret alone. So for each
// offset the form is that stable middle, which any encoding of any text holding the secret at
// that offset contains.
func encodedForms(secret string) []form {
	var out []form
	for _, e := range []string{url.QueryEscape(secret), url.PathEscape(secret)} {
		if e != secret {
			out = append(out, form{text: e})
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for _, plain := range []string{secret, secret + "\n"} {
			out = append(out, form{text: strings.TrimRight(enc.EncodeToString([]byte(plain)), "="), b64: true})
		}
		for k := 0; k < 3; k++ {
			all := enc.EncodeToString(append(make([]byte, k), secret...))
			n := k + len(secret)
			start, end := 0, n/3*4+n%3*8/6
			if k > 0 {
				start = 4
			}
			if end-start >= minShiftedForm {
				out = append(out, form{text: all[start:end], b64: true})
			}
		}
	}
	return out
}

// SecretsFromEnvNames are the variables whose values ccc holds: its own credentials.
var SecretsFromEnvNames = []string{"LINEAR_API_KEY", "LINEAR_OAUTH_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"}

// SecretsFromEnv returns the credentials ccc may hold, read through getenv (os.Getenv in
// production), for New. Unset variables are left out.
func SecretsFromEnv(getenv func(string) string) []string {
	var out []string
	for _, name := range SecretsFromEnvNames {
		if v := getenv(name); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Default is the process's redactor: the built-in patterns and the credentials of the
// environment (SecretsFromEnv of os.Getenv), built once, at the first use. A nil *Redactor is
// Default, so a forgotten constructor never means "redaction off" nor "the process's own keys
// pass".
var Default = sync.OnceValue(func() *Redactor {
	r, err := New(SecretsFromEnv(os.Getenv), nil)
	if err != nil {
		panic(err) // the built-in rules are constants; a failure here is a programming error
	}
	return r
})

// Text redacts s with Default: for text that leaves the process where no run's own redactor
// is at hand.
func Text(s string) (string, int) { return Default().Redact(s) }

// Values replaces every occurrence of each secret of four characters or more in s with
// "[redacted]": literal matches only, no patterns, no kind. It is what a sink's error text goes
// through, with the sink's own credentials, so the text reads the same whatever the
// preferences; a Redactor's [REDACTED:<kind>] markers are for what ccc writes.
func Values(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// HeldOnly returns a redactor that replaces the held secrets alone (in all their forms), none
// of the patterns: for a sink whose user turned redaction off, and for the user's own file,
// where a pattern's false positive would destroy text but ccc's live credentials must still
// go.
func (r *Redactor) HeldOnly() *Redactor {
	if r == nil {
		r = Default()
	}
	return &Redactor{secrets: r.secrets, kinds: r.kinds}
}

// Redact replaces each credential in text with [REDACTED:<kind>] and returns the new text and
// how many it replaced. The count is safe to report; the replaced values are gone.
func (r *Redactor) Redact(text string) (string, int) {
	if r.Clean(text) { // most texts: one pass, no allocation
		return text, 0
	}
	found := r.Find(text)
	if len(found) == 0 {
		return text, 0
	}
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, f := range found {
		b.WriteString(text[last:f.Start])
		b.WriteString(markerPrefix)
		b.WriteString(f.Kind)
		b.WriteByte(']')
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), len(found)
}

// candidate is a match before overlaps are resolved; prio orders rules on a tie (0 = held
// secret, then the rule list in order).
type candidate struct {
	start, end, prio int
	kind             string
}

// Find returns the credentials in text, sorted and non-overlapping. Where matches overlap they
// become one finding covering all of them, so no part of any match survives; its kind is the
// held secret's if one is involved, otherwise that of the earliest match (the longest on a tie,
// then the first rule in the list: specific token kinds before the header rules).
//
// Find looks again beside what it found, as a second Redact would: a marker starts a new word,
// so in "<held secret>AKIA…" the key id glued to the secret counts once the secret is gone.
// That makes Redact idempotent.
func (r *Redactor) Find(text string) []Finding {
	if r == nil {
		r = Default()
	}
	markers := r.markers(text)
	var cands []candidate
	for _, g := range gaps(len(text), markers) {
		cands = r.scan(text[g[0]:g[1]], g[0], cands)
	}
	found := resolve(cands)
	for changed := found; len(changed) > 0; {
		edges := map[int]bool{}
		for _, f := range changed {
			edges[f.Start], edges[f.End] = true, true
		}
		n := len(cands)
		for _, g := range gaps(len(text), mergeSpans(markers, found)) {
			if edges[g[0]] || edges[g[1]] {
				cands = r.scan(text[g[0]:g[1]], g[0], cands)
			}
		}
		if len(cands) == n {
			break
		}
		next := resolve(cands)
		changed = changed[:0:0]
		old := map[Finding]bool{}
		for _, f := range found {
			old[f] = true
		}
		for _, f := range next {
			if !old[f] {
				changed = append(changed, f)
			}
		}
		found = next
	}
	return found
}

// Clean reports that Find finds nothing in text nor in any part of it. It is true only when
// text holds no held secret in any of its forms, no Markdown escape or zero-width character
// (which could hide one), no marker, and no keyword of any rule in any case: every built-in
// rule matches only where one of its keywords starts, and a user pattern, which has none,
// makes Clean false. So one pass over many short texts joined together tells that none of them needs the
// full scan, which costs several allocations per rule and text (issue 26: a record of 10,000
// tasks).
func (r *Redactor) Clean(text string) bool {
	if r == nil {
		r = Default()
	}
	if strings.Contains(text, markerPrefix) || newSkeletonNeeded(text) {
		return false
	}
	for _, f := range r.secrets {
		if strings.Contains(text, f.text) {
			return false
		}
	}
	if len(r.rules) == 0 {
		// HeldOnly: the held secrets are all it finds, in the forms just
		// looked for; screening 0.5 MB for no keyword was a millisecond of
		// a 10,000-task checkpoint (issue 26).
		return true
	}
	r.screen.Do(func() { r.words = newKeywordScreen(r.rules) })
	return r.words != nil && !r.words.any(text)
}

// keywordScreen finds whether any rule's keyword occurs in a text, in one pass that looks
// closer only where two bytes begin a keyword: every keyword is looked for in any case (a
// keyword a rule matches in one case only is then found more often than needed, never less).
type keywordScreen struct {
	pairs [1 << 16 / 64]uint64 // the keywords' first two bytes, lowercased, as a set
	by    [256][]string        // the lowercase keywords by their first byte
}

func pairOf(a, b byte) int { return int(lowerASCII(a))<<8 | int(lowerASCII(b)) }

// newKeywordScreen returns nil when a rule has no keywords (a user pattern): it can match
// anywhere.
func newKeywordScreen(rules []rule) *keywordScreen {
	k := &keywordScreen{}
	for i := range rules {
		if len(rules[i].keywords) == 0 {
			return nil
		}
		for _, w := range rules[i].keywords {
			if len(w) < 2 {
				return nil // the pair set needs two bytes
			}
			w = strings.ToLower(w)
			p := pairOf(w[0], w[1])
			k.pairs[p/64] |= 1 << (p % 64)
			k.by[w[0]] = append(k.by[w[0]], w)
		}
	}
	return k
}

func (k *keywordScreen) any(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		if p := pairOf(text[i], text[i+1]); k.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		for _, w := range k.by[lowerASCII(text[i])] {
			if len(text)-i >= len(w) && prefixFold(text[i:], w) {
				return true
			}
		}
	}
	return false
}

// prefixFold reports whether s starts with the lowercase ASCII w in any case.
func prefixFold(s, w string) bool {
	for j := 1; j < len(w); j++ {
		if lowerASCII(s[j]) != w[j] {
			return false
		}
	}
	return lowerASCII(s[0]) == w[0]
}

// resolve sorts the candidates and merges overlapping ones into findings.
func resolve(cands []candidate) []Finding {
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.prio < b.prio
	})
	out := make([]Finding, 0, len(cands))
	lastPrio := 0
	for _, c := range cands {
		if n := len(out); n > 0 && c.start < out[n-1].End {
			last := &out[n-1]
			last.End = max(last.End, c.end)
			if c.prio == 0 && lastPrio != 0 {
				last.Kind, lastPrio = KindSecret, 0
			}
			continue
		}
		out = append(out, Finding{Kind: c.kind, Start: c.start, End: c.end})
		lastPrio = c.prio
	}
	return out
}

// markers returns the spans of the markers of known kinds in text. They are never matched
// again (idempotence) and never split by a new one; a marker of an unknown kind is ordinary
// text, so "[REDACTED:<a real token>]" hides nothing.
func (r *Redactor) markers(text string) [][2]int {
	if !strings.Contains(text, markerPrefix) {
		return nil
	}
	var out [][2]int
	for _, m := range markerRe().FindAllStringSubmatchIndex(text, -1) {
		if r.kinds[text[m[2]:m[3]]] {
			out = append(out, [2]int{m[0], m[1]})
		}
	}
	return out
}

// mergeSpans merges two sorted lists of disjoint spans that are disjoint from each other.
func mergeSpans(a [][2]int, b []Finding) [][2]int {
	out := make([][2]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i][0] < b[j].Start {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, [2]int{b[j].Start, b[j].End})
			j++
		}
	}
	return out
}

// gaps returns the non-empty stretches of [0, n) between the sorted, disjoint spans.
func gaps(n int, spans [][2]int) [][2]int {
	var out [][2]int
	from := 0
	for _, s := range spans {
		if s[0] > from {
			out = append(out, [2]int{from, s[0]})
		}
		from = s[1]
	}
	if from < n {
		out = append(out, [2]int{from, n})
	}
	return out
}

// scan appends the candidates found in seg, which starts at offset off of the whole text.
func (r *Redactor) scan(seg string, off int, cands []candidate) []candidate {
	if len(r.secrets) > 0 {
		cands = r.scanHeld(seg, off, cands)
	}
	for ri := range r.rules {
		ru := &r.rules[ri]
		for _, sp := range ru.find(seg) {
			cands = append(cands, candidate{start: off + sp[0], end: off + sp[1], kind: ru.kind, prio: ri + 1})
		}
	}
	return cands
}

// scanHeld appends the held secrets' candidates in seg: each form as it is, and as it reads once
// Markdown escapes and zero-width characters are ignored (skeleton), so "lin\\_api\\_…" and a
// key split by U+200B, which render as the key, count as the key.
func (r *Redactor) scanHeld(seg string, off int, cands []candidate) []candidate {
	sk := newSkeleton(seg)
	for _, f := range r.secrets {
		findAll(seg, f, func(s, e int) { cands = append(cands, candidate{start: off + s, end: off + e, kind: KindSecret}) })
		if sk != nil {
			findAll(sk.text, f, func(s, e int) {
				cands = append(cands, candidate{start: off + sk.start[s], end: off + sk.end[e-1], kind: KindSecret})
			})
		}
	}
	return cands
}

// findAll calls add with the span of each occurrence of f in text, with a base64 form's padding.
func findAll(text string, f form, add func(s, e int)) {
	for i := 0; ; {
		j := strings.Index(text[i:], f.text)
		if j < 0 {
			return
		}
		s, e := i+j, i+j+len(f.text)
		for k := 0; f.b64 && k < 2 && e < len(text) && text[e] == '='; k++ {
			e++
		}
		add(s, e)
		i = e
	}
}

// skeleton is a text with its Markdown escapes (a backslash before ASCII punctuation) and
// zero-width characters taken out; start and end map each of its bytes back to the span in
// the original text that produced it (an escaped byte's span begins at its backslash).
type skeleton struct {
	text       string
	start, end []int
}

// zeroWidth are the characters that render as nothing: U+200B..U+200D, U+2060, U+FEFF.
var zeroWidth = []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"}

// newSkeleton returns seg's skeleton, or nil when it is seg itself.
func newSkeleton(seg string) *skeleton {
	if !newSkeletonNeeded(seg) {
		return nil
	}
	sk := &skeleton{start: make([]int, 0, len(seg)), end: make([]int, 0, len(seg))}
	var b strings.Builder
	b.Grow(len(seg))
	for i := 0; i < len(seg); {
		if zw := zeroWidthAt(seg, i); zw > 0 {
			i += zw
			continue
		}
		from := i
		if seg[i] == '\\' && i+1 < len(seg) && isPunct(seg[i+1]) {
			i++
		}
		b.WriteByte(seg[i])
		sk.start = append(sk.start, from)
		sk.end = append(sk.end, i+1)
		i++
	}
	sk.text = b.String()
	return sk
}

// newSkeletonNeeded reports whether seg holds a Markdown escape or a zero-width character, so
// that its skeleton differs from it.
func newSkeletonNeeded(seg string) bool {
	if strings.Contains(seg, "\\") {
		return true
	}
	// One search per character: strings.Index of a short string is vectorised, where
	// ContainsAny decodes every rune of a text that holds non-ASCII.
	for _, zw := range zeroWidth {
		if strings.Contains(seg, zw) {
			return true
		}
	}
	return false
}

func zeroWidthAt(s string, i int) int {
	if s[i] < 0x80 {
		return 0
	}
	for _, z := range zeroWidth {
		if strings.HasPrefix(s[i:], z) {
			return len(z)
		}
	}
	return 0
}

// isPunct is CommonMark's escapable ASCII punctuation.
func isPunct(c byte) bool { return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0 }
