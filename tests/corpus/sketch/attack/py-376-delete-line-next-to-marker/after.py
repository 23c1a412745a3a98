def run():
    a = 1
    b = 2
    c = 3
    d = 4
    return a + b + c + d
