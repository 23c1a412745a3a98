import os


def f():
    a = 1
    c = 3
    log(a)
    return a + c


def g():
    return 0
