"""Browser side of Courtyard Ludo.

The pure modules -- ``table`` (one match: seats, agents, record, dice, clock), ``view``
(scene in, SVG out), ``panel`` (scene in, panel markup out), ``setup`` (settings and the
setup form's markup) and ``savegame`` -- run in CPython and are tested there. Only
``app.browser`` imports the browser (js/pyscript).
"""
