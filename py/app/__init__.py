"""Browser side of Courtyard Ludo.

The pure modules -- ``table`` (one match: seats, agents, record, dice, clock), ``view``
(scene in, SVG out), ``panel`` (scene in, panel markup out), ``setup`` (settings and the
setup form's markup), ``savegame``, ``storekeys`` (which copy of the app, by its folder, a
stored key belongs to), ``room`` (an online room: the host's and a guest's side of the game
protocol of :mod:`net`, each driving a table) and ``roomview`` (its markup) -- run in
CPython and are tested there. Only ``app.browser`` imports the browser (js/pyscript).
"""
