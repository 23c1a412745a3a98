def foo():
    result = compute()
    return None


def bar():
    value = other()
    return None
