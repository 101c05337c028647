"""Resource namespaces (``client.content``, ``client.monitors``, ...), one module per section."""
