"""Placeholder: subcommands registered here are not implemented yet."""


def register(sub):
    pass
