// Package redact finds credentials in text that is about to leave the machine (a status body
// for a tracker, a commit message) and replaces each with a [REDACTED:<kind>] marker, so a key
// pasted into the progress file never reaches a shared comment or the git history.
//
// Three sources of credentials are recognised: the exact values of the secrets ccc itself holds
// (matched first, whatever they look like), built-in patterns for well-known token formats, and
// user patterns from the preferences. Markers that are already in the text are left alone and
// never matched, so redacting twice changes nothing.
//
// Prefixes (sk-, ghp_, AKIA, ...) count only at the start of a word: the byte before them must
// not be an ASCII letter, digit or underscore. A hyphen is a word boundary, so in "task-sk-…" the
// "sk-…" is treated as a key when the rest looks like one (a run of 8 or more letters mixed with
// digits): a pasted key is more often glued to something than a hyphenated word is followed by
// twenty random characters, and leaking costs more than over-redacting.
//
// A Redactor is immutable after New and safe for concurrent use.
package redact

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
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
	secrets []string
	rules   []rule
	kinds   map[string]bool // marker kinds recognised as already redacted
}

var (
	nameRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	markerRe = regexp.MustCompile(`\[REDACTED:([A-Za-z0-9_.-]+)\]`)
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
		for _, form := range append([]string{s}, encodedForms(s)...) {
			if !seen[form] {
				seen[form] = true
				r.secrets = append(r.secrets, form)
			}
		}
	}
	r.rules = append(r.rules, builtin...)
	for _, b := range builtin {
		r.kinds[b.kind] = true
	}
	for i, p := range extra {
		name := p.Name
		if name == "" {
			name = KindCustom
		}
		if !nameRe.MatchString(name) {
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
		r.rules = append(r.rules, rule{kind: name, re: re, group: group})
		r.kinds[name] = true
	}
	return r, nil
}

// encodedForms are the ways a held secret commonly appears in text other than as itself:
// URL-escaped (in a query string or a URL a log printed) and base64 (an Authorization: Basic
// header, `echo $TOKEN | base64` with or without its newline, standard or URL alphabet). The
// base64 forms drop their padding, so padded and unpadded copies both match.
func encodedForms(secret string) []string {
	var out []string
	for _, e := range []string{url.QueryEscape(secret), url.PathEscape(secret)} {
		if e != secret {
			out = append(out, e)
		}
	}
	for _, plain := range []string{secret, secret + "\n"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			out = append(out, strings.TrimRight(enc.EncodeToString([]byte(plain)), "="))
		}
	}
	return out
}

// SecretsFromEnv returns the credentials ccc may hold, read through getenv (os.Getenv in
// production), for New. Unset variables are left out.
func SecretsFromEnv(getenv func(string) string) []string {
	var out []string
	for _, name := range []string{"LINEAR_API_KEY", "LINEAR_OAUTH_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"} {
		if v := getenv(name); v != "" {
			out = append(out, v)
		}
	}
	return out
}

var defaultRedactor = func() *Redactor {
	r, err := New(nil, nil)
	if err != nil {
		panic(err) // the built-in rules are constants; a failure here is a programming error
	}
	return r
}()

// Redact replaces each credential in text with [REDACTED:<kind>] and returns the new text and
// how many it replaced. The count is safe to report; the replaced values are gone.
func (r *Redactor) Redact(text string) (string, int) {
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
		r = defaultRedactor
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
	for _, m := range markerRe.FindAllStringSubmatchIndex(text, -1) {
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
	for _, s := range r.secrets {
		for i := 0; ; {
			j := strings.Index(seg[i:], s)
			if j < 0 {
				break
			}
			start := i + j
			cands = append(cands, candidate{start: off + start, end: off + start + len(s), kind: KindSecret})
			i = start + len(s)
		}
	}
	for ri := range r.rules {
		ru := &r.rules[ri]
		for _, sp := range ru.find(seg) {
			cands = append(cands, candidate{start: off + sp[0], end: off + sp[1], kind: ru.kind, prio: ri + 1})
		}
	}
	return cands
}
