class Util:
    def __init__(self):
        self.n = 0

    @staticmethod
    def parse(text):
        return text.split(",")

    @staticmethod
    def render(items):
        return ",".join(items)
