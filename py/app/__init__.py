"""Browser side of Courtyard Ludo.

``view``, ``narrate`` and ``savegame`` are pure Python (tested in CPython);
``controller``, ``storage`` and ``pwa`` are the only modules that import the browser
(js/pyscript).
"""
