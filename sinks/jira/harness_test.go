package jira_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ccc-checkpoint/ccc/internal/fake/jirafake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/jira"
)

// The issues every fake starts with.
const (
	key      = "PROJ-7"
	otherKey = "PROJ-8"
)

// newFake starts a fake with PROJ-7 and PROJ-8. When the test ends, every
// request the sink sent must have conformed to Atlassian's OpenAPI
// description (and each body to the ADF schema), carried credentials the
// fake knows, and said who sent it.
func newFake(t *testing.T, opts ...jirafake.Option) *jirafake.Server {
	t.Helper()
	srv := jirafake.New(opts...)
	srv.AddIssue(key, "Ship the Jira sink")
	srv.AddIssue(otherKey, "Another issue")
	t.Cleanup(func() {
		srv.Close()
		assert.Empty(t, srv.Invalid(), "every request conforms to Jira's published description")
		for _, r := range srv.Requests() {
			assert.True(t, strings.HasPrefix(r.Header.Get("User-Agent"), "ccc/"), "User-Agent %q", r.Header.Get("User-Agent"))
			assert.Empty(t, r.Header.Get("Authorization"), "the fake never records the credentials")
			if r.Fault == "" && r.Status != http.StatusUnauthorized {
				assert.NotEmpty(t, r.AccountID, "every request carried credentials the fake knows: %s %s", r.Method, r.Path)
			}
		}
	})
	return srv
}

// newSink is a sink for srv with test-sized retries.
func newSink(srv *jirafake.Server, edit ...func(*jira.Config)) *jira.Sink {
	cfg := jira.Config{
		BaseURL:  srv.URL,
		Email:    jirafake.Email,
		APIToken: jirafake.APIToken,
		Version:  "test",
		Tuning:   sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
	}
	for _, e := range edit {
		e(&cfg)
	}
	return jira.New(cfg)
}

// markdown renders a stored ADF document back to Markdown, as a person
// reads the comment, so that the conformance suite (which speaks
// Markdown) can read what the sink wrote.
func markdown(raw json.RawMessage) string { return jirafake.Markdown(raw) }

// adf is the ADF document of Markdown, as a person's comment typed in Jira's
// editor would be stored.
func adf(t *testing.T, md string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(jira.ToADF(md))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
