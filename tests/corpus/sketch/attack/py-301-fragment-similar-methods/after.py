class A:
    def get_a(self):
        x = self.load()
        return x + 1

    def get_b(self):
        x = self.load()
        return x + 2

    def get_c(self):
        x = self.load()
        return x + 1
