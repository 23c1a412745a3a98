package p

func Main() int {
	return helper(1)
}

func helper(x int) int {
	return x + 1
}

func Tail() {}
