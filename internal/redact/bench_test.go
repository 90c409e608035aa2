package redact

import (
	"strings"
	"testing"
)

// cleanStatusBody is statusBody without credentials but with its near misses, and more of
// them: the common case, a body with nothing to redact.
func cleanStatusBody() string {
	return "## Checkpoint Status\n\n" +
		"**Updated:** 2026-11-21T13:45:00Z\n" +
		"**Task:** 3 of 7 — wire the deploy job (risk-assessment done, desk-check pending)\n" +
		"**Status:** In Progress\n\n" +
		"**Decisions:** alerts go to the ops channel; commit 3f2a9c0d1e4b5a6978877665544332211ffeeddc\n" +
		"**Blockers:** CI rejects the request; Authorization is checked by the gateway, the bearer of news is the on-call\n" +
		"**Next:** rotate the keys (AKIA is the prefix); request id 123e4567-e89b-12d3-a456-426614174000\n\n" +
		"```sh\n" +
		"export OPENAI_API_KEY=\"$(pass show openai)\"\n" +
		"go test ./... -run TestTask -count=1 # sk-1234-fix-login branch\n" +
		"```\n\n" +
		"Ask-me-anything notes: the task-list is on the desk; lin_api_ keys live in the vault.\n" +
		"<!-- ccc:checkpoint agent=main -->\n"
}

// body64K repeats unit up to 64 KB, GitHub's limit for a comment body.
func body64K(unit string) string {
	var b strings.Builder
	for b.Len()+len(unit) <= 64<<10 {
		b.WriteString(unit)
	}
	b.WriteString(unit[:64<<10-b.Len()])
	return b.String()
}

func BenchmarkRedact64K(b *testing.B) {
	r, err := New([]string{"hunter2hunter2", "another-held-secret"}, []Pattern{{Name: "ticket", Regexp: `TKT-[0-9]{6}`}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, unit string
		clean      bool
	}{{"clean", cleanStatusBody(), true}, {"with-secrets", statusBody(), false}} {
		body := body64K(bc.unit)
		if _, n := r.Redact(body); (n == 0) != bc.clean {
			b.Fatalf("%s body: %d findings", bc.name, n)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(body)
			}
		})
	}
}

// BenchmarkRedactAdversarial64K measures the worst shapes found for the scanners: one line of
// header names (each value runs to the same line end), bearer words, prefixes without bodies,
// and a private key BEGIN repeated without an END.
func BenchmarkRedactAdversarial64K(b *testing.B) {
	r, err := New([]string{"hunter2hunter2"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, unit string }{
		{"authorization", "Authorization:"},
		{"authorization-spaces", "authorization:" + strings.Repeat(" ", 50)},
		{"authorization-quoted", `"Authorization: `},
		{"bearer", "bearer bearer "},
		{"prefixes", "sk-ghp_AKIAxoxb-lin_api_"},
		{"begin", "-----BEGIN PRIVATE KEY-----"},
		{"secret-prefix", "hunter2hunter"},
	} {
		body := strings.Repeat(bc.unit, 64<<10/len(bc.unit))
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				r.Redact(body)
			}
		})
	}
}
