package oauth

import (
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/ccc-checkpoint/ccc/config"
)

// Browser returns how to open a URL in the user's browser, or nil when no
// browser is available: $BROWSER when set (the convention gh and git
// follow), else the desktop's opener on macOS and Windows, and xdg-open on
// other systems only inside a graphical session ($DISPLAY or
// $WAYLAND_DISPLAY), so that an SSH session or a CI job never starts one.
func Browser(env config.BrowserEnv) func(url string) error {
	if b := strings.TrimSpace(env.Browser); b != "" {
		return starter(b)
	}
	switch runtime.GOOS {
	case "darwin":
		return starter("open")
	case "windows":
		return starter("rundll32 url.dll,FileProtocolHandler")
	}
	if !env.Graphical {
		return nil
	}
	if _, err := exec.LookPath("xdg-open"); err != nil {
		return nil
	}
	return starter("xdg-open")
}

// starter runs command (a program and its first arguments) with the URL
// as the last argument and does not wait for it: a browser may live on.
func starter(command string) func(string) error {
	args := strings.Fields(command)
	return func(u string) error {
		cmd := exec.Command(args[0], append(args[1:], u)...)
		cmd.Env = os.Environ()
		if err := cmd.Start(); err != nil {
			return err
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
}
