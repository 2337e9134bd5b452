"""Browser side of Courtyard Ludo.

``view`` and ``narrate`` are pure Python (tested in CPython); ``controller``
and ``storage`` are the only modules that import the browser (js/pyscript).
"""
