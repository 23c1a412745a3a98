package p

func Find(m [][]int, v int) bool {
	found := false
outer:
	for _, row := range m {
		for _, x := range row {
			if x == v {
				found = true
				break outer
			}
		}
	}
	return found && v != 0
}

func Other() int {
	return 1
}
