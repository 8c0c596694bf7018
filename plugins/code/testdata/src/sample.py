"""Sample module for outline and find_symbol."""
import os

MAX_ITEMS = 10
name: str = "server"
a, b = 1, 2


class Base:
    """A base class."""

    kind = "base"
    size: int = 0

    def __init__(self, name):
        self.name = name

    @property
    def label(self):
        return self.name.upper()

    @staticmethod
    def make(
        name: str,
        size: int = 0,
    ) -> "Base":
        return Base(name)

    class Inner:
        def deep(self):
            pass


def helper(x, *args, **kwargs):
    """Help."""

    def nested():
        return x

    return nested()


async def fetch(url):
    return url


if os.environ.get("DEBUG"):
    def debug_only():
        pass
