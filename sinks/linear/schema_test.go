package linear_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vektah/gqlparser/v2"

	"github.com/ccc-checkpoint/ccc/sinks/linear"
	"github.com/ccc-checkpoint/ccc/sinks/linearagent"
)

// Every document the sink can send validates against Linear's schema. The
// traffic of every scenario is validated too, with its variables, when its
// fake closes (see newFake).
func TestDocumentsValidate(t *testing.T) {
	for _, doc := range linear.Documents() {
		_, errs := gqlparser.LoadQueryWithRules(linearSchema(t), doc, nil)
		assert.Empty(t, errs, "%s", doc)
	}
}

// The validation is strict enough to catch the classic mistake of typing
// Linear's ids as ID!, and variables of the wrong type.
func TestSchemaValidationCatchesMistakes(t *testing.T) {
	s := linearSchema(t)
	_, errs := gqlparser.LoadQueryWithRules(s, `mutation M($id: ID!) { commentUpdate(id: $id, input: {body: "x"}) { success } }`, nil)
	require.NotEmpty(t, errs, "ID! where Linear wants String! must not validate")
	_, errs = gqlparser.LoadQueryWithRules(s, `query { viewer { id nosuchfield } }`, nil)
	require.NotEmpty(t, errs)
}

// The linear-agent sink's documents validate too.
func TestAgentDocumentsValidate(t *testing.T) {
	for _, doc := range linearagent.Documents() {
		_, errs := gqlparser.LoadQueryWithRules(linearSchema(t), doc, nil)
		assert.Empty(t, errs, "%s", doc)
	}
}
