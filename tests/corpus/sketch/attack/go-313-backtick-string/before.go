package p

import "fmt"

func help() string {
	s := `usage: tool
  -v verbose
`
	fmt.Println(s)
	return s
}

func other() int {
	return 1
}
