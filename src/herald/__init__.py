"""Herald: self-hosted content intelligence."""

__version__ = "0.2.0"
