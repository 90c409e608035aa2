package redact

import "unicode/utf8"

// Clip is text redacted, then cut to at most n runes, the last one "…"
// when it was cut. The order matters: a credential cut in two no longer
// has its shape (a ghp_ token of 20 characters) nor its held value, so a
// redactor run after the cut leaves its first part in the output. A nil
// *Redactor is Default's patterns, as for Redact.
func (r *Redactor) Clip(text string, n int) string {
	if r == nil {
		r = Default()
	}
	text, _ = r.Redact(text)
	return cut(text, n)
}

// Clip is Default().Clip: for text cut where no run's redactor is at hand.
func Clip(text string, n int) string { return Default().Clip(text, n) }

// ClipOnly is text unchanged when it holds at most n runes, else Clip's:
// for text that ccc keeps (the progress file's prompt), which is redacted
// whole where it leaves the machine and must not lose a pattern's false
// positive when nothing is cut.
func ClipOnly(text string, n int) string {
	if len(text) <= n || utf8.RuneCountInString(text) <= n {
		return text
	}
	return Clip(text, n)
}

func cut(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i := 0
	for range n - 1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
