def doc():
    return """
        Line one.
        Line two.
        Line three.
    """
