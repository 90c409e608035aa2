package linearagent

// The documents the sink sends, each validated against Linear's schema
// (vendored in internal/testutil/linearschema) by the schema test. Linear's ids are
// String!, as for comments.
const (
	mutationSessionCreate = `mutation AgentSessionCreateOnIssue($input: AgentSessionCreateOnIssue!) {
  agentSessionCreateOnIssue(input: $input) { success agentSession { id url status } }
}`
	mutationSessionUpdate = `mutation AgentSessionUpdate($id: String!, $input: AgentSessionUpdateInput!) {
  agentSessionUpdate(id: $id, input: $input) { success agentSession { id status } }
}`
	mutationActivityCreate = `mutation AgentActivityCreate($input: AgentActivityCreateInput!) {
  agentActivityCreate(input: $input) { success agentActivity { id } }
}`
	// The issue a session is on, for a reference the memo does not vouch
	// for.
	querySessionIssue = `query AgentSessionIssue($id: String!) {
  agentSession(id: $id) { id issue { id identifier } }
}`
	// The prompts people wrote in the session since $since (in either
	// order: Linear says only "ordered by createdAt"); content is a union,
	// of which only a prompt's body is read. The session's creator and its
	// issue's assignee decide whose replies are handed on.
	queryPrompts = `query AgentSessionPrompts($id: String!, $since: DateTimeOrDuration!) {
  agentSession(id: $id) {
    id
    status
    creator { id }
    issue { id identifier assignee { id } }
    activities(first: 50, filter: { type: { eq: "prompt" }, createdAt: { gt: $since } }) {
      nodes {
        id
        createdAt
        signal
        user { id name }
        content { ... on AgentActivityPromptContent { body } }
      }
    }
  }
}`
)

// Documents lists every GraphQL document the sink can send.
func Documents() []string {
	return []string{mutationSessionCreate, mutationSessionUpdate, mutationActivityCreate, queryPrompts, querySessionIssue, queryIssueWork, mutationIssueUpdate, queryViewer}
}
