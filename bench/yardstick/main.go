// Command yardstick is the floor issue 26 compares ccc against: the smallest Go program that makes one
// HTTP POST of a GraphQL document to a URL and exits. Its start-up, one connection and one round trip
// are what any tracker update pays; what ccc adds on top is ccc's own cost.
//
//	yardstick URL [KEY]     (KEY, when given, is sent as the Authorization header)
//
// It exits 0 on a 2xx answer, 1 otherwise. bench/startup.sh runs it side by side with ccc.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// doc is a GraphQL document as small as a real request: the viewer's id.
const doc = `{"query":"query Viewer { viewer { id } }"}`

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: yardstick URL [KEY]")
		os.Exit(2)
	}
	key := ""
	if len(os.Args) == 3 {
		key = os.Args[2]
	}
	if err := post(os.Args[1], key); err != nil {
		fmt.Fprintln(os.Stderr, "yardstick:", err)
		os.Exit(1)
	}
}

// post sends doc to url and reads the answer to its end.
func post(url, key string) error {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(doc))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
