class K:
    @property
    def a(self):
        return 1

    @property
    def b(self):
        return 2

    @property
    def c(self):
        return 3
