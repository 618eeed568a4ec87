"""The local API: an AnkiConnect-compatible JSON server on 127.0.0.1 for tools that write cards."""
