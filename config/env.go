package config

// Who may set an environment variable.
const (
	// ByUser: the person who runs ccc (their shell, their agent's settings).
	ByUser = "user"
	// ByCI: the CI runner (GitHub Actions sets these for every step).
	ByCI = "CI"
	// ByAgent: the agent host that runs ccc's hooks (Claude Code).
	ByAgent = "agent host"
	// ByTest: a testing aid; never set it in real use.
	ByTest = "test only"
	// BySystem: the desktop or the shell, for every program.
	BySystem = "system"
)

// Variable is one environment variable ccc reads.
type Variable struct {
	Name string
	// Default is what ccc does without it ("" when it is simply off).
	Default string
	// Who may set it (ByUser, ByCI, ByAgent, ByTest, BySystem).
	Who string
	// Description says what it does, in one line.
	Description string
	// Secret: a credential ccc holds and redacts from every output.
	Secret bool
	// Root: listed under ENVIRONMENT in `ccc --help` (the rest are in
	// `ccc help environment`).
	Root bool
}

// Variables is every environment variable ccc reads, in the order `ccc help
// environment` lists them. ReadEnv reads exactly these (TestReadEnvReadsTheTable),
// and nothing else in ccc reads the environment (internal/archtest).
var Variables = []Variable{
	{Name: "CCC_PROJECT_ROOT", Default: "the git top level, else the current directory", Who: ByUser, Root: true,
		Description: "project root when --dir is not given"},
	{Name: "CCC_AGENT", Default: "main; ccc post: the GitHub Actions job id, else ci", Who: ByUser, Root: true,
		Description: "this writer's name; --agent wins"},
	{Name: "CCC_SINKS", Default: "the preferences' sinks:, else the sinks whose credentials are set", Who: ByUser, Root: true,
		Description: "sinks to update, e.g. linear,github,file; --sinks wins"},
	{Name: "CCC_CONFIG_DIR", Default: "the platform's user config directory + /ccc (~/.config/ccc)", Who: ByUser,
		Description: "the user's own ccc directory: preferences.yaml, the signing key, the Linear sign-in"},
	{Name: "CCC_GIT_HOOKS", Default: "true", Who: ByUser,
		Description: "false (0, no, off): the manual checkpoint's git snapshot runs no repository hooks, fsmonitor or signing"},
	{Name: "CCC_HANDOFF_REMOTE", Default: "the preference handoff.remote, else off", Who: ByUser,
		Description: "the git remote the checkpoint branch is published to (origin); off (false, no, 0) turns the branch off"},
	{Name: "CCC_GITHUB_BOT_LOGIN", Default: "the preference sinks.github.bot_login", Who: ByUser, Root: true,
		Description: "who a GitHub App installation token writes as (my-app[bot])"},
	{Name: "CCC_DEBUG", Who: ByUser, Root: true,
		Description: "print step details to stderr"},
	{Name: "CCC_NOW", Default: "the clock", Who: ByTest,
		Description: "pins the clock (RFC 3339) so files and reports are reproducible"},
	{Name: "LINEAR_API_KEY", Who: ByUser, Secret: true, Root: true,
		Description: "Linear personal key (sent as Authorization: <key>)"},
	{Name: "LINEAR_OAUTH_TOKEN", Default: "the sign-in of ccc linear login", Who: ByUser, Secret: true, Root: true,
		Description: "Linear app's OAuth token (Bearer): ccc is then a Linear agent"},
	{Name: "LINEAR_API_URL", Default: "https://api.linear.app/graphql", Who: ByUser, Root: true,
		Description: "Linear GraphQL endpoint"},
	{Name: "LINEAR_CLIENT_ID", Default: "the user preference sinks.linear.client_id", Who: ByUser,
		Description: "your Linear OAuth application, for ccc linear login"},
	{Name: "LINEAR_CLIENT_SECRET", Who: ByUser,
		Description: "your Linear OAuth application's secret (ccc linear login --client-credentials)"},
	{Name: "LINEAR_AUTHORIZE_URL", Default: "https://linear.app/oauth/authorize", Who: ByUser,
		Description: "Linear's OAuth authorization page"},
	{Name: "LINEAR_TOKEN_URL", Default: "https://api.linear.app/oauth/token", Who: ByUser,
		Description: "Linear's OAuth token endpoint"},
	{Name: "LINEAR_REVOKE_URL", Default: "https://api.linear.app/oauth/revoke", Who: ByUser,
		Description: "Linear's OAuth revocation endpoint"},
	{Name: "GITHUB_TOKEN", Who: ByCI, Secret: true, Root: true,
		Description: "GitHub token (else GH_TOKEN)"},
	{Name: "GH_TOKEN", Who: ByUser, Secret: true,
		Description: "GitHub token when GITHUB_TOKEN is not set"},
	{Name: "GITHUB_API_URL", Default: "https://api.github.com", Who: ByCI, Root: true,
		Description: "GitHub REST base"},
	{Name: "GITHUB_ACTIONS", Who: ByCI,
		Description: "true inside GitHub Actions: the GitHub sink is chosen, the event names its target"},
	{Name: "GITHUB_REPOSITORY", Who: ByCI,
		Description: "owner/repo of the workflow run (the GitHub sink's target)"},
	{Name: "GITHUB_EVENT_NAME", Who: ByCI,
		Description: "the event that started the workflow (pull_request, issues, ...)"},
	{Name: "GITHUB_EVENT_PATH", Who: ByCI,
		Description: "the event's JSON payload (the issue or pull request number, a fork)"},
	{Name: "GITHUB_REF", Who: ByCI,
		Description: "refs/pull/N/merge names the pull request when the event does not"},
	{Name: "GITHUB_JOB", Who: ByCI,
		Description: "the job id: ccc post's writer name"},
	{Name: "GITHUB_STEP_SUMMARY", Who: ByCI,
		Description: "the file ccc checkpoint and ccc post append the job summary to"},
	{Name: "JIRA_BASE_URL", Who: ByUser, Root: true,
		Description: "Jira Cloud site, e.g. https://acme.atlassian.net (the jira sink)"},
	{Name: "JIRA_EMAIL", Who: ByUser,
		Description: "the Atlassian account's email, with JIRA_API_TOKEN (basic authentication)"},
	{Name: "JIRA_API_TOKEN", Who: ByUser, Secret: true, Root: true,
		Description: "Atlassian API token of JIRA_EMAIL's account"},
	{Name: "JIRA_BEARER_TOKEN", Who: ByUser, Secret: true,
		Description: "an OAuth 2.0 (3LO) access token for Jira, instead of JIRA_EMAIL and JIRA_API_TOKEN"},
	{Name: "GITLAB_TOKEN", Who: ByUser, Secret: true, Root: true,
		Description: "GitLab personal, project or group access token with the api scope (the gitlab sink; CI_JOB_TOKEN cannot write notes)"},
	{Name: "GITLAB_URL", Default: "CI_SERVER_URL in GitLab CI, else https://gitlab.com", Who: ByUser,
		Description: "GitLab instance"},
	{Name: "GITLAB_CI", Who: ByCI,
		Description: "true inside GitLab CI: the gitlab sink is chosen, the merge request names its target"},
	{Name: "CI_SERVER_URL", Who: ByCI,
		Description: "the GitLab instance of the CI job"},
	{Name: "CI_PROJECT_PATH", Who: ByCI,
		Description: "group/project of the CI job (the gitlab sink's target)"},
	{Name: "CI_MERGE_REQUEST_IID", Who: ByCI,
		Description: "the merge request of a merge request pipeline (the gitlab sink's target)"},
	{Name: "CLAUDE_PROJECT_DIR", Who: ByAgent,
		Description: "where the Claude Code session started: a hook's project when its stdin names none"},
	{Name: "CLAUDE_CONFIG_DIR", Default: "$HOME/.claude", Who: ByAgent,
		Description: "Claude Code's config directory, where its task lists are"},
	{Name: "CLAUDE_CODE_TASK_LIST_ID", Default: "the session id", Who: ByAgent,
		Description: "the Claude Code task list the session shares"},
	{Name: "HOME", Who: BySystem,
		Description: "the home directory (Claude Code's ~/.claude)"},
	{Name: "BROWSER", Default: "the desktop's opener", Who: ByUser,
		Description: "the program ccc linear login opens the authorization URL with"},
	{Name: "DISPLAY", Who: BySystem,
		Description: "a graphical session (X11): ccc linear login may start xdg-open"},
	{Name: "WAYLAND_DISPLAY", Who: BySystem,
		Description: "a graphical session (Wayland): ccc linear login may start xdg-open"},
	{Name: "NO_COLOR", Who: ByUser, Root: true,
		Description: "no colour"},
	{Name: "COLUMNS", Default: "the terminal's width, else 80", Who: BySystem,
		Description: "the width live lines are cut to when stderr is no terminal"},
}

// Env is the environment ccc reads, read once (ReadEnv), each variable of
// Variables as a field. Values are as set (not trimmed): each reader trims
// as it always has.
type Env struct {
	ProjectRoot string // CCC_PROJECT_ROOT
	Agent       string // CCC_AGENT
	Sinks       string // CCC_SINKS
	ConfigDir   string // CCC_CONFIG_DIR
	GitHooks    string // CCC_GIT_HOOKS
	Handoff     string // CCC_HANDOFF_REMOTE
	Debug       bool   // CCC_DEBUG set
	Now         string // CCC_NOW
	NoColor     bool   // NO_COLOR set
	Columns     string // COLUMNS
	Home        string // HOME

	Linear LinearEnv
	GitHub GitHubEnv
	Jira   JiraEnv
	GitLab GitLabEnv
	Claude ClaudeEnv
	// Browser is how ccc linear login opens a URL.
	Browser BrowserEnv
}

// LinearEnv is Linear's part of the environment.
type LinearEnv struct {
	APIKey       string // LINEAR_API_KEY
	OAuthToken   string // LINEAR_OAUTH_TOKEN
	APIURL       string // LINEAR_API_URL
	ClientID     string // LINEAR_CLIENT_ID
	ClientSecret string // LINEAR_CLIENT_SECRET
	AuthorizeURL string // LINEAR_AUTHORIZE_URL
	TokenURL     string // LINEAR_TOKEN_URL
	RevokeURL    string // LINEAR_REVOKE_URL
}

// GitHubEnv is GitHub's part of the environment, most of it set by GitHub
// Actions.
type GitHubEnv struct {
	Token       string // GITHUB_TOKEN
	GHToken     string // GH_TOKEN
	APIURL      string // GITHUB_API_URL
	BotLogin    string // CCC_GITHUB_BOT_LOGIN
	Actions     bool   // GITHUB_ACTIONS == "true"
	Repository  string // GITHUB_REPOSITORY
	EventName   string // GITHUB_EVENT_NAME
	EventPath   string // GITHUB_EVENT_PATH
	Ref         string // GITHUB_REF
	Job         string // GITHUB_JOB
	StepSummary string // GITHUB_STEP_SUMMARY
}

// ClaudeEnv is what Claude Code tells the hooks it runs.
type ClaudeEnv struct {
	ProjectDir string // CLAUDE_PROJECT_DIR
	ConfigDir  string // CLAUDE_CONFIG_DIR
	TaskListID string // CLAUDE_CODE_TASK_LIST_ID
	Home       string // HOME
}

// JiraEnv is Jira's part of the environment.
type JiraEnv struct {
	BaseURL     string // JIRA_BASE_URL
	Email       string // JIRA_EMAIL
	APIToken    string // JIRA_API_TOKEN
	BearerToken string // JIRA_BEARER_TOKEN
}

// GitLabEnv is GitLab's part of the environment.
type GitLabEnv struct {
	Token     string // GITLAB_TOKEN
	URL       string // GITLAB_URL
	CI        bool   // GITLAB_CI == "true"
	ServerURL string // CI_SERVER_URL
	Project   string // CI_PROJECT_PATH
	MRIID     string // CI_MERGE_REQUEST_IID
}

// BrowserEnv is what decides how ccc linear login opens a URL.
type BrowserEnv struct {
	Browser string // BROWSER
	// Graphical: DISPLAY or WAYLAND_DISPLAY is set.
	Graphical bool
}

// ReadEnv reads every variable of Variables through getenv (os.Getenv in
// cmd/ccc, a map in tests), once.
func ReadEnv(getenv func(string) string) Env {
	set := func(name string) bool { return getenv(name) != "" }
	e := Env{
		ProjectRoot: getenv("CCC_PROJECT_ROOT"),
		Agent:       getenv("CCC_AGENT"),
		Sinks:       getenv("CCC_SINKS"),
		ConfigDir:   getenv("CCC_CONFIG_DIR"),
		GitHooks:    getenv("CCC_GIT_HOOKS"),
		Handoff:     getenv("CCC_HANDOFF_REMOTE"),
		Debug:       set("CCC_DEBUG"),
		Now:         getenv("CCC_NOW"),
		NoColor:     set("NO_COLOR"),
		Columns:     getenv("COLUMNS"),
		Home:        getenv("HOME"),
		Linear: LinearEnv{
			APIKey:       getenv("LINEAR_API_KEY"),
			OAuthToken:   getenv("LINEAR_OAUTH_TOKEN"),
			APIURL:       getenv("LINEAR_API_URL"),
			ClientID:     getenv("LINEAR_CLIENT_ID"),
			ClientSecret: getenv("LINEAR_CLIENT_SECRET"),
			AuthorizeURL: getenv("LINEAR_AUTHORIZE_URL"),
			TokenURL:     getenv("LINEAR_TOKEN_URL"),
			RevokeURL:    getenv("LINEAR_REVOKE_URL"),
		},
		GitHub: GitHubEnv{
			Token:       getenv("GITHUB_TOKEN"),
			GHToken:     getenv("GH_TOKEN"),
			APIURL:      getenv("GITHUB_API_URL"),
			BotLogin:    getenv("CCC_GITHUB_BOT_LOGIN"),
			Actions:     getenv("GITHUB_ACTIONS") == "true",
			Repository:  getenv("GITHUB_REPOSITORY"),
			EventName:   getenv("GITHUB_EVENT_NAME"),
			EventPath:   getenv("GITHUB_EVENT_PATH"),
			Ref:         getenv("GITHUB_REF"),
			Job:         getenv("GITHUB_JOB"),
			StepSummary: getenv("GITHUB_STEP_SUMMARY"),
		},
		Jira: JiraEnv{
			BaseURL:     getenv("JIRA_BASE_URL"),
			Email:       getenv("JIRA_EMAIL"),
			APIToken:    getenv("JIRA_API_TOKEN"),
			BearerToken: getenv("JIRA_BEARER_TOKEN"),
		},
		GitLab: GitLabEnv{
			Token:     getenv("GITLAB_TOKEN"),
			URL:       getenv("GITLAB_URL"),
			CI:        getenv("GITLAB_CI") == "true",
			ServerURL: getenv("CI_SERVER_URL"),
			Project:   getenv("CI_PROJECT_PATH"),
			MRIID:     getenv("CI_MERGE_REQUEST_IID"),
		},
		Claude: ClaudeEnv{
			ProjectDir: getenv("CLAUDE_PROJECT_DIR"),
			ConfigDir:  getenv("CLAUDE_CONFIG_DIR"),
			TaskListID: getenv("CLAUDE_CODE_TASK_LIST_ID"),
		},
		Browser: BrowserEnv{
			Browser:   getenv("BROWSER"),
			Graphical: set("DISPLAY") || set("WAYLAND_DISPLAY"),
		},
	}
	e.Claude.Home = e.Home
	return e
}

// EnvOf is ReadEnv of a fixed set of variables, for tests.
func EnvOf(vars map[string]string) Env {
	return ReadEnv(func(k string) string { return vars[k] })
}

// Secrets are the credentials the environment holds (Variables marked
// Secret), for the redactor; unset ones are left out.
func (e Env) Secrets() []string {
	var out []string
	for _, v := range []string{e.Linear.APIKey, e.Linear.OAuthToken, e.GitHub.Token, e.GitHub.GHToken, e.Jira.APIToken, e.Jira.BearerToken, e.GitLab.Token} {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
