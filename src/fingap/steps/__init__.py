"""One function per DVC stage (or group of stages), wiring the library to paths and params.

``stages/NAME.py`` calls one function of this package; the ``fingap`` CLI calls the same ones.
Dependency direction (checked by tests/test_layout.py): ``fingap.steps`` uses the library
packages; nothing in the library imports ``fingap.steps``.
"""
