def foo():
    result = compute()
    log(result)
    return result


def bar():
    value = other()
    return None
