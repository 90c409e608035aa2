package hook

import (
	"strings"

	"github.com/spf13/pflag"
)

// A hook never fails on a flag a newer plugin passes: the command lists
// the flags it does not know and goes on.

// UnknownFlags lists the flags of args that fs does not define, as written
// (--name, -x), up to "--". It reads args the way pflag does: a known
// flag's value is skipped, and -h/--help are cobra's.
func UnknownFlags(fs *pflag.FlagSet, args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			name, _, hasValue := strings.Cut(name, "=")
			fl := fs.Lookup(name)
			switch {
			case fl == nil && name != "help":
				out = append(out, "--"+name)
			case fl != nil && !hasValue && fl.NoOptDefVal == "":
				i++ // --flag value
			}
			continue
		}
		for j := 1; j < len(a); j++ { // -abc: shorthands, until one takes a value
			c := a[j : j+1]
			fl := fs.ShorthandLookup(c)
			if fl == nil {
				if c != "h" {
					out = append(out, "-"+c)
				}
				break
			}
			if fl.NoOptDefVal == "" {
				if j == len(a)-1 {
					i++ // -x value
				}
				break
			}
		}
	}
	return out
}
