def compute(x):
    y = x * 2
#    print("debug", y)
    z = y + 1
    return z


def other():
    return 0
