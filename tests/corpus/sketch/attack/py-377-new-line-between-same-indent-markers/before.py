class A:
    x = 1

    def f(self):
        return self.x

    def g(self):
        return 2
