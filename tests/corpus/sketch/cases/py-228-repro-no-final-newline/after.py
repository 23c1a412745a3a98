class A:
    def f(self):
        return 10

    def g(self):
        return 2


def h():
    return 3