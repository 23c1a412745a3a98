import sys


def usage():
    text = """
Usage: foo [options]
  -h  help
"""
    sys.stdout.write(text)
    return 0


def other():
    return 1
