def go():
    result = call(
        alpha,
        beta,
    )
    return result
