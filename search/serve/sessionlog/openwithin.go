package sessionlog

import (
	"context"
	"time"
)

// OpenWithin opens the store spec (Open), failing within d: an unreachable
// store must not hang a server's start.
func OpenWithin(ctx context.Context, spec string, d time.Duration) (Store, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return Open(ctx, spec)
}
