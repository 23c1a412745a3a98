class K:
    def a(self):
        v = 1
# XXX hack
        return v

    def b(self):
        return 3
