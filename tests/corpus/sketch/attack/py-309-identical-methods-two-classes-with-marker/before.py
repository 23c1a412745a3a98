class Cat:
    def speak(self):
        return "..."

    def size(self):
        return 1


class Dog:
    def speak(self):
        return "..."

    def size(self):
        return 1
