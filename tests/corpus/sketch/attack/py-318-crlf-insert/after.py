import os


def f():
    a = 1
    b = 2
    return a + b


def g():
    return 2
