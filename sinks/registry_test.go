package sinks

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type countingSink struct{ calls int }

func (s *countingSink) Name() string  { return "counting" }
func (s *countingSink) Title() string { return "Counting" }
func (s *countingSink) Upsert(_ context.Context, d Delivery) (Result, error) {
	s.calls++
	return Result{Action: Updated, Ref: Ref{ID: "c1"}, Requests: 1}, nil
}

func TestRegistry(t *testing.T) {
	r := &Registry{}
	r.Register(Factory{Name: "counting", New: func(Env) Sink { return &countingSink{} }})
	assert.Panics(t, func() { r.Register(Factory{Name: "counting"}) }, "a name registered twice")
	s, err := r.New("counting", Env{})
	require.NoError(t, err)
	assert.Equal(t, "counting", s.Name())
	_, err = r.New("jira", Env{})
	assert.ErrorContains(t, err, `unknown sink "jira"`)
}

func TestBodyHashIgnoresOnlyTheTimestamp(t *testing.T) {
	a := "## Checkpoint Status\n\n**Updated:** 2026-11-21T10:00:00Z\n**Task:** 1 of 2 — x\n"
	b := "## Checkpoint Status\n\n**Updated:** 2026-11-21T11:30:00Z\n**Task:** 1 of 2 — x\n"
	c := "## Checkpoint Status\n\n**Updated:** 2026-11-21T11:30:00Z\n**Task:** 2 of 2 — y\n"
	assert.Equal(t, BodyHash(a), BodyHash(b))
	assert.NotEqual(t, BodyHash(a), BodyHash(c))
	assert.Equal(t, BodyHash(a), BodyHash(string([]byte("## Checkpoint Status\r\n\r\n**Updated:** x\r\n**Task:** 1 of 2 — x\r\n"))))
}

func TestDeliverSendsNothingWhenUnchanged(t *testing.T) {
	s := &countingSink{}
	body := "**Updated:** t1\nsame"
	res, err := Deliver(context.Background(), s, Delivery{Body: body})
	require.NoError(t, err)
	assert.Equal(t, 1, s.calls)
	assert.Equal(t, BodyHash(body), res.Ref.BodyHash)

	res2, err := Deliver(context.Background(), s, Delivery{Body: "**Updated:** t2\nsame", Prev: res.Ref})
	require.NoError(t, err)
	assert.Equal(t, Unchanged, res2.Action)
	assert.Equal(t, 0, res2.Requests)
	assert.Equal(t, 1, s.calls, "no call for an unchanged body")

	_, err = Deliver(context.Background(), s, Delivery{Body: "**Updated:** t3\nnew", Prev: res.Ref})
	require.NoError(t, err)
	assert.Equal(t, 2, s.calls)
}

func TestRegistryChoosesAndResolves(t *testing.T) {
	r := &Registry{}
	r.Register(Factory{Name: "a", New: func(Env) Sink { return &countingSink{} }, Default: true})
	r.Register(Factory{Name: "b", New: func(Env) Sink { return &countingSink{} },
		Auto:   func(e ResolveEnv) bool { return e.Flag != "" },
		Target: func(e ResolveEnv) (string, string) { return e.Flag, "" }})
	names, _ := r.Choose(Choice{})
	assert.Equal(t, []string{"a"}, names, "nothing chosen: the default")
	names, _ = r.Choose(Choice{Flags: map[string]string{"b": "t"}})
	assert.Equal(t, []string{"b"}, names, "an Auto sink replaces the default")
	names, _ = r.Choose(Choice{Listed: []string{"b", "a"}})
	assert.Equal(t, []string{"b", "a"}, names, "a list wins")
	_, target, skip, err := r.Resolve("b", ResolveEnv{Flag: "t"})
	require.NoError(t, err)
	assert.Equal(t, "t", target)
	assert.Empty(t, skip)
	_, _, _, err = r.Resolve("jira", ResolveEnv{})
	assert.ErrorContains(t, err, `unknown sink "jira"`)
}
