"""Shape helpers."""

import math


class Circle:
    def __init__(self, r):
        if r < 0:
            raise ValueError("radius must be non-negative")
        self.r = r

    def area(self):
        return math.pi * self.r ** 2

    def perimeter(self):
        return 2 * math.pi * self.r


def scaled(circle, k):
    return Circle(circle.r * k)


def unit_circle():
    return Circle(1.0)
