package sinks

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/ccc-checkpoint/ccc/config"
)

// Env is what a sink constructor may use: the process's settings (the
// environment, where credentials come from, and the user's own
// preferences), an HTTP client, ccc's version for User-Agent, the
// project root that file paths are relative to, and the body limit the
// user set for this sink (0: the sink's own default; a sink never sends
// more than its tracker accepts).
type Env struct {
	Settings   config.Settings
	HTTPClient *http.Client
	Version    string
	Root       string
	MaxBody    int
	// Prefs is the sink's section of the preferences' sinks:.
	Prefs config.SinkPrefs
}

// Factory builds one kind of sink and finds where it writes. Each sink's
// package provides its own (Spec), so adding a sink never touches cmd.
type Factory struct {
	Name string
	New  func(Env) Sink
	// Target resolves where the sink writes from the command line, the
	// environment and the preferences; skip says why it cannot write
	// anywhere. nil: the sink finds its target in each delivery.
	Target func(ResolveEnv) (target, skip string)
	// Auto says the sink is wanted when nothing lists the sinks (no
	// --sinks, no $CCC_SINKS, no preferences' sinks:).
	Auto func(ResolveEnv) bool
	// Default marks the sink chosen when nothing lists the sinks and no
	// sink is Auto: its skip says what is missing.
	Default bool
	// CheckFlag, when not nil, validates the target the command line
	// names for this sink (ResolveEnv.Flag, e.g. --github owner/repo#N)
	// before anything runs; its error is a usage error.
	CheckFlag func(flag string) error
	// FlagTarget says what that flag names ("a pull request or issue"),
	// for the usage error of a --sinks list that leaves the sink out.
	FlagTarget string
	// Unlisted, when not nil, warns that the preferences' sinks: leave
	// the sink out where it would be wanted ("" when not).
	Unlisted func(ResolveEnv) string
}

// ResolveEnv is what a sink may use to choose itself and its target.
type ResolveEnv struct {
	Env Env
	// Prefs is the sink's section of the preferences' sinks:.
	Prefs config.SinkPrefs
	// Flag is the target the command line named for this sink ("" for
	// none), e.g. --github owner/repo#N.
	Flag string
}

// Registry is the explicit list of sinks ccc knows.
type Registry struct {
	factories []Factory
}

// Register adds a sink kind. Registering a name twice is a programming
// error and panics.
func (r *Registry) Register(f Factory) {
	for _, g := range r.factories {
		if g.Name == f.Name {
			panic(fmt.Sprintf("sinks: %q registered twice", f.Name))
		}
	}
	r.factories = append(r.factories, f)
}

// Names lists the registered sinks in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.factories))
	for i, f := range r.factories {
		names[i] = f.Name
	}
	return names
}

// New builds the named sink.
func (r *Registry) New(name string, env Env) (Sink, error) {
	for _, f := range r.factories {
		if f.Name == name {
			return f.New(env), nil
		}
	}
	return nil, fmt.Errorf("unknown sink %q (known: %s)", name, strings.Join(r.Names(), ", "))
}

// CheckFlag validates the target the command line names for the sink
// name (Factory.CheckFlag); a sink that takes none accepts any.
func (r *Registry) CheckFlag(name, flag string) error {
	for _, f := range r.factories {
		if f.Name == name && f.CheckFlag != nil {
			return f.CheckFlag(flag)
		}
	}
	return nil
}

// CheckListed validates what the command line names: every sink of listed
// (--sinks) is known, every target flag (by sink name: --github, --jira,
// --gitlab) reads as its sink's target, and no target flag names a sink
// the list leaves out. Its error is worded for a usage error.
func (r *Registry) CheckListed(listed []string, flags map[string]string) error {
	known := r.Names()
	for _, name := range listed {
		if !slices.Contains(known, name) {
			return fmt.Errorf("--sinks: unknown sink %q (known: %s)", name, strings.Join(known, ", "))
		}
	}
	for _, f := range r.factories {
		flag := flags[f.Name]
		if flag == "" || f.CheckFlag == nil {
			continue
		}
		if err := f.CheckFlag(flag); err != nil {
			return fmt.Errorf("--%s %q: %w", f.Name, flag, err)
		}
		if len(listed) > 0 && !slices.Contains(listed, f.Name) {
			return fmt.Errorf("--%s names %s, but --sinks %s leaves %s out", f.Name, f.FlagTarget, strings.Join(listed, ","), f.New(Env{}).Title())
		}
	}
	return nil
}

// Conversation is the first sink, in registration order, that would be
// chosen on its own with env (Auto) and that people answer through
// (Conversation); ok is false when there is none. A sink is built only
// once its Auto says yes, so with no app token nothing is built or asked.
func (r *Registry) Conversation(env Env) (c Conversation, ok bool) {
	for _, f := range r.factories {
		if f.Auto == nil || !f.Auto(ResolveEnv{Env: env}) {
			continue
		}
		if c, ok := f.New(env).(Conversation); ok {
			return c, true
		}
	}
	return nil, false
}

// Resolve builds the named sink and finds its target; skip, when not
// empty, says why it cannot deliver.
func (r *Registry) Resolve(name string, env ResolveEnv) (s Sink, target, skip string, err error) {
	for _, f := range r.factories {
		if f.Name != name {
			continue
		}
		if f.Target != nil {
			target, skip = f.Target(env)
		}
		return f.New(env.Env), target, skip, nil
	}
	return nil, "", "", fmt.Errorf("unknown sink %q (known: %s)", name, strings.Join(r.Names(), ", "))
}

// Choice is what Choose decides from.
type Choice struct {
	// Listed is the command line's list (--sinks), else the
	// environment's ($CCC_SINKS).
	Listed []string
	// Prefs is the preferences' sinks: section; nil when it is absent.
	Prefs map[string]config.SinkPrefs
	// Env is what each sink's Auto and Unlisted see (Prefs and Flag are
	// filled in per sink).
	Env ResolveEnv
	// Flags are the targets the command line named, by sink.
	Flags map[string]string
}

// Choose decides which sinks run. Precedence: the listed sinks, the
// preferences' sinks: section (a sink whose target a flag names is added);
// without any, each sink that is Auto, else the Default one. It also
// returns warnings about the preferences.
func (r *Registry) Choose(c Choice) (names, warnings []string) {
	names = c.Listed
	env := func(f Factory) ResolveEnv {
		e := c.Env
		e.Prefs, e.Flag = c.Prefs[f.Name], c.Flags[f.Name]
		return e
	}
	if len(names) == 0 && c.Prefs != nil {
		for _, f := range r.factories {
			if p, ok := c.Prefs[f.Name]; ok && p.On() {
				names = append(names, f.Name)
			}
		}
		// A flag overrides the preferences: --github turns GitHub on.
		for _, f := range r.factories {
			if c.Flags[f.Name] != "" && !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
		for _, f := range r.factories {
			if _, listed := c.Prefs[f.Name]; !listed && c.Flags[f.Name] == "" && f.Unlisted != nil {
				if w := f.Unlisted(env(f)); w != "" {
					warnings = append(warnings, w)
				}
			}
		}
		for name := range c.Prefs {
			if !slices.Contains(r.Names(), name) {
				warnings = append(warnings, fmt.Sprintf("%s: unknown sink %q ignored (known: %s)", config.PrefsFile, name, strings.Join(r.Names(), ", ")))
			}
		}
	}
	if len(names) == 0 && c.Prefs == nil {
		for _, f := range r.factories {
			if f.Auto != nil && f.Auto(env(f)) {
				names = append(names, f.Name)
			}
		}
		for _, f := range r.factories {
			if len(names) == 0 && f.Default {
				names = append(names, f.Name)
			}
		}
	}
	return names, warnings
}
