//go:build race

package records

// raceOn: the race detector's allocator pads every allocation, so byte
// budgets are checked without it.
const raceOn = true
