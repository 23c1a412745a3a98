package p

func f() int {
	a := 1
	b := 3
	c := 3
	return a + b + c
}

func g() int {
	return 0
}
