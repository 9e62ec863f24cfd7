"""One function per DVC stage, wiring the library to paths and params.

Dependency direction: ``fingap.steps`` uses the library packages (``fingap.answers``, ...);
nothing in the library imports ``fingap.steps``. Stages moved here as they are written or
rewritten; the older flat ``*_steps.py`` modules follow the same rule.
"""
