import os


def f():
    a = 1
    c = 3
    return a + c


def g():
    return 0
