def usage():
    text = """
Usage: x
"""
    print(text, file=sys.stderr)
    return text
