package sinks

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// credentialHeaders are the request headers that carry a tracker's
// credentials (Linear's key is sent bare in Authorization, GitHub's token
// as a Bearer one).
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"}

// GuardRedirects returns a copy of c whose redirects never carry
// credentials to another origin: when a redirect's scheme, host or port
// differs from the first request's, or from any hop before it, the
// credential headers are dropped for that hop and every later one. Go's own
// check compares host names only, so it forwards Authorization to another
// port of the same host, and from https to http. c's own CheckRedirect, if
// any, still runs; otherwise Go's limit of 10 redirects applies.
func GuardRedirects(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	guarded := *c
	next := c.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 {
			for _, hop := range append(via[1:], req) {
				if !SameOrigin(via[0].URL, hop.URL) {
					for _, h := range credentialHeaders {
						req.Header.Del(h)
					}
					break
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &guarded
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (an absent port being the scheme's default): the only requests that may
// be sent credentials meant for a.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
