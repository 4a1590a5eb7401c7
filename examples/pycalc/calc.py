"""A tiny calculator: the code a PRD asked an agent to write."""
import sys


def add(a, b):
    """Returns a + b."""
    return a + b


def main(argv):
    a, b = (int(x) for x in argv[1:3])
    sys.stdout.write(f"{add(a, b)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
