package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/neon-auth/terraform-provider-neon/internal/acctest"
)

// Where Neon's reference and the notes beside it leave the service's
// behaviour open, a test that runs remotely accepts every possibility the
// sources leave, and asserts the emulator's own choice in-process only
// (CONTRIBUTING.md, "Points the sources leave open", lists them). These are
// the helpers for it.

// onTheEmulator is checks in-process and none remotely: what only the
// emulator's choice on an open point fixes.
func onTheEmulator(e *acctest.Env, checks ...statecheck.StateCheck) []statecheck.StateCheck {
	if e.Emu == nil {
		return nil
	}
	return checks
}

// actionIn is a plan check that the resource at addr is planned with the
// emulator's action in-process, and remotely with that one or any of
// others, which the sources leave possible.
func actionIn(e *acctest.Env, addr string, emulators plancheck.ResourceActionType, others ...plancheck.ResourceActionType) plancheck.PlanCheck {
	if e.Emu != nil {
		return plancheck.ExpectResourceAction(addr, emulators)
	}
	return oneOfActions{addr: addr, actions: append([]plancheck.ResourceActionType{emulators}, others...)}
}

// oneOfActions passes when the resource is planned with any of actions.
type oneOfActions struct {
	addr    string
	actions []plancheck.ResourceActionType
}

func (c oneOfActions) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var refused []string
	for _, a := range c.actions {
		var one plancheck.CheckPlanResponse
		plancheck.ExpectResourceAction(c.addr, a).CheckPlan(ctx, req, &one)
		if one.Error == nil {
			return
		}
		refused = append(refused, one.Error.Error())
	}
	resp.Error = fmt.Errorf("%s is planned with none of the actions the sources leave possible: %s", c.addr, strings.Join(refused, "; "))
}

// dataAPIStatus is what a created Data API's status must be: `active`, the
// emulator's word once it has booted, in-process; remotely any word, since
// `status` is a free string of which Neon documents `active` alone, and
// whether it reports another while it boots (about 15 seconds) is open.
func dataAPIStatus(e *acctest.Env) knownvalue.Check {
	if e.Emu != nil {
		return knownvalue.StringExact("active")
	}
	return knownvalue.StringRegexp(regexp.MustCompile(`.`))
}
