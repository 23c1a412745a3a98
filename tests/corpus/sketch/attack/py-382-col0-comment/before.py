def f():
    a = 1
# legacy: a = 0
    c = 3
    return a + c
