import os


def f():
    a = 1
    log.info("computed")
    return a


def g():
    return 2
