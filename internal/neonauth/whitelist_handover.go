package neonauth

import (
	"context"
	"slices"
	"sync"

	"github.com/neon-auth/terraform-provider-neon/internal/apiclient"
)

// A branch's whitelist handed over from one way of managing it to the other
// in one apply: a neon_auth_domain per entry, or one neon_auth_domains for
// the whole list. Terraform runs the destroys of the old resources and the
// creates of the new ones at once, in any order. Within the provider process
// of that apply the outcome does not depend on the order:
//
//   - a domain the new resources declare stays in the whitelist: a delete by
//     the old holder leaves out a domain the new holder holds, and a create
//     waits for a delete of its domain already under way;
//   - a create of the new holder finds what the branch held when the apply
//     began (as its plan showed): what it lists now, and what deletes of the
//     old holder removed before it.

// Holder is one of the two ways to manage a whitelist.
type Holder int

const (
	// EachDomain is a neon_auth_domain per entry.
	EachDomain Holder = iota
	// WholeList is one neon_auth_domains for the whole list.
	WholeList
)

func (h Holder) other() Holder { return 1 - h }

// handovers are the handovers of every scope of the process.
type handovers struct {
	mu     sync.Mutex
	scopes map[readKey]*handover
}

// handover is what the process knows of one scope's whitelist: the domains
// creates of each holder hold, those deletes of each holder removed, and
// those a delete is removing now (closed when its answer came).
type handover struct {
	held    [2]map[string]bool
	removed [2]map[string]bool
	leaving map[string]chan struct{}
}

// of is the handover of a scope; call with h.mu held.
func (h *handovers) of(s Scope) *handover {
	if h.scopes == nil {
		h.scopes = map[readKey]*handover{}
	}
	k := keyOf(s)
	if h.scopes[k] == nil {
		h.scopes[k] = &handover{leaving: map[string]chan struct{}{}}
		for i := range 2 {
			h.scopes[k].held[i], h.scopes[k].removed[i] = map[string]bool{}, map[string]bool{}
		}
	}
	return h.scopes[k]
}

// HoldDomains is the start of a create of holder h on s that holds domains
// (canonical): deletes of the other holder leave them in the whitelist from
// now on. It waits for a delete of them already under way, and answers the
// domains, of all of s, that deletes of the other holder removed in this
// process: the branch held them when the apply began, so the create found
// them.
func (svc *Service) HoldDomains(ctx context.Context, s Scope, h Holder, domains []string) ([]string, error) {
	return svc.handedOverAfter(ctx, s, h, domains, true)
}

// handedOverAfter answers HandedOver once the deletes of domains already
// under way have ended, holding the domains first when hold is set.
func (svc *Service) handedOverAfter(ctx context.Context, s Scope, h Holder, domains []string, hold bool) ([]string, error) {
	svc.handovers.mu.Lock()
	ho := svc.handovers.of(s)
	var waits []chan struct{}
	for _, d := range domains {
		if hold {
			ho.held[h][canonical(d)] = true
		}
		if ch, ok := ho.leaving[canonical(d)]; ok {
			waits = append(waits, ch)
		}
	}
	svc.handovers.mu.Unlock()
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return svc.HandedOver(s, h), nil
}

// HandedOver are the domains, of all of s, that deletes of the other
// holder than h removed in this process, without holding any: what a create
// that refuses whatever it finds (inherited_auth = "refuse") finds besides
// the whitelist as listed. It holds nothing, since it keeps nothing it finds:
// a domain both holders declare then leaves the whitelist, whichever runs
// first.
func (svc *Service) HandedOver(s Scope, h Holder) []string {
	svc.handovers.mu.Lock()
	defer svc.handovers.mu.Unlock()
	var removed []string
	for d := range svc.handovers.of(s).removed[h.other()] {
		removed = append(removed, d)
	}
	slices.Sort(removed)
	return removed
}

// RemovedDomain is the start of a create of one domain (canonical) on s, by
// a neon_auth_domain: it holds the domain (see HoldDomains), unless the
// setting refuses inherited objects (inherited_auth = "refuse"), which keeps
// nothing it finds (see HandedOver). Either way it waits for a delete of the
// domain already under way. It reports whether deletes of a
// neon_auth_domains of this process removed the domain: the branch held it
// when the apply began, so the create found it (and adds it back, or
// refuses it), whichever of the two Terraform ran first.
func (svc *Service) RemovedDomain(ctx context.Context, s Scope, domain string) (bool, error) {
	hold := svc.MayTakeOver(ctx, s, Object{Kind: KindDomain}).Refused != RefusedBySetting
	removed, err := svc.handedOverAfter(ctx, s, EachDomain, []string{domain}, hold)
	return slices.Contains(removed, domain), err
}

// releaseDomains is the start of a delete of domains from s by holder h:
// it answers those to send, leaving out those a create of the other holder
// holds, and marks them leaving until done is called with the delete's
// outcome.
func (svc *Service) releaseDomains(s Scope, h Holder, domains []string) (send []string, done func(error)) {
	svc.handovers.mu.Lock()
	defer svc.handovers.mu.Unlock()
	ho := svc.handovers.of(s)
	var leaving []string
	for _, d := range domains {
		c := canonical(d)
		if ho.held[h.other()][c] {
			continue
		}
		send = append(send, d)
		if _, ok := ho.leaving[c]; !ok {
			ho.leaving[c] = make(chan struct{})
			leaving = append(leaving, c)
		}
	}
	return send, func(err error) {
		svc.handovers.mu.Lock()
		defer svc.handovers.mu.Unlock()
		for _, c := range leaving {
			if err == nil {
				ho.removed[h][c] = true
			}
			close(ho.leaving[c])
			delete(ho.leaving, c)
		}
	}
}

// canonical is a domain in canonical form, or as written when it is not an
// origin.
func canonical(d string) string {
	if c, err := apiclient.CanonicalOrigin(d); err == nil {
		return c
	}
	return d
}
