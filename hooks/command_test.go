package hooks

import "testing"

// TestWindowsQuote: todosh's path as each agent's Windows shell reads it,
// and read back by ourCommand.
func TestWindowsQuote(t *testing.T) {
	for _, tc := range []struct {
		path, shell, want string
	}{
		{"C:/PROGRA~1/todosh/todosh.exe", winBash, "C:/PROGRA~1/todosh/todosh.exe"},
		{"C:/PROGRA~1/todosh/todosh.exe", winPowerShell, "C:/PROGRA~1/todosh/todosh.exe"},
		{"C:/PROGRA~1/todosh/todosh.exe", winCmd, "C:/PROGRA~1/todosh/todosh.exe"},
		{"C:/Program Files/todosh.exe", winBash, "'C:/Program Files/todosh.exe'"},
		{"C:/Program Files/todosh.exe", winCmd, `"C:/Program Files/todosh.exe"`},
		{"C:/Program Files/todosh.exe", winPowerShell, "& 'C:/Program Files/todosh.exe'"},
		{"C:/Users/O'Brien/todosh.exe", winPowerShell, "& 'C:/Users/O''Brien/todosh.exe'"},
		{"C:/Users/O'Brien/todosh.exe", winBash, `'C:/Users/O'\''Brien/todosh.exe'`},
		{"C:/a&b/todosh.exe", winCmd, `"C:/a&b/todosh.exe"`},
	} {
		got := windowsQuote(tc.path, tc.shell)
		if got != tc.want {
			t.Errorf("windowsQuote(%q, %s) = %s, want %s", tc.path, tc.shell, got, tc.want)
		}
		exe, agent, k, ok := ourCommand(got + " hook claude stop")
		if !ok || exe != tc.path || agent != "claude" || k != KindStop {
			t.Errorf("ourCommand(%s) = %q %q %q %v, want %q", got, exe, agent, k, ok, tc.path)
		}
	}
	if _, _, _, ok := ourCommand("C:/PROGRA~1/todosh/TODOSH~1.EXE hook qwen tool"); !ok {
		t.Error("an 8.3 name of todosh is not recognised")
	}
}

// TestWindowsShells: every agent says which shell runs its hooks on
// Windows, so Command quotes for it.
func TestWindowsShells(t *testing.T) {
	for _, a := range Agents() {
		if a.winShell != winBash && a.winShell != winCmd && a.winShell != winPowerShell {
			t.Errorf("%s: Windows shell %q", a.Name, a.winShell)
		}
	}
}
