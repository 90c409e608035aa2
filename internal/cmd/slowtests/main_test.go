package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadSortsSlowestFirst(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5}
{"Action":"pass","Package":"p","Test":"TestB/sub","Elapsed":2.25}
{"Action":"fail","Package":"q","Test":"TestC","Elapsed":1}
not json: a build error
{"Action":"pass","Package":"p","Elapsed":3}
{"Action":"fail","Package":"q","Elapsed":1.5}
`
	tests, pkgs, failed, err := read(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []timing{{"p.TestB/sub", 2.25}, {"q.TestC", 1}, {"p.TestA", 0.5}}, tests)
	assert.Equal(t, []timing{{"p", 3}, {"q", 1.5}}, pkgs)
	assert.Equal(t, []string{"q.TestC", "q"}, failed)
}
