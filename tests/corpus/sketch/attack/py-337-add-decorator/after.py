import functools


class K:
    def a(self):
        return 1

    @functools.cache
    def b(self):
        return 2

    def c(self):
        return 3
