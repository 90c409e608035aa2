package fakeapi

import (
	"net/http"
	"slices"
	"time"
)

// Fault scripts one answer of a REST fake (githubfake, gitlabfake,
// jirafake). A request takes the first queued fault whose Op is its
// operation (an empty Op matches any request), and the fault is used up.
type Fault struct {
	// Name shows in the request log.
	Name string
	Op   string
	// Status, Header and Body answer instead of the request being run
	// (Status 0: run it normally). The usual headers are sent too unless
	// Header overrides them.
	Status int
	Header http.Header
	Body   string
	// Delay holds the answer back; a client that gives up first gets
	// nothing and the request is not run.
	Delay time.Duration
	// Drop closes the connection without an answer. Apply runs the request
	// first, before the drop or the Status answer: the client cannot know
	// it succeeded.
	Drop  bool
	Apply bool
}

// On returns f restricted to requests for op.
func (f Fault) On(op string) Fault {
	f.Op = op
	return f
}

// Slow answers normally after d.
func Slow(d time.Duration) Fault { return Fault{Name: "slow", Delay: d} }

// Dropped closes the connection without running the request.
func Dropped() Fault { return Fault{Name: "dropped", Drop: true} }

// LostResponse runs the next request for op, then drops the connection.
func LostResponse(op string) Fault { return Fault{Name: "lost", Op: op, Drop: true, Apply: true} }

// Landed returns f (an error answer) made to run the request first, as an
// edge that fails after the write went through does.
func Landed(f Fault) Fault {
	f.Name += "-landed"
	f.Apply = true
	return f
}

// Repeat returns n copies of f.
func Repeat(n int, f Fault) []Fault { return slices.Repeat([]Fault{f}, n) }
