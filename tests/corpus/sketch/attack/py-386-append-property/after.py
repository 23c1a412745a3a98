class User:
    def __init__(self, first, last):
        self.first = first
        self.last = last

    @property
    def initials(self):
        return self.first[0] + self.last[0]

    @property
    def full_name(self):
        return f"{self.first} {self.last}"


def helper():
    return 1
