"""Errors the library raises; the CLI turns each into one line on stderr and exit code 2."""


class CurriwatchError(Exception):
    """Base of every error curriwatch reports to a user (bad input, bad config)."""


class InputError(CurriwatchError):
    """The logdir or a run cannot be used at all (missing, not a folder, nothing readable)."""


class ConfigError(CurriwatchError):
    """A configuration file, profile or option is invalid; the message names the key."""
