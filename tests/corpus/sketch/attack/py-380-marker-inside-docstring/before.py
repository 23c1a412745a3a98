def f(x):
    """Compute.

    Long text.
    More text.
    """
    return x + 1
