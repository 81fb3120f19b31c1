package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The image of ../../Containerfile builds, and the binary in it answers.
// Podman builds images on these machines but cannot run containers, so the
// binary is run from the image's mounted file system; running the container
// is left to users' CI.
func TestContainerfileBuildsAnImageWhoseBinaryAnswers(t *testing.T) {
	podman, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman is not installed (apt-get install podman): the image is not built")
	}
	if testing.Short() {
		t.Skip("builds an image: not with -short")
	}
	ctx := t.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=image-test", "-o", filepath.Join(ctx, "neon-emulator"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tag := fmt.Sprintf("localhost/neon-emulator-image-test:%d", os.Getpid())
	podmanRun := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(podman, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// Docker format: the OCI one has no HEALTHCHECK.
	podmanRun("build", "--format", "docker", "--file", "../../Containerfile", "--tag", tag, ctx)
	t.Cleanup(func() { _ = exec.Command(podman, "rmi", "--force", tag).Run() })

	var images []struct {
		// podman puts the health check here, docker in Config.
		Healthcheck struct{ Test []string }
		Config      struct {
			Entrypoint   []string
			Cmd          []string
			User         string
			Env          []string
			ExposedPorts map[string]any
			Healthcheck  struct{ Test []string }
		}
	}
	if err := json.Unmarshal([]byte(podmanRun("image", "inspect", "--format", "json", tag)), &images); err != nil || len(images) != 1 {
		t.Fatalf("podman image inspect: %v", err)
	}
	cfg := images[0].Config
	if !slices.Equal(cfg.Entrypoint, []string{"/emulator/neon-emulator"}) || len(cfg.Cmd) != 0 {
		t.Errorf("entrypoint %q, cmd %q; want the emulator alone", cfg.Entrypoint, cfg.Cmd)
	}
	if cfg.User != "65532:65532" {
		t.Errorf("user %q; want 65532:65532 (not root)", cfg.User)
	}
	for _, want := range []string{"NEON_EMULATOR_LISTEN=0.0.0.0:8080", "NEON_EMULATOR_TLS=true", "NEON_EMULATOR_TLS_NAME=neon-emulator"} {
		if !slices.Contains(cfg.Env, want) {
			t.Errorf("env %q lacks %s", cfg.Env, want)
		}
	}
	if _, ok := cfg.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("exposed ports %v; want 8080/tcp", cfg.ExposedPorts)
	}
	// No URL: it reads the container's NEON_EMULATOR_* settings (TestImageHealthCheckFollowsTheEnvironment).
	wantHealth := []string{"CMD", "/emulator/neon-emulator", "health"}
	health := images[0].Healthcheck.Test
	if len(health) == 0 {
		health = cfg.Healthcheck.Test
	}
	if !slices.Equal(health, wantHealth) {
		t.Errorf("health check %q; want %q", health, wantHealth)
	}

	if os.Geteuid() != 0 {
		// Rootless podman (a CI runner's) cannot mount an image.
		t.Log("not root: the image's file system is not mounted, so its binary is not run")
		return
	}
	root := strings.TrimSpace(podmanRun("image", "mount", tag))
	t.Cleanup(func() { _ = exec.Command(podman, "image", "unmount", tag).Run() })
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"emulator"}) {
		t.Errorf("image root holds %q; want only /emulator (FROM scratch: no shell, no curl)", names)
	}
	out, err := exec.Command(filepath.Join(root, "emulator", "neon-emulator"), "-version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "neon-emulator image-test" {
		t.Errorf("the image's binary -version = %q, %v; want \"neon-emulator image-test\"", out, err)
	}
}
