package main

import (
	"fmt"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
)

// cmdLinearAgent inspects and drives the agent sessions of the script's
// fake Linear:
//
//	linear-agent sessions ISSUE N        ISSUE has exactly N live sessions
//	linear-agent plan ISSUE              print the last session's plan, "status content" a line
//	linear-agent activities ISSUE        print its activities, "type: text" a line
//	linear-agent status ISSUE            print its state (active, awaitingInput, ...)
//	linear-agent issue ISSUE             print the issue's state and whether it has a delegate
//	linear-agent prompt ISSUE WHO BODY   WHO replies in it, as in Linear's UI
//	linear-agent stop ISSUE WHO          WHO presses stop
func cmdLinearAgent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: linear-agent sessions|plan|activities|status|prompt|stop ISSUE ...")
	}
	srv := ts.Value("linear").(fake).(linearFake).Server
	sessions := srv.Sessions(args[1])
	last := func() linearfake.Session {
		if len(sessions) == 0 {
			ts.Fatalf("linear-agent: %s has no session", args[1])
		}
		return sessions[len(sessions)-1]
	}
	switch args[0] {
	case "sessions":
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		if len(sessions) != n {
			ts.Fatalf("linear-agent: %s has %d sessions, want %d", args[1], len(sessions), n)
		}
	case "plan":
		steps, _ := last().Plan.([]any)
		for _, s := range steps {
			m, _ := s.(map[string]any)
			fmt.Fprintf(ts.Stdout(), "%s %s\n", m["status"], m["content"])
		}
	case "activities":
		for _, a := range last().Activities {
			text := a.Content["body"]
			if a.Type == "action" {
				text = a.Content["parameter"]
			}
			fmt.Fprintf(ts.Stdout(), "%s: %v\n", a.Type, text)
		}
	case "issue":
		state, delegate := srv.IssueWork(args[1])
		fmt.Fprintf(ts.Stdout(), "%s, delegate: %t\n", state, delegate != "")
	case "status":
		fmt.Fprintln(ts.Stdout(), srv.Status(last().ID))
	case "prompt":
		srv.AddPrompt(last().ID, args[2], args[3], false)
	case "stop":
		srv.AddPrompt(last().ID, args[2], "", true)
	default:
		ts.Fatalf("linear-agent: unknown subcommand %q", args[0])
	}
}
