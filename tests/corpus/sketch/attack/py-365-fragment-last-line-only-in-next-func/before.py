def foo():
    a = 1
    b = 2
    return a


def bar():
    b = 5
    return b
