"""``python -m ragspine``: the same command line as the ``ragspine`` script."""

from ragspine.cli import main

if __name__ == "__main__":
    main()
