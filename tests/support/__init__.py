"""Helpers shared by the tests, imported by one path: ``tests.support``."""
