// Package ratelimit keeps one token bucket per robot (robot:<id>) and per anonymous IP (ip:<addr>).
package ratelimit

import (
	"sync"

	"golang.org/x/time/rate"
)

// Limiter is per process: N replicas allow N times the limit (robots.rate_limit overrides it).
type Limiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func (l *Limiter) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(50, 200)
		l.buckets[key] = b
	}
	return b.Allow()
}
