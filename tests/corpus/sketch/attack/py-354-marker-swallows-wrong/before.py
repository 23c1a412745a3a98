def f():
    x = load("a")
    use(x)
    x = load("b")
    use(x)
