class Rec:
    def __init__(self, data):
        self._data = data

    @property
    def name(self):
        self._check()
        return self._data["name"]

    @property
    def email(self):
        self._check()
        return self._data["email"]
