package main

import (
	"bytes"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/config"
	"github.com/ccc-checkpoint/ccc/internal/projectfs"
)

// NewCmdEnvironment is the help topic `ccc help environment`: every
// variable of config.Variables, the one table of what ccc reads.
func NewCmdEnvironment() *cobra.Command {
	return &cobra.Command{
		Use:   "environment",
		Short: "The environment variables ccc reads, and who sets them",
		Long:  config.EnvironmentHelp() + exitStatusHelp("0  help printed"),
	}
}

// spliceEnvTable replaces the generated table between the markers of the
// Markdown file at path; a file without them is left alone.
func spliceEnvTable(path string) error {
	data, err := projectfs.ReadProjectFile("", path, projectfs.MaxCopySize)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	out, ok := config.WithEnvTable(data)
	if !ok || bytes.Equal(out, data) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}
