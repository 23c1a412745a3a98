def usage():
    text = """
Usage: foo [options]
  -h  help
"""
    print(text.strip())
    return text


def other():
    return 1
