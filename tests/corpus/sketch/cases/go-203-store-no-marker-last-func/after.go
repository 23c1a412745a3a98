package store

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrNotFound is returned when a key does not exist.
var ErrNotFound = errors.New("store: not found")

type entry struct {
	value   []byte
	expires time.Time
}

// Store is an in-memory key-value store with per-key expiry.
type Store struct {
	mu    sync.RWMutex
	items map[string]entry
	now   func() time.Time
}

// New returns an empty Store.
func New() *Store {
	return &Store{
		items: make(map[string]entry),
		now:   time.Now,
	}
}

// Get returns the value stored under key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.items[key]
	if !ok {
		return nil, ErrNotFound
	}
	if !e.expires.IsZero() && s.now().After(e.expires) {
		return nil, ErrNotFound
	}
	return e.value, nil
}

// Set stores value under key; ttl 0 means no expiry.
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := entry{value: value}
	if ttl > 0 {
		e.expires = s.now().Add(ttl)
	}
	s.items[key] = e
	return nil
}

// Delete removes key; deleting a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, key)
	return nil
}

// Len returns the number of keys, expired ones included.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	now := s.now()
	for _, e := range s.items {
		if e.expires.IsZero() || now.Before(e.expires) {
			n++
		}
	}
	return n
}
