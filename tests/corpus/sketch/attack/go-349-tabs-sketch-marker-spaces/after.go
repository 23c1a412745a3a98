package p

func F() int {
	a := 1
	b := 2
	log.Println(a)
	return a + b
}
