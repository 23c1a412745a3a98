def go():
    result = call(
        alpha,
        beta,
        timeout=5,
    )
    return result
