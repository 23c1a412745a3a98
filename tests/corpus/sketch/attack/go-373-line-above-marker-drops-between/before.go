package p

func Run() {
	open()
	write()
	flush()
}

func Other() {}
