TEMPLATE = """
def stub():
    # ... existing code ...
    pass
"""


def a():
    return 1


def b():
    return 3
