// Command sidebyside times commands side by side, the way issue 26 compares ccc with its
// yardstick: every case is started the same way (fork and exec from this program, no shell),
// round robin, so that each sees the same minutes of the machine, and each run's wall time and
// CPU time (user + system, from the kernel's rusage) are kept. It prints each case's medians and
// its ratio to the first case's.
//
//	sidebyside [-runs N] [-warmup K] CASE...
//
// A CASE is "name|dir|stdin|command args...": the directory to run in (empty: the current one),
// a file to give as standard input (empty: none), and the command, split on spaces (no quoting).
// "{i}" in the command becomes a number that differs on every run (a checkpoint whose step must
// change). hyperfine cannot give a file as input without a shell (before 1.17) or change an
// argument per run, and subtracting a shell's start-up from a 5 ms command made those cases look
// slower than the ones it ran without one; here every case pays the same start.
//
// Output, one line per case: name, median wall ms, ratio to the first case, median CPU ms.
// It exits 1 when a case's command fails (its stderr is shown), 2 on a usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// spec is one case.
type spec struct {
	name, dir, stdin string
	args             []string
}

// parse reads "name|dir|stdin|command args...".
func parse(s string) (spec, error) {
	f := strings.SplitN(s, "|", 4)
	if len(f) != 4 || f[0] == "" || len(strings.Fields(f[3])) == 0 {
		return spec{}, fmt.Errorf("case %q: want name|dir|stdin|command args", s)
	}
	return spec{name: f[0], dir: f[1], stdin: f[2], args: strings.Fields(f[3])}, nil
}

// argv is the case's command for run i.
func (c spec) argv(i int) []string {
	out := make([]string, len(c.args))
	for k, a := range c.args {
		out[k] = strings.ReplaceAll(a, "{i}", strconv.Itoa(i))
	}
	return out
}

// sample is one run's wall and CPU time.
type sample struct{ wall, cpu time.Duration }

// once runs the case's command for run i and times it. Its output goes to
// files, not pipes: a pipe costs this program a goroutine copying it while
// the clock runs. errs holds its standard error, shown when it fails.
func (c spec) once(i int, null, errs *os.File) (sample, error) {
	argv := c.argv(i)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.dir
	if err := errs.Truncate(0); err != nil {
		return sample{}, err
	}
	if _, err := errs.Seek(0, io.SeekStart); err != nil {
		return sample{}, err
	}
	cmd.Stdout, cmd.Stderr = null, errs
	if c.stdin != "" {
		f, err := os.Open(c.stdin)
		if err != nil {
			return sample{}, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		msg, _ := os.ReadFile(errs.Name())
		return sample{}, fmt.Errorf("%s: %w\n%s", c.name, err, msg)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, errors.New("no rusage on this system")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu}, nil
}

// median of ds (sorted in place).
func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// result is a case's medians.
type result struct {
	name      string
	wall, cpu time.Duration
}

// measure runs every case warmup times untimed, then runs times each, round robin.
func measure(cases []spec, runs, warmup int) ([]result, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	errs, err := os.CreateTemp("", "sidebyside-stderr-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(errs.Name())
	defer errs.Close()
	walls := make([][]time.Duration, len(cases))
	cpus := make([][]time.Duration, len(cases))
	for r := -warmup; r < runs; r++ {
		for k, c := range cases {
			s, err := c.once(os.Getpid()*1000+r+warmup, null, errs)
			if err != nil {
				return nil, err
			}
			if r >= 0 {
				walls[k] = append(walls[k], s.wall)
				cpus[k] = append(cpus[k], s.cpu)
			}
		}
	}
	out := make([]result, len(cases))
	for k, c := range cases {
		out[k] = result{name: c.name, wall: median(walls[k]), cpu: median(cpus[k])}
	}
	return out, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }

func main() {
	runs := flag.Int("runs", 30, "timed runs per case")
	warmup := flag.Int("warmup", 3, "untimed runs per case first")
	flag.Parse()
	var cases []spec
	for _, a := range flag.Args() {
		c, err := parse(a)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sidebyside:", err)
			os.Exit(2)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 || *runs < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "usage: sidebyside [-runs N] [-warmup K] 'name|dir|stdin|command args'...")
		os.Exit(2)
	}
	res, err := measure(cases, *runs, *warmup)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
	for _, r := range res {
		fmt.Printf("%s %s %.2f %s\n", r.name, ms(r.wall), float64(r.wall)/float64(res[0].wall), ms(r.cpu))
	}
}
