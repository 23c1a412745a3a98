package p

import "fmt"

func help() string {
	s := `usage: tool
  -v verbose
`
	fmt.Print(s)
	return s
}

func other() int {
	return 1
}
