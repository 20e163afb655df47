"""Renderers: each turns the library's result objects into one output format."""
