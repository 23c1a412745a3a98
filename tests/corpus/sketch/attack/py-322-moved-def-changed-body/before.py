import sys


def main():
    return helper(1)


def helper(x):
    return x + 1


def tail():
    pass
