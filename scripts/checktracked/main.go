// Command checktracked fails when the git index of a repository holds built
// output: a file larger than 2 MiB, a compiled executable (ELF, Mach-O, PE or
// WebAssembly, whatever its mode), or a file with the executable bit that is
// not a script (its content does not start with "#!"). Scripts such as
// scripts/*.sh and .ci/run keep their executable bit.
//
//	go run ./scripts/checktracked [DIR]     (default: the current directory)
//
// It reads what is staged, so a binary that was added is found before it is
// committed, and it refuses to pass on nothing: outside a git work tree, or
// with an index that tracks no file, it fails.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// maxSize is the largest file the repository tracks: source, documents and
// the vendored API description fit well under it; a built binary does not.
const maxSize = 2 << 20

// binaryMagic are the first bytes of compiled executables and libraries.
var binaryMagic = []struct {
	prefix []byte
	kind   string
}{
	{[]byte("\x7fELF"), "an ELF executable or library"},
	{[]byte{0xfe, 0xed, 0xfa, 0xce}, "a Mach-O binary"},
	{[]byte{0xfe, 0xed, 0xfa, 0xcf}, "a Mach-O binary"},
	{[]byte{0xce, 0xfa, 0xed, 0xfe}, "a Mach-O binary"},
	{[]byte{0xcf, 0xfa, 0xed, 0xfe}, "a Mach-O binary"},
	{[]byte{0xca, 0xfe, 0xba, 0xbe}, "a Mach-O universal binary"},
	{[]byte("MZ"), "a Windows (PE) executable"},
	{[]byte("\x00asm"), "a WebAssembly module"},
}

// entry is one file of the index.
type entry struct {
	mode, object, path string
}

func main() {
	dir := "."
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: checktracked [DIR]")
		os.Exit(2)
	}
	if len(os.Args) == 2 {
		dir = os.Args[1]
	}
	problems, checked, err := check(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checktracked:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "%d of %d tracked files are built output: remove them with git rm --cached and ignore them (.gitignore)\n",
			len(problems), checked)
		os.Exit(1)
	}
	fmt.Printf("tracked files: %d checked, no built output (none over %d MiB, no compiled executable, every executable a script)\n",
		checked, maxSize>>20)
}

// check lists the problems of every file in dir's git index and how many
// files it checked.
func check(dir string) (problems []string, checked int, _ error) {
	entries, err := indexEntries(dir)
	if err != nil {
		return nil, 0, err
	}
	if len(entries) == 0 {
		return nil, 0, fmt.Errorf("the git index of %s tracks no file: nothing to check", dir)
	}
	err = readBlobs(dir, entries, func(e entry, size int64, head []byte) {
		checked++
		if p := problem(e, size, head); p != "" {
			problems = append(problems, e.path+": "+p)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	if checked != len(entries) {
		return nil, 0, fmt.Errorf("read %d of the %d tracked files", checked, len(entries))
	}
	return problems, checked, nil
}

// problem says why a tracked file is built output, or "".
func problem(e entry, size int64, head []byte) string {
	var why []string
	if size > maxSize {
		why = append(why, fmt.Sprintf("%d bytes, over the %d MiB limit for tracked files", size, maxSize>>20))
	}
	compiled := false
	for _, m := range binaryMagic {
		if bytes.HasPrefix(head, m.prefix) {
			why, compiled = append(why, m.kind), true
			break
		}
	}
	if !compiled && e.mode == "100755" && !bytes.HasPrefix(head, []byte("#!")) {
		why = append(why, "executable (mode 755) but not a script: it does not start with #!")
	}
	return strings.Join(why, "; ")
}

// indexEntries lists the regular files of dir's git index (symbolic links
// and submodules hold no content of their own).
func indexEntries(dir string) ([]entry, error) {
	out, err := git(dir, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	var entries []entry
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("unexpected git ls-files line %q", rec)
		}
		if fields[0] != "100644" && fields[0] != "100755" {
			continue
		}
		entries = append(entries, entry{mode: fields[0], object: fields[1], path: path})
	}
	return entries, nil
}

// readBlobs streams the entries' contents through one git cat-file --batch
// and calls fn with each one's size and first bytes.
func readBlobs(dir string, entries []entry, fn func(e entry, size int64, head []byte)) error {
	var ids bytes.Buffer
	for _, e := range entries {
		ids.WriteString(e.object + "\n")
	}
	cmd := exec.CommandContext(context.Background(), "git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = &ids
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r := bufio.NewReader(stdout)
	for _, e := range entries {
		header, err := r.ReadString('\n')
		if err != nil {
			_ = cmd.Wait()
			return fmt.Errorf("reading %s from git cat-file: %w", e.path, err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != e.object || fields[1] != "blob" {
			_ = cmd.Wait()
			return fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(header), e.path)
		}
		size, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			_ = cmd.Wait()
			return fmt.Errorf("git cat-file size of %s: %w", e.path, err)
		}
		head := make([]byte, min(size, 8))
		if _, err := io.ReadFull(r, head); err != nil {
			_ = cmd.Wait()
			return fmt.Errorf("reading %s: %w", e.path, err)
		}
		if _, err := r.Discard(int(size-int64(len(head))) + 1); err != nil { // the rest and the newline
			_ = cmd.Wait()
			return fmt.Errorf("reading %s: %w", e.path, err)
		}
		fn(e, size, head)
	}
	return cmd.Wait()
}

// git runs a git command in dir and returns its stdout.
func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(context.Background(), "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("git %s in %s: %s", strings.Join(args, " "), dir, strings.TrimSpace(stderr.String()))
		}
		return nil, err
	}
	return out, nil
}
