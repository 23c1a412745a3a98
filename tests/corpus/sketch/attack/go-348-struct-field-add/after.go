package p

type A struct {
	Name string
	Age  int
}

type B struct {
	Name string
	Age  int
	Email string
}
