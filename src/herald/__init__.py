"""Herald: self-hosted content intelligence."""

__version__ = "0.1.0"
