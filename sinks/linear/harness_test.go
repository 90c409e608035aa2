package linear_test

import (
	"testing"
	"time"

	"github.com/ccc-checkpoint/ccc/internal/testutil/linearschema"

	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
	"github.com/ccc-checkpoint/ccc/sinks"
	"github.com/ccc-checkpoint/ccc/sinks/linear"
)

// linearSchema is Linear's published schema (vendored in
// internal/testutil/linearschema).
func linearSchema(t *testing.T) *ast.Schema {
	t.Helper()
	s, err := linearschema.Load()
	require.NoError(t, err)
	return s
}

// validateDocument checks a document and, when given, its variables
// against Linear's schema.
func validateDocument(t *testing.T, s *ast.Schema, query string, vars map[string]any) {
	t.Helper()
	doc, errs := gqlparser.LoadQueryWithRules(s, query, nil)
	require.Empty(t, errs, "document does not validate against Linear's schema:\n%s", query)
	for _, op := range doc.Operations {
		_, err := validator.VariableValues(s, op, vars)
		require.NoError(t, err, "variables %v do not fit %s", vars, op.Name)
	}
}

// newFake starts a fake with issue CIA-9; when the test ends, every
// document the fake received is validated against Linear's schema, so no
// request the sink sends goes unvalidated.
func newFake(t *testing.T) *linearfake.Server {
	t.Helper()
	srv := linearfake.New()
	srv.AddIssue("CIA-9", "Write the Linear sink")
	t.Cleanup(func() {
		srv.Close()
		s := linearSchema(t)
		for _, req := range srv.Requests() {
			validateDocument(t, s, req.Query, req.Variables)
		}
	})
	return srv
}

// newSink is a sink for srv with test-sized retries; edit adjusts the
// config.
func newSink(srv *linearfake.Server, edit ...func(*linear.Config)) *linear.Sink {
	cfg := linear.Config{
		APIKey: linearfake.APIKey,
		URL:    srv.URL,
		Tuning: sinks.Tuning{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond},
	}
	for _, e := range edit {
		e(&cfg)
	}
	return linear.New(cfg)
}
