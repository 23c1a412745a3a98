def usage():
    text = """
Usage: x
"""
    print(text)
    return text
