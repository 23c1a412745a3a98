package main

import (
	"fmt"
	"strings"
)

func main() {
	fmt.Println(strings.ToUpper("x"))
}
