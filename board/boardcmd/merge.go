package boardcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/todosh/todosh/board"
	"github.com/todosh/todosh/board/files"
)

// DriverName is the git merge driver's name in .git/config and
// .gitattributes.
const DriverName = "todosh-board"

// attributesLine routes the board's item files to the driver.
const attributesLine = files.Dir + "/*.json merge=" + DriverName

// RegisterMergeDriver writes the driver into the checkout's git
// configuration (exe is todosh's path) and its line into .gitattributes,
// each only when missing.
func RegisterMergeDriver(root, exe string) error {
	if exe == "" {
		exe = "todosh"
	}
	quoted := "'" + strings.ReplaceAll(exe, "'", `'\''`) + "'"
	for _, kv := range [][2]string{
		{"merge." + DriverName + ".name", "todosh board: merge item files field by field"},
		{"merge." + DriverName + ".driver", quoted + " board merge-driver %O %A %B %P"},
	} {
		cmd := exec.Command("git", "-C", root, "config", kv[0], kv[1])
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git config %s: %v: %s", kv[0], err, strings.TrimSpace(string(out)))
		}
	}
	path := filepath.Join(root, ".gitattributes")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == attributesLine {
			return nil
		}
	}
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		data = append(data, '\n')
	}
	data = append(data, attributesLine+"\n"...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// runMergeDriver is git's merge driver: BASE OURS THEIRS are the item
// file's three versions (BASE empty when both sides added it); the merge
// (board.Merge) is written over OURS. A version that is not an item
// fails the driver, so git leaves that file conflicted and says so.
func runMergeDriver(_ context.Context, x *call) error {
	if len(x.args) < 3 || len(x.args) > 4 {
		return usageErr("want BASE OURS THEIRS [PATH] (git passes them)")
	}
	name := x.args[1]
	if len(x.args) == 4 {
		name = x.args[3]
	}
	var its [3]board.Item
	for i, p := range x.args[:3] {
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("merge %s: %w", name, err)
		}
		if i == 0 && len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		if its[i], err = files.Decode(data); err != nil {
			return fmt.Errorf("merge %s: %s version: %w (resolve it by hand)", name, []string{"base", "our", "their"}[i], err)
		}
	}
	merged := board.Merge(its[0], its[1], its[2])
	if err := board.Check(&merged); err != nil {
		return fmt.Errorf("merge %s: %w", name, err)
	}
	if err := os.WriteFile(x.args[1], files.Encode(&merged), 0o644); err != nil {
		return fmt.Errorf("merge %s: %w", name, err)
	}
	return nil
}
