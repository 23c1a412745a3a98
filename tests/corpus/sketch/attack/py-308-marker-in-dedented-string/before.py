def usage():
    text = """
Usage: foo [options]
  -h  help
"""
    print(text)
    return text


def other():
    return 1
