import argparse


def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--alpha", type=int, default=1)
    parser.add_argument("--beta", type=int, default=2)
    parser.add_argument("--gamma", type=int, default=3)
    return parser
