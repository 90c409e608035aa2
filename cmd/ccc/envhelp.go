package main

import (
	"github.com/spf13/cobra"

	"github.com/ccc-checkpoint/ccc/config"
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
