package p

func Foo() int {
	a := 1
	b := 2
	return b
}

func Bar() int {
	b := 5
	return b
}
