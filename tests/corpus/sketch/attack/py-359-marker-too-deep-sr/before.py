def f():
    a = 1
    c = 3
    return a + c
