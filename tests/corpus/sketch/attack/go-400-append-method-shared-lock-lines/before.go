package p

import "sync"

type Store struct {
	mu sync.Mutex
	m  map[string]int
}

func (s *Store) Get(k string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k]
}
