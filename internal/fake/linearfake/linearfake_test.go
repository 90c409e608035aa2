package linearfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
)

type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func post(t *testing.T, srv *linearfake.Server, auth, query string, vars map[string]any) answer {
	t.Helper()
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(string(b)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

func firstError(t *testing.T, a answer) map[string]any {
	t.Helper()
	errs, ok := a.body["errors"].([]any)
	require.True(t, ok, "no errors in %s", a.raw)
	return errs[0].(map[string]any)
}

func TestAnswersLikeLinear(t *testing.T) {
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-9", "Title")

	a := post(t, srv, linearfake.APIKey, `query { viewer { id } }`, nil)
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, map[string]any{"data": map[string]any{"viewer": map[string]any{"id": linearfake.ViewerID}}}, a.body,
		"only the selected fields come back")
	for _, h := range []string{"X-RateLimit-Requests-Limit", "X-RateLimit-Requests-Remaining", "X-RateLimit-Requests-Reset"} {
		assert.NotEmpty(t, a.header.Get(h), h)
	}

	t.Run("bad credentials", func(t *testing.T) {
		for _, auth := range []string{"", "Bearer " + linearfake.APIKey, linearfake.OAuthToken} {
			a := post(t, srv, auth, `query { viewer { id } }`, nil)
			assert.Equal(t, http.StatusBadRequest, a.status)
			ext := firstError(t, a)["extensions"].(map[string]any)
			assert.Equal(t, "AUTHENTICATION_ERROR", ext["code"])
			assert.NotEmpty(t, ext["userPresentableMessage"])
		}
		assert.Equal(t, http.StatusOK, post(t, srv, "Bearer "+linearfake.OAuthToken, `query { viewer { id } }`, nil).status)
	})

	t.Run("entity not found", func(t *testing.T) {
		a := post(t, srv, linearfake.APIKey, `mutation($id: String!) { commentUpdate(id: $id, input: {body: "x"}) { success } }`,
			map[string]any{"id": "nope"})
		assert.Equal(t, http.StatusOK, a.status)
		assert.Nil(t, a.body["data"])
		assert.Equal(t, "Entity not found: Comment", firstError(t, a)["message"])
	})

	t.Run("unknown field", func(t *testing.T) {
		a := post(t, srv, linearfake.APIKey, `query { viewer { id secret } }`, nil)
		assert.Equal(t, http.StatusBadRequest, a.status)
		assert.Equal(t, "GRAPHQL_VALIDATION_FAILED", firstError(t, a)["extensions"].(map[string]any)["code"])
	})

	t.Run("rate limited", func(t *testing.T) {
		srv.Inject(linearfake.RateLimited(40*time.Second, true))
		a := post(t, srv, linearfake.APIKey, `query { viewer { id } }`, nil)
		assert.Equal(t, http.StatusBadRequest, a.status)
		assert.Equal(t, "RATELIMITED", firstError(t, a)["extensions"].(map[string]any)["code"])
		assert.Equal(t, "40", a.header.Get("Retry-After"))
		assert.Equal(t, "0", a.header.Get("X-RateLimit-Requests-Remaining"))
	})
}

func TestCreateAndPaginate(t *testing.T) {
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-9", "Title")
	srv.PageSize = 2
	const create = `mutation($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id } } }`
	id := "5f0c6b2e-3a1d-4e8f-9b7c-6d5e4f3a2b1c"
	in := map[string]any{"input": map[string]any{"issueId": "CIA-9", "body": "hi", "id": id}}
	a := post(t, srv, linearfake.APIKey, create, in)
	require.Equal(t, http.StatusOK, a.status, a.raw)
	a = post(t, srv, linearfake.APIKey, create, in)
	assert.Equal(t, http.StatusBadRequest, a.status, "an id is used once")
	assert.Contains(t, firstError(t, a)["message"], "already exists")
	bad := map[string]any{"input": map[string]any{"issueId": "CIA-9", "body": "hi", "id": "not-a-uuid"}}
	assert.Equal(t, http.StatusBadRequest, post(t, srv, linearfake.APIKey, create, bad).status)

	for range 2 {
		srv.AddComment("CIA-9", linearfake.OtherUserID, "more")
	}
	const page = `query($after: String) { issue(id: "CIA-9") { comments(after: $after) { nodes { id user { id } } pageInfo { hasNextPage endCursor } } } }`
	var ids []string
	var after any
	for {
		a := post(t, srv, linearfake.APIKey, page, map[string]any{"after": after})
		require.Equal(t, http.StatusOK, a.status, a.raw)
		conn := a.body["data"].(map[string]any)["issue"].(map[string]any)["comments"].(map[string]any)
		for _, n := range conn["nodes"].([]any) {
			ids = append(ids, n.(map[string]any)["id"].(string))
		}
		pi := conn["pageInfo"].(map[string]any)
		if pi["hasNextPage"] != true {
			break
		}
		after = pi["endCursor"]
	}
	require.Len(t, ids, 3)
	assert.Equal(t, id, ids[0], "oldest first")
	assert.Equal(t, 5, srv.RequestCount(), "every request is recorded")
}

// readAll reads CIA-9's comments two at a time, following cursors forward
// (first/after) or backward (last/before); it returns the bodies in the
// order read.
func readAll(t *testing.T, srv *linearfake.Server, backward bool) []string {
	t.Helper()
	const page = `query($first: Int, $after: String, $last: Int, $before: String) {
  issue(id: "CIA-9") { comments(first: $first, after: $after, last: $last, before: $before, orderBy: createdAt) {
    nodes { body } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`
	var bodies []string
	var cursor any
	for {
		vars := map[string]any{"first": 2, "after": cursor}
		if backward {
			vars = map[string]any{"last": 2, "before": cursor}
		}
		a := post(t, srv, linearfake.APIKey, page, vars)
		require.Equal(t, http.StatusOK, a.status, a.raw)
		conn := a.body["data"].(map[string]any)["issue"].(map[string]any)["comments"].(map[string]any)
		var got []string
		for _, n := range conn["nodes"].([]any) {
			got = append(got, n.(map[string]any)["body"].(string))
		}
		pi := conn["pageInfo"].(map[string]any)
		if backward {
			// A backward page still lists its nodes in the connection's order.
			for i := len(got) - 1; i >= 0; i-- {
				bodies = append(bodies, got[i])
			}
			if pi["hasPreviousPage"] != true {
				return bodies
			}
			cursor = pi["startCursor"]
			continue
		}
		bodies = append(bodies, got...)
		if pi["hasNextPage"] != true {
			return bodies
		}
		cursor = pi["endCursor"]
	}
}

func TestConnectionDirections(t *testing.T) {
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-9", "Title")
	for _, b := range []string{"1", "2", "3", "4", "5"} {
		srv.AddComment("CIA-9", linearfake.ViewerID, b)
	}
	srv.ArchiveComment(srv.AddComment("CIA-9", linearfake.ViewerID, "archived").ID)
	srv.DeleteComment(srv.AddComment("CIA-9", linearfake.ViewerID, "deleted").ID)

	assert.Equal(t, []string{"1", "2", "3", "4", "5"}, readAll(t, srv, false), "first/after: oldest first")
	assert.Equal(t, []string{"5", "4", "3", "2", "1"}, readAll(t, srv, true), "last/before: from the newest back")
	srv.NewestFirst = true
	assert.Equal(t, []string{"5", "4", "3", "2", "1"}, readAll(t, srv, false))
	assert.Equal(t, []string{"1", "2", "3", "4", "5"}, readAll(t, srv, true))

	a := post(t, srv, linearfake.APIKey, `query { issue(id: "CIA-9") { comments(first: 1, last: 1) { nodes { id } } } }`, nil)
	assert.Equal(t, http.StatusBadRequest, a.status)
}

// An archived or deleted comment keeps its id taken. comment(id:) still
// answers the archived one, with archivedAt, and not the deleted one; an
// update reaches neither.
func TestArchivedAndDeletedIDs(t *testing.T) {
	srv := linearfake.New()
	defer srv.Close()
	srv.AddIssue("CIA-9", "Title")
	archived := srv.AddComment("CIA-9", linearfake.ViewerID, "a")
	deleted := srv.AddComment("CIA-9", linearfake.ViewerID, "d")
	require.True(t, srv.ArchiveComment(archived.ID))
	require.True(t, srv.DeleteComment(deleted.ID))
	assert.Empty(t, srv.Comments("CIA-9"))

	const create = `mutation($input: CommentCreateInput!) { commentCreate(input: $input) { success } }`
	const get = `query($id: String!) { comment(id: $id) { id archivedAt user { id } } }`
	const update = `mutation($id: String!) { commentUpdate(id: $id, input: {body: "x"}) { success } }`
	for _, c := range []linearfake.Comment{archived, deleted} {
		a := post(t, srv, linearfake.APIKey, create, map[string]any{"input": map[string]any{"issueId": "CIA-9", "body": "hi", "id": c.ID}})
		assert.Equal(t, http.StatusBadRequest, a.status)
		assert.Contains(t, firstError(t, a)["message"], "already exists")
		a = post(t, srv, linearfake.APIKey, update, map[string]any{"id": c.ID})
		assert.Equal(t, "Entity not found: Comment", firstError(t, a)["message"])
	}
	a := post(t, srv, linearfake.APIKey, get, map[string]any{"id": archived.ID})
	require.Equal(t, http.StatusOK, a.status, a.raw)
	got := a.body["data"].(map[string]any)["comment"].(map[string]any)
	assert.NotNil(t, got["archivedAt"])
	assert.Equal(t, linearfake.ViewerID, got["user"].(map[string]any)["id"])
	a = post(t, srv, linearfake.APIKey, get, map[string]any{"id": deleted.ID})
	assert.Equal(t, "Entity not found: Comment", firstError(t, a)["message"])
}

func TestUnavailableRetryAfter(t *testing.T) {
	srv := linearfake.New()
	defer srv.Close()
	srv.Inject(linearfake.UnavailableRetryAfter(503, 1500*time.Millisecond))
	a := post(t, srv, linearfake.APIKey, `query { viewer { id } }`, nil)
	assert.Equal(t, http.StatusServiceUnavailable, a.status)
	assert.Equal(t, "2", a.header.Get("Retry-After"))
	assert.Equal(t, "http-503-retry-after", srv.Requests()[0].Fault)
}
