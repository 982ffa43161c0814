"""A small package for the code prior's tests."""

from .stack import Stack

__all__ = ["Stack"]
