def f():
    a = 1
# legacy: a = 0
    c = 3
    log(c)
    return a + c
