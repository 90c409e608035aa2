// Command linearfake serves the Linear fake (package linearfake) on a local
// port, for bench scripts and trying ccc by hand without a Linear account:
//
//	go run ./sinks/linear/linearfake/cmd/linearfake -issues 20
//
// It creates the issues BENCH-1 … BENCH-N, prints two lines on stdout, the
// GraphQL URL (for LINEAR_API_URL) and a control URL, and serves until it is
// interrupted or terminated. GET <control>/requests answers the number of
// GraphQL requests received so far. The API key it accepts is
// linearfake.APIKey, printed by -key.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/ccc-checkpoint/ccc/internal/fake/linearfake"
)

func main() {
	issues := flag.Int("issues", 1, "create the issues BENCH-1 … BENCH-`N`")
	key := flag.Bool("key", false, "print the API key the fake accepts and exit")
	flag.Parse()
	if *key {
		fmt.Println(linearfake.APIKey)
		return
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "linearfake:", err)
		os.Exit(1)
	}
	srv := linearfake.New()
	defer srv.Close()
	for i := 1; i <= *issues; i++ {
		srv.AddIssue("BENCH-"+strconv.Itoa(i), "Benchmark issue "+strconv.Itoa(i))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /requests", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, srv.RequestCount())
	})
	go func() { _ = http.Serve(ln, mux) }()

	fmt.Println(srv.URL)
	fmt.Println("http://" + ln.Addr().String())

	done := make(chan os.Signal, 1)
	signal.Notify(done, os.Interrupt, syscall.SIGTERM)
	<-done
}
