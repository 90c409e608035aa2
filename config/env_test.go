package config

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReadEnvReadsTheTable: ReadEnv reads every variable of Variables and
// no other, so the table (and `ccc help environment`, generated from it) is
// what ccc reads; internal/archtest keeps every other read out.
func TestReadEnvReadsTheTable(t *testing.T) {
	t.Parallel()
	var read []string
	ReadEnv(func(k string) string {
		if !slices.Contains(read, k) {
			read = append(read, k)
		}
		return ""
	})
	var table []string
	for _, v := range Variables {
		assert.NotContains(t, table, v.Name, "listed twice")
		table = append(table, v.Name)
		assert.NotEmpty(t, v.Description, v.Name)
		assert.Contains(t, []string{ByUser, ByCI, ByAgent, ByTest, BySystem}, v.Who, v.Name)
	}
	for _, name := range read {
		assert.Contains(t, table, name, "read but not in Variables")
	}
	for _, name := range table {
		assert.Contains(t, read, name, "in Variables but never read")
	}
}

// TestSecretsAreTheTablesSecrets: the redactor holds exactly the variables
// the table marks as credentials.
func TestSecretsAreTheTablesSecrets(t *testing.T) {
	t.Parallel()
	vars := map[string]string{}
	var want []string
	for _, v := range Variables {
		vars[v.Name] = "value-of-" + v.Name
		if v.Secret {
			want = append(want, vars[v.Name])
		}
	}
	assert.ElementsMatch(t, want, EnvOf(vars).Secrets())
}
