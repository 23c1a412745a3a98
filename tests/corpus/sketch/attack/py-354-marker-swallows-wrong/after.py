def f():
    x = load("a")
    use(x)
    x = load("c")
    use(x)
