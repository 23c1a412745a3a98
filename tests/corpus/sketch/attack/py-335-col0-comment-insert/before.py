def compute(x):
    y = x * 2
# TODO: remove
    z = y + 1
    return z


def other():
    return 0
