package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzRedact plants one credential from a fixed set between fuzzed texts and checks that it
// never survives, that the count is the number of markers added, that the findings are sorted
// and disjoint, and that a second pass changes nothing. Pattern-shaped plants are set off by
// spaces, since a prefix glued to a word is deliberately not a credential; held secrets are
// planted bare, since they are matched wherever they are.
func FuzzRedact(f *testing.F) {
	held := []string{"s3cr3t-h3ld-v4lue", linKey}
	shaped := []string{ghp, ghsJWT, pat, akia, slackBot, oaiProj, anthropic, linOAuth,
		jwt, google, npmTok, stripe, "aws_secret_access_key=" + awsSecretKey, "https://u:" + password + "@h",
		"GITHUB_TOKEN=" + hex40, "password=" + password, "vault token " + hex40, "https://" + hex40 + "@github.com",
		"api_key=" + opaque, "client_secret: " + opaque, akia + "        " + awsSecretKey}
	r, err := New(held, []Pattern{{Name: "ticket", Regexp: `TKT-[0-9]{6}`}})
	// Held secrets are also planted in the forms that render or decode as them.
	held = append(held, strings.ReplaceAll(linKey, "_", `\_`), linKey[:9]+"\u200b"+linKey[9:30]+"\ufeff"+linKey[30:],
		base64.StdEncoding.EncodeToString([]byte("x:"+linKey)), base64.RawURLEncoding.EncodeToString([]byte("y"+linKey+"\n")))
	if err != nil {
		f.Fatal(err)
	}

	f.Add("", "", "", uint8(0))
	f.Add("Authorization: Bearer ", "\n", "risk-assessment", uint8(2))
	f.Add("[REDACTED:", "]", "[REDACTED:secret]", uint8(1))
	f.Add("-----BEGIN RSA PRIVATE KEY-----\n", "\n-----END RSA PRIVATE KEY-----", "", uint8(3))
	f.Add(`curl -H "Authorization: token `, `"`, "TKT-123456", uint8(4))
	f.Add("**Authorization:** `", "`", "sk-1234-fix", uint8(5))
	f.Add("s3cr3t-h3ld", "-v4lue", "lin_api_", uint8(9))
	f.Add("ghp_", "AKIA", "xoxb-", uint8(7))

	plain, err := New(held[:2], nil) // Clean answers only without user patterns
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, before, after, extra string, pick uint8) {
		// Clean of texts joined: none of them, nor the whole, has a finding.
		if joined := before + "\n" + after + "\n" + extra; plain.Clean(joined) {
			for _, part := range []string{before, after, extra, joined} {
				if found := plain.Find(part); len(found) > 0 {
					t.Fatalf("Clean(%q), but %q has findings %+v", joined, part, found)
				}
			}
		}
		all := append(append([]string{}, held...), shaped...)
		plant := all[int(pick)%len(all)]
		in := before + plant + after + extra
		if int(pick)%len(all) >= len(held) {
			in = before + " " + plant + " " + after + extra
		}

		found := r.Find(in)
		last := 0
		for _, fd := range found {
			if fd.Start < last || fd.End <= fd.Start || fd.End > len(in) {
				t.Fatalf("bad finding %+v (previous end %d) in %q", fd, last, in)
			}
			last = fd.End
		}

		out, n := r.Redact(in)
		if n != len(found) {
			t.Fatalf("count %d, findings %d", n, len(found))
		}
		if strings.Contains(out, plant) {
			t.Fatalf("planted %q survived in %q", plant, out)
		}
		if added := r.countMarkers(out) - r.countMarkers(in); added != n {
			t.Fatalf("count %d, markers added %d: %q", n, added, out)
		}
		again, n2 := r.Redact(out)
		if again != out || n2 != 0 {
			t.Fatalf("second pass changed %q into %q (%d)", out, again, n2)
		}
	})
}

// countMarkers counts the markers of kinds r knows in text.
func (r *Redactor) countMarkers(text string) int {
	n := 0
	for _, m := range markerRe().FindAllStringSubmatchIndex(text, -1) {
		if r.kinds[text[m[2]:m[3]]] {
			n++
		}
	}
	return n
}
