package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The state file holds the whole state as JSON. API key tokens are stored only
// as SHA-256 hashes; other secrets (SDK keys, OAuth client secrets, SMTP
// passwords) are stored as they are, so the file is written with mode 0600.

// loadState reads the state file; a missing file yields (nil, nil). Temp
// files that a crash left behind mid-save are removed first: they are never
// read, and each is a full copy of the state, secrets included.
func loadState(path string) (*state, error) {
	removeStaleTempFiles(path)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("emulator: read state file: %w", err)
	}
	st, err := decodeState(data)
	if err != nil {
		return nil, fmt.Errorf("emulator: state file %s: %w", path, err)
	}
	return st, nil
}

// saveState writes the state atomically: a temporary file in the same
// directory is written, synced and renamed over path, then the directory is
// synced. No partial file is ever visible at path.
func saveState(path string, st *state) (err error) {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("emulator: encode state: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("emulator: write state file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("emulator: write state file: %w", err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("emulator: sync state file: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("emulator: close state file: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("emulator: rename state file: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// tempPattern is the name pattern of saveState's temporary files.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// removeStaleTempFiles deletes temporary files of interrupted saves. Only
// one emulator uses a state file at a time, so none of them is in use.
func removeStaleTempFiles(path string) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	for _, f := range stale {
		_ = os.Remove(f)
	}
}
