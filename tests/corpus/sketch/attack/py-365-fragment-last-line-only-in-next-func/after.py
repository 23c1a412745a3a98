def foo():
    a = 1
    b = 2
    return b


def bar():
    b = 5
    return b
