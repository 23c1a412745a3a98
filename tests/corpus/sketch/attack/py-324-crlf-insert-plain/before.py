import os


def f():
    a = 1
    return a


def g():
    return 2
