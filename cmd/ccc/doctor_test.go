package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
)

// ccc doctor warns, with the reset time as its hint, when the tracker's
// request budget is nearly spent; a healthy budget is an ok line.
func TestDoctorRateLimit(t *testing.T) {
	t.Parallel()
	reset := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		remaining int
		want      string
	}{
		{3, "! linear: rate limit nearly spent: 3 of 5000 requests left, resets 2026-11-21T15:00:00Z\n    hint: requests resume at 2026-11-21T15:00:00Z;"},
		{4000, "✓ linear: rate limit: 4000 of 5000 requests left, resets 2026-11-21T15:00:00Z\n"},
	} {
		t.Run(strconv.Itoa(tc.remaining), func(t *testing.T) {
			fake := linearfake.New()
			defer fake.Close()
			fake.AddIssue("CIA-3", "Doctor")
			u, err := url.Parse(fake.URL)
			require.NoError(t, err)
			// Linear as it answers with a budget nearly spent.
			proxy := httputil.NewSingleHostReverseProxy(u)
			proxy.ModifyResponse = func(r *http.Response) error {
				r.Header.Set("X-RateLimit-Requests-Remaining", strconv.Itoa(tc.remaining))
				r.Header.Set("X-RateLimit-Requests-Reset", strconv.FormatInt(reset.UnixMilli(), 10))
				return nil
			}
			srv := httptest.NewServer(proxy)
			defer srv.Close()

			root := t.TempDir()
			env := map[string]string{"CCC_PROJECT_ROOT": root, "LINEAR_API_KEY": linearfake.APIKey,
				"LINEAR_API_URL": srv.URL + strings.TrimPrefix(fake.URL, u.Scheme+"://"+u.Host), "NO_COLOR": "1"}
			var out, errOut bytes.Buffer
			f := &Factory{
				IO:     IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
				Getenv: func(k string) string { return env[k] },
				Getwd:  func() (string, error) { return root, nil },
				Now:    func() time.Time { return reset.Add(-time.Hour) },
			}
			run([]string{"doctor", "--issue", "CIA-3"}, f)
			assert.Contains(t, out.String(), tc.want, errOut.String())
		})
	}
}
