package emulator

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

func TestConcurrentRequestsAreSafe(t *testing.T) {
	v := newEnv(t, Options{})
	v.integrate()
	const n = 40
	var wg sync.WaitGroup
	statuses := make(chan int, 3*n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- v.do("POST", "/projects/auth/user", map[string]any{
				"project_id": v.project, "auth_provider": "stack", "email": fmt.Sprintf("u%d@example.com", i),
			}).Status
			statuses <- v.do("GET", "/projects/"+v.project+"/auth/integrations", nil).Status
			statuses <- v.do("POST", "/projects/auth/keys", map[string]any{"project_id": v.project, "auth_provider": "stack"}).Status
			_ = v.e.Stats()
		}()
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != http.StatusOK && s != http.StatusCreated {
			t.Errorf("status %d", s)
		}
	}
	if got := len(v.e.UsersSync(v.project)); got != n {
		t.Errorf("%d users, want %d", got, n)
	}
}
