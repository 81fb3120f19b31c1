package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo is a fresh git repository holding files (path → content), each added
// to the index with its mode.
func repo(t *testing.T, files map[string]file) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "-q")
	for path, f := range files {
		full := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, f.content, f.mode); err != nil {
			t.Fatal(err)
		}
		run(t, dir, "add", "--", path)
	}
	return dir
}

type file struct {
	content []byte
	mode    os.FileMode
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func TestSourceAndScriptsPass(t *testing.T) {
	dir := repo(t, map[string]file{
		"main.go":          {[]byte("package main\n"), 0o644},
		"scripts/demo.sh":  {[]byte("#!/usr/bin/env bash\necho hi\n"), 0o755},
		".ci/run":          {[]byte("#!/usr/bin/env bash\nmake test\n"), 0o755},
		"docs/big.md":      {bytes.Repeat([]byte("x"), maxSize), 0o644}, // exactly the limit
		"testdata/empty":   {nil, 0o644},
		"testdata/mz.txt":  {[]byte("M"), 0o644}, // shorter than any magic
		"LICENSE":          {[]byte("Mozilla Public License Version 2.0\n"), 0o644},
		"internal/x/a.go":  {[]byte("package x\n"), 0o644},
		"internal/x/b.tpl": {[]byte("{{ . }}\n"), 0o644},
	})
	problems, checked, err := check(dir)
	if err != nil || len(problems) > 0 || checked != 9 {
		t.Errorf("check = %q, %d checked, %v; want no problem in 9 files", problems, checked, err)
	}
}

func TestBuiltOutputFails(t *testing.T) {
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...)
	dir := repo(t, map[string]file{
		"main.go":             {[]byte("package main\n"), 0o644},
		"neon-emulator":       {elf, 0o755},
		"lib/plugin.so":       {elf, 0o644}, // not executable, still compiled
		"bin/tool.exe":        {[]byte("MZ\x90\x00"), 0o644},
		"bin/mac":             {[]byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, 0o755},
		"web/app.wasm":        {[]byte("\x00asm\x01\x00\x00\x00"), 0o644},
		"scripts/no-shebang":  {[]byte("echo hi\n"), 0o755},
		"data/dump.json":      {bytes.Repeat([]byte("x"), maxSize+1), 0o644},
		"scripts/fine.sh":     {[]byte("#!/bin/sh\n"), 0o755},
		"docs/readme-mz.md":   {[]byte("# MZ is not at the start\n"), 0o644},
		"testdata/elf-in.txt": {[]byte("text mentioning \x7fELF later\n"), 0o644},
	})
	problems, checked, err := check(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range problems {
		path, _, _ := strings.Cut(p, ": ")
		paths = append(paths, path)
	}
	slices.Sort(paths)
	want := []string{"bin/mac", "bin/tool.exe", "data/dump.json", "lib/plugin.so", "neon-emulator", "scripts/no-shebang", "web/app.wasm"}
	if !slices.Equal(paths, want) || checked != 11 {
		t.Errorf("flagged %q in %d files; want %q in 11\n%s", paths, checked, want, strings.Join(problems, "\n"))
	}
}

// A binary that is staged but not committed yet is found: the check reads
// the index.
func TestAStagedBinaryIsFoundBeforeItIsCommitted(t *testing.T) {
	dir := repo(t, map[string]file{"go.mod": {[]byte("module x\n"), 0o644}})
	run(t, dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "x")
	if err := os.WriteFile(filepath.Join(dir, "tool"), []byte("\x7fELF rest"), 0o755); err != nil {
		t.Fatal(err)
	}
	if problems, _, err := check(dir); err != nil || len(problems) != 0 {
		t.Fatalf("an untracked binary: %q, %v; want no problem (it is not tracked)", problems, err)
	}
	run(t, dir, "add", "tool")
	if problems, _, err := check(dir); err != nil || len(problems) != 1 || !strings.HasPrefix(problems[0], "tool: an ELF") {
		t.Errorf("a staged binary: %q, %v; want it flagged", problems, err)
	}
}

// Nothing to check is a failure, never a pass.
func TestNothingToCheckFails(t *testing.T) {
	if _, _, err := check(repo(t, nil)); err == nil || !strings.Contains(err.Error(), "tracks no file") {
		t.Errorf("an empty index: %v; want an error", err)
	}
	if _, _, err := check(t.TempDir()); err == nil || !strings.Contains(err.Error(), "git ls-files") {
		t.Errorf("a directory outside any git work tree: %v; want an error", err)
	}
}
