package sinks

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cenkalti/backoff/v4"

	"github.com/ccc-checkpoint/ccc/internal/redact"
)

// RetryPolicy tunes Retry: exponential backoff with jitter from Initial,
// doubling up to Max, for at most MaxAttempts attempts. Sleep and Now are
// the clock, replaceable in tests.
type RetryPolicy struct {
	Initial, Max time.Duration
	MaxAttempts  int
	Sleep        func(context.Context, time.Duration) error
	Now          func() time.Time
}

// Retriable is what Retry needs to know of a failed attempt. The zero value
// (a nil pointer) means the attempt succeeded.
type Retriable interface {
	comparable
	// Permanent failures are not retried.
	Permanent() bool
	// RetryAfter is the server's hint of when to try again (0: none).
	RetryAfter() time.Duration
}

// MaxWaitWithoutDeadline keeps a caller that set no deadline from waiting
// out a long rate-limit reset.
const MaxWaitWithoutDeadline = time.Minute

// Retry runs attempt until it succeeds, fails permanently or runs out of
// tries, waiting the longer of the backoff and the server's hint between
// tries. A wait that would not end before ctx's deadline (or, without one,
// lasts over MaxWaitWithoutDeadline) is not started: the attempt's failure
// is returned at once, so the report names the real cause instead of a
// timeout. ended builds the failure for a context that ended meanwhile.
func Retry[F Retriable](ctx context.Context, p RetryPolicy, attempt func() F, ended func(last F) F) F {
	b := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(p.Initial),
		backoff.WithMaxInterval(p.Max),
		backoff.WithMultiplier(2),
		backoff.WithRandomizationFactor(0.5),
		backoff.WithMaxElapsedTime(0),
		backoff.WithClockProvider(clock(p.Now)),
	)
	var ok F
	for n := 1; ; n++ {
		f := attempt()
		if f == ok || f.Permanent() || n >= p.MaxAttempts {
			return f
		}
		if ctx.Err() != nil {
			return ended(f)
		}
		wait := max(b.NextBackOff(), f.RetryAfter())
		if dl, has := ctx.Deadline(); has && p.Now().Add(wait).After(dl) {
			return f
		} else if !has && wait > MaxWaitWithoutDeadline {
			return f
		}
		if err := p.Sleep(ctx, wait); err != nil {
			return ended(f)
		}
	}
}

type clock func() time.Time

func (c clock) Now() time.Time { return c() }

// HumanDuration prints d rounded up to unit the way report lines say it:
// "40s", "60s", "2m30s", "1h", "300ms".
func HumanDuration(d, unit time.Duration) string {
	if d >= time.Second {
		unit = time.Second
	}
	d = time.Duration(math.Ceil(float64(d)/float64(unit))) * unit
	if d >= time.Second && d <= time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	s := d.String() // "2m30s", "2m0s", "1h0m0s"
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Short makes a server's message fit in a report line: one line, no HTML
// entities, at most 120 characters.
func Short(s string) string {
	s = strings.Join(strings.Fields(html.UnescapeString(s)), " ")
	s = strings.TrimSuffix(s, ".")
	return redact.Clip(s, 120)
}

// Sleep waits d or until ctx is done: RetryPolicy's default sleeper.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type timeoutKey struct{}

// WithTimeout is context.WithTimeout that also remembers d, so that a
// delivery which runs out of time says "timeout after 10s" with the timeout
// the user set, not with what was left of it when the sink started.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithValue(ctx, timeoutKey{}, d), d)
}

// ContextCause words the end of a delivery's context for a report line:
// "canceled", "timeout after 10s", or "timeout". The duration is the one
// given to WithTimeout, else measured (the time left when the delivery
// started, 0 when unknown).
func ContextCause(ctx context.Context, measured time.Duration) string {
	budget := measured
	if d, ok := ctx.Value(timeoutKey{}).(time.Duration); ok {
		budget = d
	}
	switch {
	case !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "canceled"
	case budget > 0:
		return "timeout after " + HumanDuration(budget, time.Millisecond)
	default:
		return "timeout"
	}
}

// NetCause words a transport error without its URL, which the user chose and
// which could carry a proxy's credentials.
func NetCause(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "connection closed before an answer"
	}
	return Short(err.Error())
}

// RetryAfterHeader reads an answer's Retry-After: seconds or an HTTP date
// (measured from now); 0 when absent or unreadable.
func RetryAfterHeader(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// RateLimitHeaders reads the budget an answer reports in prefix+"Limit",
// prefix+"Remaining" and prefix+"Reset" (an epoch time in unit).
func RateLimitHeaders(h http.Header, prefix string, unit time.Duration) RateLimit {
	limit, err1 := strconv.Atoi(h.Get(prefix + "Limit"))
	remaining, err2 := strconv.Atoi(h.Get(prefix + "Remaining"))
	if err1 != nil || err2 != nil {
		return RateLimit{}
	}
	return RateLimit{Known: true, Limit: limit, Remaining: remaining, Reset: ResetHeader(h, prefix+"Reset", unit)}
}

// ResetHeader reads header name of an answer as an epoch time in unit: the
// reset of a rate-limit budget. A unit of 0 tells the unit from the number,
// seconds below 1e11 and milliseconds from there (Linear documents
// milliseconds; a proxy may send seconds). It is the zero time when the
// header is absent or not an integer.
func ResetHeader(h http.Header, name string, unit time.Duration) time.Time {
	n, err := strconv.ParseInt(h.Get(name), 10, 64)
	if err != nil {
		return time.Time{}
	}
	if unit == 0 {
		unit = time.Millisecond
		if n < 1e11 { // seconds, not milliseconds
			unit = time.Second
		}
	}
	switch unit {
	case time.Second:
		return time.Unix(n, 0)
	case time.Millisecond:
		return time.UnixMilli(n)
	}
	return time.Unix(0, n*int64(unit))
}

// PercentEncode writes s with every character that is not a letter, a
// digit or in keep as %XX bytes of its UTF-8 (invalid bytes included), so
// that two different strings never encode alike. The sinks' markers use it
// for agent names.
func PercentEncode(s, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(keep, r)) {
			b.WriteString(s[i : i+n])
		} else {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		}
		i += n
	}
	return b.String()
}
