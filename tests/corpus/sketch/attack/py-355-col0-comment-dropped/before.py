def f():
    a = 1
#   b = 2
    c = 3
    return a + c
